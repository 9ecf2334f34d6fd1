// SPDX-License-Identifier: Apache-2.0
// Output helpers: JSON writing, number formatting and a TTY-only progress bar.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pbp::cli {

// Shortest text that reads back as the same double; "null" for NaN/Inf (JSON has neither).
std::string json_number(double value);
std::string json_string(const std::string& text);

// A flat JSON object built in insertion order; values are already-encoded JSON.
class JsonObject {
 public:
  JsonObject& add(const std::string& key, double value);
  JsonObject& add_raw(const std::string& key, std::string encoded);
  std::string str() const;  // one line, no trailing newline

 private:
  std::vector<std::pair<std::string, std::string>> members_;
};

std::string json_array(const std::vector<std::string>& encoded_items);

// printf-style "%.<digits>f" / "%.<digits>g" without iostream state.
std::string fixed(double value, int digits);
std::string general(double value, int digits);

// Draws "[#####.....] 12/40 epochs 3.1 s" on stderr when stderr is a terminal; silent otherwise.
class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar() { finish(); }
  // Redraws at most every 50 ms (and always at the end), so fast loops stay fast.
  void update(uint64_t done, uint64_t total);
  void finish();  // clears the line; call before printing anything else
  bool enabled() const { return enabled_; }

 private:
  std::string label_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

}  // namespace pbp::cli
