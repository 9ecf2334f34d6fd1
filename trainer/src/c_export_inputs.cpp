// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/c_export_inputs.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

namespace pbp::trainer {
namespace {

std::string feature_name(const pbp_model& model, uint32_t index) {
  pbp_string name{nullptr, 0};
  if (index >= model.feature_name_count || pbp_feature_name(&model, index, &name) != PBP_OK) {
    return {};
  }
  return std::string(name.data, name.length);
}

std::string sanitised(const std::string& name) {
  std::string out;
  for (const char c : name) {
    const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (alnum) {
      out += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

// Every macro an input's part produces, so that de-duplication sees them all.
std::vector<std::string> macros_of(const std::string& part) {
  return {"INPUT_" + part, "INPUT_" + part + "_NAME", "INPUT_" + part + "_MIN",
          "INPUT_" + part + "_MAX"};
}

bool any_taken(const std::set<std::string>& taken, const std::string& part) {
  for (const std::string& m : macros_of(part)) {
    if (taken.count(m) != 0) return true;
  }
  return false;
}

// The shortest decimal that reads back as the same float ("0.00632", "100"; an exponent only
// where plain digits would need more than float's 9).
std::string shortest_decimal(float value) {
  char text[32] = "";
  int digits = 1;
  for (; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
    if (std::strtof(text, nullptr) == value) break;
  }
  for (int more = digits; std::strchr(text, 'e') != nullptr && more <= 9; ++more) {
    char plain[32];
    std::snprintf(plain, sizeof plain, "%.*g", more, static_cast<double>(value));
    if (std::strchr(plain, 'e') == nullptr && std::strtof(plain, nullptr) == value) {
      std::snprintf(text, sizeof text, "%s", plain);
    }
  }
  return text;
}

// As a C float literal: "24.0f", "(-0.5f)".
std::string float_literal(float value) {
  std::string out = shortest_decimal(value);
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return value < 0 ? "(" + out + "f)" : out + "f";
}

// A name as a C string literal: every byte but printable ASCII (quotes, backslashes and '?',
// against trigraphs, included) as a three-digit octal escape, which a next digit cannot extend.
std::string string_literal(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool plain = byte >= 0x20 && byte < 0x7f && c != '"' && c != '\\' && c != '?';
    char escape[8];
    std::snprintf(escape, sizeof escape, "\\%03o", static_cast<unsigned>(byte));
    out += plain ? std::string(1, c) : std::string(escape);
  }
  return out + "\"";
}

// A name inside a comment: control characters shown as '?', and no "*/" to end it early.
std::string comment_text(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    out += (byte < 0x20 || byte == 0x7f) ? '?' : c;
  }
  for (size_t at = out.find("*/"); at != std::string::npos; at = out.find("*/", at)) {
    out.insert(at + 1, " ");
  }
  return out;
}

// Characters as a terminal shows them: UTF-8 continuation bytes take no column.
size_t columns(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0u) != 0x80u;
  }));
}

std::string padded(std::string text, size_t width) {
  const size_t used = columns(text);
  if (used < width) text.append(width - used, ' ');
  return text;
}

}  // namespace

std::vector<std::string> input_macro_parts(const pbp_model& model) {
  std::set<std::string> taken{"INPUT_COUNT"};
  std::vector<std::string> parts;
  for (uint32_t i = 0; i < model.input_count; ++i) {
    std::string base = sanitised(feature_name(model, i));
    if (base.empty()) base = std::to_string(i);
    std::string part = base;
    for (unsigned n = 2; any_taken(taken, part); ++n) part = base + "_" + std::to_string(n);
    for (const std::string& m : macros_of(part)) taken.insert(m);
    parts.push_back(part);
  }
  return parts;
}

std::string input_section(const std::string& macro, const pbp_model& model) {
  const std::vector<std::string> parts = input_macro_parts(model);
  const bool ranges = model.input_min != nullptr && model.input_max != nullptr;
  size_t width = 5;       // "macro"
  size_t name_width = 6;  // "(none)"
  for (uint32_t i = 0; i < model.input_count; ++i) {
    width = std::max(width, macro.size() + 7 + parts[i].size());
    name_width = std::max(name_width, columns(comment_text(feature_name(model, i))));
  }
  std::string out =
      "/* The inputs, in the order pbp_predict reads them: fill `float x[" + macro +
      "_INPUT_COUNT]`\n * as x[" + macro + "_INPUT_<NAME>] = value. <NAME> is the column's name " +
      "upper-cased, each run of\n * other characters one '_', a repeat suffixed _2, _3...; " +
      "the index when the column has no\n * name. " +
      (ranges ? "Training range: the minimum and maximum over the training rows (outside them,\n"
                " * pbp_range_report flags the row). "
              : "No training ranges: the blob was written before they were recorded. ") +
      "Units: not recorded in the blob.\n *\n";
  out += " * index  " + padded("macro", width) + "  " +
         (ranges ? padded("name", name_width) + "  training min .. max" : "name") + "\n";
  for (uint32_t i = 0; i < model.input_count; ++i) {
    char index[16];
    std::snprintf(index, sizeof index, " * %5u  ", static_cast<unsigned>(i));
    std::string name = feature_name(model, i);
    const std::string shown = name.empty() ? "(none)" : comment_text(name);
    out += index + padded(macro + "_INPUT_" + parts[i], width) + "  ";
    if (ranges) {
      out += padded(shown, name_width) + "  " + shortest_decimal(model.input_min[i]) + " .. " +
             shortest_decimal(model.input_max[i]);
    } else {
      out += shown;
    }
    out += "\n";
  }
  const std::string target = std::string(model.target_name.data, model.target_name.length);
  out += " *\n * Target: " +
         (target.empty() ? std::string("not named in the blob") : comment_text(target)) + ". */\n";
  for (uint32_t i = 0; i < model.input_count; ++i) {
    const std::string m = macro + "_INPUT_" + parts[i];
    out += "#define " + m + " " + std::to_string(i) + "u\n";
    const std::string name = feature_name(model, i);
    if (!name.empty()) out += "#define " + m + "_NAME " + string_literal(name) + "\n";
    if (ranges) {
      out += "#define " + m + "_MIN " + float_literal(model.input_min[i]) + "\n";
      out += "#define " + m + "_MAX " + float_literal(model.input_max[i]) + "\n";
    }
  }
  if (!target.empty()) out += "#define " + macro + "_TARGET_NAME " + string_literal(target) + "\n";
  return out;
}

}  // namespace pbp::trainer
