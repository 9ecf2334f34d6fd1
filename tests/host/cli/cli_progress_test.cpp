// SPDX-License-Identifier: Apache-2.0
// Long work's manners: progress in the user's units with an estimate, a plain line every few
// seconds off a terminal, and Ctrl-C stopping `pbp train` with exit status 130 and no file.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "cli_helpers.hpp"
#include "output.hpp"
#include "test_paths.hpp"

extern char** environ;

namespace pbp::cli_test {
namespace {

using cli::ProgressBar;
using Clock = ProgressBar::Clock;

// Everything a ProgressBar writes, with a clock the test moves.
struct Capture {
  Capture() : file(std::tmpfile()) {}
  ~Capture() { std::fclose(file); }
  std::string text() {
    std::fflush(file);
    std::string out(static_cast<size_t>(std::ftell(file)), '\0');
    std::rewind(file);
    out.resize(std::fread(out.data(), 1, out.size(), file));
    return out;
  }
  std::FILE* file;
  Clock::time_point now{};
};

TEST(ProgressBar, OffATerminalAPlainLineEveryFewSeconds) {
  ::unsetenv("PBP_PROGRESS_SECONDS");
  Capture capture;
  {
    ProgressBar bar("pbp train", "epochs", capture.file, false, [&] { return capture.now; });
    capture.now += std::chrono::seconds(4);
    bar.update(10, 40);
    EXPECT_EQ(capture.text(), "");  // nothing before 5 s: short work stays quiet
    capture.now += std::chrono::seconds(2);
    bar.update(12, 40, "candidate 1 of 10, epoch 12 of 40");
    // 6 s for 12 epochs: 28 more take 14 s.
    EXPECT_EQ(capture.text(),
              "pbp train: candidate 1 of 10, epoch 12 of 40 (30 %), 6.0 s, about 14.0 s left\n");
    capture.now += std::chrono::seconds(1);
    bar.update(14, 40);  // within 5 s of the last line
    capture.now += std::chrono::seconds(5);
    bar.update(20, 40);
    bar.update(40, 40);  // the end needs no line: the command's summary follows
  }
  EXPECT_EQ(capture.text(),
            "pbp train: candidate 1 of 10, epoch 12 of 40 (30 %), 6.0 s, about 14.0 s left\n"
            "pbp train: 20/40 epochs (50 %), 12.0 s, about 12.0 s left\n");
}

TEST(ProgressBar, OnATerminalOneLineRedrawnAndCleared) {
  Capture capture;
  {
    ProgressBar bar("pbp crossval", "splits", capture.file, true, [&] { return capture.now; });
    capture.now += std::chrono::seconds(90);
    bar.update(3, 4);
  }
  EXPECT_EQ(capture.text(),
            "\r\033[Kpbp crossval [######################........] 3/4 splits, 1 min 30 s, about "
            "30.0 s left\r\033[K");
}

TEST(ProgressBar, IntervalFromTheEnvironment) {
  ::setenv("PBP_PROGRESS_SECONDS", "0", 1);
  Capture capture;
  ProgressBar bar("x", "", capture.file, false, [&] { return capture.now; });
  ::unsetenv("PBP_PROGRESS_SECONDS");
  capture.now += std::chrono::seconds(1);
  bar.update(1, 3);
  bar.update(2, 3);  // no time passed, a line all the same
  EXPECT_EQ(capture.text(),
            "x: 1/3 (33 %), 1.0 s, about 2.0 s left\nx: 2/3 (66 %), 1.0 s, about 0.5 s left\n");
}

using TrainManners = CliTest;

TEST_F(TrainManners, PlainProgressLinesOffATerminal) {
  write_file(path("d.csv"), regression_csv(60));
  ::setenv("PBP_PROGRESS_SECONDS", "0", 1);
  const RunResult result =
      run_pbp({"train", "--data", path("d.csv"), "--out", path("m.pbp"), "--threads", "1"});
  // Two threads: a fold's two candidates at once, every epoch of each still reported.
  const RunResult two =
      run_pbp({"train", "--data", path("d.csv"), "--out", path("m2.pbp"), "--threads", "2"});
  ::unsetenv("PBP_PROGRESS_SECONDS");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  // The automatic recipe: 3 folds x 2 networks, each to at most 200 epochs (the search's race
  // stops those that cannot win), then the chosen network. The first fold trains both.
  EXPECT_EQ(result.err.rfind("pbp train: candidate 1 of 6, epoch 1 of 200 (0 %), ", 0), 0u)
      << result.err.substr(0, 300);
  for (const std::string& err : {"\n" + result.err, "\n" + two.err}) {
    EXPECT_NE(err.find("\npbp train: candidate 1 of 6, epoch 1 of 200 ("), std::string::npos);
    EXPECT_NE(err.find("\npbp train: candidate 2 of 6, epoch 1 of 200 ("), std::string::npos);
    EXPECT_NE(err.find("\npbp train: the chosen network, epoch 1 of "), std::string::npos);
  }
}

// Ctrl-C: SIGINT once the first progress line shows training is under way.
TEST_F(TrainManners, InterruptStopsWithStatus130AndWritesNothing) {
  write_file(path("d.csv"), regression_csv(400));
  const std::string command = "exec '" + pbp::test_paths::cli_command() + "' train --data '" +
                              path("d.csv") + "' --out '" + path("m.pbp") + "' </dev/null >'" +
                              path("out") + "' 2>'" + path("err") + "'";
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  ::setenv("PBP_PROGRESS_SECONDS", "0", 1);
  pid_t pid = 0;
  ASSERT_EQ(::posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  ::unsetenv("PBP_PROGRESS_SECONDS");
  // Generous for emulators and loaded machines: the wait ends as soon as the line appears.
  const auto deadline = Clock::now() + std::chrono::minutes(5);
  while (read_file(path("err")).find("pbp train: candidate 1 of") == std::string::npos &&
         Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const std::string err = read_file(path("err"));
  EXPECT_NE(err.find("\npbp train: interrupted; nothing was written\n"), std::string::npos) << err;
  // Stopped within the search, at the next epoch: not after it (10 candidates of 200 epochs).
  EXPECT_EQ(err.find("the chosen network"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(path("m.pbp")));
  for (const auto& entry : std::filesystem::directory_iterator(directory_)) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "d.csv" || name == "out" || name == "err") << "left behind: " << name;
  }
}

}  // namespace
}  // namespace pbp::cli_test
