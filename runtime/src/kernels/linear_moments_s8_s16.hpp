// SPDX-License-Identifier: Apache-2.0
// The int8 kernel's integer row sums (linear_moments_s8_s16.cpp, s8 weights x s16 activations),
// the pieces its tests call on their own: a portable loop, a paired loop shaped for the Cortex-M
// DSP instructions (its dual operations: linear_moments_s8_s16_dsp.hpp; in Thumb-2 assembly:
// linear_moments_s8_s16_thumb2.hpp), storage type 4's spread sum and the size build's compact
// loop. The activation codes they read: linear_moments_s8_s16_codes.hpp. Everything here is
// integer arithmetic, so every target gets the same integers.
#pragma once
#include "kernels/linear_moments_s8_s16_thumb2.hpp"  // and the codes and dual operations

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

// The sum of the B codes the paired loop reads for every row (the grouped units' and the tail
// group's): its correction, one per layer.
inline uint64_t paired_code_total(const uint8_t* ab, uint32_t count, const TailGroup& tail) {
  uint64_t total = 0;
  for (uint32_t k = 0; k < grouped_count(count); k += 4u) {
    for (uint32_t i = 4u; i < 8u; ++i) total += static_cast<uint32_t>(load_code(ab, 2u * k + i));
  }
  for (uint32_t i = 4u; i < 8u; ++i) total += static_cast<uint32_t>(load_code(tail.ab, i));
  return total;
}

// One group's step of the paired loops: its mean terms into a 32-bit block (SMLAD: a block of at
// most kMeanBlock terms stays within int32, and one register where a 64-bit sum would take two
// and spill), its u^2 B terms into (spread_low, spread_high); its q^2 C terms on their own.
__attribute__((always_inline)) inline int32_t paired_group(const uint8_t* at_q, const uint8_t* at_u,
                                                           const uint8_t* group, int32_t block,
                                                           uint32_t& spread_low,
                                                           uint32_t& spread_high) {
  using namespace dsp;
  const uint32_t qw = load_word(at_q);
  block = smlad(sxtb16(qw), load_word(group), block);
  block = smlad(sxtb16_ror8(qw), load_word(group + 4u), block);
  const uint32_t uw = load_word(at_u);
  smlald_words(offset_square_pair(uxtb16(uw)), load_word(group + 8u), spread_low, spread_high);
  smlald_words(offset_square_pair(uxtb16_ror8(uw)), load_word(group + 12u), spread_low,
               spread_high);
  return block;
}
__attribute__((always_inline)) inline void paired_square_group(const uint8_t* at_q,
                                                               const uint8_t* group_c,
                                                               uint32_t& square_low,
                                                               uint32_t& square_high) {
  using namespace dsp;
  const uint32_t qw = load_word(at_q);
  smlald_words(square_pair(sxtb16(qw)), load_word(group_c), square_low, square_high);
  smlald_words(square_pair(sxtb16_ror8(qw)), load_word(group_c + 4u), square_low, square_high);
}
// The same steps walking their pointers (the fast loop): the group's code words two at a time
// (LDRD with write-back), the weight bytes a word at a time (rows are not word-aligned).
__attribute__((always_inline)) inline int32_t paired_step(const uint8_t*& at_q,
                                                          const uint8_t*& at_u,
                                                          const uint8_t*& group, int32_t block,
                                                          uint32_t& spread_low,
                                                          uint32_t& spread_high) {
  using namespace dsp;
  uint32_t a02, a13, b02, b13;
  const uint32_t qw = load_word(at_q);
  at_q += 4u;
  load_two_words(group, a02, a13);
  block = smlad(sxtb16(qw), a02, block);
  block = smlad(sxtb16_ror8(qw), a13, block);
  const uint32_t uw = load_word(at_u);
  at_u += 4u;
  load_two_words(group, b02, b13);
  smlald_words(offset_square_pair(uxtb16(uw)), b02, spread_low, spread_high);
  smlald_words(offset_square_pair(uxtb16_ror8(uw)), b13, spread_low, spread_high);
  return block;
}
__attribute__((always_inline)) inline void paired_square_step(const uint8_t*& at_q,
                                                              const uint8_t*& group_c,
                                                              uint32_t& square_low,
                                                              uint32_t& square_high) {
  using namespace dsp;
  uint32_t c02, c13;
  const uint32_t qw = load_word(at_q);
  at_q += 4u;
  load_two_words(group_c, c02, c13);
  smlald_words(square_pair(sxtb16(qw)), c02, square_low, square_high);
  smlald_words(square_pair(sxtb16_ror8(qw)), c13, square_low, square_high);
}

// The paired loop: a group of four weights per step, one dual 16-bit multiply-accumulate per
// pair and sum (SMLAD into 32-bit blocks for the mean, SMLALD into 64-bit sums held as two words
// for the others; Thumb-2 layers without C: the mean in 64 bits too), the tail group first, then
// the groups two per iteration, or on Thumb-2 the row in one asm block (paired_row, or
// paired_fused_groups with C). The weight bytes k .. k+3 become the halfword pairs (k, k+2) and
// (k+1, k+3) (SXTB16, UXTB16 of the word and of it rotated by 8), which match the group's code
// words. The squared sd codes u^2 (up to 65025) do not fit a signed halfword; u^2 - 32768 does
// (offset_square_pair), and 32768 times the sum of those B (b_paired_total, paired_code_total's) is
// the spread sum's start. The same integers as row_sums_portable, summed in another order.
template <bool kHasC>
__attribute__((always_inline)) inline RowSums row_sums_paired(const int8_t* q, const uint8_t* u,
                                                              uint32_t count, const uint8_t* ab,
                                                              const uint8_t* c,
                                                              const TailGroup& tail,
                                                              uint64_t b_paired_total) {
  const uint8_t* q_bytes = reinterpret_cast<const uint8_t*>(q);
  RowSums sums;
  // sum (u^2 - 32768) B, two's complement, from the correction 32768 b_paired_total
  uint32_t spread_low = static_cast<uint32_t>(b_paired_total << 15);
  uint32_t spread_high = static_cast<uint32_t>(b_paired_total >> 17);
  // Pointers and a count-down: the loop keeps everything in registers.
  const uint8_t* q_at = q_bytes;
  const uint8_t* u_at = u;
  const uint8_t* group = ab;
  const auto step = [&](int32_t block) __attribute__((always_inline)) {
    return paired_step(q_at, u_at, group, block, spread_low, spread_high);
  };
  uint32_t square_low = 0, square_high = 0;  // sum q^2 C (kHasC)
  const uint8_t* c_at = c;
  const auto groups_of = [&](uint32_t groups, int32_t block)
      __attribute__((always_inline)) {           // 0 < groups <= kMeanBlock / 4
    if constexpr (kHasC && PBP_S8_S16_THUMB2) {  // the three sums in one asm loop
#if PBP_S8_S16_THUMB2
      FusedGroups state{q_at,  u_at,       group,       c_at,       group_count(groups),
                        block, spread_low, spread_high, square_low, square_high};
      paired_fused_groups(&state);
      q_at = state.q, u_at = state.u, group = state.group, c_at = state.group_c;
      block = state.block;
      spread_low = state.spread_low, spread_high = state.spread_high;
      square_low = state.square_low, square_high = state.square_high;
#endif
    } else {
      if ((groups & 1u) != 0) block = step(block);
      for (groups >>= 1; groups != 0; --groups) block = step(step(block));
    }
    return block;
  };
  uint32_t groups_left = count / 4u;
#if PBP_S8_S16_THUMB2  // layers without C: the mean in 64 bits, the row in one asm block
  if constexpr (!kHasC) {
    uint32_t mean_low, mean_high;
    paired_row(q_bytes, u, ab, q_bytes + count - 3u, u + count - 3u, tail.ab,
               group_count(groups_left), mean_low, mean_high, spread_low, spread_high);
    sums.mean = static_cast<int64_t>(uint64_t{mean_high} << 32 | mean_low);
    sums.spread = uint64_t{spread_high} << 32 | spread_low;
    sums.square = 0u;
    return sums;
  }
#endif
  const uint8_t* tail_q = q_bytes + count - 3u;
  const uint8_t* tail_u = u + count - 3u;
  const uint8_t* tail_group = tail.ab;
  const int32_t tail_block = paired_step(tail_q, tail_u, tail_group, 0, spread_low, spread_high);
  if constexpr (kHasC && PBP_S8_S16_THUMB2) {
    const uint8_t* tail_q_again = q_bytes + count - 3u;
    const uint8_t* tail_c = tail.c;
    paired_square_step(tail_q_again, tail_c, square_low, square_high);
  }
  int64_t mean = tail_block;
  if (groups_left != 0 && groups_left < kMeanBlock / 4u) {  // one block with the tail's terms
    mean = groups_of(groups_left, tail_block);
  } else {
    while (groups_left != 0) {
      const uint32_t groups = groups_left > kMeanBlock / 4u ? kMeanBlock / 4u : groups_left;
      groups_left -= groups;
      mean += groups_of(groups, 0);
    }
  }
  sums.mean = mean;
  sums.spread = uint64_t{spread_high} << 32 | spread_low;
  sums.square = uint64_t{square_high} << 32 | square_low;  // (the DSP loop's)
  if constexpr (kHasC && !PBP_S8_S16_THUMB2) {             // a loop of its own
    const uint8_t* q_again = q_bytes;
    const auto square_step = [&]() __attribute__((always_inline)) {
      paired_square_step(q_again, c_at, square_low, square_high);
    };
    uint32_t groups = count / 4u;
    if ((groups & 1u) != 0) square_step();
    for (groups >>= 1; groups != 0; --groups) {
      square_step();
      square_step();
    }
    const uint8_t* tail_c = tail.c;
    q_again = q_bytes + count - 3u;
    paired_square_step(q_again, tail_c, square_low, square_high);
    sums.square = uint64_t{square_high} << 32 | square_low;
  }
  return sums;
}

// Storage type 4's spread sum, sum_k M[f_k] 2^e_k B_k over the row's weights and its bias
// (u_k = 8 e_k + f_k, format.hpp's int8_log_variance; the bias's B is `bias_b`). Each term is
// below 2^8 2^15 2^31 = 2^54, so a block of kLogBlock terms is exact in 64 bits, and the carries
// above them in 32 more bits hold any row: the same integers on every target, in any order.
inline constexpr uint32_t kLogBlock = 1024u;
__attribute__((always_inline)) inline uint64_t log_term(uint8_t code, int32_t b) {
  namespace lv = format::int8_log_variance;
  const uint32_t product = lv::mantissa(code) * static_cast<uint32_t>(b);  // < 2^23
  const uint32_t e = lv::octave(code);                                     // 0 .. 31
  // product 2^e in two words, 32-bit shifts only (a 64-bit shift is a library call on Thumb-1)
  return uint64_t{(product >> 1) >> (31u - e)} << 32 | (product << e);
}
template <uint32_t kBlock = kLogBlock>  // (tests: smaller blocks)
inline WideSum log_spread_sum(const uint8_t* u, uint32_t count, const uint8_t* ab, int32_t bias_b) {
  static_assert(kBlock % 4u == 0 && kBlock <= kLogBlock, "whole groups, each block below 2^64");
  WideSum sum{0u, 0u};
  const uint32_t grouped = grouped_count(count);
  for (uint32_t k0 = 0; k0 < grouped; k0 += kBlock) {
    const uint32_t end = grouped - k0 > kBlock ? k0 + kBlock : grouped;
    uint64_t block = 0;
    for (uint32_t k = k0; k < end; k += 4u) {
      const uint8_t* b = ab + 4u * k + 8u;
      for (uint32_t i = 0; i < 4u; ++i) block += log_term(u[k + i], load_code(b, kGroupOrder[i]));
    }
    add_to(sum, block);
  }
  uint64_t rest = log_term(u[count], bias_b);
  for (uint32_t k = grouped; k < count; ++k) rest += log_term(u[k], load_code(ab, 2u * k + 1u));
  add_to(sum, rest);
  return sum;
}

// The size-optimised loop (PBP_S8_S16_COMPACT), one copy for every row: the groups one step each
// (paired where the core has the DSP instructions: SMLAD sums their B codes for the correction),
// then the units past the last full group and the bias (A bias_a, B bias_b, no C) one step each,
// with no tail group; c null: no C (square 0); log_spread non-null: storage type 4's spread sum
// into it as well. Both blocks are flushed every kMeanBlock / 4 steps (at most kMeanBlock terms).
// The same integers as the loops above.
__attribute__((noinline)) inline RowSums row_sums_compact(const int8_t* q, const uint8_t* u,
                                                          uint32_t count, const uint8_t* ab,
                                                          const uint8_t* c, int32_t bias_a,
                                                          int32_t bias_b, WideSum* log_spread) {
  static_assert(kMeanBlock <= kLogBlock, "a mean block's terms fit a block of the log sum");
  RowSums sums{0, 0, 0};
  uint32_t spread_low = 0, spread_high = 0, square_low = 0, square_high = 0;  // paired steps'
  int32_t block = 0, b_total = 0;  // b_total < 65532 * 32767 < 2^31
  uint64_t log_block = 0;
  const uint32_t grouped = grouped_count(count);
  for (uint32_t k = 0, steps = 1; k <= count; ++steps) {
    const bool group = k < grouped;
    int32_t b = 0;  // a single unit's B
    if (group) {
      const uint8_t* at = ab + 4u * k;
#if PBP_S8_S16_DSP
      const uint8_t* q_bytes = reinterpret_cast<const uint8_t*>(q);
      block = paired_group(q_bytes + k, u + k, at, block, spread_low, spread_high);
      b_total = dsp::smlad(dsp::load_word(at + 8u), 0x00010001u, b_total);
      b_total = dsp::smlad(dsp::load_word(at + 12u), 0x00010001u, b_total);
      if (c != nullptr) paired_square_group(q_bytes + k, c + 2u * k, square_low, square_high);
#else
      block += group_mean_terms(q + k, at);
      add_group_spread_terms(sums.spread, u + k, at + 8u);
      if (c != nullptr) sums.square += group_square_terms(q + k, c + 2u * k);
#endif
    } else {
      const bool bias = k == count;
      b = bias ? bias_b : load_code(ab, 2u * k + 1u);
      block += int32_t{q[k]} * (bias ? bias_a : load_code(ab, 2u * k));
      sums.spread += uint32_t{u[k]} * u[k] * static_cast<uint32_t>(b);  // (< 2^31)
      if (c != nullptr && !bias) {
        sums.square +=
            static_cast<uint32_t>(int32_t{q[k]} * q[k]) * static_cast<uint32_t>(load_code(c, k));
      }
    }
    const uint32_t units = group ? 4u : 1u;
    if (log_spread != nullptr) {
      for (uint32_t i = 0; i < units; ++i) {
        log_block += log_term(u[k + i], group ? load_code(ab, 2u * k + 4u + kGroupOrder[i]) : b);
      }
    }
    k += units;
    if (steps % (kMeanBlock / 4u) == 0 || k > count) {  // a full block, or the row's end
      sums.mean += block;
      block = 0;
      if (log_spread != nullptr) add_to(*log_spread, log_block);
      log_block = 0;
    }
  }
  if (kPairedLoop) {
    sums.spread += (uint64_t{spread_high} << 32 | spread_low) +
                   (uint64_t{static_cast<uint32_t>(b_total)} << 15);
    sums.square += uint64_t{square_high} << 32 | square_low;
  }
  return sums;
}

// The loop a fast build runs (both read the same layout; the compact build: row_sums_compact).
template <bool kHasC>
__attribute__((always_inline)) inline RowSums row_sums(const int8_t* q, const uint8_t* u,
                                                       uint32_t count, const uint8_t* ab,
                                                       const uint8_t* c, const TailGroup& tail,
                                                       uint64_t b_paired_total) {
#if PBP_S8_S16_DSP
  return row_sums_paired<kHasC>(q, u, count, ab, c, tail, b_paired_total);
#else
  (void)b_paired_total;
  return row_sums_portable<kHasC>(q, u, count, ab, c, tail);
#endif
}

}  // namespace pbp::detail::s8_s16
