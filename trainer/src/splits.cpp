// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/splits.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <string_view>

#include "pbp/trainer/csv.hpp"

namespace pbp::trainer {
namespace {

// SplitMix64: tiny, well mixed and fully specified, unlike std:: distributions.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound) without modulo bias.
  uint64_t below(uint64_t bound) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t value;
    do value = next();
    while (value >= limit);
    return value % bound;
  }

 private:
  uint64_t state_;
};

// Parses one index token: a non-negative integer, optionally written with a zero fraction.
bool parse_index(std::string_view token, size_t& index) {
  const auto [stop, error] = std::from_chars(token.data(), token.data() + token.size(), index);
  if (error != std::errc()) return false;
  std::string_view rest(stop, token.data() + token.size() - stop);
  if (rest.empty()) return true;
  if (rest.front() != '.') return false;
  return rest.find_first_not_of('0', 1) == std::string_view::npos;
}

std::vector<size_t> read_index_file(const std::string& path, size_t rows) {
  std::ifstream file(path);
  if (!file) throw InputError(path, 0, 0, "cannot open file");
  std::vector<size_t> indices;
  std::string line;
  for (size_t line_number = 1; std::getline(file, line); ++line_number) {
    size_t position = 0;
    while (true) {
      position = line.find_first_not_of(" \t\r,", position);
      if (position == std::string::npos) break;
      const size_t end = std::min(line.find_first_of(" \t\r,", position), line.size());
      const std::string_view token(line.data() + position, end - position);
      size_t index = 0;
      if (!parse_index(token, index)) {
        throw InputError(path, line_number, position + 1,
                         "not a row index: '" + std::string(token) + "'");
      }
      if (index >= rows) {
        throw InputError(path, line_number, position + 1,
                         "row index " + std::to_string(index) + " is out of range (the data has " +
                             std::to_string(rows) + " rows)");
      }
      indices.push_back(index);
      position = end;
    }
  }
  if (indices.empty()) throw InputError(path, 1, 1, "no row indices");
  return indices;
}

}  // namespace

std::vector<Split> random_splits(size_t rows, size_t count, double test_fraction, uint64_t seed) {
  if (rows < 3) throw std::invalid_argument("random splits need at least 3 rows");
  if (count == 0) throw std::invalid_argument("need at least one split");
  if (!(test_fraction > 0.0 && test_fraction < 1.0)) {
    throw std::invalid_argument("the test fraction must be between 0 and 1");
  }
  const double train_rows = std::floor(static_cast<double>(rows) * (1.0 - test_fraction) + 1e-9);
  size_t test_rows = rows - static_cast<size_t>(train_rows);
  test_rows = std::clamp<size_t>(test_rows, 1, rows - 2);

  SplitMix64 random(seed);
  std::vector<Split> splits(count);
  for (Split& split : splits) {
    std::vector<size_t> order(rows);
    std::iota(order.begin(), order.end(), size_t{0});
    for (size_t i = rows - 1; i > 0; --i) std::swap(order[i], order[random.below(i + 1)]);
    split.test.assign(order.begin(), order.begin() + static_cast<ptrdiff_t>(test_rows));
    split.train.assign(order.begin() + static_cast<ptrdiff_t>(test_rows), order.end());
  }
  return splits;
}

std::vector<Split> read_split_files(const std::string& directory, size_t rows) {
  const std::filesystem::path base(directory);
  if (!std::filesystem::is_directory(base)) {
    throw InputError(directory, 0, 0, "not a directory of split files");
  }
  std::vector<Split> splits;
  for (size_t s = 0;; ++s) {
    const std::filesystem::path train = base / ("index_train_" + std::to_string(s) + ".txt");
    const std::filesystem::path test = base / ("index_test_" + std::to_string(s) + ".txt");
    if (!std::filesystem::exists(train)) break;
    if (!std::filesystem::exists(test)) {
      throw InputError(test.string(), 0, 0, "missing (its train file exists)");
    }
    splits.push_back({read_index_file(train.string(), rows), read_index_file(test.string(), rows)});
  }
  if (splits.empty()) {
    throw InputError((base / "index_train_0.txt").string(), 0, 0, "no split files found");
  }
  return splits;
}

}  // namespace pbp::trainer
