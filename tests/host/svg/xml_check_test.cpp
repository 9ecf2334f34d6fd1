// SPDX-License-Identifier: Apache-2.0
// The checker the SVG tests rely on must reject what is not well-formed XML.
#include <gtest/gtest.h>

#include "xml_check.hpp"

namespace pbp::xml_test {
namespace {

TEST(XmlCheck, AcceptsAWellFormedDocument) {
  const ParseResult result = parse_xml(
      "<?xml version=\"1.0\"?>\n<svg a=\"1\" b='x &amp; y'>\n  <g><text>a &lt; b</text></g>\n"
      "  <rect/>\n</svg>\n");
  ASSERT_TRUE(result.root) << result.error;
  EXPECT_EQ(result.root->name, "svg");
  EXPECT_EQ(result.root->attributes.at("b"), "x & y");
  ASSERT_EQ(result.root->find_all("text").size(), 1u);
  EXPECT_EQ(result.root->find_all("text")[0]->text, "a < b");
  EXPECT_EQ(result.root->find_all("rect").size(), 1u);
}

TEST(XmlCheck, RejectsMalformedDocuments) {
  for (const char* bad : {
           "<svg><g></svg>",                 // unbalanced
           "<svg><g></g>",                   // root not closed
           "<svg a=1></svg>",                // unquoted attribute
           "<svg a=\"1\" a=\"2\"/>",         // duplicate attribute
           "<svg><text>a < b</text></svg>",  // raw '<'
           "<svg>&nbsp;</svg>",              // unknown entity
           "<svg>a & b</svg>",               // bare ampersand
           "<svg a=\"x\"b=\"y\"/>",          // no space between attributes
           "<svg/><svg/>",                   // two roots
           "",                               // nothing
           "text only",                      // no element
       }) {
    const ParseResult result = parse_xml(bad);
    EXPECT_FALSE(result.root) << "accepted: " << bad;
    EXPECT_FALSE(result.error.empty()) << bad;
  }
}

}  // namespace
}  // namespace pbp::xml_test
