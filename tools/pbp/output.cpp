// SPDX-License-Identifier: Apache-2.0
#include "output.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pbp::cli {

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

JsonObject& JsonObject::add(const std::string& key, double value) {
  return add_raw(key, json_number(value));
}

JsonObject& JsonObject::add_raw(const std::string& key, std::string encoded) {
  members_.emplace_back(key, std::move(encoded));
  return *this;
}

std::string JsonObject::str() const {
  std::string out = "{";
  for (size_t i = 0; i < members_.size(); ++i) {
    if (i > 0) out += ", ";
    out += json_string(members_[i].first) + ": " + members_[i].second;
  }
  return out + "}";
}

std::string json_array(const std::vector<std::string>& encoded_items) {
  std::string out = "[";
  for (size_t i = 0; i < encoded_items.size(); ++i) {
    if (i > 0) out += ", ";
    out += encoded_items[i];
  }
  return out + "]";
}

std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string general(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

namespace {

// Off a terminal: PBP_PROGRESS_SECONDS (whole seconds, 0 = every update), else 5.
ProgressBar::Clock::duration plain_interval() {
  const char* text = std::getenv("PBP_PROGRESS_SECONDS");
  long seconds = 5;
  if (text != nullptr && *text != '\0') {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*end == '\0' && value >= 0) seconds = value;
  }
  return std::chrono::seconds(seconds);
}

}  // namespace

std::string duration_text(double seconds) {
  char buffer[48];
  if (seconds < 60) {
    std::snprintf(buffer, sizeof buffer, "%.1f s", seconds);
  } else if (seconds < 3600) {
    const long s = std::lround(seconds);
    std::snprintf(buffer, sizeof buffer, "%ld min %02ld s", s / 60, s % 60);
  } else {
    const long m = std::lround(seconds / 60);
    std::snprintf(buffer, sizeof buffer, "%ld h %02ld min", m / 60, m % 60);
  }
  return buffer;
}

ProgressBar::ProgressBar(std::string label, std::string unit)
    : ProgressBar(std::move(label), std::move(unit), stderr, ::isatty(STDERR_FILENO) == 1,
                  [] { return Clock::now(); }) {}

ProgressBar::ProgressBar(std::string label, std::string unit, std::FILE* out, bool terminal,
                         std::function<Clock::time_point()> now)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      out_(out),
      terminal_(terminal),
      now_(std::move(now)),
      plain_interval_(plain_interval()),
      start_(now_()) {}

void ProgressBar::finish() {
  if (drawn_ && terminal_) std::fputs("\r\033[K", out_);
  drawn_ = false;
}

void ProgressBar::update(uint64_t done, uint64_t total, const std::string& detail) {
  if (total == 0) return;
  const Clock::time_point now = now_();
  if (terminal_) {
    if (drawn_ && done < total && now - last_draw_ < std::chrono::milliseconds(50)) return;
  } else if (now - (drawn_ ? last_draw_ : start_) < plain_interval_ || done >= total) {
    return;  // a plain line only every few seconds, and none for work that just finished
  }
  last_draw_ = now;
  drawn_ = true;
  done = std::min(done, total);
  const double seconds = std::chrono::duration<double>(now - start_).count();
  std::string where = detail;
  if (where.empty()) {
    where = std::to_string(done) + "/" + std::to_string(total) + (unit_.empty() ? "" : " ") + unit_;
  }
  std::string timing = duration_text(seconds);
  if (done > 0 && done < total) {  // the rate so far, applied to what is left
    const double left = seconds * static_cast<double>(total - done) / static_cast<double>(done);
    timing += ", about " + duration_text(left) + " left";
  }
  if (terminal_) {
    constexpr uint64_t kWidth = 30;
    std::string bar(static_cast<size_t>(kWidth * done / total), '#');
    bar.append(kWidth - bar.size(), '.');
    std::fprintf(out_, "\r\033[K%s [%s] %s, %s", label_.c_str(), bar.c_str(), where.c_str(),
                 timing.c_str());
  } else {
    std::fprintf(out_, "%s: %s (%d %%), %s\n", label_.c_str(), where.c_str(),
                 static_cast<int>(100 * done / total), timing.c_str());
  }
  std::fflush(out_);
}

}  // namespace pbp::cli
