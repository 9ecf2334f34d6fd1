// SPDX-License-Identifier: Apache-2.0
#include "output.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

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

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)),
      enabled_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

void ProgressBar::finish() {
  if (drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
}

void ProgressBar::update(uint64_t done, uint64_t total) {
  if (!enabled_ || total == 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && done < total && now - last_draw_ < std::chrono::milliseconds(50)) return;
  last_draw_ = now;
  drawn_ = true;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * std::min(done, total) / total);
  const double seconds = std::chrono::duration<double>(now - start_).count();
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kWidth - filled), '.');
  std::fprintf(stderr, "\r%s [%s] %llu/%llu %.1f s", label_.c_str(), bar.c_str(),
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
               seconds);
  std::fflush(stderr);
}

}  // namespace pbp::cli
