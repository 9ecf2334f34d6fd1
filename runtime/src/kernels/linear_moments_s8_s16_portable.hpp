// SPDX-License-Identifier: Apache-2.0
// The int8 kernel's row sums (linear_moments_s8_s16.hpp): what every row loop shares (the sums,
// the tail group) and the portable loop, in its three shapes (two passes, one or two groups a
// step) chosen per core. Integer arithmetic only, so every target gets the same integers.
#pragma once
#include "kernels/linear_moments_s8_s16_codes.hpp"

namespace pbp::detail::s8_s16 {

// One row's three sums over its `count` weights and its bias (position count, unit codes of the
// bias unit: the tail group's):
//   mean   = sum q_k A_k          (|term| < 2^22)
//   spread = sum u_k^2 B_k        (B_k >= 0, term < 2^31)
//   square = sum q_k^2 C_k        (C_k >= 0, term < 2^29; skipped without C; the bias's C is 0)
// Exact in 64 bits for any count <= 65535, so every summation order gives the same integers.
struct RowSums {
  int64_t mean;
  uint64_t spread;
  uint64_t square;
};
inline constexpr uint32_t kMeanBlock = 512u;  // terms per 32-bit block of the mean sum

// A row's last four bytes, positions count - 3 .. count (the bias at count), as one more group:
// the codes of the units past the last full group and of the bias unit, 0 where a full group
// already covers the position or the position is before a short row (there the byte read is the
// blob's before the row, the previous row's or the tensor's scales, times 0). Every row then ends
// with one more group step, whatever its length, and no remainder loop.
struct TailGroup {
  alignas(4) uint8_t ab[16];
  alignas(4) uint8_t c[8];
};
inline void make_tail_group(const uint8_t* ab, const uint8_t* c, uint32_t count, int32_t bias_a,
                            int32_t bias_b, TailGroup& tail) {
  const uint32_t grouped = grouped_count(count);
  int32_t a[4], b[4], square[4];
  for (uint32_t i = 0; i < 4u; ++i) {
    const uint32_t k = count + i;  // the position + 3 (unsigned: no position below 0)
    const bool rest = k >= grouped + 3u && k < count + 3u;
    a[i] = k == count + 3u ? bias_a : rest ? load_code(ab, 2u * (k - 3u)) : 0;
    b[i] = k == count + 3u ? bias_b : rest ? load_code(ab, 2u * (k - 3u) + 1u) : 0;
    square[i] = rest && c != nullptr ? load_code(c, k - 3u) : 0;
  }
  store_ab_group(tail.ab, 0, a, b);
  store_c_group(tail.c, 0, square);
}

// A group's four terms of each sum, in the portable loops: q A (each |term| < 2^22), u^2 B (two
// pairs, each pair < 2^32) and q^2 C (< 2^31 together).
__attribute__((always_inline)) inline int32_t group_mean_terms(const int8_t* gq,
                                                               const uint8_t* group) {
  return int32_t{gq[0]} * load_code(group, 0) + int32_t{gq[1]} * load_code(group, 2) +
         int32_t{gq[2]} * load_code(group, 1) + int32_t{gq[3]} * load_code(group, 3);
}
struct SpreadPairs {  // a group's u^2 B terms of units (k, k+2) and (k+1, k+3), each < 2^32
  uint32_t first, second;
};
__attribute__((always_inline)) inline SpreadPairs group_spread_pairs(const uint8_t* gu,
                                                                     const uint8_t* b) {
  const auto term = [gu, b](uint32_t i, uint32_t place) {
    return uint32_t{gu[i]} * gu[i] * static_cast<uint32_t>(load_code(b, place));
  };
  return {term(0, 0) + term(2, 1), term(1, 2) + term(3, 3)};
}
__attribute__((always_inline)) inline void add_group_spread_terms(uint64_t& spread,
                                                                  const uint8_t* gu,
                                                                  const uint8_t* b) {
  const SpreadPairs pairs = group_spread_pairs(gu, b);
  spread += pairs.first;
  spread += pairs.second;
}
__attribute__((always_inline)) inline uint32_t group_square_terms(const int8_t* gq,
                                                                  const uint8_t* gc) {
  const auto term = [gq, gc](uint32_t i, uint32_t place) {
    return static_cast<uint32_t>(int32_t{gq[i]} * gq[i]) *
           static_cast<uint32_t>(load_code(gc, place));
  };
  return term(0, 0) + term(2, 1) + term(1, 2) + term(3, 3);
}

// A 64-bit sum as two words, a word added with its carry (the portable loop's: GCC copied a
// uint64_t accumulator between registers every step on RV32).
struct WordSum {
  uint32_t low, high;
};
__attribute__((always_inline)) inline void add_word(WordSum& sum, uint32_t x) {
  sum.low += x;
  sum.high += sum.low < x ? 1u : 0u;
}

// The portable loop's shapes (the same integers; the tests run all three on every target):
// two_passes, each with few live values (Thumb-1: Cortex-M0 has eight low registers): the mean
// in 32-bit blocks, then u^2 B and q^2 C: a pair of u^2 B terms (each < 2^31) and a group's four
// q^2 C terms (each < 2^29) added in 32 bits before each 64-bit addition. one_group: one pass, a
// group a step (Cortex-M3, AArch64, x86). two_groups: one pass, two groups a step after an odd
// one (RISC-V, its rows built without pre-RA scheduling: PBP_S8_S16_ROWS_SCHEDULE): the loop's
// pointer steps and branch once per eight weights, the two groups' eight q^2 C terms (each
// < 2^29) added in 32 bits before one 64-bit addition, and the spread and square sums as two
// words each (WordSum), composed at the end. Two groups were slower on Cortex-M3 (13-50-1: +429
// instructions, QEMU) and AArch64 (GCC 12's loop with C: 53 instructions a group against 50).
enum class PortableLoop { two_passes, one_group, two_groups };
#if defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB == 1
inline constexpr PortableLoop kPortableLoop = PortableLoop::two_passes;
#elif defined(__riscv)
inline constexpr PortableLoop kPortableLoop = PortableLoop::two_groups;
#else
inline constexpr PortableLoop kPortableLoop = PortableLoop::one_group;
#endif

// The portable loop: a group's four terms at a time (or two: kLoop), then the tail group (c read
// only with kHasC). (Every row_sums piece is always inlined: at -Os GCC would call them, and
// their frames would stack on the rows' beyond the predict stack budget.)
template <bool kHasC, PortableLoop kLoop = kPortableLoop>
__attribute__((always_inline)) inline RowSums row_sums_portable(const int8_t* q, const uint8_t* u,
                                                                uint32_t count, const uint8_t* ab,
                                                                const uint8_t* c,
                                                                const TailGroup& tail) {
  RowSums sums{0, 0, 0};
  const uint32_t grouped = grouped_count(count);
  const int8_t* q_tail = q + count - 3u;  // the tail's bytes (the pointer stays inside the blob)
  const uint8_t* u_tail = u + count - 3u;
  constexpr bool kOnePass = kLoop != PortableLoop::two_passes;
  constexpr bool kTwoGroups = kLoop == PortableLoop::two_groups;
  WordSum spread{0u, 0u}, square{0u, 0u};  // (two groups a step)
  const auto variance_terms = [&](const int8_t* gq, const uint8_t* gu, const uint8_t* b,
                                  const uint8_t* gc) __attribute__((always_inline)) {
    if constexpr (kTwoGroups) {
      const SpreadPairs pairs = group_spread_pairs(gu, b);
      add_word(spread, pairs.first);
      add_word(spread, pairs.second);
      if constexpr (kHasC) add_word(square, group_square_terms(gq, gc));
    } else {
      add_group_spread_terms(sums.spread, gu, b);
      if constexpr (kHasC) sums.square += group_square_terms(gq, gc);
    }
  };
  // The mean in 32-bit blocks of at most kMeanBlock terms (with the variance terms in one pass).
  const auto block_of = [&](uint32_t k0, uint32_t end, int32_t block)
      __attribute__((always_inline)) {
    if constexpr (!kTwoGroups) {
      for (uint32_t k = k0; k < end; k += 4u) {
        block += group_mean_terms(q + k, ab + 4u * k);
        if constexpr (kOnePass) {
          variance_terms(q + k, u + k, ab + 4u * k + 8u, kHasC ? c + 2u * k : nullptr);
        }
      }
    } else {
      const int8_t* at_q = q + k0;
      const uint8_t* at_u = u + k0;
      const uint8_t* at_ab = ab + 4u * k0;
      const uint8_t* at_c = kHasC ? c + 2u * k0 : nullptr;
      if (((end - k0) & 4u) != 0) {  // an odd group first
        block += group_mean_terms(at_q, at_ab);
        variance_terms(at_q, at_u, at_ab + 8u, at_c);
        at_q += 4u;
        at_u += 4u;
        at_ab += 16u;
        if constexpr (kHasC) at_c += 8u;
      }
      for (const int8_t* q_end = q + end; at_q != q_end; at_q += 8u, at_u += 8u, at_ab += 32u) {
        block += group_mean_terms(at_q, at_ab) + group_mean_terms(at_q + 4u, at_ab + 16u);
        const SpreadPairs first = group_spread_pairs(at_u, at_ab + 8u);
        const SpreadPairs second = group_spread_pairs(at_u + 4u, at_ab + 24u);
        add_word(spread, first.first);
        add_word(spread, first.second);
        add_word(spread, second.first);
        add_word(spread, second.second);
        if constexpr (kHasC) {
          add_word(square,
                   group_square_terms(at_q, at_c) + group_square_terms(at_q + 4u, at_c + 8u));
          at_c += 16u;
        }
      }
    }
    return block;
  };
  if (grouped < kMeanBlock) {  // one block with the tail's terms: most rows, no blocks' loop
    sums.mean = block_of(0u, grouped, group_mean_terms(q_tail, tail.ab));
  } else {
    for (uint32_t k0 = 0; k0 < grouped; k0 += kMeanBlock) {
      sums.mean += block_of(k0, grouped - k0 > kMeanBlock ? k0 + kMeanBlock : grouped, 0);
    }
    sums.mean += group_mean_terms(q_tail, tail.ab);
  }
  if constexpr (!kOnePass) {
    for (uint32_t k = 0; k < grouped; k += 4u) {
      variance_terms(q + k, u + k, ab + 4u * k + 8u, kHasC ? c + 2u * k : nullptr);
    }
  }
  variance_terms(q_tail, u_tail, tail.ab + 8u, tail.c);
  if constexpr (kTwoGroups) {
    sums.spread = uint64_t{spread.high} << 32 | spread.low;
    sums.square = uint64_t{square.high} << 32 | square.low;
  }
  return sums;
}

}  // namespace pbp::detail::s8_s16
