// SPDX-License-Identifier: Apache-2.0
// Power-of-two rescaling of ReLU units before int8 rounding: cross-layer equalisation (Nagel et
// al., "Data-free quantization", 2019) for the variances of Gaussian weights. ReLU(c a) = c ReLU(a)
// for c > 0, so multiplying unit j's incoming row by c (means by c, variances by c^2) and its
// outgoing column by 1/c leaves every moment the network propagates unchanged, bit for bit when c
// is a power of two. The int8 variance codes share one scale per layer (its largest / 255^2, the
// least code 1): a layer whose variances span more than that, such as the large ones of units the
// training rows hardly switch on beside the small ones of the units that carry the prediction,
// loses the small ones to the floor. Moving such units' scale between their two layers keeps what
// matters on the codes. The exponents are searched for on the training rows (below).
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

// The exponent e of each unit after each layer, exponents[l][j] for unit j after layer l (the last
// layer's outputs, erf and sign units stay 0): its row of layer l times 2^e, its column of layer
// l + 1 times 2^-e.
using UnitExponents = std::vector<std::vector<int>>;

// The exponents for int8 storage, from `rows` standardised inputs (row-major,
// model.layers[0].inputs per row), on at most kInt8UnitSearchRows of them evenly spaced. Only a
// model whose variance codes alone move its outputs' variances by a mean |log ratio| of
// kInt8UnitSearchGate or more is searched (the others keep exponents 0, and their bytes): a
// greedy search, unit by unit and layer by layer, each unit's exponent within
// kInt8UnitSearchStep of its current one, that keeps a move when it lowers the mean over rows
// and outputs of |log variance ratio| + |mean difference| / predictive std between the model with
// every weight on its code (means to the nearest) and without; sweeps repeat until none moves (at
// most kInt8UnitSearchSweeps). A move may not take a unit's outgoing means past the largest of
// their row (the row's scale), its root mean square beyond 2^6 of the largest other unit's (the
// int16 unit codes), nor its largest variances below code 16 in either layer (on rows where it
// switches on they matter). One candidate costs a pass over the weights per row: the rows are
// cut to stay within kInt8UnitSearchBudget weight-passes, and a network too large for
// kInt8UnitSearchMinRows (Fashion-MNIST's 784-400-400-10) keeps exponents 0.
inline constexpr int kInt8UnitExponentLimit = 16;    // a variance moves by at most 2^+-32
inline constexpr double kInt8UnitSearchGate = 0.01;  // about 0.5 % of epistemic std
inline constexpr int kInt8UnitSearchStep = 4;
inline constexpr size_t kInt8UnitSearchRows = 128;
inline constexpr size_t kInt8UnitSearchMinRows = 16;
inline constexpr size_t kInt8UnitSearchSweeps = 16;
inline constexpr double kInt8UnitSearchBudget = 8589934592.0;  // 2^33 weight-passes: seconds
UnitExponents int8_unit_exponents(const Model& model, std::span<const double> inputs, size_t rows);

// Applies `exponents` (exact: powers of two).
void rescale_units(Model& model, const UnitExponents& exponents);

// The exponents that turn `original` into `rescaled` (for instance its int8 blob, whose rounding
// and clipping move some means): per unit, the median of log2(rescaled / original) over the
// weights on large codes (means of 16 steps or more, variance codes of 16 or more, within 15 % of
// 2^e), rounded; the inverse of rescale_units up to that rounding.
UnitExponents unit_exponents_between(const Model& original, const Model& rescaled);

}  // namespace pbp::trainer
