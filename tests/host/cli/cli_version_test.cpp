// SPDX-License-Identifier: Apache-2.0
// One version, from CMake's project(VERSION), read back by everything that shows it: pbp
// --version, the C API, the blobs the trainer writes (pbp inspect, the runtime's model.writer),
// the CMake package's version file and the pkg-config file.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_helpers.hpp"
#include "pbp/pbp.h"
#include "test_paths.hpp"

namespace pbp::cli_test {
namespace {

using Version = CliTest;

const std::string kProjectVersion = PBP_PROJECT_VERSION;  // CMake's PROJECT_VERSION

TEST(VersionMacros, ComposeTheProjectVersion) {
  EXPECT_EQ(std::string(PBP_VERSION_STRING), kProjectVersion);
  EXPECT_EQ(std::to_string(PBP_VERSION_MAJOR) + "." + std::to_string(PBP_VERSION_MINOR) + "." +
                std::to_string(PBP_VERSION_PATCH),
            kProjectVersion);
  EXPECT_EQ(PBP_VERSION_NUMBER,
            10000 * PBP_VERSION_MAJOR + 100 * PBP_VERSION_MINOR + PBP_VERSION_PATCH);
  EXPECT_EQ(std::string(pbp_version()), kProjectVersion);  // the library, not the header
}

TEST_F(Version, CommandLinePrintsIt) {
  const RunResult result = run_pbp({"--version"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "pbp " + kProjectVersion + "\n");
}

TEST_F(Version, EveryWrittenBlobRecordsIt) {
  write_file(path("train.csv"), regression_csv(40));
  const RunResult train = run_pbp({"train", "--data", path("train.csv"), "--out", path("m.pbp"),
                                   "--recipe", "paper", "--hidden", "4", "--epochs", "2"});
  ASSERT_EQ(train.exit_code, 0) << train.err;
  const std::string writer = "pbp-edge " + kProjectVersion;

  const std::string blob = read_file(path("m.pbp"));
  pbp_model model;
  ASSERT_EQ(pbp_open(&model, blob.data(), blob.size()), PBP_OK);
  EXPECT_EQ(std::string(model.writer.data, model.writer.length), writer);

  const RunResult inspect = run_pbp({"inspect", path("m.pbp")});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("\nwritten by: " + writer + "\n"), std::string::npos) << inspect.out;

  // A blob written before the key existed (the corpus keeps some) says so, and still opens.
  const RunResult old =
      run_pbp({"inspect", pbp::test_paths::source_dir() + "/tests/fuzz/corpus/valid_binary.pbp"});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_NE(old.out.find("\nwritten by: (not recorded)\n"), std::string::npos) << old.out;
}

// The installed package's files, as the build made them (the top-level build's install rules).
TEST(VersionPackage, ConfigAndPkgConfigFilesCarryIt) {
  const std::filesystem::path package =
      std::filesystem::path(pbp::test_paths::binary_dir()) / "package";
  if (!std::filesystem::exists(package / "pbpConfigVersion.cmake")) {
    GTEST_SKIP() << "no install rules in this build (PBP_INSTALL off)";
  }
  EXPECT_NE(read_file(package / "pbpConfigVersion.cmake")
                .find("set(PACKAGE_VERSION \"" + kProjectVersion + "\")"),
            std::string::npos);
  EXPECT_NE(read_file(package / "pbp-runtime.pc").find("\nVersion: " + kProjectVersion + "\n"),
            std::string::npos);
}

// The drop-in release (tools/scripts/amalgamate.py) renders the same header CMake generates.
TEST_F(Version, AmalgamationCarriesTheGeneratedHeader) {
  const std::string command = "python3 '" + pbp::test_paths::source_dir() +
                              "/tools/scripts/amalgamate.py' '" + path("release") + "' >/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(read_file(path("release") + "/pbp/pbp_version.h"),
            read_file(pbp::test_paths::binary_dir() + "/generated/include/pbp/pbp_version.h"));
}

}  // namespace
}  // namespace pbp::cli_test
