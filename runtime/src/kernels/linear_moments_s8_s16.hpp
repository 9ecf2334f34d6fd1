// SPDX-License-Identifier: Apache-2.0
// The int8 kernel's integer row sums (linear_moments_s8_s16.cpp, s8 weights x s16 activations),
// the pieces its tests call on their own: a portable loop (linear_moments_s8_s16_portable.hpp), a
// paired loop shaped for the Cortex-M DSP instructions (its dual operations:
// linear_moments_s8_s16_dsp.hpp; in Thumb-2 assembly: linear_moments_s8_s16_thumb2.hpp), storage
// type 4's spread sum and the size build's compact loop. The activation codes they read:
// linear_moments_s8_s16_codes.hpp. Everything here is integer arithmetic, so every target gets the
// same integers.
#pragma once
#include "kernels/linear_moments_s8_s16_portable.hpp"  // the sums, tail group, portable loop
#include "kernels/linear_moments_s8_s16_thumb2.hpp"    // and the codes and dual operations

namespace pbp::detail::s8_s16 {

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
