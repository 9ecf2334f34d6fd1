// SPDX-License-Identifier: Apache-2.0
// The int8 kernel's row loops in Thumb-2 assembly (Cortex-M4, M7, M33, M55 optimised builds:
// PBP_S8_S16_THUMB2), the paired loop's instructions with every register chosen by hand.
#pragma once
#include "kernels/linear_moments_s8_s16_dsp.hpp"

namespace pbp::detail::s8_s16 {

#if PBP_S8_S16_THUMB2
// The asm loops' count of groups (0 .. 16383) in the top halfword and 0x8000 in the low one: also
// SMLABB's and SMLATT's addend (offset_square_pair's -32768, of which PKHBT keeps the low
// halfword). The loops take the groups by the count's bits (1, 2, 4, 8 and 16 groups: no branch
// in C per row), then 32 an iteration.
inline uint32_t group_count(uint32_t groups) {
  return groups << 16 | 0x8000u;
}
// A group's mean terms (t0 .. t3 free, t3 = the (q_k, q_k+2) pair and t0 the other after it),
// into a 64-bit sum (SMLALD: no 32-bit blocks, so a row of any length is one call).
#define PBP_S8_S16_MEAN_STEP                \
  "ldr    %[t0], [%[q]], #4\n\t"            \
  "ldrd   %[t1], %[t2], [%[g]], #8\n\t"     \
  "sxtb16 %[t3], %[t0]\n\t"                 \
  "smlald %[mnl], %[mnh], %[t3], %[t1]\n\t" \
  "sxtb16 %[t0], %[t0], ror #8\n\t"         \
  "smlald %[mnl], %[mnh], %[t0], %[t2]\n\t"
// A row of a layer without C (paired_step's instructions): the tail group (its pointers in t0,
// t1, t2, temporaries after it), then the groups `k` counts (group_count's) from q, u and g; the
// mean into (mean_low, mean_high) (GCC's loop also advanced two pointers by adds), the u^2 B
// terms added to (spread_low, spread_high).
__attribute__((always_inline)) inline void paired_row(const uint8_t* at_q, const uint8_t* at_u,
                                                      const uint8_t* group, const uint8_t* tail_q,
                                                      const uint8_t* tail_u,
                                                      const uint8_t* tail_group, uint32_t k,
                                                      uint32_t& mean_low, uint32_t& mean_high,
                                                      uint32_t& spread_low, uint32_t& spread_high) {
  const uint8_t* t0 = tail_q;
  const uint8_t* t1 = tail_u;
  const uint8_t* t2 = tail_group;
  uint32_t t3;
#define PBP_S8_S16_GROUP                    \
  PBP_S8_S16_MEAN_STEP                      \
  "ldr    %[t0], [%[u]], #4\n\t"            \
  "uxtb16 %[t1], %[t0]\n\t"                 \
  "uxtb16 %[t0], %[t0], ror #8\n\t"         \
  "smlabb %[t2], %[t1], %[t1], %[k]\n\t"    \
  "smlatt %[t1], %[t1], %[t1], %[k]\n\t"    \
  "pkhbt  %[t2], %[t2], %[t1], lsl #16\n\t" \
  "smlabb %[t1], %[t0], %[t0], %[k]\n\t"    \
  "smlatt %[t0], %[t0], %[t0], %[k]\n\t"    \
  "pkhbt  %[t1], %[t1], %[t0], lsl #16\n\t" \
  "ldrd   %[t0], %[t3], [%[g]], #8\n\t"     \
  "smlald %[spl], %[sph], %[t2], %[t0]\n\t" \
  "smlald %[spl], %[sph], %[t1], %[t3]\n\t"
#define PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_GROUP PBP_S8_S16_GROUP PBP_S8_S16_GROUP PBP_S8_S16_GROUP
  __asm__ volatile(
      // the tail group: its mean terms in 32 bits (SMUAD, SMLAD), sign-extended to the 64-bit sum
      "ldr    %[t0], [%[t0]]\n\t"
      "ldrd   %[mnl], %[mnh], [%[t2]], #8\n\t"
      "sxtb16 %[t3], %[t0]\n\t"
      "smuad  %[t3], %[t3], %[mnl]\n\t"
      "sxtb16 %[t0], %[t0], ror #8\n\t"
      "smlad  %[t3], %[t0], %[mnh], %[t3]\n\t"
      "asr    %[mnh], %[t3], #31\n\t"
      "mov    %[mnl], %[t3]\n\t"
      "ldr    %[t0], [%[t1]]\n\t"
      "uxtb16 %[t1], %[t0]\n\t"
      "uxtb16 %[t0], %[t0], ror #8\n\t"
      "smlabb %[t3], %[t1], %[t1], %[k]\n\t"
      "smlatt %[t1], %[t1], %[t1], %[k]\n\t"
      "pkhbt  %[t3], %[t3], %[t1], lsl #16\n\t"
      "smlabb %[t1], %[t0], %[t0], %[k]\n\t"
      "smlatt %[t0], %[t0], %[t0], %[k]\n\t"
      "pkhbt  %[t1], %[t1], %[t0], lsl #16\n\t"
      "ldrd   %[t0], %[t2], [%[t2]]\n\t"  // (the base as the second register: no write-back)
      "smlald %[spl], %[sph], %[t3], %[t0]\n\t"
      "smlald %[spl], %[sph], %[t1], %[t2]\n\t"
      // the groups
      "tst    %[k], #65536\n\t"
      "beq    6f\n\t" PBP_S8_S16_GROUP
      "6:\n\t"
      "tst    %[k], #131072\n\t"
      "beq    7f\n\t" PBP_S8_S16_GROUP PBP_S8_S16_GROUP
      "7:\n\t"
      "tst    %[k], #262144\n\t"
      "beq    2f\n\t" PBP_S8_S16_FOUR_GROUPS
      "2:\n\t"
      "tst    %[k], #524288\n\t"
      "beq    4f\n\t" PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS
      "4:\n\t"
      "tst    %[k], #1048576\n\t"
      "beq    5f\n\t" PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS
          PBP_S8_S16_FOUR_GROUPS
      "5:\n\t"
      "subs   %[k], %[k], #2097152\n\t"
      "bmi    3f\n"
      "1:\n\t" PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS
          PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS
              PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS
      "subs   %[k], %[k], #2097152\n\t"
      "bpl    1b\n"
      "3:"
      : [q] "+r"(at_q), [u] "+r"(at_u), [g] "+r"(group), [k] "+r"(k), [mnl] "=&r"(mean_low),
        [mnh] "=&r"(mean_high), [spl] "+r"(spread_low), [sph] "+r"(spread_high), [t0] "+r"(t0),
        [t1] "+r"(t1), [t2] "+r"(t2), [t3] "=&r"(t3)
      :
      : "cc", "memory");
#undef PBP_S8_S16_FOUR_GROUPS
#undef PBP_S8_S16_GROUP
#undef PBP_S8_S16_MEAN_STEP
}

// paired_row's groups with the q^2 C terms in the same loop (layers with C): the mean step's
// (q_k, q_k+2) and (q_k+1, q_k+3) pairs squared for the q^2 C terms, so each weight word is loaded
// and extended once (27 instructions a group, not 30). It needs 14 registers: a naked function
// of its own (r0-r12 and lr), its state read and written back by LDM/STM. `count` is
// group_count's (the mean in 32 bits: at most kMeanBlock / 4 groups a call).
struct FusedGroups {  // the registers r0 .. r9, in order
  const uint8_t* q;
  const uint8_t* u;
  const uint8_t* group;
  const uint8_t* group_c;
  uint32_t count;
  int32_t block;
  uint32_t spread_low, spread_high, square_low, square_high;
};
__attribute__((naked, noinline)) inline void paired_fused_groups(FusedGroups* /*state*/) {
#define PBP_S8_S16_FUSED_GROUP        \
  "ldr    r10, [r0], #4\n\t"          \
  "ldrd   r11, r12, [r2], #8\n\t"     \
  "sxtb16 lr, r10\n\t"                \
  "sxtb16 r10, r10, ror #8\n\t"       \
  "smlad  r5, lr, r11, r5\n\t"        \
  "smlad  r5, r10, r12, r5\n\t"       \
  "smulbb r11, lr, lr\n\t"            \
  "smultt lr, lr, lr\n\t"             \
  "pkhbt  r11, r11, lr, lsl #16\n\t"  \
  "smulbb r12, r10, r10\n\t"          \
  "smultt r10, r10, r10\n\t"          \
  "pkhbt  r12, r12, r10, lsl #16\n\t" \
  "ldrd   r10, lr, [r3], #8\n\t"      \
  "smlald r8, r9, r11, r10\n\t"       \
  "smlald r8, r9, r12, lr\n\t"        \
  "ldr    r10, [r1], #4\n\t"          \
  "uxtb16 r11, r10\n\t"               \
  "uxtb16 r10, r10, ror #8\n\t"       \
  "smlabb r12, r11, r11, r4\n\t"      \
  "smlatt r11, r11, r11, r4\n\t"      \
  "pkhbt  r12, r12, r11, lsl #16\n\t" \
  "smlabb r11, r10, r10, r4\n\t"      \
  "smlatt r10, r10, r10, r4\n\t"      \
  "pkhbt  r11, r11, r10, lsl #16\n\t" \
  "ldrd   r10, lr, [r2], #8\n\t"      \
  "smlald r6, r7, r12, r10\n\t"       \
  "smlald r6, r7, r11, lr\n\t"
#define PBP_S8_S16_FUSED_FOUR \
  PBP_S8_S16_FUSED_GROUP PBP_S8_S16_FUSED_GROUP PBP_S8_S16_FUSED_GROUP PBP_S8_S16_FUSED_GROUP
  __asm__(
      "push   {r0, r4-r11, lr}\n\t"
      "ldm    r0, {r0-r9}\n"  // (the base in the list, without write-back: it loads last)
      "tst    r4, #65536\n\t"
      "beq    6f\n\t" PBP_S8_S16_FUSED_GROUP
      "6:\n\t"
      "tst    r4, #131072\n\t"
      "beq    7f\n\t" PBP_S8_S16_FUSED_GROUP PBP_S8_S16_FUSED_GROUP
      "7:\n\t"
      "tst    r4, #262144\n\t"
      "beq    2f\n\t" PBP_S8_S16_FUSED_FOUR
      "2:\n\t"
      "tst    r4, #524288\n\t"
      "beq    4f\n\t" PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR
      "4:\n\t"
      "tst    r4, #1048576\n\t"
      "beq    5f\n\t" PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR
          PBP_S8_S16_FUSED_FOUR
      "5:\n\t"
      "subs   r4, r4, #2097152\n\t"
      "bmi    3f\n"
      "1:\n\t" PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR
          PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR
              PBP_S8_S16_FUSED_FOUR
      "subs   r4, r4, #2097152\n\t"
      "bpl    1b\n"
      "3:\n\t"
      "ldr    r12, [sp]\n\t"
      "stm    r12, {r0-r9}\n\t"
      "pop    {r0, r4-r11, pc}");
#undef PBP_S8_S16_FUSED_FOUR
#undef PBP_S8_S16_FUSED_GROUP
}
#endif

}  // namespace pbp::detail::s8_s16
