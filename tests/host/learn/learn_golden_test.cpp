// SPDX-License-Identifier: Apache-2.0
// Generates tests/runtime/learn/learn_vectors.h, the golden update sequences every target's
// learner must reproduce bit for bit (tests/runtime/learn), and checks it is current. The models
// are built from exact binary fractions (no training, no libm): their blobs are the same bytes
// on every host build. Regenerate after a deliberate change of the learner's float arithmetic:
//   PBP_REGENERATE_FIXTURES=1 ctest --test-dir build/host -R LearnGolden
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "learn_fixture.hpp"
#include "pbp/format.hpp"
#include "test_paths.hpp"

namespace pbp_learn_test {
namespace {

constexpr const char* kHeaderPath = "tests/runtime/learn/learn_vectors.h";
// Past kRecalibrationRows (32, learn_calibration.hpp): the epistemic-scaled case re-fits.
constexpr uint32_t kRows = 40;
constexpr uint32_t kInputs = 3;

// A value in [-1, 1) in steps of 1/64 from an integer hash: exact in float and double.
double fraction(uint32_t seed) {
  uint32_t h = seed * 2654435761u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return static_cast<double>(static_cast<int32_t>(h % 128u) - 64) / 64.0;
}

Model exact_model(Task task, uint32_t hidden, uint32_t salt, double epistemic_scale) {
  Model model;
  model.task = task;
  model.epistemic_scale = epistemic_scale;  // not 1: likelihood gaussian_epistemic_scaled
  const uint32_t widths[3] = {kInputs, hidden, 1};
  for (uint32_t l = 0; l < 2; ++l) {
    Layer layer;
    layer.inputs = widths[l];
    layer.outputs = widths[l + 1];
    layer.activation = l == 0 ? Activation::relu : Activation::linear;
    for (uint32_t i = 0; i < layer.outputs * layer.row_length(); ++i) {
      layer.mean.push_back(fraction(salt + 100 * l + i));
      layer.variance.push_back(0.0625 + 0.25 * (fraction(salt + 7000 + 100 * l + i) + 1.0));
    }
    model.layers.push_back(layer);
  }
  model.noise = {6.0, 3.0};
  model.prior = {6.0, 6.0};
  Standardisation& s = model.standardisation;
  for (uint32_t k = 0; k < kInputs; ++k) {
    s.input_mean.push_back(0.25 * k);
    s.input_std.push_back(1.0 + 0.5 * k);
    s.input_min.push_back(-4.0);
    s.input_max.push_back(4.0);
  }
  s.target_mean = task == Task::regression ? 0.5 : 0.0;
  s.target_std = task == Task::regression ? 2.0 : 1.0;
  return model;
}

struct Case {
  const char* what;
  std::vector<uint8_t> blob;
  std::vector<float> rows;     // kRows x kInputs
  std::vector<float> targets;  // kRows; row 5 has a NaN target: rejected, nothing changes
  std::vector<uint32_t> status, state_crc, noise_a, noise_b;
  std::vector<uint32_t> final_state;
  uint32_t written_size = 0, written_crc = 0;
};

Case run(const char* what, Task task, uint32_t hidden, uint32_t salt,
         double epistemic_scale = 1.0) {
  Case c;
  c.what = what;
  c.blob = write_blob(exact_model(task, hidden, salt, epistemic_scale));
  Learner l(c.blob);  // an epistemic-scaled model re-fits by default
  for (uint32_t r = 0; r < kRows; ++r) {
    float x[kInputs];
    for (uint32_t k = 0; k < kInputs; ++k) {
      x[k] = static_cast<float>(2.0 * fraction(salt + 50000 + r * kInputs + k));
    }
    const float signal = x[0] - x[1] * x[2];
    float y = task == Task::regression ? 3.0f * signal + 0.5f : (signal > 0.0f ? 1.0f : 0.0f);
    if (r == 5) y = std::nanf("");
    c.rows.insert(c.rows.end(), x, x + kInputs);
    c.targets.push_back(y);
    c.status.push_back(l.update(x, y));
    c.state_crc.push_back(
        pbp::format::crc32(reinterpret_cast<const uint8_t*>(l.state.data()), l.state.size() * 4));
    c.noise_a.push_back(bits(l.learner.model.noise_a));
    c.noise_b.push_back(bits(l.learner.model.noise_b));
  }
  for (float v : l.state) c.final_state.push_back(bits(v));
  std::vector<uint32_t> out(l.learner.blob_bytes / 4);
  size_t written = 0;
  if (pbp_learn_write_blob(&l.learner, out.data(), out.size() * 4, &written) != PBP_OK) {
    throw std::runtime_error("write-back failed");
  }
  c.written_size = static_cast<uint32_t>(written);
  // The trailer (a CRC over the whole blob, trailer included, is the same for every blob).
  c.written_crc = pbp::format::crc32(reinterpret_cast<const uint8_t*>(out.data()), written - 4);
  return c;
}

std::string hex_words(const std::vector<uint32_t>& words, const char* indent) {
  std::string text;
  char item[16];
  for (size_t i = 0; i < words.size(); ++i) {
    if (i % 6 == 0) text += i ? ",\n" + std::string(indent) : std::string(indent);
    std::snprintf(item, sizeof item, "%s0x%08xu", i % 6 ? ", " : "", words[i]);
    text += item;
  }
  return text;
}

std::string generate() {
  const Case cases[3] = {run("regression 3-6-1", Task::regression, 6, 1),
                         run("binary 3-5-1", Task::binary, 5, 2),
                         run("regression 3-6-1, epistemic scale 4: re-fitted after 32 rows",
                             Task::regression, 6, 1, 4.0)};
  std::string t =
      "/* SPDX-License-Identifier: Apache-2.0 */\n"
      "/* Generated by tests/host/learn/learn_golden_test.cpp; regenerate with\n"
      " * PBP_REGENERATE_FIXTURES=1 ctest -R LearnGolden. Do not edit. */\n"
      "#ifndef PBP_TEST_LEARN_VECTORS_H\n#define PBP_TEST_LEARN_VECTORS_H\n#include <stdint.h>\n\n"
      "#define PBP_LEARN_GOLDEN_CASES 3u\n#define PBP_LEARN_GOLDEN_ROWS " +
      std::to_string(kRows) + "u\n#define PBP_LEARN_GOLDEN_INPUTS " + std::to_string(kInputs) +
      "u\n\n";
  for (int i = 0; i < 3; ++i) {
    const Case& c = cases[i];
    const std::string n = std::to_string(i);
    std::vector<uint32_t> blob_words((c.blob.size() + 3) / 4);
    std::memcpy(blob_words.data(), c.blob.data(), c.blob.size());
    std::vector<uint32_t> row_bits, target_bits;
    for (float v : c.rows) row_bits.push_back(bits(v));
    for (float v : c.targets) target_bits.push_back(bits(v));
    t += "/* " + std::string(c.what) + " */\n";
    t += "static const uint32_t pbp_learn_blob_" + n + "[] = {\n" + hex_words(blob_words, "    ") +
         "};\n";
    t += "#define PBP_LEARN_BLOB_SIZE_" + n + " " + std::to_string(c.blob.size()) + "u\n";
    t += "static const uint32_t pbp_learn_rows_" + n + "[] = {\n" + hex_words(row_bits, "    ") +
         "};\n";
    t += "static const uint32_t pbp_learn_targets_" + n + "[] = {\n" +
         hex_words(target_bits, "    ") + "};\n";
    t += "/* After each row: the status, CRC-32 of the state's bytes, noise a and b bits. */\n";
    t += "static const uint32_t pbp_learn_status_" + n + "[] = {\n" + hex_words(c.status, "    ") +
         "};\n";
    t += "static const uint32_t pbp_learn_state_crc_" + n + "[] = {\n" +
         hex_words(c.state_crc, "    ") + "};\n";
    t += "static const uint32_t pbp_learn_noise_a_" + n + "[] = {\n" +
         hex_words(c.noise_a, "    ") + "};\n";
    t += "static const uint32_t pbp_learn_noise_b_" + n + "[] = {\n" +
         hex_words(c.noise_b, "    ") + "};\n";
    t += "/* The state after the last row, and the blob written from it. */\n";
    t += "static const uint32_t pbp_learn_final_state_" + n + "[] = {\n" +
         hex_words(c.final_state, "    ") + "};\n";
    t += "#define PBP_LEARN_STATE_WORDS_" + n + " " + std::to_string(c.final_state.size()) + "u\n";
    t += "#define PBP_LEARN_WRITTEN_SIZE_" + n + " " + std::to_string(c.written_size) + "u\n";
    char crc[64];
    std::snprintf(crc, sizeof crc, "#define PBP_LEARN_WRITTEN_CRC_%d 0x%08xu\n\n", i,
                  c.written_crc);
    t += crc;
  }
  t += "#endif /* PBP_TEST_LEARN_VECTORS_H */\n";
  return t;
}

TEST(LearnGolden, HeaderMatchesHostRuntime) {
  const std::string expected = generate();
  const std::string path = pbp::test_paths::source_dir() + "/" + kHeaderPath;
  const char* flag = std::getenv("PBP_REGENERATE_FIXTURES");
  if (flag != nullptr && std::string(flag) == "1")
    std::ofstream(path, std::ios::binary) << expected;
  std::ifstream in(path, std::ios::binary);
  const std::string actual((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(actual == expected) << kHeaderPath << " is not what the host learner gives now; if "
                                  << "the change is deliberate: PBP_REGENERATE_FIXTURES=1 ctest "
                                     "--test-dir build/host -R LearnGolden";
}

}  // namespace
}  // namespace pbp_learn_test
