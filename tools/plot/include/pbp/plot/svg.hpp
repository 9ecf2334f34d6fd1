// SPDX-License-Identifier: Apache-2.0
// A minimal SVG 1.1 document writer: well-formed XML by construction, deterministic output.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pbp::plot {

// Attributes in writing order; values are escaped when written.
using Attributes = std::vector<std::pair<std::string, std::string>>;

// `value` with at most `decimals` decimals, trailing zeros and point dropped, "-0" as "0";
// locale-independent. Throws std::invalid_argument for NaN or infinity.
std::string format_number(double value, int decimals = 2);

// `text` with & < > " ' replaced by entities: safe in element text and attribute values.
std::string escape_xml(std::string_view text);

// Writes one <svg> document element by element. Names must be XML names; misuse (a bad name,
// closing with nothing open, finishing with elements open) throws std::logic_error.
class SvgWriter {
 public:
  // Opens the root <svg> element with width, height and viewBox="0 0 width height".
  SvgWriter(double width, double height);

  void open(std::string_view name, const Attributes& attributes = {});
  void close();  // the innermost open element (not the root: finish() closes that)
  void empty(std::string_view name, const Attributes& attributes);
  void text(std::string_view name, const Attributes& attributes, std::string_view content);

  // Closes the root and returns the document (XML declaration first, one element per line).
  std::string finish();

 private:
  void start_tag(std::string_view name, const Attributes& attributes);
  void end_tag();
  void indent();

  std::string out_;
  std::vector<std::string> open_;
  bool finished_ = false;
};

}  // namespace pbp::plot
