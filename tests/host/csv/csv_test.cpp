// SPDX-License-Identifier: Apache-2.0
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

// The message check_target_column throws for `csv`'s last column, or "ok".
std::string target_error(const std::string& csv, Task task, uint32_t classes = 0) {
  const CsvTable table = parse_csv(csv, "t.csv");
  try {
    check_target_column(table, table.columns() - 1, task, classes);
  } catch (const InputError& error) {
    return error.what();
  }
  return "ok";
}

TEST(CsvTargets, CheckedPerTaskWithFileLineAndColumn) {
  const std::string labels = "a,y\n1,0\n\n2,1\n3,1\n";
  EXPECT_EQ(target_error(labels, Task::binary), "ok");
  EXPECT_EQ(target_error(labels, Task::multiclass, 2), "ok");
  EXPECT_EQ(target_error("a,y\n1,0\n\n2,2\n", Task::binary),
            "t.csv:4:2: expected a binary label 0 or 1, found 2 (column 'y')");
  EXPECT_EQ(target_error("a,y\n1,0\n2,0.5\n", Task::multiclass),
            "t.csv:3:2: expected a class index 0..63, found 0.5 (column 'y')");
  EXPECT_EQ(target_error("a,y\n1,0\n2,3\n", Task::multiclass, 3),
            "t.csv:3:2: expected a class index 0..2, found 3 (column 'y')");
  EXPECT_EQ(target_error("a,y\n1,-1\n", Task::count),
            "t.csv:2:2: expected a count (a non-negative integer), found -1 (column 'y')");
  EXPECT_EQ(target_error("a,y\n1,2.5\n", Task::count),
            "t.csv:2:2: expected a count (a non-negative integer), found 2.5 (column 'y')");
  EXPECT_EQ(target_error("a,y\n1,1e300\n", Task::count),
            "t.csv:2:2: expected a count (a non-negative integer), found 1e+300 (column 'y')");
  EXPECT_EQ(target_error("a,y\n1,17\n2,-3.5\n", Task::regression), "ok");
}

TEST(CsvTargets, ClassCountAndTaskNames) {
  EXPECT_EQ(class_count(std::vector<double>{0, 4, 2}, 0), 5u);
  EXPECT_EQ(class_count(std::vector<double>{0, 4, 2}, 7), 7u);
  for (const Task task : {Task::regression, Task::binary, Task::multiclass, Task::count}) {
    EXPECT_EQ(parse_task(task_name(task)), task);
  }
  EXPECT_EQ(parse_task("classification"), std::nullopt);
}

}  // namespace
}  // namespace pbp::trainer
