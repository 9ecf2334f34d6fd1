// SPDX-License-Identifier: Apache-2.0
// The ARD prior (PriorMode::ard): the EP sweep with one Gamma per input group checked against an
// independent evaluation of eqs. 6, 7, 9 and 10, against the shared-prior sweep run on each group
// alone (bit for bit), and on a synthetic problem whose irrelevant inputs must rank lowest.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "pbp/trainer/input_relevance.hpp"
#include "pbp/trainer/prior.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"
#include "prior_test_support.hpp"

namespace pbp::trainer {
namespace {

constexpr uint32_t kInputs = 3;
constexpr uint32_t kHidden = 4;

// A 3-4-1 network whose every weight has already absorbed its prior factor (so every cavity is
// proper), and a distinct Gamma per group.
struct Sweep {
  std::vector<Layer> layers;
  PriorFactors factors;
  std::vector<Gamma> priors;
};

Sweep random_sweep(uint64_t seed, const PriorGroups& groups) {
  Random random(seed);
  Sweep s;
  for (const auto& [inputs, outputs] : {std::pair{kInputs, kHidden}, std::pair{kHidden, 1u}}) {
    Layer layer;
    layer.inputs = inputs;
    layer.outputs = outputs;
    layer.activation =
        outputs != 1 ? pbp::trainer::Activation::relu : pbp::trainer::Activation::linear;
    std::vector<PriorFactor> factors;
    for (uint32_t i = 0; i < outputs * (inputs + 1); ++i) {
      const PriorFactor f{random.normal() * 0.3, 0.2 + random.uniform(), 0.5 * random.uniform(),
                          0.3 * random.uniform()};
      layer.variance.push_back(1.0 / (f.precision + 0.5 + 3.0 * random.uniform()));
      layer.mean.push_back(random.normal());
      factors.push_back(f);
    }
    s.layers.push_back(layer);
    s.factors.push_back(factors);
  }
  for (uint32_t g = 0; g < groups.count; ++g) {
    s.priors.push_back({3.0 + 5.0 * random.uniform(), 2.0 + 5.0 * random.uniform()});
  }
  return s;
}

TEST(ArdPrior, GroupsAreTheInputColumnsOfLayerZero) {
  const Sweep s = random_sweep(1, PriorGroups{});
  const PriorGroups groups = input_prior_groups(s.layers);
  EXPECT_EQ(groups.count, 1 + kInputs + 1);
  for (uint32_t i = 0; i < kHidden * (kInputs + 1); ++i) {
    EXPECT_EQ(groups.of_weight[0][i], 1 + i % (kInputs + 1)) << i;  // bias column: 1 + kInputs
  }
  for (uint32_t group : groups.of_weight[1]) EXPECT_EQ(group, 0u);
  const PriorGroups shared = shared_prior_groups(s.layers);
  EXPECT_EQ(shared.count, 1u);
  for (const auto& layer : shared.of_weight) {
    EXPECT_TRUE(std::all_of(layer.begin(), layer.end(), [](uint32_t g) { return g == 0; }));
  }
}

// Every factor update of the grouped sweep, in order, against eqs. 6, 7, 9, 10 evaluated with its
// own group's current Gamma, which it then updates. Damped (ARD's kArdDamping) as Jylanki et al.
// define it: the factor's natural parameters move part of the way to the matched ones, and the
// posterior is the cavity times that factor.
TEST(ArdPrior, GroupedSweepMatchesIndependentEvaluation) {
  for (const double damping : {kUndamped, kArdDamping}) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      const PriorGroups groups = input_prior_groups(random_sweep(seed, PriorGroups{}).layers);
      Sweep s = random_sweep(seed, groups);
      std::vector<Gamma> expected_priors = s.priors;
      std::vector<std::vector<test::Expected>> expected(s.layers.size());
      for (size_t l = 0; l < s.layers.size(); ++l) {
        for (size_t i = 0; i < s.layers[l].mean.size(); ++i) {
          const uint32_t group = l == 0 ? 1 + i % (kInputs + 1) : 0;
          const PriorFactor& f = s.factors[l][i];
          const double v = s.layers[l].variance[i];
          const double cav_v = 1.0 / (1.0 / v - f.precision);
          const double cav_m = cav_v * (s.layers[l].mean[i] / v - f.mean_times_precision);
          Gamma& prior = expected_priors[group];
          const Gamma cav{prior.a - f.a, prior.b - f.b};
          const test::Expected e = test::independent_update(cav_m, cav_v, cav.a, cav.b);
          const double precision =
              f.precision + damping * (1 / e.variance - 1 / cav_v - f.precision);
          const double mean_times_precision =
              f.mean_times_precision +
              damping * (e.mean / e.variance - cav_m / cav_v - f.mean_times_precision);
          const double variance = 1 / (1 / cav_v + precision);
          expected[l].push_back({(cav_m / cav_v + mean_times_precision) * variance, variance,
                                 cav.a + f.a + damping * (e.a - cav.a - f.a),
                                 cav.b + f.b + damping * (e.b - cav.b - f.b)});
          prior = {expected[l].back().a, expected[l].back().b};
        }
      }
      const PriorRefinement refined = refine_prior(s.layers, s.priors, groups, s.factors, damping);
      EXPECT_EQ(refined.attempted, kHidden * (kInputs + 1) + kHidden + 1);
      ASSERT_EQ(refined.skipped, 0u);
      for (size_t l = 0; l < s.layers.size(); ++l) {
        for (size_t i = 0; i < s.layers[l].mean.size(); ++i) {
          const test::Expected& e = expected[l][i];
          EXPECT_NEAR(s.layers[l].mean[i], e.mean, 1e-7 * (1 + std::abs(e.mean)));
          EXPECT_NEAR(s.layers[l].variance[i], e.variance, 1e-7 * e.variance);
        }
      }
      for (uint32_t g = 0; g < groups.count; ++g) {
        EXPECT_NEAR(s.priors[g].a, expected_priors[g].a, 1e-7 * expected_priors[g].a) << g;
        EXPECT_NEAR(s.priors[g].b, expected_priors[g].b, 1e-7 * expected_priors[g].b) << g;
      }
    }
  }
}

// The grouped sweep is the one-group sweep run on each group's weights alone (bit for bit, same
// damping): a group's Gamma sees its own weights only, in the same order. Undamped with one group
// it is the reference's sweep: one Gamma updated after every weight in layer/row/column order.
TEST(ArdPrior, EachGroupIsASharedPriorSweepBitForBit) {
  const PriorGroups groups = input_prior_groups(random_sweep(7, PriorGroups{}).layers);
  const Sweep before = random_sweep(7, groups);
  Sweep ard = before;
  refine_prior(ard.layers, ard.priors, groups, ard.factors, kArdDamping);
  for (uint32_t g = 0; g < groups.count; ++g) {
    Layer alone;
    std::vector<std::pair<size_t, size_t>> where;
    PriorFactors factors(1);
    for (size_t l = 0; l < before.layers.size(); ++l) {
      for (size_t i = 0; i < before.layers[l].mean.size(); ++i) {
        if (groups.of_weight[l][i] != g) continue;
        alone.mean.push_back(before.layers[l].mean[i]);
        alone.variance.push_back(before.layers[l].variance[i]);
        factors[0].push_back(before.factors[l][i]);
        where.emplace_back(l, i);
      }
    }
    std::vector<Layer> layers{alone};
    std::vector<Gamma> prior{before.priors[g]};
    refine_prior(layers, prior, shared_prior_groups(layers), factors, kArdDamping);
    for (size_t k = 0; k < where.size(); ++k) {
      EXPECT_EQ(layers[0].mean[k], ard.layers[where[k].first].mean[where[k].second]);
      EXPECT_EQ(layers[0].variance[k], ard.layers[where[k].first].variance[where[k].second]);
    }
    EXPECT_EQ(prior[0].a, ard.priors[g].a) << g;
    EXPECT_EQ(prior[0].b, ard.priors[g].b) << g;
  }

  Sweep shared = before;
  std::vector<Gamma> one{before.priors[0]};
  refine_prior(shared.layers, one, shared_prior_groups(shared.layers), shared.factors);
  Sweep reference = before;
  Gamma gamma = before.priors[0];
  for (size_t l = 0; l < reference.layers.size(); ++l) {
    for (size_t i = 0; i < reference.layers[l].mean.size(); ++i) {
      refine_prior_factor(reference.layers[l].mean[i], reference.layers[l].variance[i], gamma,
                          reference.factors[l][i]);
    }
  }
  EXPECT_EQ(one[0].a, gamma.a);
  EXPECT_EQ(one[0].b, gamma.b);
  for (size_t l = 0; l < shared.layers.size(); ++l) {
    EXPECT_EQ(shared.layers[l].mean, reference.layers[l].mean);
    EXPECT_EQ(shared.layers[l].variance, reference.layers[l].variance);
  }
}

TEST(ArdPrior, MismatchedGroupsAreRefused) {
  const PriorGroups groups = input_prior_groups(random_sweep(2, PriorGroups{}).layers);
  Sweep s = random_sweep(2, groups);
  std::vector<Gamma> too_few(groups.count - 1);
  EXPECT_THROW(refine_prior(s.layers, too_few, groups, s.factors), std::invalid_argument);
  PriorGroups out_of_range = groups;
  out_of_range.of_weight[1][0] = groups.count;
  EXPECT_THROW(refine_prior(s.layers, s.priors, out_of_range, s.factors), std::invalid_argument);
  for (const double damping : {0.0, -0.5, 1.5, std::nan("")}) {
    EXPECT_THROW(refine_prior(s.layers, s.priors, groups, s.factors, damping),
                 std::invalid_argument);
  }
}

// y = sin(2 x0) + 0.5 x1^2 + 0.8 x2 + noise; x3, x4, x5 are pure noise.
Dataset relevance_problem(uint64_t seed, size_t rows) {
  return test::synthetic(
      seed, rows, 6,
      [](double v, size_t k) {
        return k == 0 ? std::sin(2.0 * v) : k == 1 ? 0.5 * v * v : k == 2 ? 0.8 * v : 0.0;
      },
      0.1, [](double t) { return t; });
}

TEST(ArdPrior, IrrelevantInputsGetTheLowestRelevance) {
  TrainOptions options;
  options.prior = PriorMode::ard;
  const Model model = train(relevance_problem(5, 300), options);
  ASSERT_EQ(model.input_priors.size(), 7u);
  const std::vector<InputRelevance> relevance = input_relevance(model.input_priors);
  ASSERT_EQ(relevance.size(), 6u);
  double lowest_relevant = 1.0, highest_irrelevant = 0.0;
  for (const InputRelevance& r : relevance) {
    std::printf("x%u  relevance %.4f  E[1/lambda] %.5f  E[lambda] %.3f  (a %.2f, b %.4f)\n",
                r.input, r.relevance, r.prior_variance, r.precision_mean, r.gamma.a, r.gamma.b);
    if (r.input < 3) lowest_relevant = std::min(lowest_relevant, r.relevance);
    if (r.input >= 3) highest_irrelevant = std::max(highest_irrelevant, r.relevance);
  }
  EXPECT_EQ(relevance.front().relevance, 1.0);
  EXPECT_LT(relevance.front().input, 3u);
  EXPECT_LT(highest_irrelevant, lowest_relevant);
}

TEST(ArdPrior, TrainingIsDeterministicAndLeavesTheSharedPriorAlone) {
  TrainOptions options;
  options.hidden = {10};
  options.epochs = 5;
  options.prior = PriorMode::ard;
  const Dataset data = relevance_problem(9, 80);
  const Model first = train(data, options);
  const Model second = train(data, options);
  ASSERT_EQ(first.input_priors.size(), second.input_priors.size());
  for (size_t k = 0; k < first.input_priors.size(); ++k) {
    EXPECT_EQ(first.input_priors[k].a, second.input_priors[k].a);
    EXPECT_EQ(first.input_priors[k].b, second.input_priors[k].b);
    EXPECT_GT(first.input_priors[k].a, 1.0);
  }
  EXPECT_EQ(first.layers[0].mean, second.layers[0].mean);
  EXPECT_NE(first.prior.a, Gamma{}.a);  // the deeper weights' Gamma is learned as well
  options.prior = PriorMode::learned;
  EXPECT_TRUE(train(data, options).input_priors.empty());
  options.prior = PriorMode::ard;
  options.algorithm = Algorithm::ebp;
  EXPECT_THROW(train(data, options), std::invalid_argument);
}

}  // namespace
}  // namespace pbp::trainer
