// `pbp export-c` writes NAME.h and NAME.c together or not at all.
#include <filesystem>
#include <string>

#include "cli_helpers.hpp"

namespace pbp::cli_test {
namespace {

using ExportC = CliTest;

const std::string kCorpus = std::string(PBP_SOURCE_DIR) + "/tests/fuzz/corpus/";

size_t entries(const std::filesystem::path& directory) {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(directory), {}));
}

// The second file cannot be written (a directory where model.c goes): the command fails, and
// model.h is still the previous export's (it used to be replaced, leaving a mismatched pair).
TEST_F(ExportC, FailingSecondFileLeavesThePreviousPair) {
  const std::string out = path("out");
  std::filesystem::create_directories(out);
  const RunResult first =
      run_pbp({"export-c", kCorpus + "valid_tiny.pbp", "--name", "model", "--out-dir", out});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string old_header = read_file(out + "/model.h");
  std::filesystem::remove(out + "/model.c");
  std::filesystem::create_directories(out + "/model.c/inside");

  const RunResult second =
      run_pbp({"export-c", kCorpus + "valid_deep.pbp", "--name", "model", "--out-dir", out});
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find(out + "/model.c: cannot replace"), std::string::npos) << second.err;
  EXPECT_EQ(read_file(out + "/model.h"), old_header);
  EXPECT_EQ(entries(out), 2u);  // model.h and the directory: no temporary or backup left

  // Once the obstacle is gone, both files are replaced.
  std::filesystem::remove_all(out + "/model.c");
  const RunResult third =
      run_pbp({"export-c", kCorpus + "valid_deep.pbp", "--name", "model", "--out-dir", out});
  ASSERT_EQ(third.exit_code, 0) << third.err;
  EXPECT_NE(read_file(out + "/model.h"), old_header);
  EXPECT_NE(read_file(out + "/model.c")
                .find("typedef char model_has_every_byte[sizeof model == "
                      "820u ? 1 : -1];"),
            std::string::npos);
  EXPECT_EQ(entries(out), 2u);
}

// DEPLOYING.md's `export-c ... --out-dir firmware/model` in a fresh tree: the folder is made (it
// used to fail on the missing folder). A bad blob still leaves nothing behind, folder included.
TEST_F(ExportC, CreatesTheOutputFolder) {
  const std::string out = path("firmware/model");
  const RunResult bad =
      run_pbp({"export-c", kCorpus + "truncated.pbp", "--name", "model", "--out-dir", out});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_FALSE(std::filesystem::exists(path("firmware")));

  const RunResult good =
      run_pbp({"export-c", kCorpus + "valid_tiny.pbp", "--name", "model", "--out-dir", out});
  ASSERT_EQ(good.exit_code, 0) << good.err;
  EXPECT_EQ(entries(out), 2u);
  EXPECT_NE(read_file(out + "/model.h").find("#define MODEL_SIZE 528u"), std::string::npos);

  write_file(path("file"), "not a folder");
  const RunResult blocked = run_pbp(
      {"export-c", kCorpus + "valid_tiny.pbp", "--name", "model", "--out-dir", path("file/m")});
  EXPECT_EQ(blocked.exit_code, 1);
  EXPECT_NE(
      blocked.err.find("pbp export-c: error: " + path("file/m") + ": cannot create the folder"),
      std::string::npos)
      << blocked.err;
}

}  // namespace
}  // namespace pbp::cli_test
