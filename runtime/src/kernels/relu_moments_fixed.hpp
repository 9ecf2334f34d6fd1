// SPDX-License-Identifier: Apache-2.0
// The ReLU moments of an int8 network's hidden units in fixed point: from a unit's pre-activation
// mean m and variance v to A = E[z], B = E[z^2], C = Var z of z = max(0, a), a ~ N(m, v), which
// the next int8 layer rounds to its 15-bit codes (linear_moments_s8_s16.cpp). Why: without an
// FPU each float operation is a library call of about 100 instructions (a division 400), and
// the float ReLU takes some 60 of them per unit; this takes integer multiplies only, and gives
// the same bits on every target because it is integer arithmetic (no float operation at all).
//
// With sd = sqrt(v) and alpha = m / sd: A = sd g(alpha), B = v h(alpha), C = v k(alpha), where
// g = alpha Phi + phi, h = alpha g + Phi and k = h - g^2 (Phi, phi the standard normal CDF and
// density). For |alpha| < 6, Phi, phi and g come from the nearest node alpha_i = -6 + i/8 by a
// third-order Taylor step (|t| <= 1/16; g' = Phi, Phi' = phi, phi' = -alpha phi), whose
// remainders are below 4e-7 (Phi) and 2e-7 (g); 1/sd by a 192-entry seed and two Newton steps
// (relative error below 2^-24). Beyond: alpha >= 6 gives A = m, B = m^2 + v, C = v (the limits,
// off by less than 1e-8 relative), alpha <= -6 gives 0 (below 2e-10 sd). Absolute errors are
// below 1e-6 sd (A) and 1e-6 v (B, C): small against the codes' 2^-15 of the layer's largest.
// The results stay in 32-bit fixed point (no float rounding), so the next layer's codes are one
// rounding shift of them.
//
// Parameters: relu_moments_fixed takes m finite and v finite and >= 0; relu_units_fixed n unit
// moments (n in 1 .. PBP_MAX_UNITS), any values (false for a non-finite one), its three buffers
// of n words each, not overlapping. The node tables (relu_fixed_table.cpp) are generated.
#pragma once
#include <stdint.h>

#include "pbp/math/bits.hpp"
#include "pbp/pbp.h"
#include "pbp/storage/int8.hpp"  // PBP_WITH_INT8 and its default

#if PBP_WITH_INT8
namespace pbp::detail::relu_fixed {

inline constexpr int32_t kNodes = 97;       // alpha_i = -6 + i/8, i = 0 .. 96
inline constexpr int32_t kSeeds = 192;      // the top 8 bits of x in [1/4, 1): 64 .. 255
extern const int32_t kCdf[kNodes];          // Phi(alpha_i) * 2^30
extern const int32_t kPdf[kNodes];          // phi(alpha_i) * 2^30
extern const int32_t kPartialMean[kNodes];  // g(alpha_i) * 2^28
extern const uint16_t kRsqrtSeed[kSeeds];   // 2^15 / sqrt(x) at the middle of x's bin

// m 2^e with m in [2^31, 2^32), or m = 0 for zero: the next layer's codes are shifts of m.
struct Wide {
  uint32_t m;
  int32_t e;
};
struct Moments {
  Wide mean;      // A = E[z]
  Wide square;    // B = E[z^2]
  Wide variance;  // C = Var z
};

// The moments of max(0, a) for a ~ N(m, v), m finite and v finite and >= 0 (the caller's
// checks): v == 0 gives the deterministic ReLU, (max(m, 0), max(m, 0)^2, 0).
Moments relu_moments_fixed(float m, float v);

// The moments of n units in place, in one fixed point per moment and layer (value = word
// 2^scale), chosen before the units from bounds on the layer's largest mean and variance (the
// .cpp; every word below 2^32), so that the next int8 layer's codes are one rounding shift per
// vector: unit k's A, B and C words go over z_mean[k], z_var[k] and c_values[k] (load_word).
// False where a moment is not finite (the buffers then hold nothing usable).
struct Scales {
  int32_t a, b, c;  // A's, B's and C's words count 2^a, 2^b, 2^c
};
bool relu_units_fixed(uint32_t n, float* z_mean, float* z_var, float* c_values, Scales& scales);

// A 32-bit word in a float's place, as that float's bits (a float load or store keeps any bit
// pattern; a word-sized memcpy would be a library call on Thumb-1).
inline uint32_t load_word(const float* buffer, uint32_t k) {
  return math::detail::to_bits(buffer[k]);
}
}  // namespace pbp::detail::relu_fixed
#endif
