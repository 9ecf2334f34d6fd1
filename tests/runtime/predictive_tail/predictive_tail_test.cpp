// SPDX-License-Identifier: Apache-2.0
// A Student-t predictive (FORMAT.md, section 9): pbp_open reads and checks its degrees of freedom,
// and pbp_predict's interval is the t's of the same variance while its mean, variances and std
// stay the Gaussian model's. The tiny blob's metadata entry is retyped as the section.
#include "pbp/predictive_tail.hpp"
#include "blob_edit.hpp"
#include "harness.hpp"

namespace {

using pbp_test::EditableBlob;
namespace fmt = pbp::format;

// The tiny blob with its metadata section's entry turned into a predictive_tail section of
// `length` bytes holding `dof`, written required.
EditableBlob& with_tail(uint32_t dof, uint32_t length = fmt::predictive_tail_section::kSize) {
  EditableBlob& blob = pbp_test::tiny_copy();
  uint8_t* entry = pbp_test::section_entry(blob, fmt::SectionType::metadata);
  uint8_t* data = pbp_test::section(blob, fmt::SectionType::metadata);
  pbp_test::set_u32(entry + fmt::section_entry::kType,
                    static_cast<uint32_t>(fmt::SectionType::predictive_tail));
  pbp_test::set_u32(entry + fmt::section_entry::kFlags, fmt::kSectionRequired);
  pbp_test::set_u32(entry + fmt::section_entry::kLength, length);
  pbp_test::set_u32(data + fmt::predictive_tail_section::kDegreesOfFreedom, dof);
  pbp_test::reseal(blob);
  return blob;
}

}  // namespace

PBP_TEST(the_degrees_of_freedom_are_read) {
  pbp_model* models = pbp_test::shared_models();
  PBP_CHECK_EQ(pbp_open(&models[0], pbp_tiny_blob, PBP_TINY_BLOB_SIZE), PBP_OK);
  PBP_CHECK_EQ(models[0].tail_dof, 0u);
  for (uint32_t dof = 3; dof <= 32; ++dof) {
    EditableBlob& blob = with_tail(dof);
    PBP_CHECK_EQ(pbp_open(&models[1], blob.bytes, blob.size), PBP_OK);
    PBP_CHECK_EQ(models[1].tail_dof, dof);
  }
}

PBP_TEST(too_few_or_too_many_degrees_of_freedom_and_other_lengths_are_refused) {
  const uint32_t refused[] = {0u, 1u, 2u, 33u, 34u, 35u, 64u, 65u, 0x80000003u, 0xFFFFFFFEu};
  for (const uint32_t dof : refused) {
    PBP_CHECK_EQ(pbp_test::open_blob(with_tail(dof)), PBP_ERR_BAD_PREDICTIVE_TAIL);
  }
  PBP_CHECK_EQ(pbp_test::open_blob(with_tail(6, 8)), PBP_ERR_SECTION_SIZE);
  PBP_CHECK_EQ(pbp_test::open_blob(with_tail(6, 0)), PBP_ERR_SECTION_SIZE);
}

PBP_TEST(a_model_that_is_not_gaussian_regression_is_refused) {
  EditableBlob& blob = with_tail(6);
  uint8_t* model = pbp_test::section(blob, fmt::SectionType::model);
  pbp_test::set_u32(model + fmt::model_section::kLikelihood, PBP_LIKELIHOOD_PROBIT);
  PBP_CHECK_EQ(pbp_test::open_resealed(blob), PBP_ERR_BAD_PREDICTIVE_TAIL);
}

PBP_TEST(the_interval_is_the_student_t_one_of_the_same_variance) {
  pbp_model* models = pbp_test::shared_models();
  PBP_CHECK_EQ(pbp_open(&models[0], pbp_tiny_blob, PBP_TINY_BLOB_SIZE), PBP_OK);
  // t quantiles (the CDF's closed forms, bisected in 60-digit decimals, the odd-dof one's
  // arctangent by its series): P(T > q) = 0.025 and 0.25, 3, 4, 5, 31 and 32 degrees of freedom.
  struct Case {
    uint32_t dof;
    float probability;
    double quantile;
  };
  const Case cases[] = {{3, 0.95f, 3.1824463052837096}, {3, 0.5f, 0.7648923284043453},
                        {4, 0.95f, 2.7764451051977987}, {4, 0.5f, 0.7406970841126826},
                        {5, 0.95f, 2.5705818356363155}, {31, 0.95f, 2.0395134463964085},
                        {32, 0.95f, 2.0369333434601020}};
  alignas(4) static float workspace[64];
  const float input[2] = {0.3f, -0.7f};
  for (const Case& c : cases) {
    EditableBlob& blob = with_tail(c.dof);
    PBP_CHECK_EQ(pbp_open(&models[1], blob.bytes, blob.size), PBP_OK);
    pbp_prediction gaussian, t;
    PBP_CHECK_EQ(
        pbp_predict(&models[0], input, 2, c.probability, workspace, sizeof workspace, &gaussian),
        PBP_OK);
    PBP_CHECK_EQ(pbp_predict(&models[1], input, 2, c.probability, workspace, sizeof workspace, &t),
                 PBP_OK);
    // The same moments bit for bit: the section changes the interval only.
    PBP_CHECK(t.mean == gaussian.mean && t.std == gaussian.std &&
              t.epistemic_variance == gaussian.epistemic_variance &&
              t.aleatoric_variance == gaussian.aleatoric_variance);
    // Half width in stds: the quantile times sqrt((nu - 2) / nu). The float quantile is good to a
    // few ulp and the interval's two roundings (z std, mean + that) add about 2^-23 relative of
    // the mean: 1e-5 of the width bounds them with room for the tiny model's |mean| ~ std.
    const double nu = c.dof;
    const double expected = c.quantile * pbp::math::sqrt((nu - 2.0) / nu);
    const double half_width = (static_cast<double>(t.upper) - t.lower) / 2.0 / t.std;
    PBP_CHECK(half_width > expected * (1.0 - 1e-5) && half_width < expected * (1.0 + 1e-5));
  }
}
