// SPDX-License-Identifier: Apache-2.0
// The int8 layer kernel (storage type 3, format.hpp's int8_weights), s8 weights x s16
// activations: linear_moments with integer sums. With m_w = s_j q and v_w = w u^2,
//   a_mean = s_j sum_k q A_k                          A_k = m_z[k]
//   a_var  = w sum_k u^2 B_k + s_j^2 sum_k q^2 C_k    B_k = m_z[k]^2 + v_z[k],  C_k = v_z[k]
// (each times the layer scale; the bias is k = n with A = B = 1, C = 0). Per layer and
// prediction each of A, B, C is rounded once to int16 codes with one power-of-two scale per
// vector (linear_moments_s8_s16.hpp); the sums are then exact integers (any order, the DSP
// loop's too) and meet float only in their IEEE conversion and a few multiplies per row. The
// first layer's input is exact (v_z = 0): no C, and B is rounded from A's codes squared.
// Storage type 4 (int8_log_variance) differs only in v_w = t M 2^(e - 7): its B sum takes
// M 2^e B_k per weight, still an exact integer.
// Where the codes live: in place of the input moments, which the pass never reads again
// (forward_pass's workspace): m_z's n floats hold A's and B's codes (ab, four bytes a unit, in
// groups of four: linear_moments_s8_s16.hpp), v_z's first n / 2 floats C's.
//
// Parameters (pbp_layer, as read_stored_weights located and checked it; pbp_open guarantees the
// ranges): inputs n and outputs in 1 .. PBP_MAX_UNITS (65535), storage PBP_STORAGE_INT8 or
// PBP_STORAGE_INT8_LOG_VARIANCE, stored_mean and stored_variance as format.hpp's int8_weights /
// int8_log_variance lay them out, scales finite and > 0 (type 4: below 2^95), square-root variance
// codes > 0; z_mean and z_var are overwritten with the codes. Buffers: z_mean[n], z_var[n] (not
// read when exact_input), a_mean[outputs], a_var[outputs]; no two overlap. Any finite or non-finite
// unit moments: a non-finite input gives non-finite outputs.
#include "kernels/linear_moments_s8_s16.hpp"

#include "kernels/relu_moments_fixed.hpp"
#include "stored_weights.hpp"

#if PBP_WITH_INT8  // else the runtime is built without int8 (pbp.h)
namespace pbp::detail {
namespace {
using namespace s8_s16;

// A layer's activation codes: where they are, their exponents (value = code * 2^e) and the
// bias unit's codes.
struct Codes {
  const uint8_t* ab;
  const uint8_t* c;  // null when every C_k is 0 (the first layer, or all variances 0)
  int32_t ea, eb, ec;
  int32_t bias_a, bias_b;
};

constexpr uint32_t kOneBits = 0x3F800000u;  // 1.0f: the bias unit's A and B

// The first layer: A from the exact input, then B = A^2 from A's codes, shifted right (rounding
// halves up) by the least sB that keeps the largest at most kCodeMax: value 2^(2 eA + sB) B16.
// A group's four floats are read before its codes go over them.
__attribute__((noinline)) bool codes_of_exact_input(uint32_t n, float* z_mean, Codes& codes) {
  uint32_t max_a = kOneBits;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t m = magnitude_bits(z_mean[k]);
    max_a = m > max_a ? m : max_a;
  }
  if (!is_finite_magnitude(max_a)) return false;
  codes.ea = code_exponent(max_a);
  const uint32_t largest = static_cast<uint32_t>(round_magnitude(max_a, codes.ea));
  // the least shift keeping the rounded square within kCodeMax: none leaves it more than 15 bits
  const uint32_t square = largest * largest;  // > 0: the bias unit's 1 at least
  const int32_t excess = bit_length(square) - 15;
  uint32_t shift = excess > 0 ? static_cast<uint32_t>(excess) : 0u;
  while (((square + ((1u << shift) >> 1)) >> shift) > uint32_t{kCodeMax}) ++shift;
  const auto square_code = [shift](int32_t a) {
    const uint32_t a2 = static_cast<uint32_t>(a * a);
    return static_cast<int32_t>((a2 + ((1u << shift) >> 1)) >> shift);
  };
  uint8_t* ab = reinterpret_cast<uint8_t*>(z_mean);
  if constexpr (kCompact) {  // one loop: a group, or the units past the last full group
    for (uint32_t k = 0; k < n; k += 4u) {
      const uint32_t units = n - k < 4u ? n - k : 4u;
      int32_t a[4], b[4];
      for (uint32_t i = 0; i < units; ++i) {
        a[i] = round_scaled(z_mean[k + i], codes.ea);
        b[i] = square_code(a[i]);
        if (units < 4u) store_ab_single(ab, k + i, a[i], b[i]);  // over its own float only
      }
      if (units == 4u) store_ab_group(ab, k, a, b);
    }
  } else {  // each full group unrolled, then the rest
    const uint32_t grouped = grouped_count(n);
    for (uint32_t k = 0; k < grouped; k += 4u) {
      int32_t a[4], b[4];
      for (uint32_t i = 0; i < 4u; ++i) a[i] = round_scaled(z_mean[k + i], codes.ea);
      for (uint32_t i = 0; i < 4u; ++i) b[i] = square_code(a[i]);
      store_ab_group(ab, k, a, b);
    }
    for (uint32_t k = grouped; k < n; ++k) {
      const int32_t a = round_scaled(z_mean[k], codes.ea);
      store_ab_single(ab, k, a, square_code(a));
    }
  }
  codes.bias_a = round_magnitude(kOneBits, codes.ea);
  codes.bias_b = square_code(codes.bias_a);
  codes.eb = 2 * codes.ea + static_cast<int32_t>(shift);
  codes.ab = ab;
  codes.c = nullptr;
  codes.ec = 0;
  return true;
}

// Unit variances are >= 0 (every activation's moments are); a negative one would count as 0.
int32_t round_nonnegative(float x, int32_t e) {
  return (float_bits(x) >> 31) != 0 ? 0 : round_magnitude(magnitude_bits(x), e);
}

// A hidden layer: A, B (m_z^2 + v_z in float, as the float kernel forms it) and C from the
// moments, each with its own exponent; a group's floats are read before its codes go over them
// (C's over v_z's floats k / 2 .. k / 2 + 1 of a group at k: read).
__attribute__((noinline)) bool codes_of_moments(uint32_t n, float* z_mean, float* z_var,
                                                Codes& codes) {
  uint32_t max_a = kOneBits, max_b = kOneBits, max_c = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const float m = z_mean[k], v = z_var[k];
    const uint32_t a = magnitude_bits(m), b = magnitude_bits(m * m + v), c = magnitude_bits(v);
    max_a = a > max_a ? a : max_a;
    max_b = b > max_b ? b : max_b;
    max_c = c > max_c ? c : max_c;
  }
  if (!is_finite_magnitude(max_a) || !is_finite_magnitude(max_b) || !is_finite_magnitude(max_c)) {
    return false;
  }
  codes.ea = code_exponent(max_a);
  codes.eb = code_exponent(max_b);
  codes.ec = max_c != 0 ? code_exponent(max_c) : 0;
  uint8_t* ab = reinterpret_cast<uint8_t*>(z_mean);
  uint8_t* c_bytes = reinterpret_cast<uint8_t*>(z_var);
  const auto unit_codes = [&codes, max_c](float m, float v, int32_t& a, int32_t& b, int32_t& c) {
    a = round_scaled(m, codes.ea);
    b = round_nonnegative(m * m + v, codes.eb);
    c = max_c != 0 ? round_nonnegative(v, codes.ec) : 0;
  };
  const uint32_t grouped = grouped_count(n);
  for (uint32_t k = 0; k < grouped; k += 4u) {
    int32_t a[4], b[4], c[4];
    for (uint32_t i = 0; i < 4u; ++i) unit_codes(z_mean[k + i], z_var[k + i], a[i], b[i], c[i]);
    store_ab_group(ab, k, a, b);
    store_c_group(c_bytes, k, c);
  }
  for (uint32_t k = grouped; k < n; ++k) {
    int32_t a, b, c;
    unit_codes(z_mean[k], z_var[k], a, b, c);
    store_ab_single(ab, k, a, b);
    store_code(c_bytes, k, c);
  }
  codes.bias_a = round_magnitude(kOneBits, codes.ea);
  codes.bias_b = round_magnitude(kOneBits, codes.eb);
  codes.ab = ab;
  codes.c = max_c != 0 ? c_bytes : nullptr;
  return true;
}

// After the fixed-point ReLU (relu_moments_fixed.hpp), whose A, B, C are words in one fixed point
// per vector: each vector's codes are its words shifted right by s, rounded (halves up), s the
// least keeping the largest word's code at most kCodeMax (or a left shift for a largest below
// 2^15: exact), as code_exponent does for floats.
inline int32_t code_shift(uint32_t top) {  // top != 0
  int32_t shift = bit_length(top) - 15;
  if (shift > 0 && ((top >> (shift - 1)) + 1u) >> 1 > uint32_t{kCodeMax}) ++shift;
  return shift;
}
// A vector's code of a word w, one expression whatever the shift s: ((w << left) >> right + 1)
// >> 1, which is round(w 2^-s) (halves up) for s > 0 (left 0, right s - 1) and w 2^-s for s <= 0
// (left 1 - s, right 0: an even number plus 1, halved; w < 2^15 there, so no bit is lost).
struct CodeShift {
  uint32_t left, right;
};
inline CodeShift code_shifts(int32_t shift) {
  return shift > 0 ? CodeShift{0u, static_cast<uint32_t>(shift - 1)}
                   : CodeShift{static_cast<uint32_t>(1 - shift), 0u};
}
inline int32_t fixed_code(uint32_t word, CodeShift s) {
  return static_cast<int32_t>((((word << s.left) >> s.right) + 1u) >> 1);
}
// A vector's code shifts from its largest word, and its codes' exponent from its words' scale
// (one out-of-line copy in the compact build, as the rows' helpers). Words all 0 (A or B with the
// bias unit's 1 below the last bit, on an extreme blob): any shift codes them 0; that of a largest
// 1, as for C, since a count of leading zeros of 0 differs between targets.
PBP_S8_S16_ROW_HELPER inline CodeShift vector_shifts(uint32_t top, int32_t scale,
                                                     int32_t& exponent) {
  const int32_t shift = code_shift(top != 0u ? top : 1u);
  exponent = scale + shift;
  return code_shifts(shift);
}

// The codes of units whose ReLU moments relu_units_fixed left in fixed point (A's words over
// z_mean, B's over z_var, C's over c_words): a group's codes over its own z_mean words (ab) and
// C's over z_var's words k / 2 .. k / 2 + 1 (B's, read by then).
__attribute__((noinline)) void codes_of_fixed(uint32_t n, float* z_mean, float* z_var,
                                              const float* c_words,
                                              const relu_fixed::Scales& scales, Codes& codes) {
  using relu_fixed::load_word;
  // the bias unit's 1 in each fixed point (0 below its last bit: then eA > 0 and the rows add
  // the bias's mean in float)
  const auto one = [](int32_t scale) { return scale > 0 ? 0u : 1u << -scale; };
  const uint32_t one_a = one(scales.a), one_b = one(scales.b);
  uint32_t top_a = one_a, top_b = one_b, top_c = 0u;  // each vector's largest
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t a = load_word(z_mean, k), b = load_word(z_var, k), c = load_word(c_words, k);
    top_a = a > top_a ? a : top_a;
    top_b = b > top_b ? b : top_b;
    top_c = c > top_c ? c : top_c;
  }
  const bool has_c = top_c != 0;
  const CodeShift sa = vector_shifts(top_a, scales.a, codes.ea);
  const CodeShift sb = vector_shifts(top_b, scales.b, codes.eb);
  // (C's shifts from a largest word of 1 where every C is 0: none of its codes is stored)
  const CodeShift sc = vector_shifts(top_c, scales.c, codes.ec);
  if (!has_c) codes.ec = 0;
  uint8_t* ab = reinterpret_cast<uint8_t*>(z_mean);
  uint8_t* c_bytes = reinterpret_cast<uint8_t*>(z_var);
  if constexpr (kCompact) {  // one loop: a group, or the units past the last full group
    for (uint32_t k = 0; k < n; k += 4u) {
      const uint32_t units = n - k < 4u ? n - k : 4u;
      int32_t a[4], b[4];
      for (uint32_t i = 0; i < units; ++i) {
        a[i] = fixed_code(load_word(z_mean, k + i), sa);
        b[i] = fixed_code(load_word(z_var, k + i), sb);
        // C at once, over B words already read (in group 0, its own units' after their B)
        const int32_t c = fixed_code(load_word(c_words, k + i), sc);
        if (has_c) store_code(c_bytes, k + (units == 4u ? kGroupOrder[i] : i), c);
        if (units < 4u) store_ab_single(ab, k + i, a[i], b[i]);  // over its own float only
      }
      if (units == 4u) store_ab_group(ab, k, a, b);
    }
  } else {  // each full group unrolled, then the rest
    const uint32_t grouped = grouped_count(n);
    for (uint32_t k = 0; k < grouped; k += 4u) {
      int32_t a[4], b[4], c[4];
      for (uint32_t i = 0; i < 4u; ++i) {
        a[i] = fixed_code(load_word(z_mean, k + i), sa);
        b[i] = fixed_code(load_word(z_var, k + i), sb);
        c[i] = fixed_code(load_word(c_words, k + i), sc);
      }
      store_ab_group(ab, k, a, b);
      if (has_c) store_c_group(c_bytes, k, c);
    }
    for (uint32_t k = grouped; k < n; ++k) {
      const int32_t a = fixed_code(load_word(z_mean, k), sa);
      store_ab_single(ab, k, a, fixed_code(load_word(z_var, k), sb));
      if (has_c) store_code(c_bytes, k, fixed_code(load_word(c_words, k), sc));
    }
  }
  codes.bias_a = fixed_code(one_a, sa);
  codes.bias_b = fixed_code(one_b, sb);
  codes.ab = ab;
  codes.c = has_c ? c_bytes : nullptr;
}

// The ReLU moments of units with moments (z_mean, z_var) (in fixed point in z_mean, z_var and
// a_mean, all free: the rows write a_mean later), then their codes. Out of line, as the other
// two codes_of_, and each step a call of its own: their frames and the rows' are on separate
// stack paths (the predict stack budget).
__attribute__((noinline)) bool codes_of_relu(uint32_t n, float* z_mean, float* z_var, float* a_mean,
                                             Codes& codes) {
  relu_fixed::Scales scales;
  if (!relu_fixed::relu_units_fixed(n, z_mean, z_var, a_mean, scales)) return false;
  codes_of_fixed(n, z_mean, z_var, a_mean, scales, codes);
  return true;
}

inline bool is_normal(float x) {
  const uint32_t biased = (float_bits(x) >> 23) & 0xFFu;
  return biased != 0u && biased != 0xFFu;
}
inline bool is_tiny(float x) {  // nonzero and below the normal range
  return (float_bits(x) & 0x7F800000u) == 0u && magnitude_bits(x) != 0u;
}
// x = significand 2^exponent, significand in [1, 2) (x finite and nonzero, subnormals too).
struct Split {
  float significand;
  int32_t exponent;
};
PBP_S8_S16_ROW_HELPER inline Split split(float x) {
  const Unpacked u = unpack(magnitude_bits(x));  // significand 2^exponent, significand < 2^24
  uint32_t significand = u.significand;
  int32_t exponent = u.exponent + 23;
  while (significand < 0x800000u) significand <<= 1, --exponent;
  return {float_from_bits(0x3F800000u | (significand & 0x7FFFFFu)), exponent};
}
// x 2^e with one rounding, for any e (x normal and below 2^49, as every term here is): +-0 below
// e = -199 (x 2^e < 2^-150 rounds to 0), +-inf above 254.
PBP_S8_S16_ROW_HELPER inline float times_power_of_two(float x, int32_t e) {
  if (e < -199) return x * 0.0f;
  if (e > 254) return x * float_from_bits(0x7F800000u);
  return scale_by_power_of_two(x, e);
}
// A row whose factors or products left float's normal range: each term's scales split into
// significand and exponent, the significands multiplied (all normal), the power of two last,
// so only the result may round below the normal range (as the float kernels' results do).
PBP_S8_S16_ROW_HELPER inline void rescaled_row(bool has_c, float mean_sum, float spread_sum,
                                               float square_sum, float s, float variance_scale,
                                               int32_t spread_exponent,
                                               const LayerScale<float>& scale, const Codes& codes,
                                               float* a_mean, float* a_var) {
  const Split ss = split(s), ws = split(variance_scale);
  *a_mean = times_power_of_two((mean_sum * ss.significand) * scale.mean, ss.exponent + codes.ea);
  float var = times_power_of_two((spread_sum * ws.significand) * scale.variance,
                                 ws.exponent + spread_exponent);
  if (has_c) {
    var += times_power_of_two((square_sum * (ss.significand * ss.significand)) * scale.variance,
                              2 * ss.exponent + codes.ec);
  }
  *a_var = var;
}

// The rows: exact integer sums, then per row a_mean = (S_A s_j) f_mean and
// a_var = S_B f_spread + (S_C s_j^2) f_square, the f's per layer: the layer scales times the
// codes' powers of two (and w). The compact build (kCompact) runs every layer in the kHasC copy,
// whether it has C (has_c) decided at run time; the other copy is for speed.
template <bool kHasC>
__attribute__((noinline)) PBP_S8_S16_ROWS_SCHEDULE void rows_s8_s16(const pbp_layer& layer,
                                                                    const Codes& codes,
                                                                    float* a_mean, float* a_var) {
  namespace int8 = format::int8_weights;
  const bool has_c = kCompact ? codes.c != nullptr : kHasC;
  const uint32_t n = layer.inputs;
  const LayerScale<float> scale = layer_scale<float>(n);
  const uint32_t row_length = n + 1u;
  const uint8_t* row_scales = static_cast<const uint8_t*>(layer.stored_mean);
  const int8_t* means =
      reinterpret_cast<const int8_t*>(row_scales + int8::mean_codes_offset(layer.outputs));
  const uint8_t* variance_bytes = static_cast<const uint8_t*>(layer.stored_variance);
  const float variance_scale = load_scale(variance_bytes);
  const uint8_t* deviations = variance_bytes + int8::kVarianceCodesOffset;
  const float mean_factor = scale_by_power_of_two(scale.mean, codes.ea);
  // Storage type 4's spread sum counts steps of t 2^-7 (format.hpp's int8_log_variance). Its layers
  // run the same loops (their u^2 B sum unused: one kernel's code on a device), their own spread
  // sums in a loop of their own (type 3's rows take no branch for them).
  const bool log_variance = layer.storage == PBP_STORAGE_INT8_LOG_VARIANCE;
  const int32_t spread_exponent =
      log_variance ? codes.eb - format::int8_log_variance::kMantissaShift : codes.eb;
  const float spread_factor =
      scale_by_power_of_two(variance_scale, spread_exponent) * scale.variance;
  const auto log_spreads = [&]() {  // into a_var, each row's
    for (uint32_t j = 0; j < layer.outputs; ++j) {
      a_var[j] = to_float(log_spread_sum(deviations + j * row_length, n, codes.ab, codes.bias_b));
    }
  };
  const float square_factor = has_c ? scale_by_power_of_two(scale.variance, codes.ec) : 0.0f;
  // A factor below float's normal range has lost bits the sums would multiply: such a layer (a
  // tiny variance scale, or codes for tiny moments) takes the rows' exact-order path below.
  const bool tiny_factor =
      !is_normal(mean_factor) || !is_normal(spread_factor) || (has_c && !is_normal(square_factor));
  // The bias's 1 is a whole number of A's steps unless some |A_k| >= 2^15 (eA > 0): there it
  // would round to 0 or 1 step, so its mean term is added in float after the rows instead.
  const bool bias_mean_in_float = codes.ea > 0;
  const int32_t bias_a = bias_mean_in_float ? 0 : codes.bias_a;
  TailGroup tail;  // (the compact loop takes the bias and the last units one by one instead)
  uint64_t b_paired_total = 0u;
  if constexpr (!kCompact) {
    make_tail_group(codes.ab, has_c ? codes.c : nullptr, n, bias_a, codes.bias_b, tail);
    if (kPairedLoop) b_paired_total = paired_code_total(codes.ab, n, tail);
  }
  const int8_t* q = means;
  const uint8_t* u = deviations;
  if constexpr (!kHasC) {
    // Two passes: the sums of every row to floats (in a_mean, a_var), then the scales; each loop
    // then keeps what it needs in registers.
    // (locals, not re-read through the references after each asm block's memory clobber)
    const uint32_t outputs = layer.outputs;
    const uint8_t* const ab = codes.ab;
    for (uint32_t j = 0; j < outputs; ++j, q += row_length, u += row_length) {
      const RowSums sums = row_sums<false>(q, u, n, ab, nullptr, tail, b_paired_total);
      a_mean[j] = to_float(sums.mean);
      a_var[j] = to_float(sums.spread);
    }
    if (log_variance) log_spreads();
    for (uint32_t j = 0; j < layer.outputs; ++j) {
      const float s = load_scale(row_scales + int8::kScaleSize * j);
      const float mean_sum = a_mean[j], spread_sum = a_var[j];
      const float scaled_mean = mean_sum * s;
      if (__builtin_expect(tiny_factor || is_tiny(scaled_mean), 0)) {
        rescaled_row(false, mean_sum, spread_sum, 0.0f, s, variance_scale, spread_exponent, scale,
                     codes, a_mean + j, a_var + j);
      } else {
        a_mean[j] = scaled_mean * mean_factor;
        a_var[j] = spread_sum * spread_factor;
      }
    }
  } else {
    // a_var[j] is read before row j writes it (the compact loop sums type 4's spread itself)
    if (log_variance && !kCompact) log_spreads();
    for (uint32_t j = 0; j < layer.outputs; ++j, q += row_length, u += row_length) {
      WideSum log_spread{0u, 0u};
      RowSums sums;
      if constexpr (kCompact) {
        sums = row_sums_compact(q, u, n, codes.ab, codes.c, bias_a, codes.bias_b,
                                log_variance ? &log_spread : nullptr);
      } else {
        sums = row_sums<true>(q, u, n, codes.ab, codes.c, tail, b_paired_total);
      }
      const float s = load_scale(row_scales + int8::kScaleSize * j);
      const float mean_sum = to_float(sums.mean);
      const float scaled_mean = mean_sum * s;
      const float s2 = s * s;
      const float spread_sum = !log_variance ? to_float(sums.spread)
                               : kCompact    ? to_float(log_spread)
                                             : a_var[j];
      const float square_sum = has_c ? to_float(sums.square) : 0.0f;
      if (tiny_factor || is_tiny(scaled_mean) || (has_c && !is_normal(s2))) {
        rescaled_row(has_c, mean_sum, spread_sum, square_sum, s, variance_scale, spread_exponent,
                     scale, codes, a_mean + j, a_var + j);
      } else {
        a_mean[j] = scaled_mean * mean_factor;
        const float spread_part = spread_sum * spread_factor;
        a_var[j] = has_c ? spread_part + (square_sum * s2) * square_factor : spread_part;
      }
      if (kCompact && bias_mean_in_float) a_mean[j] += (static_cast<float>(q[n]) * s) * scale.mean;
    }
  }
  if (!bias_mean_in_float || kCompact) return;  // (the compact build added it row by row)
  for (uint32_t j = 0; j < layer.outputs; ++j) {
    const float s = load_scale(row_scales + int8::kScaleSize * j);
    a_mean[j] += (static_cast<float>(means[j * row_length + n]) * s) * scale.mean;
  }
}

void rows_or_nan(const pbp_layer& layer, bool finite, const Codes& codes, float* a_mean,
                 float* a_var) {
  if (!finite) {  // non-finite in, non-finite out, as in the float kernels
    const float nan = float_from_bits(0x7FC00000u);
    for (uint32_t j = 0; j < layer.outputs; ++j) a_mean[j] = a_var[j] = nan;
    return;
  }
  if (kCompact || codes.c != nullptr) {
    rows_s8_s16<true>(layer, codes, a_mean, a_var);
  } else {
    rows_s8_s16<false>(layer, codes, a_mean, a_var);
  }
}

}  // namespace

void linear_moments_s8_s16(const pbp_layer& layer, bool exact_input, float* z_mean, float* z_var,
                           float* a_mean, float* a_var) {
  const uint32_t n = layer.inputs;
  Codes codes;
  // (a build of int8 and ReLU alone calls this for the first layer only: no codes_of_moments)
  const bool finite = exact_input || kFixedPointOnly ? codes_of_exact_input(n, z_mean, codes)
                                                     : codes_of_moments(n, z_mean, z_var, codes);
  rows_or_nan(layer, finite, codes, a_mean, a_var);
}

void relu_linear_moments_s8_s16(const pbp_layer& layer, float* z_mean, float* z_var, float* a_mean,
                                float* a_var) {
  const uint32_t n = layer.inputs;
  Codes codes;
  const bool finite = codes_of_relu(n, z_mean, z_var, a_mean, codes);
  rows_or_nan(layer, finite, codes, a_mean, a_var);
}

}  // namespace pbp::detail
#endif
