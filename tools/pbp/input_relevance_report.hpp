// SPDX-License-Identifier: Apache-2.0
// What `pbp inspect` says of an ARD or Laplace model's inputs: the learned priors read from the
// blob's metadata, and each input's relevance (text and JSON).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "pbp/pbp.h"
#include "pbp/trainer/input_relevance.hpp"

namespace pbp::cli {

// The learned per-input prior Gammas of an ARD model (metadata input_prior_precision), if any;
// throws std::runtime_error naming `path` if the entry is malformed.
std::optional<std::vector<trainer::Gamma>> input_priors(const std::string& path,
                                                        const pbp_model& m);
// The learned q(phi) of a Laplace input-prior model (metadata input_laplace_scale), if any.
std::optional<trainer::LaplaceScale> laplace_scale(const std::string& path, const pbp_model& m);

// A Gamma(a, b) held in float32 in the blob, as JSON {"a", "b"}.
std::string gamma_json(double a, double b);

std::string relevance_json(const std::vector<trainer::Gamma>& priors,
                           const std::vector<std::string>& names);
void print_relevance(const std::vector<trainer::Gamma>& priors,
                     const std::vector<std::string>& names);
std::string laplace_relevance_json(const pbp_model& m, const std::vector<std::string>& names);
// A Laplace model: its common scale, then each input's first-layer weights' mean square.
void print_laplace_relevance(const pbp_model& m, const trainer::LaplaceScale& scale,
                             const std::vector<std::string>& names);

}  // namespace pbp::cli
