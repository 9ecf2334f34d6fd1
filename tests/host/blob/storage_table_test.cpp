// SPDX-License-Identifier: Apache-2.0
// The storage table (storage_types.hpp) read by every layer, checked once for every type in it:
// FORMAT.md lists the table's ids, names and byte lengths; a codec's decode inverts its encode
// (encoding the decoded values again gives the same bytes, float decodes are the double ones
// rounded); and a layer in a type its codec encodes predicts exactly what the float32 kernel does
// on its decoded weights (the same terms in the same order: bit-identical).
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <concepts>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "pbp/pbp.hpp"
#include "pbp/storage_types.hpp"
#include "pbp/trainer/blob.hpp"
#include "random_models.hpp"
#include "test_paths.hpp"

namespace {

template <class Codec>
concept EncodesTensors = requires(const double* values, uint8_t* bytes) {
  { Codec::encode(values, false, 1u, 1u, bytes) } -> std::same_as<const char*>;
};

struct FormatRow {
  std::string type_name, mean_bytes, variance_bytes;
};

// FORMAT.md's "Storage types" rows: "| id | `name` | mean bytes | variance bytes | ... |".
std::map<uint32_t, FormatRow> format_rows() {
  std::ifstream in(pbp::test_paths::source_dir() + "/runtime/FORMAT.md");
  std::map<uint32_t, FormatRow> rows;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("### ", 0) == 0) inside = line == "### Storage types";
    if (!inside || line.rfind("| ", 0) != 0 || line.size() < 3 || !std::isdigit(line[2])) continue;
    std::vector<std::string> cells;
    std::stringstream cells_in(line.substr(1));
    for (std::string cell; std::getline(cells_in, cell, '|');) {
      cells.push_back(cell.substr(1, cell.size() - 2));
    }
    rows[static_cast<uint32_t>(std::stoul(cells.at(0)))] = {
        cells.at(1).substr(1, cells.at(1).size() - 2), cells.at(2), cells.at(3)};
  }
  return rows;
}

// A byte length as FORMAT.md writes it, "4 x rows + element_count": terms joined by " + ", each
// a number, a name, or "number x name".
uint64_t evaluate(const std::string& text, uint64_t rows, uint64_t count) {
  uint64_t total = 0;
  std::stringstream terms(text);
  for (std::string term; std::getline(terms, term, '+');) {
    std::stringstream words(term);
    uint64_t product = 1;
    for (std::string word; words >> word;) {
      if (word == "x") continue;
      product *= word == "rows" ? rows : word == "element_count" ? count : std::stoull(word);
    }
    total += product;
  }
  return total;
}

TEST(StorageTable, FormatMdListsEveryTypeWithItsNameAndByteLengths) {
  const std::map<uint32_t, FormatRow> rows = format_rows();
  size_t types = 0;
#define PBP_CHECK_FORMAT_ROW(Codec, name, built, kernel, validator)                       \
  {                                                                                       \
    ++types;                                                                              \
    ASSERT_EQ(rows.count(Codec::kId), 1u) << name;                                        \
    const FormatRow& row = rows.at(Codec::kId);                                           \
    EXPECT_EQ(row.type_name, name);                                                       \
    for (const auto& [outputs, count] : {std::pair<uint32_t, uint32_t>{1, 1}, {3, 15}}) { \
      EXPECT_EQ(evaluate(row.mean_bytes, outputs, count),                                 \
                Codec::byte_length(false, outputs, count))                                \
          << name;                                                                        \
      EXPECT_EQ(evaluate(row.variance_bytes, outputs, count),                             \
                Codec::byte_length(true, outputs, count))                                 \
          << name;                                                                        \
    }                                                                                     \
  }
  PBP_STORAGE_TYPES(PBP_CHECK_FORMAT_ROW)
#undef PBP_CHECK_FORMAT_ROW
  EXPECT_EQ(rows.size(), types) << "FORMAT.md lists a type the table does not have";
}

// Weights spread over many binades, as a trained layer's are: means of both signs, variances > 0.
template <class Codec>
void expect_decode_inverts_encode(uint32_t rows, uint32_t row_length, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> exponent(-20.0, 4.0);
  for (const bool variance : {false, true}) {
    const uint32_t count = rows * row_length;
    std::vector<double> values(count);
    for (double& v : values) v = variance ? std::exp2(exponent(rng)) : normal(rng);
    std::vector<uint8_t> bytes(Codec::byte_length(variance, rows, count));
    ASSERT_EQ(Codec::encode(values.data(), variance, rows, row_length, bytes.data()), nullptr);
    std::vector<double> decoded(count);
    std::vector<float> decoded_float(count);
    Codec::decode(bytes.data(), variance, rows, row_length, decoded.data());
    Codec::decode(bytes.data(), variance, rows, row_length, decoded_float.data());
    std::vector<uint8_t> again(bytes.size());
    ASSERT_EQ(Codec::encode(decoded.data(), variance, rows, row_length, again.data()), nullptr);
    EXPECT_EQ(again, bytes) << Codec::kId;
    for (uint32_t i = 0; i < count; ++i) {
      ASSERT_EQ(decoded_float[i], static_cast<float>(decoded[i])) << Codec::kId << " " << i;
      if (variance) {
        ASSERT_GT(decoded[i], 0.0) << Codec::kId << " " << i;
      }
    }
  }
}

TEST(StorageTable, EveryCodecsDecodeInvertsItsEncode) {
#define PBP_CHECK_CODEC(Codec, name, built, kernel, validator) \
  {                                                            \
    if constexpr (EncodesTensors<Codec>) {                     \
      expect_decode_inverts_encode<Codec>(1, 1, 1);            \
      expect_decode_inverts_encode<Codec>(7, 13, 2);           \
    }                                                          \
  }
  PBP_STORAGE_TYPES(PBP_CHECK_CODEC)
#undef PBP_CHECK_CODEC
}

// pbp inspect's rounding bound (the codec's widen_rounding_bound) holds every stored weight of a
// layer it encoded: each mean within mean_absolute of the float32 value it was rounded from, each
// variance within variance_relative of its stored value.
template <class Codec>
void expect_rounding_bound_holds(uint32_t rows, uint32_t row_length, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> exponent(-30.0, 4.0);
  const uint32_t count = rows * row_length;
  std::vector<double> values[2] = {std::vector<double>(count), std::vector<double>(count)};
  std::vector<uint8_t> bytes[2];
  std::vector<double> decoded[2] = {std::vector<double>(count), std::vector<double>(count)};
  for (const bool variance : {false, true}) {
    for (double& v : values[variance]) v = variance ? std::exp2(exponent(rng)) : normal(rng);
    bytes[variance].resize(Codec::byte_length(variance, rows, count));
    ASSERT_EQ(
        Codec::encode(values[variance].data(), variance, rows, row_length, bytes[variance].data()),
        nullptr);
    Codec::decode(bytes[variance].data(), variance, rows, row_length, decoded[variance].data());
  }
  double mean_absolute = 0.0, variance_relative = 0.0;
  pbp::widen_rounding_bound<double>(Codec::kId, bytes[0].data(), bytes[1].data(), rows, row_length,
                                    mean_absolute, variance_relative);
  for (uint32_t i = 0; i < count; ++i) {
    const double mean = static_cast<float>(values[0][i]), var = static_cast<float>(values[1][i]);
    EXPECT_LE(std::abs(mean - decoded[0][i]), mean_absolute) << Codec::kId << " " << i;
    EXPECT_LE(std::abs(var - decoded[1][i]), variance_relative * decoded[1][i])
        << Codec::kId << " " << i;
  }
}

TEST(StorageTable, EveryEncodedTypesRoundingBoundHoldsItsWeights) {
#define PBP_CHECK_BOUND(Codec, name, built, kernel, validator) \
  if constexpr (EncodesTensors<Codec>) expect_rounding_bound_holds<Codec>(9, 17, 3);
  PBP_STORAGE_TYPES(PBP_CHECK_BOUND)
#undef PBP_CHECK_BOUND
  double mean_absolute = 0.0, variance_relative = 0.0;  // float16 reports a bound: not 0
  const uint8_t one_half[2] = {0x00, 0x3C};             // 1.0
  pbp::widen_rounding_bound<double>(PBP_STORAGE_FLOAT16, one_half, one_half, 1, 1, mean_absolute,
                                    variance_relative);
  EXPECT_EQ(mean_absolute, std::exp2(-11.0));
  EXPECT_EQ(variance_relative, std::exp2(-11.0));
}

pbp::Prediction predict(const std::vector<uint8_t>& blob, const std::vector<float>& x) {
  pbp::Model model;
  EXPECT_EQ(model.open(blob.data(), blob.size()), PBP_OK);
  std::vector<uint8_t> workspace(model.workspace_bytes());
  pbp::Prediction p{};
  EXPECT_EQ(model.predict(x.data(), static_cast<uint32_t>(x.size()), 0.9f, workspace.data(),
                          workspace.size(), &p),
            PBP_OK);
  return p;
}

// The type's blob (its kernel) and a float32 blob of its decoded weights (the float32 kernel).
template <class Codec>
void expect_kernel_matches_float32(uint64_t seed) {
  pbp::trainer::Model model = pbp::test_fixtures::random_model(9, {12, 5}, seed);
  model.weight_storage = static_cast<pbp::format::Storage>(Codec::kId);
  const std::vector<uint8_t> blob = pbp::trainer::write_blob(model);
  pbp::trainer::Model decoded = pbp::trainer::read_blob(blob);
  ASSERT_EQ(static_cast<uint32_t>(decoded.weight_storage), Codec::kId);
  decoded.weight_storage = pbp::format::Storage::float32;
  const std::vector<uint8_t> float32_blob = pbp::trainer::write_blob(decoded);
  std::mt19937_64 rng(seed);
  for (int row = 0; row < 50; ++row) {
    const std::vector<double> x = pbp::test_fixtures::random_row(model, rng);
    const std::vector<float> xf(x.begin(), x.end());
    const pbp::Prediction stored = predict(blob, xf);
    const pbp::Prediction reference = predict(float32_blob, xf);
    ASSERT_EQ(std::memcmp(&stored.mean, &reference.mean, sizeof(float)), 0) << Codec::kId;
    ASSERT_EQ(std::memcmp(&stored.std, &reference.std, sizeof(float)), 0) << Codec::kId;
  }
}

TEST(StorageTable, EveryEncodedTypesKernelIsTheFloat32KernelOnItsDecodedWeights) {
#define PBP_CHECK_KERNEL(Codec, name, built, kernel, validator) \
  if constexpr (EncodesTensors<Codec>) {                        \
    expect_kernel_matches_float32<Codec>(Codec::kId);           \
  }
  PBP_STORAGE_TYPES(PBP_CHECK_KERNEL)
#undef PBP_CHECK_KERNEL
}

}  // namespace
