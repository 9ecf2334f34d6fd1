// SPDX-License-Identifier: Apache-2.0
// The recipe's independent trainings on two threads (independent_tasks.hpp): the same bits as on
// one, every task run once, and a failure reported as a serial loop would.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../prior_refinement/prior_test_support.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/independent_tasks.hpp"
#include "pbp/trainer/recipe.hpp"

namespace pbp::trainer {
namespace {

TEST(IndependentTasks, RunsEveryTaskOnce) {
  for (const uint32_t threads : {1u, 2u, 3u}) {
    std::vector<std::atomic<int>> runs(37);
    IndependentTasks(threads).run(runs.size(), [&](size_t i) { ++runs[i]; });
    for (const std::atomic<int>& r : runs) EXPECT_EQ(r.load(), 1);
  }
}

TEST(IndependentTasks, RethrowsTheFirstFailureByIndex) {
  for (const uint32_t threads : {1u, 2u}) {
    IndependentTasks tasks(threads);
    try {
      tasks.run(8, [](size_t i) {
        if (i == 3 || i == 4) throw std::runtime_error("task " + std::to_string(i));
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      // Task 4 may or may not have started; task 3 always runs and is the one reported.
      EXPECT_STREQ(e.what(), "task 3");
    }
    EXPECT_TRUE(tasks.abandoned());
  }
}

TEST(IndependentTasks, TaskZeroRunsOnTheCallersThread) {
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran_zero;
  IndependentTasks(2).run(4, [&](size_t i) {
    if (i == 0) ran_zero = std::this_thread::get_id();
  });
  EXPECT_EQ(ran_zero, caller);
}

// The caller polls while it waits for the other thread; an exception from the poll ends the run
// (the waiting task sees abandoned() and stops) and is rethrown.
TEST(IndependentTasks, ThePollRunsOnTheCallerAndItsFailureIsRethrown) {
  IndependentTasks tasks(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> second_started{false}, polled_elsewhere{false};
  EXPECT_THROW(tasks.run(
                   2,
                   [&](size_t i) {
                     if (i == 0) {  // the caller's: until the helper has taken task 1
                       while (!second_started) std::this_thread::yield();
                       return;
                     }
                     second_started = true;
                     while (!tasks.abandoned()) std::this_thread::yield();
                   },
                   [&] {
                     if (std::this_thread::get_id() != caller) polled_elsewhere = true;
                     throw std::runtime_error("interrupted");
                   }),
               std::runtime_error);
  EXPECT_FALSE(polled_elsewhere.load());
}

TEST(IndependentTasks, ThreadsForFewerTasks) {
  EXPECT_EQ(IndependentTasks(2).threads_for(1), 1u);
  EXPECT_EQ(IndependentTasks(2).threads_for(0), 1u);
  EXPECT_EQ(IndependentTasks(2).threads_for(5), 2u);
  EXPECT_EQ(IndependentTasks(1).threads_for(5), 1u);
}

Dataset smooth_rows(uint64_t seed, size_t rows) {
  return test::synthetic(
      seed, rows, 3, [](double v, size_t k) { return k == 0 ? v : 0.5 * std::sin(v); }, 0.1,
      [](double t) { return t; });
}

// The search's candidates of a fold, the final training and the distance fit's folds on two
// threads: the blob and the choice are those of one thread, with 3 folds (150 rows) and with one
// held-out fifth and the warm start (700 rows).
TEST(RecipeThreads, TwoThreadsTrainTheSameBitsAsOne) {
  SearchSpace space;
  space.networks = {{6}, {6, 6}};
  space.epochs = {2, 4};
  for (const size_t rows : {150u, 700u}) {
    std::vector<std::vector<uint8_t>> blobs;
    std::vector<RecipeChoice> choices(2);
    std::vector<uint64_t> epochs_done(2, 0);
    for (const uint32_t threads : {1u, 2u}) {
      TrainOptions options;
      options.hidden = {6};
      options.epochs = 4;
      options.threads = threads;
      const std::thread::id caller = std::this_thread::get_id();
      uint64_t& done = epochs_done[threads - 1];
      const auto progress = [&](const TrainProgress& at) {
        EXPECT_EQ(std::this_thread::get_id(), caller) << "progress off the caller's thread";
        EXPECT_GE(at.done, done);
        done = at.done;
      };
      const Model model = train_with_recipe(smooth_rows(rows, rows), options, Recipe::automatic,
                                            space, &choices[threads - 1], progress);
      EXPECT_NE(model.distance_scale, 0.0) << rows << " rows: no distance term to compare";
      blobs.push_back(write_blob(model));
    }
    EXPECT_EQ(blobs[0], blobs[1]) << rows << " rows";
    EXPECT_EQ(epochs_done[0], epochs_done[1]);  // every epoch reported, the last on time
    EXPECT_EQ(choices[0].hidden, choices[1].hidden);
    EXPECT_EQ(choices[0].epochs, choices[1].epochs);
    EXPECT_EQ(choices[0].held_out_loglik, choices[1].held_out_loglik);
  }
}

// A callback that throws in the final training ends train_with_recipe with its exception, the
// distance folds beside it abandoned.
TEST(RecipeThreads, AFailureInTheFinalTrainingIsRethrown) {
  SearchSpace space;
  space.networks = {{6}};
  space.epochs = {2};
  TrainOptions options;
  options.hidden = {6};
  options.epochs = 2;
  options.threads = 2;
  options.on_epoch = [](uint32_t, uint32_t, const Model&) { throw std::runtime_error("stop"); };
  EXPECT_THROW(train_with_recipe(smooth_rows(9, 150), options, Recipe::automatic, space),
               std::runtime_error);
}

}  // namespace
}  // namespace pbp::trainer
