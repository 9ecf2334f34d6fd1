// SPDX-License-Identifier: Apache-2.0
// A small strict XML parser for tests: accepts only well-formed documents (one root element,
// balanced tags, quoted unique attributes, known entities) and returns the element tree.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pbp::xml_test {

struct Element {
  std::string name;
  std::map<std::string, std::string> attributes;  // values with entities decoded
  std::string text;                               // direct text content, decoded
  std::vector<Element> children;

  // Every element named `name` in this subtree (this one included), depth first.
  std::vector<const Element*> find_all(const std::string& name) const;
  // Those of find_all whose "class" attribute is `css_class`.
  std::vector<const Element*> with_class(const std::string& name,
                                         const std::string& css_class) const;
};

struct ParseResult {
  std::optional<Element> root;
  std::string error;  // empty when root is set
};

ParseResult parse_xml(const std::string& document);

}  // namespace pbp::xml_test
