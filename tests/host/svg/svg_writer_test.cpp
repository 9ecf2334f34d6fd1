// SPDX-License-Identifier: Apache-2.0
// The SVG document writer: number formatting, escaping, structure and misuse.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "pbp/plot/svg.hpp"
#include "xml_check.hpp"

namespace pbp::plot {
namespace {

TEST(FormatNumber, CompactAndDeterministic) {
  EXPECT_EQ(format_number(12.0), "12");
  EXPECT_EQ(format_number(12.5), "12.5");
  EXPECT_EQ(format_number(12.345), "12.35");  // 12.345 is stored as 12.3450000000000006
  EXPECT_EQ(format_number(0.004), "0");
  EXPECT_EQ(format_number(-0.004), "0");  // never "-0"
  EXPECT_EQ(format_number(-3.10), "-3.1");
  EXPECT_EQ(format_number(1e6), "1000000");
  EXPECT_EQ(format_number(0.123456, 4), "0.1235");
  EXPECT_EQ(format_number(100.0, 0), "100");
  EXPECT_THROW(format_number(NAN), std::invalid_argument);
  EXPECT_THROW(format_number(INFINITY), std::invalid_argument);
}

TEST(EscapeXml, AllFiveSpecialCharacters) {
  EXPECT_EQ(escape_xml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(escape_xml("plain \xE2\x88\x92 UTF-8"), "plain \xE2\x88\x92 UTF-8");
  EXPECT_EQ(escape_xml(std::string("bell\x07")), "bell ");  // not allowed in XML 1.0
}

TEST(SvgWriter, WritesWellFormedDocumentWithViewBox) {
  SvgWriter svg(320, 200.5);
  svg.text("title", {}, "a <title> & \"more\"");
  svg.open("g", {{"class", "x"}});
  svg.empty("rect", {{"x", "1"}, {"data-note", "5 > 4 & 'q'"}});
  svg.text("text", {{"x", "2"}}, "1 < 2");
  svg.close();
  const std::string document = svg.finish();
  EXPECT_EQ(document.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0), 0u);
  const xml_test::ParseResult parsed = xml_test::parse_xml(document);
  ASSERT_TRUE(parsed.root) << parsed.error << "\n" << document;
  const xml_test::Element& root = *parsed.root;
  EXPECT_EQ(root.name, "svg");
  EXPECT_EQ(root.attributes.at("xmlns"), "http://www.w3.org/2000/svg");
  EXPECT_EQ(root.attributes.at("viewBox"), "0 0 320 200.5");
  EXPECT_EQ(root.attributes.at("width"), "320");
  EXPECT_EQ(root.find_all("title")[0]->text, "a <title> & \"more\"");
  EXPECT_EQ(root.find_all("rect")[0]->attributes.at("data-note"), "5 > 4 & 'q'");
  EXPECT_EQ(root.find_all("text")[0]->text, "1 < 2");
  EXPECT_EQ(root.find_all("g").size(), 1u);
}

TEST(SvgWriter, RejectsMisuse) {
  {
    SvgWriter svg(10, 10);
    EXPECT_THROW(svg.open("bad name"), std::logic_error);
    EXPECT_THROW(svg.empty("rect", {{"1x", "y"}}), std::logic_error);
    svg.open("g");
    EXPECT_THROW(svg.finish(), std::logic_error);  // <g> still open
    svg.close();
    svg.finish();
    EXPECT_THROW(svg.close(), std::logic_error);
    EXPECT_THROW(svg.finish(), std::logic_error);
    EXPECT_THROW(svg.empty("rect", {}), std::logic_error);
  }
  {
    SvgWriter svg(10, 10);
    EXPECT_THROW(svg.close(), std::logic_error);  // the root is closed by finish()
    EXPECT_NE(svg.finish().find("</svg>"), std::string::npos);
  }
  EXPECT_THROW(SvgWriter(0, 10), std::invalid_argument);
  EXPECT_THROW(SvgWriter(10, NAN), std::invalid_argument);
}

}  // namespace
}  // namespace pbp::plot
