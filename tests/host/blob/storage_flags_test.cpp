// SPDX-License-Identifier: Apache-2.0
// The storage types' build flags: each table line's PBP_WITH_<NAME> has its default, 1, in a codec
// header the table includes (runtime/core/pbp/storage/<type>.hpp), as pbp/pbp_config.h says, and
// nowhere else; so a build without CMake's -D (the amalgamation, an IDE) builds every type.
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

TEST(StorageFlags, EachTableFlagDefaultsToOneInAnIncludedCodecHeader) {
  const std::string table = read_source("runtime/core/pbp/storage_types.hpp");
  const std::set<std::string> flags =
      matches(table, std::regex(R"(\n  X\([^,]+, "[^"]+", (PBP_WITH_[A-Z0-9_]+),)"));
  const std::set<std::string> codecs =
      matches(table, std::regex(R"(#include "(pbp/storage/[a-z0-9_]+\.hpp)\")"));
  ASSERT_GE(flags.size(), 3u);  // float32, float16, int8 at least
  std::set<std::string> defaulted;
  for (const std::string& codec : codecs) {
    const std::set<std::string> here =
        matches(read_source("runtime/core/" + codec),
                std::regex(R"(#ifndef (PBP_WITH_[A-Z0-9_]+)\n#define \1 1\n#endif)"));
    for (const std::string& flag : here) EXPECT_TRUE(defaulted.insert(flag).second) << flag;
  }
  EXPECT_EQ(defaulted, flags);
  const std::string config = read_source("runtime/include/pbp/pbp_config.h");
  for (const std::string& flag : flags) {
    EXPECT_EQ(config.find("#define " + flag), std::string::npos) << flag << ": one default";
  }
}

}  // namespace
