// SPDX-License-Identifier: Apache-2.0
// The optional learn_check section (format::learn_check): a learner's update noise, re-fit switch
// and running check, as pbp_learn_write_blob writes them. pbp_learn_init, its only reader, checks
// every value before use: a restored check feeds the re-fit, so a blob cannot make a learner
// divide by zero or log(-1). pbp_open does not read it (a firmware that only predicts skips it).
#include "blob_view.hpp"

namespace pbp::detail {
namespace {

namespace layout = format::learn_check;

// Every sum finite and >= 0 (each is a decayed sum of r^2 / spread or of log(spread >= 1)).
bool read_sums(const uint8_t* from, float* to) {
  for (uint32_t k = 0; k < layout::kCandidates; ++k) {
    to[k] = format::load_f32(from + 4u * k);
    if (!math::is_finite(to[k]) || !(to[k] >= 0.0f)) return false;
  }
  return true;
}

}  // namespace

pbp_status read_learn_check(Span section, LearnCheckRecord* record) {
  if (section.size != layout::kSize) return PBP_ERR_BAD_LEARN_CHECK;
  const uint8_t* p = section.data;
  *record = LearnCheckRecord{};
  record->update_noise_a = format::load_f32(p + layout::kUpdateNoiseA);
  record->update_noise_b = format::load_f32(p + layout::kUpdateNoiseB);
  const uint32_t flags = format::load_u32(p + layout::kFlags);
  record->recalibrate = flags & layout::kRecalibrate;
  pbp_learn_check& check = record->check;
  check.rows = format::load_u32(p + layout::kRows);
  check.window = format::load_f32(p + layout::kWindow);
  check.mean_loglik = format::load_f32(p + layout::kMeanLoglik);
  check.mean_z2 = format::load_f32(p + layout::kMeanZ2);
  check.inside_95 = format::load_f32(p + layout::kInside95);
  // A finite Gamma as pbp_open requires of the model's; the comparisons also reject NaN.
  if (!math::is_finite(record->update_noise_a) || !math::is_finite(record->update_noise_b) ||
      !(record->update_noise_a > 1.0f) || !(record->update_noise_b > 0.0f) ||
      (flags & ~layout::kRecalibrate) != 0u ||
      format::load_u32(p + layout::kCandidateCount) != layout::kCandidates ||
      !(check.window >= 0.0f && check.window <= layout::kMaxWindow) ||
      (check.rows == 0u) != (check.window == 0.0f) || !math::is_finite(check.mean_loglik) ||
      !math::is_finite(check.mean_z2) || !(check.mean_z2 >= 0.0f) ||
      !(check.inside_95 >= 0.0f && check.inside_95 <= 1.0f) ||
      !read_sums(p + layout::kResidualSums, check.residual_sum) ||
      !read_sums(p + layout::kLogSpreadSums, check.log_spread_sum)) {
    return PBP_ERR_BAD_LEARN_CHECK;
  }
  return PBP_OK;
}

}  // namespace pbp::detail
