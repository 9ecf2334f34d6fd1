// SPDX-License-Identifier: Apache-2.0
// Output helpers: JSON writing, number formatting and a progress display.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
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

// Progress of long work on stderr. On a terminal: one line redrawn in place, "training [####....]
// 12/40 epochs, 3.1 s, about 7 s left"; elsewhere (a log, CI) a plain line every few seconds
// (PBP_PROGRESS_SECONDS, default 5; 0: every update), so a long run is never silent.
class ProgressBar {
 public:
  using Clock = std::chrono::steady_clock;
  // `unit` names what is counted ("epochs", "splits"); the stream, terminal test and clock are
  // injectable for tests.
  explicit ProgressBar(std::string label, std::string unit = "");
  ProgressBar(std::string label, std::string unit, std::FILE* out, bool terminal,
              std::function<Clock::time_point()> now);
  ~ProgressBar() { finish(); }
  // `detail` says where the work stands in the user's terms ("candidate 3 of 10, epoch 12 of
  // 200"); shown instead of done/total. Redraws at most every 50 ms, so fast loops stay fast.
  void update(uint64_t done, uint64_t total, const std::string& detail = "");
  void finish();  // clears the terminal line; call before printing anything else
  bool enabled() const { return terminal_; }

 private:
  std::string label_;
  std::string unit_;
  std::FILE* out_;
  bool terminal_;
  std::function<Clock::time_point()> now_;
  Clock::duration plain_interval_;
  Clock::time_point start_;
  Clock::time_point last_draw_{};
  bool drawn_ = false;
};

// "3.1 s", "2 min 05 s", "1 h 02 min": elapsed and remaining times as people read them.
std::string duration_text(double seconds);

}  // namespace pbp::cli
