// SPDX-License-Identifier: Apache-2.0
#include "xml_check.hpp"

#include <set>

namespace pbp::xml_test {
namespace {

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  ParseResult parse() {
    ParseResult result;
    try {
      skip_space();
      if (starts_with("<?xml")) {
        const size_t end = text_.find("?>", at_);
        if (end == std::string::npos) fail("unterminated XML declaration");
        at_ = end + 2;
      }
      skip_space();
      if (!starts_with("<") || starts_with("</")) fail("no root element");
      result.root = element();
      skip_space();
      if (at_ != text_.size()) fail("content after the root element");
    } catch (const std::string& message) {
      result.root.reset();
      result.error = message + " at offset " + std::to_string(at_);
    }
    return result;
  }

 private:
  [[noreturn]] void fail(const std::string& message) { throw message; }

  bool starts_with(const char* prefix) const {
    return text_.compare(at_, std::char_traits<char>::length(prefix), prefix) == 0;
  }

  void skip_space() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\t' || text_[at_] == '\r')) {
      ++at_;
    }
  }

  static bool name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  }

  std::string name() {
    if (at_ >= text_.size() || !name_start(text_[at_])) fail("expected a name");
    const size_t start = at_;
    while (at_ < text_.size() &&
           (name_start(text_[at_]) || (text_[at_] >= '0' && text_[at_] <= '9') ||
            text_[at_] == '-' || text_[at_] == '.')) {
      ++at_;
    }
    return text_.substr(start, at_ - start);
  }

  // Decodes character data up to `stop`, rejecting raw '<' and unknown entities.
  std::string character_data(char stop) {
    std::string out;
    while (at_ < text_.size() && text_[at_] != stop) {
      const char c = text_[at_];
      if (c == '<') fail("raw '<' in character data");
      if (c != '&') {
        out += c;
        ++at_;
        continue;
      }
      const size_t end = text_.find(';', at_);
      if (end == std::string::npos) fail("unterminated entity");
      const std::string entity = text_.substr(at_ + 1, end - at_ - 1);
      static const std::map<std::string, std::string> known{
          {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}};
      if (const auto found = known.find(entity); found != known.end()) {
        out += found->second;
      } else if (entity.size() > 1 && entity[0] == '#') {
        out += '?';  // a character reference; its value does not matter here
      } else {
        fail("unknown entity &" + entity + ";");
      }
      at_ = end + 1;
    }
    return out;
  }

  Element element() {
    ++at_;  // '<'
    Element node;
    node.name = name();
    std::set<std::string> seen;
    while (true) {
      const size_t before = at_;
      skip_space();
      if (starts_with("/>")) {
        at_ += 2;
        return node;
      }
      if (starts_with(">")) {
        ++at_;
        break;
      }
      if (at_ == before) fail("expected whitespace before an attribute");
      const std::string key = name();
      if (!seen.insert(key).second) fail("duplicate attribute " + key);
      if (!starts_with("=")) fail("attribute " + key + " has no value");
      ++at_;
      if (at_ >= text_.size() || (text_[at_] != '"' && text_[at_] != '\'')) {
        fail("attribute " + key + " is not quoted");
      }
      const char quote = text_[at_++];
      node.attributes[key] = character_data(quote);
      if (at_ >= text_.size()) fail("unterminated attribute value");
      ++at_;
    }
    while (true) {
      if (at_ >= text_.size()) fail("element <" + node.name + "> is not closed");
      if (starts_with("</")) {
        at_ += 2;
        const std::string closing = name();
        if (closing != node.name) fail("</" + closing + "> closes <" + node.name + ">");
        skip_space();
        if (!starts_with(">")) fail("malformed closing tag");
        ++at_;
        return node;
      }
      if (starts_with("<!--")) {
        const size_t end = text_.find("-->", at_);
        if (end == std::string::npos) fail("unterminated comment");
        at_ = end + 3;
      } else if (starts_with("<")) {
        node.children.push_back(element());
      } else {
        node.text += character_data('<');
      }
    }
  }

  const std::string& text_;
  size_t at_ = 0;
};

void collect(const Element& element, const std::string& name, std::vector<const Element*>& found) {
  if (element.name == name) found.push_back(&element);
  for (const Element& child : element.children) collect(child, name, found);
}

}  // namespace

std::vector<const Element*> Element::find_all(const std::string& name) const {
  std::vector<const Element*> found;
  collect(*this, name, found);
  return found;
}

std::vector<const Element*> Element::with_class(const std::string& name,
                                                const std::string& css_class) const {
  std::vector<const Element*> found;
  for (const Element* element : find_all(name)) {
    const auto value = element->attributes.find("class");
    if (value != element->attributes.end() && value->second == css_class) found.push_back(element);
  }
  return found;
}

ParseResult parse_xml(const std::string& document) {
  return Parser(document).parse();
}

}  // namespace pbp::xml_test
