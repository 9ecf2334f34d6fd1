// SPDX-License-Identifier: Apache-2.0
// Data-aware rounding of int8 weight means: the rounding of OPTQ/GPTQ (Frantar et al. 2023) on
// PBP's moment propagation. Each row's means are rounded one at a time onto an int8 grid the
// blob writer keeps (format.hpp's int8_weights: one scale per row, its largest |mean| / 127), and
// each rounding error is spread over the row's weights not yet rounded so that the row's sums
// over the training rows change least: the error e of the sum is e^T H e with H the mean of
// E[z z^T] of the layer's input units (their moments under the float model: A A^T + diag(C),
// the bias unit 1). The row's step is the one whose grid loses least of those sums by H's
// diagonal: a mean far beyond the rest, on an input the rows hardly use, is clipped at +-127
// steps (the row's largest after the rounding, so the writer's scale is this step). The
// variances are not changed. Only training rows are used.
//
// With the training rows, the layers go in order (GPTQ's sequential variant): before layer l is
// rounded, its means m move to m' = argmin E[(m^T z - m'^T z')^2] + lambda |m' - m|^2, z the
// float model's inputs and z' those of the model whose earlier layers are rounded, so that each
// layer makes up for what the rounding before it changed (the UCI sets: the int8 - float32 test
// log-likelihood's mean absolute difference halves on yacht and concrete).
#pragma once
#include <cstddef>
#include <span>

#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/int8_unit_scales.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

// The second moments H (row_length x row_length, row-major; the bias unit last) of every layer's
// input units over `rows` standardised inputs (row-major, model.layers[0].inputs per row).
std::vector<std::vector<double>> layer_input_second_moments(const Model& model,
                                                            std::span<const double> inputs,
                                                            size_t rows);

// Moves every layer's means onto the int8 grid, compensating as above with `second_moments`
// (layer_input_second_moments'). The blob writer then stores exactly these values (its nearest
// rounding of a value on the grid is the value), so `write_blob` of the result is the int8 blob.
void round_means_to_int8_grid(Model& model, const std::vector<std::vector<double>>& second_moments);

// The means' step for `pbp train --storage int8` and `pbp quantize --data`, sequential as above:
// the training rows in original units, standardised as the model's inputs; at most
// kInt8RoundingRows of them, evenly spaced (the second moments settle long before;
// Fashion-MNIST's 60 000 would take minutes). The means are taken as they are: `pbp train` passes
// the float32 blob's values, so that `pbp quantize --data` of that blob gives the same bytes.
inline constexpr size_t kInt8RoundingRows = 4096;
void round_means_to_int8_grid(Model& model, const Dataset& training_rows);

// The whole step: first the units' power-of-two scales (int8_unit_scales.hpp), which change no
// prediction and keep the variances on their codes, then round_means_to_int8_grid; both on the
// same rows. Returns the exponents it applied.
UnitExponents rescale_and_round_for_int8(Model& model, const Dataset& training_rows);

// The rows of `rows` the rounding uses: every ceil(rows / kInt8RoundingRows)-th from the first.
std::vector<size_t> int8_rounding_rows(size_t rows);

}  // namespace pbp::trainer
