// SPDX-License-Identifier: Apache-2.0
// The CSV `pbp predict` writes for each task, checked on hand-made predictions.
#include <gtest/gtest.h>

#include "pbp/host/prediction_csv.hpp"

namespace pbp::host {
namespace {

TEST(PredictionCsv, HeadersPerTask) {
  ModelDescription model;
  EXPECT_EQ(prediction_csv_header(model), "mean,std,epistemic_std,aleatoric_std\n");
  model.task = trainer::Task::binary;
  EXPECT_EQ(prediction_csv_header(model), "p0,p1,entropy\n");
  model.task = trainer::Task::multiclass;
  model.outputs = 4;
  EXPECT_EQ(prediction_csv_header(model), "p0,p1,p2,p3,entropy\n");
  model.task = trainer::Task::count;
  model.outputs = 1;
  EXPECT_EQ(prediction_csv_header(model), "mean,variance,mode,lower,upper\n");
}

TEST(PredictionCsv, RowsAreShortestFloats) {
  RegressionPrediction regression;
  regression.moments.mean = 2.5;
  regression.moments.epistemic_variance = 9.0;
  regression.moments.aleatoric_variance = 16.0;
  regression.std = 5.0;
  EXPECT_EQ(prediction_csv_row(regression), "2.5,5,3,4\n");
  // std is the runtime's, as a device gets it: the float root of the float sum, which is not
  // always the root of the exact sum (this one is made up to tell them apart).
  regression.std = 5.0000005f;
  EXPECT_EQ(prediction_csv_row(regression), "2.5,5.0000005,3,4\n");
  // Values the runtime computed in float print as that float, not its double expansion.
  const ClassPrediction classes{{0.1f, 0.25, 0.65f}, 0.8018185525433372};
  EXPECT_EQ(prediction_csv_row(classes), "0.1,0.25,0.65,0.80181855\n");
  CountPrediction count;
  count.mean = 3.5;
  count.variance = 7.25;
  count.mode = 2;
  count.lower = 0;
  count.upper = 9;
  EXPECT_EQ(prediction_csv_row(count), "3.5,7.25,2,0,9\n");
}

TEST(PredictionCsv, RangeColumns) {
  ModelDescription model;
  model.feature_names = {"temperature", "pressure"};
  EXPECT_EQ(range_csv_header(), "range,range_distance,range_input");
  EXPECT_EQ(range_csv_fields({PBP_RANGE_INSIDE, 0, 0, 0.0f}, model), "inside,0,");
  EXPECT_EQ(range_csv_fields({PBP_RANGE_UNKNOWN, 0, 0, 0.0f}, model), "unknown,,");
  EXPECT_EQ(range_csv_fields({PBP_RANGE_OUTSIDE, 2, 1, 4.5f}, model), "outside,4.5,pressure");
  model.feature_names.clear();  // no names: the 0-based index
  EXPECT_EQ(range_csv_fields({PBP_RANGE_OUTSIDE, 1, 1, 0.1f}, model), "outside,0.1,1");
}

}  // namespace
}  // namespace pbp::host
