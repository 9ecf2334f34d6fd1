// SPDX-License-Identifier: Apache-2.0
// The names of the training options' values, once: the command line (tools/pbp/train_setup.cpp)
// and the Python module (tools/python/src/training.cpp) both parse and list them from here.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "pbp/activations.hpp"
#include "pbp/format.hpp"
#include "pbp/storage_types.hpp"
#include "pbp/trainer/recipe.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {

template <class Value>
struct OptionName {
  const char* name;
  Value value;
};

// The hidden activations' names from their table (pbp/activations.hpp).
#define PBP_ACTIVATION_OPTION(Traits, name, built) {name, static_cast<Activation>(Traits::kId)},
inline constexpr OptionName<Activation> kActivationNames[] = {
    PBP_HIDDEN_ACTIVATIONS(PBP_ACTIVATION_OPTION)};
#undef PBP_ACTIVATION_OPTION
// The weight storage types' names from their table (pbp/storage_types.hpp).
#define PBP_STORAGE_OPTION(Codec, name, built, kernel, validator) \
  {name, static_cast<format::Storage>(Codec::kId)},
inline constexpr OptionName<format::Storage> kStorageNames[] = {
    PBP_STORAGE_TYPES(PBP_STORAGE_OPTION)};
#undef PBP_STORAGE_OPTION
// The trainer's likelihoods' names from their table (pbp/trainer/likelihood_table.hpp).
#define PBP_LIKELIHOOD_OPTION(kind, name, Blob, factory) {name, LikelihoodKind::kind},
inline constexpr OptionName<LikelihoodKind> kLikelihoodNames[] = {
    PBP_TRAINER_LIKELIHOODS(PBP_LIKELIHOOD_OPTION)};
#undef PBP_LIKELIHOOD_OPTION
inline constexpr OptionName<Algorithm> kAlgorithmNames[] = {{"pbp", Algorithm::pbp},
                                                            {"ebp", Algorithm::ebp}};
// "auto" (the default) lets the task pick: learned for regression and counts, fixed otherwise.
inline constexpr OptionName<PriorMode> kPriorNames[] = {{"auto", PriorMode::automatic},
                                                        {"learned", PriorMode::learned},
                                                        {"fixed", PriorMode::fixed},
                                                        {"ard", PriorMode::ard},
                                                        {"laplace", PriorMode::laplace}};
inline constexpr OptionName<Inference> kInferenceNames[] = {{"adf", Inference::adf},
                                                            {"sep", Inference::sep}};
inline constexpr OptionName<IterateAveraging> kAveragingNames[] = {
    {"auto", IterateAveraging::automatic},
    {"on", IterateAveraging::on},
    {"off", IterateAveraging::off}};
inline constexpr OptionName<SoftmaxApproximation> kSoftmaxNames[] = {
    {"mean-field", SoftmaxApproximation::mean_field},
    {"bound", SoftmaxApproximation::log_bound},
    {"sampled", SoftmaxApproximation::sampled}};
inline constexpr OptionName<Recipe> kRecipeNames[] = {{"auto", Recipe::automatic},
                                                      {"paper", Recipe::paper}};

// The value named `name` in `names`, or nullopt.
template <class Value, size_t N>
std::optional<Value> parse_option_name(const OptionName<Value> (&names)[N], std::string_view name) {
  for (const OptionName<Value>& entry : names) {
    if (name == entry.name) return entry.value;
  }
  return std::nullopt;
}

// "a|b|c": the names as a usage line's alternatives.
template <class Value, size_t N>
std::string option_alternatives(const OptionName<Value> (&names)[N]) {
  std::string text;
  for (size_t i = 0; i < N; ++i) text.append(i > 0 ? "|" : "").append(names[i].name);
  return text;
}

// "a, b or c", with every name wrapped in `quote` (the Python module quotes, the CLI does not).
template <class Value, size_t N>
std::string option_choices(const OptionName<Value> (&names)[N], std::string_view quote = "") {
  std::string text;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) text += i + 1 == N ? " or " : ", ";
    text.append(quote).append(names[i].name).append(quote);
  }
  return text;
}

}  // namespace pbp::trainer
