// SPDX-License-Identifier: Apache-2.0
// The storage types' and likelihoods' build flags: each table line's PBP_WITH_<NAME> has its
// default, 1, in a header the table includes (runtime/core/pbp/storage/<type>.hpp,
// likelihood_<name>.hpp), as pbp/pbp_config.h says, and nowhere else; so a build without CMake's
// -D (the amalgamation, an IDE) builds every one.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "test_paths.hpp"

namespace {

std::string read_source(const std::string& relative) {
  std::ifstream in(pbp::test_paths::source_dir() + "/" + relative);
  EXPECT_TRUE(in.good()) << relative;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::set<std::string> matches(const std::string& text, const std::regex& pattern) {
  std::set<std::string> found;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
    found.insert((*it)[1]);
  }
  return found;
}

// The flags of `table`'s lines (X(..., "name", PBP_WITH_<NAME>...)) against the defaults of 1 in
// the headers it includes matching `header`: each flag has exactly one, and pbp_config.h none.
void expect_one_default_each(const std::string& table_path, const std::string& header,
                             size_t at_least) {
  const std::string table = read_source(table_path);
  const std::set<std::string> flags =
      matches(table, std::regex(R"(\n  X\([^,]+, "[^"]+", (PBP_WITH_[A-Z0-9_]+)[,)])"));
  const std::set<std::string> headers = matches(table, std::regex("#include \"(" + header + ")\""));
  ASSERT_GE(flags.size(), at_least);
  std::set<std::string> defaulted;
  for (const std::string& included : headers) {
    const std::set<std::string> here =
        matches(read_source("runtime/core/" + included),
                std::regex(R"(#ifndef (PBP_WITH_[A-Z0-9_]+)\n#define \1 1\n#endif)"));
    for (const std::string& flag : here) EXPECT_TRUE(defaulted.insert(flag).second) << flag;
  }
  EXPECT_EQ(defaulted, flags);
  const std::string config = read_source("runtime/include/pbp/pbp_config.h");
  for (const std::string& flag : flags) {
    EXPECT_EQ(config.find("#define " + flag), std::string::npos) << flag << ": one default";
  }
}

TEST(StorageFlags, EachTableFlagDefaultsToOneInAnIncludedCodecHeader) {
  // float32, float16, int8 at least
  expect_one_default_each("runtime/core/pbp/storage_types.hpp", R"(pbp/storage/[a-z0-9_]+\.hpp)",
                          3);
}

// The likelihoods' likewise: a likelihood's flag has its default in its own header.
TEST(LikelihoodFlags, EachTableFlagDefaultsToOneInItsLikelihoodHeader) {
  // heteroscedastic at least
  expect_one_default_each("runtime/core/pbp/likelihoods.hpp", R"(pbp/likelihood_[a-z0-9_]+\.hpp)",
                          1);
}

}  // namespace
