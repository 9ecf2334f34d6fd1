// SPDX-License-Identifier: Apache-2.0
// What the chart and figure tests look up in a rendered SVG: the parsed tree, tick labels and
// texts by class (the chart layer's class names: chart.cpp).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "xml_check.hpp"

namespace pbp::chart_test {

using xml_test::Element;

// The document's root element; throws with the parser's error if it is not well formed.
inline Element parse(const std::string& document) {
  xml_test::ParseResult parsed = xml_test::parse_xml(document);
  if (!parsed.root) throw std::runtime_error(parsed.error + "\n" + document);
  return *parsed.root;
}

// Tick labels of one axis: x labels are centred under their tick, y labels end at theirs.
inline std::vector<std::string> axis_ticks(const Element& root, char axis) {
  std::vector<std::string> found;
  for (const Element* text : root.with_class("text", "tick")) {
    const bool centred = text->attributes.at("text-anchor") == "middle";
    if (centred == (axis == 'x')) found.push_back(text->text);
  }
  return found;
}

inline std::vector<std::string> texts(const Element& root, const std::string& css_class) {
  std::vector<std::string> found;
  for (const Element* text : root.with_class("text", css_class)) found.push_back(text->text);
  return found;
}

}  // namespace pbp::chart_test
