// SPDX-License-Identifier: Apache-2.0
// Stochastic expectation propagation of the likelihood factors (SEP: Li, Hernandez-Lobato and
// Turner, NIPS 2015). ADF multiplies every data point's factor into q again on every pass, so
// after E epochs q counts the data E times, its variances shrink like 1/E and the model grows
// more confident with each epoch (Fashion-MNIST 784-400-400-10: ECE 0.005 after one epoch, 0.022
// after ten). SEP keeps one averaged likelihood factor f = (q / prior)^(1/N) for all N points and
// runs each update from the cavity q / f instead of q; with f's step size 1/N the update's result
// is the new q, so q holds each point once however many passes are run.
//
// In natural parameters q / f^k = prior * (q / prior)^(1 - k/N): q moves towards the prior by
// the fraction k/N. That needs no state per weight beyond PBP's own prior factors. (The
// mean-field posterior SEP converges to is broad: Fashion-MNIST, 8 epochs, accuracy 0.859 and
// underconfident, against ADF's 0.888: see Inference in train.hpp.)
#pragma once
#include <cstddef>
#include <vector>

#include "pbp/trainer/adf.hpp"
#include "pbp/trainer/prior.hpp"

namespace pbp::trainer {

// Each weight's prior factor (PriorFactor) laid out like AdfWorkspace::weights; the pads get
// the pads' own moments (mean 0, variance 1), so removing sites leaves them as they are.
struct PaddedPriorSites {
  std::vector<LineAlignedDoubles> mean_times_precision;
  std::vector<LineAlignedDoubles> precision;
};

PaddedPriorSites pad_prior_sites(const AdfWorkspace& ws, const PriorFactors& factors);

// Removes the fraction `fraction` (in [0, 1]) of the likelihood sites from every weight in
// ws.weights: natural parameters (1 - fraction) * q + fraction * prior factor, a convex
// combination of two proper Gaussians, so every variance stays positive and finite.
// k updates' cavities at once: fraction = k / N.
void remove_averaged_sites(AdfWorkspace& ws, const PaddedPriorSites& prior, double fraction);

// The same on a Gamma posterior and its prior (the noise precision's; Gamma natural parameters
// a - 1 and -b are linear too).
void remove_averaged_sites(Gamma& posterior, const Gamma& prior, double fraction);

// Updates between two removals, k: 1 (exact SEP) up to 1024 rows, then rows / 1024 up to 16. A
// removal is a pass over every weight with two divisions each, as costly as an update's own
// pass; with 60 000 rows it moves q by 16 / 60 000 and costs a sixteenth of a pass per update.
size_t updates_per_site_removal(size_t rows);

}  // namespace pbp::trainer
