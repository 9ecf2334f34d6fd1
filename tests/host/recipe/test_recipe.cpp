// SPDX-License-Identifier: Apache-2.0
// train_with_recipe (recipe.hpp): PBP as published, and the automatic recipe's choices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>

#include "../prior_refinement/prior_test_support.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/noise_calibration.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/recipe.hpp"

namespace pbp::trainer {
namespace {

// y = x0 + tanh(x1) / 2 + N(0, 0.05^2): an easy function and little noise, where PBP's noise
// Gamma stays far above the truth.
Dataset low_noise(uint64_t seed, size_t rows) {
  return test::synthetic(
      seed, rows, 2, [](double v, size_t k) { return k == 0 ? v : 0.5 * std::tanh(v); }, 0.05,
      [](double t) { return t; });
}

double noise_std(const Model& model) {
  return std::sqrt(model.noise.variance_estimate()) * model.standardisation.target_std;
}

TrainOptions quick(uint32_t epochs) {
  TrainOptions options;
  options.hidden = {20};
  options.epochs = epochs;
  return options;
}

TEST(Recipe, PaperIsTrainItself) {
  const Dataset data = low_noise(1, 120);
  EXPECT_EQ(write_blob(train_with_recipe(data, quick(5), Recipe::paper)),
            write_blob(train(data, quick(5))));
}

TEST(Recipe, AutomaticFindsTheNoiseThatPaperOverstates) {
  const Dataset data = low_noise(2, 300);
  SearchSpace space;
  space.networks = {{20}};
  space.epochs = {20, 40, 80};
  RecipeChoice choice;
  const Model automatic = train_with_recipe(data, quick(40), Recipe::automatic, space, &choice);
  const Model paper = train_with_recipe(data, quick(40), Recipe::paper);
  // The truth is 0.05. The held-out fit adds the model's own error, so it may sit a little above.
  std::cout << "noise std: automatic " << noise_std(automatic) << ", paper " << noise_std(paper)
            << ", truth 0.05\n";
  EXPECT_GT(noise_std(automatic), 0.04);
  EXPECT_LT(noise_std(automatic), 0.07);
  EXPECT_GT(noise_std(paper) - 0.05, 2.0 * std::abs(noise_std(automatic) - 0.05));
  EXPECT_EQ(choice.folds, 3u);  // 300 rows: pooled folds
  EXPECT_EQ(choice.held_out_rows, 300u);
  EXPECT_EQ(choice.hidden, std::vector<uint32_t>{20});
  EXPECT_NEAR(automatic.noise.variance_estimate(), choice.noise_variance,
              1e-12 * choice.noise_variance);
  // The epistemic scale fitted with it goes into the model (and its blob) as it is.
  EXPECT_EQ(automatic.epistemic_scale, choice.epistemic_scale);
  EXPECT_GE(choice.epistemic_scale, kMinEpistemicScale * (1 - 1e-7));
  EXPECT_LE(choice.epistemic_scale, kMaxEpistemicScale * (1 + 1e-7));
  EXPECT_EQ(read_blob(write_blob(automatic)).epistemic_scale, automatic.epistemic_scale);
  EXPECT_EQ(paper.epistemic_scale, 1.0);
}

TEST(Recipe, ChoosesOnlyFromTheSearchSpaceAndIsDeterministic) {
  const Dataset data = low_noise(3, 150);
  SearchSpace space;
  space.networks = {{6}, {6, 6}};
  space.epochs = {2, 4};
  RecipeChoice first, second;
  const Model a = train_with_recipe(data, quick(4), Recipe::automatic, space, &first);
  const Model b = train_with_recipe(data, quick(4), Recipe::automatic, space, &second);
  EXPECT_EQ(write_blob(a), write_blob(b));
  EXPECT_TRUE(first.hidden == std::vector<uint32_t>{6} ||
              first.hidden == (std::vector<uint32_t>{6, 6}));
  EXPECT_TRUE(first.epochs == 2 || first.epochs == 4);
  EXPECT_EQ(a.layers.size(), first.hidden.size() + 1);
  EXPECT_TRUE(std::isfinite(first.held_out_loglik));
}

TEST(Recipe, StoppingAfterAnEpochIsTrainingThatMany) {
  const Dataset data = low_noise(5, 100);
  TrainOptions stopped = quick(6);
  stopped.stop_after = [](uint32_t epoch) { return epoch == 3; };
  EXPECT_EQ(write_blob(train(data, stopped)), write_blob(train(data, quick(3))));
}

TEST(Recipe, ACandidateThatCannotWinLeavesTheRace) {
  // One hidden unit cannot follow x0 + tanh(x1) / 2 as twenty do: after the first fold its
  // held-out rows are below by many standard errors, and only the 20-unit network is trained on
  // the other two folds. Every candidate trains to its last checkpoint: the epochs are few.
  const Dataset data = low_noise(6, 300);
  SearchSpace space;
  space.networks = {{1}, {20}};
  space.epochs = {5, 10};
  uint32_t trained = 0;
  RecipeChoice choice;
  train_with_recipe(data, quick(10), Recipe::automatic, space, &choice,
                    [&](const TrainProgress& p) { trained = std::max(trained, p.candidate); });
  EXPECT_EQ(trained, 4u);  // both networks on the first fold, then the 20-unit one twice
  EXPECT_EQ(choice.hidden, std::vector<uint32_t>{20});
  EXPECT_EQ(choice.held_out_rows, 300u);
}

// y = x0 + N(0, (0.02 + 0.6 |x1|)^2): noise that follows an input, thirty-fold across the rows.
Dataset input_dependent_noise(uint64_t seed, size_t rows) {
  Random random(seed);
  Dataset data;
  data.rows = rows;
  data.inputs = 2;
  for (size_t i = 0; i < rows; ++i) {
    const double x0 = random.normal(), x1 = random.normal();
    data.x.insert(data.x.end(), {x0, x1});
    data.y.push_back(x0 + (0.02 + 0.6 * std::abs(x1)) * random.normal());
  }
  return data;
}

TEST(Recipe, TheHeldOutRowsChooseTheLikelihood) {
  SearchSpace space;
  space.networks = {{10}};
  space.epochs = {10, 20};
  space.likelihoods = {LikelihoodKind::gaussian, LikelihoodKind::heteroscedastic};
  uint32_t candidates = 0;
  RecipeChoice varying, shared;
  train_with_recipe(input_dependent_noise(7, 300), quick(10), Recipe::automatic, space, &varying,
                    [&](const TrainProgress& p) { candidates = p.candidates; });
  EXPECT_EQ(candidates, 6u);  // 3 folds of one network with each likelihood
  EXPECT_EQ(varying.likelihood, LikelihoodKind::heteroscedastic);
  TrainOptions gaussian = quick(10);  // the option forces it: one network a fold
  gaussian.likelihood = LikelihoodKind::gaussian;
  train_with_recipe(input_dependent_noise(7, 300), gaussian, Recipe::automatic, space, &shared,
                    [&](const TrainProgress& p) { candidates = p.candidates; });
  EXPECT_EQ(candidates, 3u);
  EXPECT_EQ(shared.likelihood, LikelihoodKind::gaussian);
}

TEST(Recipe, AHeteroscedasticModelCarriesItsCalibration) {
  // The calibrated model against the same training without it: the mean as it was, the noise
  // times the factor, the epistemic variance times the scale plus the floor (carried by the
  // output biases of sums scaled by 1 / sqrt(inputs + 1)), to a few double roundings.
  const Dataset data = input_dependent_noise(8, 200);
  SearchSpace space;
  space.networks = {{10}};
  space.epochs = {10};
  TrainOptions options = quick(10);
  options.likelihood = LikelihoodKind::heteroscedastic;
  RecipeChoice choice;
  const Model calibrated = train_with_recipe(data, options, Recipe::automatic, space, &choice);
  ASSERT_EQ(choice.likelihood, LikelihoodKind::heteroscedastic);
  options.hidden = {10};  // as the recipe trains
  options.averaging = IterateAveraging::on;
  const Model raw = train(data, options);
  const double to_target = raw.standardisation.target_std * raw.standardisation.target_std;
  for (size_t i = 0; i < data.rows; i += 17) {
    const std::span<const double> x(data.row(i), data.inputs);
    const Prediction p = predict(calibrated, x), q = predict(raw, x);
    EXPECT_EQ(p.mean, q.mean);
    EXPECT_NEAR(p.aleatoric_variance, choice.noise_variance * q.aleatoric_variance,
                1e-12 * choice.noise_variance * q.aleatoric_variance);
    const double epistemic =
        choice.epistemic_scale * q.epistemic_variance + choice.noise_floor * to_target;
    EXPECT_NEAR(p.epistemic_variance, epistemic, 1e-12 * epistemic);
  }
}

TEST(Recipe, LargeDataHoldsOutOneFifth) {
  EXPECT_EQ(selection_folds(599), 3u);
  EXPECT_EQ(selection_folds(600), 1u);
  const Dataset data = low_noise(4, 700);
  SearchSpace space;
  space.networks = {{4}};
  space.epochs = {1};
  RecipeChoice choice;
  train_with_recipe(data, quick(1), Recipe::automatic, space, &choice);
  EXPECT_EQ(choice.folds, 1u);
  EXPECT_EQ(choice.held_out_rows, 140u);
}

// The final training's epochs, seen by the progress callback (candidate 0 is the final training).
uint32_t final_epochs(size_t rows) {
  SearchSpace space;
  space.networks = {{4}};
  space.epochs = {10};
  uint32_t epochs = 0;
  train_with_recipe(low_noise(4, rows), quick(10), Recipe::automatic, space, nullptr,
                    [&](const TrainProgress& p) {
                      if (p.candidate == 0) epochs = p.epochs;
                    });
  return epochs;
}

TEST(Recipe, OneFifthHeldOutBelow5000RowsGoesOnFromTheSearchedModel) {
  EXPECT_EQ(final_epochs(700), 2u);    // a fifth of the chosen 10, from the searched model
  EXPECT_EQ(final_epochs(300), 10u);   // 3 folds: trained again from a random start
  EXPECT_EQ(final_epochs(5000), 10u);  // and from 5 000 rows
}

// A network without hidden layers: its epistemic variance is linear in the weights' variances,
// so quartering them quarters it exactly (powers of two).
TEST(Recipe, TheEpistemicScaleIsCarriedOverInProportionToTheShrink) {
  const Dataset data = low_noise(9, 100);
  TrainOptions linear = quick(3);
  linear.hidden = {};
  const Model searched = train(data, linear);
  Model shrunk = searched;
  for (Layer& layer : shrunk.layers) {
    for (double& v : layer.variance) v *= 0.25;
  }
  EXPECT_EQ(carried_epistemic_scale(2.5, searched, shrunk, data), 10.0);
  EXPECT_EQ(carried_epistemic_scale(2.5, searched, searched, data), 2.5);
  EXPECT_EQ(carried_epistemic_scale(10.0, shrunk, searched, data), 2.5);
  EXPECT_EQ(carried_epistemic_scale(600.0, searched, shrunk, data), 1024.0);  // the blob's bound
  EXPECT_EQ(carried_epistemic_scale(0.3, searched, shrunk, data), static_cast<float>(1.2));
}

// With one held-out fifth the final model went on from the searched one and its scale is carried
// over: above the search's fit (what options.on_epoch's models carry), as the further epochs over
// every row shrank the variances. From a random start (3 folds) the fitted scale is kept.
double scale_fitted_and_kept(size_t rows, double* fitted) {
  SearchSpace space;
  space.networks = {{4}};
  space.epochs = {10};
  space.distance_variance = false;
  TrainOptions options = quick(10);
  options.on_epoch = [&](uint32_t, uint32_t, const Model& m) { *fitted = m.epistemic_scale; };
  RecipeChoice choice;
  const Model model =
      train_with_recipe(low_noise(4, rows), options, Recipe::automatic, space, &choice);
  EXPECT_EQ(model.epistemic_scale, choice.epistemic_scale);
  return model.epistemic_scale;
}

TEST(Recipe, AWarmStartedModelCarriesTheScaleOver) {
  double fitted = 0.0;
  const double warm = scale_fitted_and_kept(700, &fitted);  // before reading `fitted`
  EXPECT_GT(warm, fitted * 1.01);
  const double cold = scale_fitted_and_kept(300, &fitted);
  EXPECT_EQ(cold, fitted);
}

TEST(Recipe, AStartModelWithoutEpochsIsTheStartModel) {
  const Dataset data = low_noise(8, 120);
  const Model start = train(data, quick(3));
  TrainOptions again = quick(0);
  again.start = &start;
  EXPECT_EQ(write_blob(train(data, again)), write_blob(start));
  again.epochs = 2;
  const Model on = train(data, again);
  EXPECT_NE(write_blob(on), write_blob(start));
  EXPECT_EQ(write_blob(on), write_blob(train(data, again)));  // deterministic
  TrainOptions other_network = again;
  other_network.hidden = {21};
  EXPECT_THROW(train(data, other_network), std::invalid_argument);
}

TEST(Recipe, OtherTasksTrainAsPublished) {
  TrainOptions options = quick(3);
  options.task = Task::binary;
  const Dataset data = test::synthetic(
      5, 100, 2, [](double v, size_t) { return v; }, 0.1,
      [](double t) { return t > 0 ? 1.0 : 0.0; });
  EXPECT_EQ(write_blob(train_with_recipe(data, options, Recipe::automatic)),
            write_blob(train(data, options)));
}

TEST(Recipe, RefusesWhatItCannotDo) {
  EXPECT_THROW(train_with_recipe(low_noise(6, 9), quick(2), Recipe::automatic),
               std::invalid_argument);
  SearchSpace empty;
  empty.networks.clear();
  EXPECT_THROW(train_with_recipe(low_noise(6, 50), quick(2), Recipe::automatic, empty),
               std::invalid_argument);
  SearchSpace none;
  none.likelihoods.clear();
  EXPECT_THROW(train_with_recipe(low_noise(6, 50), quick(2), Recipe::automatic, none),
               std::invalid_argument);
  SearchSpace counts;
  counts.likelihoods = {LikelihoodKind::negative_binomial};
  EXPECT_THROW(train_with_recipe(low_noise(6, 50), quick(2), Recipe::automatic, counts),
               std::invalid_argument);
  SearchSpace unsorted;
  unsorted.epochs = {4, 2};
  EXPECT_THROW(train_with_recipe(low_noise(6, 50), quick(2), Recipe::automatic, unsorted),
               std::invalid_argument);
}

}  // namespace
}  // namespace pbp::trainer
