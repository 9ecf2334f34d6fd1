// CSV loading: RFC 4180 quirks and errors that name file:line:column.
#include <gtest/gtest.h>

#include "pbp/trainer/csv.hpp"

namespace pbp::trainer {
namespace {

// Runs `parse` and returns the InputError it throws (fails the test if none).
template <class Parse>
InputError error_of(Parse parse) {
  try {
    parse();
  } catch (const InputError& error) {
    return error;
  }
  ADD_FAILURE() << "no InputError thrown";
  return InputError("", 0, 0, "");
}

TEST(Csv, ParsesHeaderAndRows) {
  const CsvTable table = parse_csv("a,b,c\n1,2,3\n4.5,-6e-1,+7\n", "t.csv");
  ASSERT_EQ(table.columns(), 3u);
  ASSERT_EQ(table.rows, 2u);
  EXPECT_EQ(table.header[1], "b");
  EXPECT_DOUBLE_EQ(table.at(1, 0), 4.5);
  EXPECT_DOUBLE_EQ(table.at(1, 1), -0.6);
  EXPECT_DOUBLE_EQ(table.at(1, 2), 7.0);
  EXPECT_EQ(table.row_lines, (std::vector<size_t>{2, 3}));
}

TEST(Csv, HandlesCrlfQuotesBlankLinesAndBom) {
  const std::string text =
      "\xEF\xBB\xBF\"x, the first\",\"say \"\"y\"\"\"\r\n\r\n \"1\" , 2 \r\n3,\"4\"";
  const CsvTable table = parse_csv(text, "q.csv");
  ASSERT_EQ(table.columns(), 2u);
  EXPECT_EQ(table.header[0], "x, the first");
  EXPECT_EQ(table.header[1], "say \"y\"");
  ASSERT_EQ(table.rows, 2u);
  EXPECT_DOUBLE_EQ(table.at(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(table.at(1, 1), 4.0);
  EXPECT_EQ(table.row_lines, (std::vector<size_t>{3, 4}));
}

TEST(Csv, QuotedNewlineKeepsLineNumbersRight) {
  const std::string text = "\"multi\nline\",b\n1,2\n3,x\n";
  const InputError error = error_of([&] { parse_csv(text, "m.csv"); });
  EXPECT_EQ(error.line(), 4u);
  EXPECT_EQ(error.column(), 2u);
}

TEST(Csv, RaggedRowNamesLineAndColumn) {
  const InputError error = error_of([] { parse_csv("a,b,c\n1,2,3\n4,5\n", "r.csv"); });
  EXPECT_STREQ(error.what(), "r.csv:3:3: expected 3 fields (as in the header), found 2");
  const InputError extra = error_of([] { parse_csv("a,b\n1,2,3\n", "r.csv"); });
  EXPECT_EQ(extra.line(), 2u);
  EXPECT_EQ(extra.column(), 3u);
}

TEST(Csv, RejectsNonNumericNanInfAndEmptyCells) {
  for (const char* bad : {"abc", "nan", "NaN", "inf", "-Infinity", "1.5x", "1e999"}) {
    const InputError error =
        error_of([&] { parse_csv(std::string("a,b\n1,2\n3,") + bad + "\n", "n.csv"); });
    EXPECT_EQ(error.line(), 3u) << bad;
    EXPECT_EQ(error.column(), 2u) << bad;
    EXPECT_NE(std::string(error.what()).find("n.csv:3:2:"), std::string::npos) << error.what();
  }
  EXPECT_EQ(error_of([] { parse_csv("a,b\n1,\n2,3\n", "e.csv"); }).column(), 2u);
}

TEST(Csv, EmptyFileAndTooFewRows) {
  EXPECT_STREQ(error_of([] { parse_csv("", "z.csv"); }).what(),
               "z.csv:1:1: empty file: expected a header row");
  EXPECT_STREQ(error_of([] { parse_csv("\n\n", "z.csv"); }).what(),
               "z.csv:1:1: empty file: expected a header row");
  EXPECT_EQ(error_of([] { parse_csv("a,b\n1,2\n", "one.csv", 2); }).file(), "one.csv");
  EXPECT_NO_THROW(parse_csv("a,b\n", "h.csv", 0));
}

TEST(Csv, UnterminatedQuote) {
  const InputError error = error_of([] { parse_csv("a,b\n1,\"2\n", "u.csv"); });
  EXPECT_EQ(error.line(), 2u);
  EXPECT_EQ(error.column(), 2u);
}

TEST(Csv, MissingFileNamesIt) {
  const InputError error = error_of([] { read_csv("/nonexistent/dir/data.csv"); });
  EXPECT_EQ(error.file(), "/nonexistent/dir/data.csv");
  EXPECT_NE(std::string(error.what()).find("No such file"), std::string::npos) << error.what();
}

TEST(Csv, TargetByNameIndexOrLast) {
  const CsvTable table = parse_csv("a,b,2\n1,2,3\n4,5,6\n", "t.csv");
  EXPECT_EQ(resolve_column(table, std::nullopt), 2u);
  EXPECT_EQ(resolve_column(table, "a"), 0u);
  EXPECT_EQ(resolve_column(table, "1"), 1u);
  EXPECT_EQ(resolve_column(table, "2"), 2u);  // a header name wins over an index
  EXPECT_STREQ(error_of([&] { resolve_column(table, "price"); }).what(),
               "t.csv:1:1: no target column 'price' in the header");
  EXPECT_THROW(resolve_column(table, "3"), InputError);

  const Dataset data = to_dataset(table, 0);
  EXPECT_EQ(data.target_name, "a");
  EXPECT_EQ(data.feature_names, (std::vector<std::string>{"b", "2"}));
  EXPECT_EQ(data.x, (std::vector<double>{2, 3, 5, 6}));
  EXPECT_EQ(data.y, (std::vector<double>{1, 4}));

  const Dataset part = data.subset({1, 1, 0});
  EXPECT_EQ(part.rows, 3u);
  EXPECT_EQ(part.x, (std::vector<double>{5, 6, 5, 6, 2, 3}));
  EXPECT_EQ(part.y, (std::vector<double>{4, 4, 1}));
}

}  // namespace
}  // namespace pbp::trainer
