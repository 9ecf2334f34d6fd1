// SPDX-License-Identifier: Apache-2.0
// The Boston housing network (13 inputs -> 50 ReLU -> 1, boston_13_50.c/.h from `pbp export-c`)
// on an Arduino board: one house's price with its 95 % interval, the two parts of its uncertainty
// and whether the house lies inside the training data's ranges. The inputs are placed by the names
// the exported header gives them. No heap: the model view and the workspace are static.
#include <pbp_edge.h>

#include "boston_13_50.h"

static pbp_model model;
static float workspace[BOSTON_13_50_WORKSPACE_BYTES / sizeof(float)];

// Row 1 of the data (sold for 24.0), each value with the index its name has in this model.
struct named_input {
  unsigned index;
  float value;
};
static const named_input row1[BOSTON_13_50_INPUT_COUNT] = {
    {BOSTON_13_50_INPUT_CRIM, 0.00632f}, {BOSTON_13_50_INPUT_ZN, 18.0f},
    {BOSTON_13_50_INPUT_INDUS, 2.31f},   {BOSTON_13_50_INPUT_CHAS, 0.0f},
    {BOSTON_13_50_INPUT_NOX, 0.538f},    {BOSTON_13_50_INPUT_RM, 6.575f},
    {BOSTON_13_50_INPUT_AGE, 65.2f},     {BOSTON_13_50_INPUT_DIS, 4.09f},
    {BOSTON_13_50_INPUT_RAD, 1.0f},      {BOSTON_13_50_INPUT_TAX, 296.0f},
    {BOSTON_13_50_INPUT_PTRATIO, 15.3f}, {BOSTON_13_50_INPUT_B, 396.9f},
    {BOSTON_13_50_INPUT_LSTAT, 4.98f}};

static void print_house(const char* what, const float* x) {
  pbp_prediction p;
  const pbp_status status =
      pbp_predict(&model, x, BOSTON_13_50_INPUT_COUNT, 0.95f, workspace, sizeof workspace, &p);
  Serial.print(what);
  if (status != PBP_OK) {
    Serial.print(": pbp_predict failed, status ");
    Serial.println((int)status);
    return;
  }
  Serial.print(": " BOSTON_13_50_TARGET_NAME " ");
  Serial.print(p.mean, 3);
  Serial.print(", 95% [");
  Serial.print(p.lower, 3);
  Serial.print(", ");
  Serial.print(p.upper, 3);
  Serial.print("], epistemic std ");
  Serial.print(sqrtf(p.epistemic_variance), 3);
  Serial.print(", aleatoric std ");
  Serial.println(sqrtf(p.aleatoric_variance), 3);
  if (p.range.status == PBP_RANGE_INSIDE) {
    Serial.println("  every input inside its training range");
  } else if (p.range.status == PBP_RANGE_OUTSIDE) {
    Serial.print("  outside the training range: ");
    Serial.print((unsigned)p.range.outside_count);
    Serial.print(" input(s), farthest ");
    pbp_string name = {"?", 1};
    (void)pbp_feature_name(&model, p.range.farthest_input, &name);
    Serial.write(name.data, name.length);
    Serial.print(" by ");
    Serial.print(p.range.distance, 2);
    Serial.println(" training stds");
  } else {
    Serial.println("  the model has no training ranges");
  }
}

void setup() {
  Serial.begin(115200);
  const pbp_status status = pbp_open(&model, boston_13_50, BOSTON_13_50_SIZE);
  if (status != PBP_OK) {
    Serial.print("pbp_open failed, status ");
    Serial.println((int)status);
    return;
  }
  float x[BOSTON_13_50_INPUT_COUNT];
  for (const named_input& input : row1) x[input.index] = input.value;
  print_house("row 1", x);
  x[BOSTON_13_50_INPUT_RM] = 12.0f;  // far outside the training data
  x[BOSTON_13_50_INPUT_CRIM] = 80.0f;
  print_house("row 1, 12 rooms, crime 80", x);
}

void loop() {}
