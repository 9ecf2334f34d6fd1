// SPDX-License-Identifier: Apache-2.0
// The trainer's working layouts of a layer's weights and its vectorised sums over them: the
// loops of linear_moments (runtime/core/pbp/moments.hpp) over the same per-term equations
// (mean_term, variance_term), arranged for the host's vector units. Nothing here enters a
// device build: the runtime's sums run in source order, part of its bit-exact contract.
#pragma once
#include <stdint.h>

#include "pbp/math.hpp"
#include "pbp/moments.hpp"

// The trainer (double) lets the compiler vectorise the dot products below by reassociating them
// (PBP_VECTORIZE_REDUCTIONS with -fopenmp-simd, set for pbp_trainer's sources only).
#if defined(PBP_VECTORIZE_REDUCTIONS)
#define PBP_PRAGMA(x) _Pragma(#x)
#define PBP_SIMD_REDUCTION(...) PBP_PRAGMA(omp simd reduction(+ : __VA_ARGS__))
#else
#define PBP_SIMD_REDUCTION(...)
#endif

namespace pbp::trainer {

// PaddedRows (the trainer's working copy of layers after the first): rows of `stride` >=
// inputs + 1 weights, the bias at index `inputs`, and z holding `stride` entries: the units, the
// bias unit (mean 1, variance 0) at index `inputs`, then zeros. One loop of `stride` terms then
// covers the bias (its terms m_w * 1 and v_w * (1 + 0) + m_w^2 * 0 are exactly the bias terms)
// and the padding adds exact zeros (pad weights must be finite), so without
// PBP_VECTORIZE_REDUCTIONS the sums equal the runtime's bit for bit; with a stride that is a
// multiple of the vector width, the vectorised loop has no remainder.
struct PaddedRows {
  uint32_t stride;
};
// InputMajor (the trainer's working copy of a network's first layer): the weights that multiply
// input k at [k * stride + j], stride >= outputs, the bias as input k = inputs (z holds the bias
// unit there, as for PaddedRows). a_mean and a_var get `columns` <= stride values, outputs
// 0 .. columns - 1 of the weights passed (a caller splitting the outputs offsets the pointers;
// the pads' values are finite if the pad weights are). Each output's sums run over k in source
// order, as the runtime's do (double exact-input sums fuse their multiply-adds, see
// add_exact_input_terms), and the loops over j vectorise without a reduction.
struct InputMajor {
  uint32_t stride;
  uint32_t columns;
};
// The runtime's packed rows (inputs + 1 weights, bias last) with vectorised reductions: the
// trainer's predictions (network_moments_from finds linear_moments for it by argument-dependent
// lookup, as the runtime's stored layers are found).
struct VectorisedRows {
  LayerWeights<double> weights;
  uint32_t inputs;
  uint32_t outputs;
};

// Row-wise sums: `terms` terms of each row of `row_length`, then the bias unless it is among them.
template <class T, bool kExactInput, bool kBiasInInput>
inline void row_moments(const LayerWeights<T>& w, uint32_t row_length, const T* z_mean,
                        const T* z_var, T* a_mean, T* a_var) {
  const LayerScale<T> scale = layer_scale<T>(w.inputs);
  const uint32_t terms = kBiasInInput ? row_length : w.inputs;
  for (uint32_t j = 0; j < w.outputs; ++j) {
    const T* mw = w.mean + j * row_length;
    const T* vw = w.variance + j * row_length;
    T sum_mean = T(0);
    T sum_var = T(0);
    PBP_SIMD_REDUCTION(sum_mean, sum_var)
    for (uint32_t k = 0; k < terms; ++k) {
      const T mz = z_mean[k];
      sum_mean += mean_term(mw[k], mz);
      sum_var += variance_term<T, kExactInput>(mw[k], vw[k], mz, kExactInput ? T(0) : z_var[k]);
    }
    if constexpr (!kBiasInInput) {
      sum_mean += mw[w.inputs];  // bias: m_z = 1, v_z = 0
      sum_var += vw[w.inputs];
    }
    a_mean[j] = sum_mean * scale.mean;
    a_var[j] = sum_var * scale.variance;
  }
}

template <class T, bool kExactInput>
inline void linear_moments(const LayerWeights<T>& w, const T* z_mean, const T* z_var, T* a_mean,
                           T* a_var, PaddedRows layout) {
  row_moments<T, kExactInput, true>(w, layout.stride, z_mean, z_var, a_mean, a_var);
}

template <class T, bool kExactInput>
inline void linear_moments(const VectorisedRows& w, const double* z_mean, const double* z_var,
                           double* a_mean, double* a_var) {
  row_moments<double, kExactInput, false>(w.weights, w.inputs + 1, z_mean, z_var, a_mean, a_var);
}

// mean_term and variance_term<T, true> added to the sums, in double (the trainer's InputMajor
// sums) with each multiply fused into its add where the target has a fused multiply-add: one
// rounding instead of two, and half the operations.
inline void add_exact_input_terms(double& sum_mean, double& sum_var, double mw, double vw,
                                  double mz) {
  sum_mean = math::detail::multiply_add(mw, mz, sum_mean);
  sum_var = math::detail::multiply_add(vw, mz * mz, sum_var);
}

// InputMajor's pass over the sums for inputs k0 .. k0 + kCount - 1: each output's sums add the
// terms in order of k, as the row-wise loops do; the first pass starts them at zero, the last
// scales them.
template <class T, bool kExactInput, uint32_t kCount, bool kFirst, bool kLast>
inline void add_input_terms(const LayerWeights<T>& w, InputMajor layout, uint32_t k0,
                            const T* z_mean, const T* z_var, LayerScale<T> scale, T* a_mean,
                            T* a_var) {
  const uint32_t stride = layout.stride;
  const T* mw[kCount];
  const T* vw[kCount];
  T mz[kCount];
  T vz[kCount];
  for (uint32_t g = 0; g < kCount; ++g) {
    mw[g] = w.mean + (k0 + g) * stride;
    vw[g] = w.variance + (k0 + g) * stride;
    mz[g] = z_mean[k0 + g];
    vz[g] = kExactInput ? T(0) : z_var[k0 + g];
  }
  PBP_LOOP_ARRAYS_DISJOINT  // weights and sums
      for (uint32_t j = 0; j < layout.columns; ++j) {
    T sum_mean = kFirst ? T(0) : a_mean[j];
    T sum_var = kFirst ? T(0) : a_var[j];
    for (uint32_t g = 0; g < kCount; ++g) {
      if constexpr (kExactInput) {
        add_exact_input_terms(sum_mean, sum_var, mw[g][j], vw[g][j], mz[g]);
      } else {
        sum_mean += mean_term(mw[g][j], mz[g]);
        sum_var += variance_term<T, false>(mw[g][j], vw[g][j], mz[g], vz[g]);
      }
    }
    a_mean[j] = kLast ? sum_mean * scale.mean : sum_mean;
    a_var[j] = kLast ? sum_var * scale.variance : sum_var;
  }
}

// One InputMajor pass over `count` (1 to 4) inputs from k0.
template <class T, bool kExactInput, bool kFirst, bool kLast>
inline void add_input_group(uint32_t count, const LayerWeights<T>& w, InputMajor layout,
                            uint32_t k0, const T* z_mean, const T* z_var, LayerScale<T> scale,
                            T* a_mean, T* a_var) {
  switch (count) {
    case 1:
      return add_input_terms<T, kExactInput, 1, kFirst, kLast>(w, layout, k0, z_mean, z_var, scale,
                                                               a_mean, a_var);
    case 2:
      return add_input_terms<T, kExactInput, 2, kFirst, kLast>(w, layout, k0, z_mean, z_var, scale,
                                                               a_mean, a_var);
    case 3:
      return add_input_terms<T, kExactInput, 3, kFirst, kLast>(w, layout, k0, z_mean, z_var, scale,
                                                               a_mean, a_var);
    default:
      return add_input_terms<T, kExactInput, 4, kFirst, kLast>(w, layout, k0, z_mean, z_var, scale,
                                                               a_mean, a_var);
  }
}

// linear_moments over an InputMajor layer: up to four inputs per pass over the sums (a quarter of
// their loads and stores).
template <class T, bool kExactInput>
inline void linear_moments(const LayerWeights<T>& w, const T* z_mean, const T* z_var, T* a_mean,
                           T* a_var, InputMajor layout) {
  const LayerScale<T> scale = layer_scale<T>(w.inputs);
  const uint32_t terms = w.inputs + 1;
  for (uint32_t k = 0; k < terms; k += 4) {
    const uint32_t count = terms - k < 4 ? terms - k : 4;
    const bool first = k == 0, last = k + count == terms;
    if (first && last) {
      add_input_group<T, kExactInput, true, true>(count, w, layout, k, z_mean, z_var, scale, a_mean,
                                                  a_var);
    } else if (first) {
      add_input_group<T, kExactInput, true, false>(count, w, layout, k, z_mean, z_var, scale,
                                                   a_mean, a_var);
    } else if (last) {
      add_input_group<T, kExactInput, false, true>(count, w, layout, k, z_mean, z_var, scale,
                                                   a_mean, a_var);
    } else {
      add_input_group<T, kExactInput, false, false>(count, w, layout, k, z_mean, z_var, scale,
                                                    a_mean, a_var);
    }
  }
}

}  // namespace pbp::trainer
