// SPDX-License-Identifier: Apache-2.0
// The out-of-range report (pbp_range_report) on the tiny blob, whose inputs were trained on
// [-2, 0.5] and [-2.5, 1] with stds 0.5 and 0.75: pbp_check_input_range, the report every predict
// function fills, and blobs without ranges.
#include "blob_edit.hpp"
#include "harness.hpp"
#include "pbp/math.hpp"
#include "pbp/pbp.hpp"

namespace {

namespace fmt = pbp::format;

pbp_range_report report_of(const pbp::Model& model, float x0, float x1) {
  const float x[2] = {x0, x1};
  pbp_range_report report{99u, 99u, 99u, -1.0f};
  PBP_CHECK_EQ(model.check_input_range(x, 2, &report), PBP_OK);
  return report;
}

bool same_report(const pbp_range_report& a, const pbp_range_report& b) {
  return a.status == b.status && a.outside_count == b.outside_count &&
         a.farthest_input == b.farthest_input && memcmp(&a.distance, &b.distance, 4) == 0;
}

// The tiny blob with its standardisation section cut back to the v1 size: no ranges.
pbp_test::EditableBlob& tiny_without_ranges() {
  pbp_test::EditableBlob& blob = pbp_test::tiny_copy();
  uint8_t* entry = pbp_test::section_entry(blob, fmt::SectionType::standardisation);
  pbp_test::set_u32(entry + fmt::section_entry::kLength, fmt::standardisation_section::kSize);
  pbp_test::reseal(blob);
  return blob;
}

}  // namespace

PBP_TEST(inside_the_ranges_edges_included) {
  pbp::Model model;
  PBP_CHECK_EQ(model.open(pbp_tiny_blob, PBP_TINY_BLOB_SIZE), PBP_OK);
  const float corners[4][2] = {{-1.0f, -0.75f}, {-2.0f, -2.5f}, {0.5f, 1.0f}, {-2.0f, 1.0f}};
  for (const auto& x : corners) {
    const pbp_range_report r = report_of(model, x[0], x[1]);
    PBP_CHECK_EQ(r.status, PBP_RANGE_INSIDE);
    PBP_CHECK_EQ(r.outside_count, 0u);
    PBP_CHECK_EQ(r.farthest_input, 0u);
    PBP_CHECK(r.distance == 0.0f);
  }
}

PBP_TEST(distance_in_training_stds_of_the_farthest_input) {
  pbp::Model model;
  PBP_CHECK_EQ(model.open(pbp_tiny_blob, PBP_TINY_BLOB_SIZE), PBP_OK);
  // Input 0 is 1 below -2 (2 stds), input 1 is 3 above 1 (4 stds): exact in float.
  pbp_range_report r = report_of(model, -3.0f, 4.0f);
  PBP_CHECK_EQ(r.status, PBP_RANGE_OUTSIDE);
  PBP_CHECK_EQ(r.outside_count, 2u);
  PBP_CHECK_EQ(r.farthest_input, 1u);
  PBP_CHECK(r.distance == 4.0f);
  r = report_of(model, -3.0f, 0.0f);
  PBP_CHECK_EQ(r.outside_count, 1u);
  PBP_CHECK_EQ(r.farthest_input, 0u);
  PBP_CHECK(r.distance == 2.0f);
  r = report_of(model, 1.0f, -2.875f);  // 0.5 above input 0's range: 1 std; input 1: 0.5
  PBP_CHECK_EQ(r.outside_count, 2u);
  PBP_CHECK_EQ(r.farthest_input, 0u);
  PBP_CHECK(r.distance == 1.0f);
  r = report_of(model, -3.5f, 3.25f);  // both 3 stds out: the lower index
  PBP_CHECK_EQ(r.farthest_input, 0u);
  PBP_CHECK(r.distance == 3.0f);
  r = report_of(model, -3.0e38f, 0.0f);  // beyond float: +inf, still a report
  PBP_CHECK_EQ(r.status, PBP_RANGE_OUTSIDE);
  PBP_CHECK(r.distance == pbp::math::infinity<float>());
}

PBP_TEST(every_predict_function_fills_the_same_report) {
  static pbp::Workspace<2, 3> workspace;
  const float x[2] = {-3.0f, 4.0f};
  pbp::Model model;
  PBP_CHECK_EQ(model.open(pbp_tiny_blob, PBP_TINY_BLOB_SIZE), PBP_OK);
  const pbp_range_report expected = report_of(model, x[0], x[1]);
  pbp::Prediction p;
  PBP_CHECK_EQ(model.predict(x, 2, 0.9f, workspace, &p), PBP_OK);
  PBP_CHECK(same_report(p.range, expected));

  pbp_test::EditableBlob& blob = pbp_test::tiny_copy();
  uint8_t* likelihood =
      pbp_test::section(blob, fmt::SectionType::model) + fmt::model_section::kLikelihood;
  pbp_test::set_u32(likelihood, PBP_LIKELIHOOD_PROBIT);
  PBP_CHECK_EQ(pbp_test::open_resealed(blob), PBP_OK);
  PBP_CHECK_EQ(model.open(blob.bytes, blob.size), PBP_OK);
  pbp::ClassResult classes;
  PBP_CHECK_EQ(model.predict_classes(x, 2, workspace, nullptr, 0, &classes), PBP_OK);
  PBP_CHECK(same_report(classes.range, expected));

  pbp_test::set_u32(likelihood, PBP_LIKELIHOOD_POISSON);
  PBP_CHECK_EQ(pbp_test::open_resealed(blob), PBP_OK);
  PBP_CHECK_EQ(model.open(blob.bytes, blob.size), PBP_OK);
  pbp::CountResult count;
  PBP_CHECK_EQ(model.predict_count(x, 2, 0.9f, workspace, &count), PBP_OK);
  PBP_CHECK(same_report(count.range, expected));
}

PBP_TEST(blob_without_ranges_reports_unknown_and_predicts_the_same) {
  static pbp::Workspace<2, 3> workspace;
  const float x[2] = {-3.0f, 4.0f};
  pbp::Model with;
  PBP_CHECK_EQ(with.open(pbp_tiny_blob, PBP_TINY_BLOB_SIZE), PBP_OK);
  pbp::Prediction expected;
  PBP_CHECK_EQ(with.predict(x, 2, 0.9f, workspace, &expected), PBP_OK);

  pbp_test::EditableBlob& blob = tiny_without_ranges();
  pbp::Model without;
  PBP_CHECK_EQ(without.open(blob.bytes, blob.size), PBP_OK);
  const pbp_range_report r = report_of(without, x[0], x[1]);
  PBP_CHECK_EQ(r.status, PBP_RANGE_UNKNOWN);
  PBP_CHECK_EQ(r.outside_count, 0u);
  PBP_CHECK(r.distance == 0.0f);
  pbp::Prediction p;
  PBP_CHECK_EQ(without.predict(x, 2, 0.9f, workspace, &p), PBP_OK);
  PBP_CHECK_EQ(p.range.status, PBP_RANGE_UNKNOWN);
  const float a[6] = {p.mean, p.epistemic_variance, p.aleatoric_variance, p.std, p.lower, p.upper};
  const float b[6] = {expected.mean,
                      expected.epistemic_variance,
                      expected.aleatoric_variance,
                      expected.std,
                      expected.lower,
                      expected.upper};
  PBP_CHECK(memcmp(a, b, sizeof a) == 0);
}

PBP_TEST(argument_errors) {
  pbp::Model model;
  const float x[2] = {0.0f, 0.0f};
  pbp_range_report r;
  PBP_CHECK_EQ(model.check_input_range(x, 2, &r), PBP_ERR_MODEL_NOT_OPEN);
  PBP_CHECK_EQ(model.open(pbp_tiny_blob, PBP_TINY_BLOB_SIZE), PBP_OK);
  PBP_CHECK_EQ(model.check_input_range(nullptr, 2, &r), PBP_ERR_NULL_ARGUMENT);
  PBP_CHECK_EQ(model.check_input_range(x, 2, nullptr), PBP_ERR_NULL_ARGUMENT);
  PBP_CHECK_EQ(pbp_check_input_range(nullptr, x, 2, &r), PBP_ERR_NULL_ARGUMENT);
  PBP_CHECK_EQ(model.check_input_range(x, 3, &r), PBP_ERR_INPUT_WIDTH);
  const float nan[2] = {0.0f, pbp::math::quiet_nan<float>()};
  PBP_CHECK_EQ(model.check_input_range(nan, 2, &r), PBP_ERR_NONFINITE_INPUT);
}
