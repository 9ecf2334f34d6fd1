// SPDX-License-Identifier: Apache-2.0
#include "pbp/plot/svg.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace pbp::plot {
namespace {

bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool is_name_char(char c) {
  return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == ':';
}

void check_name(std::string_view name) {
  bool valid = !name.empty() && is_name_start(name.front());
  for (const char c : name) valid = valid && is_name_char(c);
  if (!valid) throw std::logic_error("svg: '" + std::string(name) + "' is not an XML name");
}

}  // namespace

std::string format_number(double value, int decimals) {
  if (!std::isfinite(value)) throw std::invalid_argument("svg: a coordinate is not finite");
  char buffer[400];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
  if (result.ec != std::errc()) throw std::invalid_argument("svg: number out of range");
  std::string text(buffer, result.ptr);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text == "-0" ? "0" : text;
}

std::string escape_xml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // Control characters other than tab and newline are not allowed in XML 1.0 at all.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

SvgWriter::SvgWriter(double width, double height) {
  if (!(width > 0.0 && height > 0.0)) throw std::invalid_argument("svg: size must be positive");
  out_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string w = format_number(width), h = format_number(height);
  open("svg", {{"xmlns", "http://www.w3.org/2000/svg"},
               {"width", w},
               {"height", h},
               {"viewBox", "0 0 " + w + " " + h}});
}

void SvgWriter::indent() {
  out_.append(2 * open_.size(), ' ');
}

void SvgWriter::start_tag(std::string_view name, const Attributes& attributes) {
  if (finished_) throw std::logic_error("svg: the document is finished");
  check_name(name);
  indent();
  out_.append("<").append(name);
  for (const auto& [key, value] : attributes) {
    check_name(key);
    out_.append(" ").append(key).append("=\"").append(escape_xml(value)).append("\"");
  }
}

void SvgWriter::open(std::string_view name, const Attributes& attributes) {
  start_tag(name, attributes);
  out_.append(">\n");
  open_.emplace_back(name);
}

void SvgWriter::close() {
  // The root is closed by finish() only.
  if (open_.size() < 2 || finished_) throw std::logic_error("svg: no element to close");
  end_tag();
}

void SvgWriter::end_tag() {
  const std::string name = open_.back();
  open_.pop_back();
  indent();
  out_.append("</").append(name).append(">\n");
}

void SvgWriter::empty(std::string_view name, const Attributes& attributes) {
  start_tag(name, attributes);
  out_.append("/>\n");
}

void SvgWriter::text(std::string_view name, const Attributes& attributes,
                     std::string_view content) {
  start_tag(name, attributes);
  out_.append(">").append(escape_xml(content)).append("</").append(name).append(">\n");
}

std::string SvgWriter::finish() {
  if (finished_) throw std::logic_error("svg: the document is finished");
  if (open_.size() != 1) {
    throw std::logic_error("svg: " + std::to_string(open_.size() - 1) + " element(s) left open");
  }
  end_tag();
  finished_ = true;
  return out_;
}

}  // namespace pbp::plot
