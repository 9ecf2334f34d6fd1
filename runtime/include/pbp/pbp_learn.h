/* SPDX-License-Identifier: Apache-2.0 */
/* pbp runtime: learning on the device (C99). PBP learns one data point at a time, with no
 * learning rate and no data kept: each update is a forward moment pass, the likelihood's
 * d log Z / d (mean, variance) of the output, a backward pass to every weight, the moment-matching
 * step of eqs. 6-7 on every weight's Gaussian and, for regression, eqs. 9-10 on the noise Gamma
 * (Hernandez-Lobato & Adams 2015): the trainer's ADF update, the same equations
 * (runtime/core/pbp/learn/) in float, source order, the same bits on every target.
 *
 *   static pbp_learner learner;
 *   static float state[PBP_LEARN_STATE_BYTES(MAX_WEIGHTS) / 4];
 *   static float work[PBP_LEARN_WORKSPACE_FLOATS(MAX_INPUTS, MAX_UNITS)];
 *   pbp_learn_init(&learner, &model, state, sizeof state);
 *   pbp_learn_update(&learner, x, n, y, work, sizeof work, NULL);   (for every labelled row)
 *   pbp_predict(&learner.model, ...);                               (as from a blob)
 *   pbp_learn_write_blob(&learner, out, learner.blob_bytes, &written);  (persist: DEPLOYING.md)
 *
 * What it learns: the weights' means and variances of every layer and, for regression, the
 * noise precision's Gamma. The prior stays as trained: there is no EP sweep on the device (the
 * prior Gamma in the blob is copied as it is). Regression also keeps a running check on its own
 * predictions (pbp_learn_check: each row scored before it is learnt, over about the last 128
 * rows); for a model with an epistemic scale (the recipe's likelihood 4) the predictive's scale
 * and noise are re-fitted from that window once 32 rows are scored, so the intervals follow the
 * narrowing weights, and the update's likelihood uses the window's prequential mean squared
 * residual as its noise in place of ADF's noise Gamma (update_noise_a/b, still learnt and used
 * for the first 32 rows); on by default, pbp_learn_set_recalibration(learner, 0) turns both off.
 * pbp_learn_write_blob writes the check, the switch and ADF's Gamma in the blob (its learn_check
 * section, FORMAT.md), and pbp_learn_init restores them: a learner restarted from its own blob goes
 * on bit for bit as one that never stopped. Regression and binary (probit) models; multiclass,
 * count and heteroscedastic regression models are refused with PBP_ERR_WRONG_TASK.
 *
 * Memory: a pbp_learner (a pbp_model and a few words), the state PBP_LEARN_STATE_BYTES(weights)
 * (float32 mean and variance of every weight: float16 and int8 blobs are decoded), and the update's
 * workspace PBP_LEARN_WORKSPACE_BYTES(inputs, units) (units: the sum of every layer's width).
 * The source blob must stay in place: standardisation, metadata and the write-back read it.
 */
#ifndef PBP_PBP_LEARN_H
#define PBP_PBP_LEARN_H

#include "pbp/pbp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of a learner's state: a float32 mean and variance per weight. */
#define PBP_LEARN_STATE_BYTES(weight_count) (8u * (weight_count))
/* Workspace of one update, in floats: the standardised input, and per unit (every layer's
 * outputs, summed) its pre-activation moments, output moments, activation Jacobian (4) and
 * d log Z / d pre-activation moments. */
#define PBP_LEARN_WORKSPACE_FLOATS(input_count, unit_count) ((input_count) + 10u * (unit_count))
#define PBP_LEARN_WORKSPACE_BYTES(input_count, unit_count) \
  (4u * PBP_LEARN_WORKSPACE_FLOATS(input_count, unit_count))

/* The bytes pbp_learn_write_blob writes for a float32 source blob of `source_bytes` (a multiple
 * of 4, as pbp train writes them) without a learn_check section: its own, the section's table
 * entry (16) and the section (180, FORMAT.md). A blob the learner wrote keeps its size. */
#define PBP_LEARN_WRITTEN_BYTES(source_bytes) ((source_bytes) + 196u)

/* Candidate ratios of the epistemic scale to the noise variance the regression check scores. */
#define PBP_LEARN_CHECK_CANDIDATES 18u

/* The running check on a regression learner's own predictions (learn_calibration.hpp): before
 * each row is learnt, its prediction is scored, over a window of about the last 128 rows (each
 * row's weight decays by 127/128 per later row). Read to decide whether to trust the intervals:
 * targets/DEPLOYING.md, section 8. Binary learners leave it zero. */
typedef struct pbp_learn_check {
  uint32_t rows;     /* regression rows scored since pbp_learn_init */
  float window;      /* the window's weight: the effective number of rows in it (-> 128) */
  float mean_loglik; /* windowed mean of log p(y | predictive) in target units */
  float mean_z2;     /* windowed mean of (y - mean)^2 / predictive variance: 1 if calibrated */
  float inside_95;   /* windowed fraction of rows inside their 95 % predictive interval */
  /* Gaussian epistemic-scaled models: the window's prequential evidence for each candidate
   * ratio (sum of r^2 / (ratio psi + 1) and of log(ratio psi + 1)), from which the epistemic
   * scale and the noise are re-fitted once 32 rows are scored. */
  float residual_sum[PBP_LEARN_CHECK_CANDIDATES];
  float log_spread_sum[PBP_LEARN_CHECK_CANDIDATES];
} pbp_learn_check;

/* A learnable model. Read the fields freely; change none. */
typedef struct pbp_learner {
  /* The learnt model: a pbp_model like pbp_open's (same task, standardisation, metadata), its
   * layers float32 and pointing into the state. pbp_predict & co. take &learner->model. */
  pbp_model model;
  float* state;             /* the caller's state memory: per layer, the means then variances */
  uint32_t weight_count;    /* model.weight_count */
  uint32_t workspace_bytes; /* what pbp_learn_update needs */
  uint32_t blob_bytes;      /* what pbp_learn_write_blob writes */
  uint32_t updates;         /* updates applied since pbp_learn_init */
  uint32_t learn_marker;    /* set by a successful pbp_learn_init */
  /* Regression: ADF's noise Gamma, learnt by eqs. 9-10 from the source's; the update's
   * likelihood uses it until the re-fit takes over (above). model.noise_a/b is the
   * predictive's, the same until the check re-fits it. */
  float update_noise_a, update_noise_b;
  pbp_learn_check check; /* the running check on its own predictions (regression) */
  uint32_t recalibrate;  /* 1: the check re-fits scale and noise (pbp_learn_set_recalibration) */
} pbp_learner;

/* What one update did. */
typedef struct pbp_learn_outcome {
  float log_z;              /* log evidence of the point under the model before the update */
  uint32_t skipped_weights; /* weights left as they were: their new variance would not have been
                               positive and finite (as the trainer skips them) */
  uint32_t noise_updated;   /* regression: 1 if the noise Gamma moved, 0 if it was kept (the
                               matched Gamma improper or with a <= 1); other tasks: 0 */
  uint32_t recalibrated;    /* 1 if the epistemic scale and noise were re-fitted from the check
                               (a Gaussian epistemic-scaled model with 32 rows scored), else 0 */
} pbp_learn_outcome;

/* Starts a learner from an opened model (`source` and its blob must outlive it; only the blob is
 * read after this call): copies (float16: widens) every weight's mean and variance into `state`
 * (4-byte aligned, at least PBP_LEARN_STATE_BYTES(source->weight_count) bytes) and fills
 * `learner`: the update's noise Gamma, the re-fit switch and the check from the blob's
 * learn_check section when it has one (a blob pbp_learn_write_blob wrote), else the model's noise,
 * the re-fit on for an epistemic-scaled model, and an empty check. Errors: PBP_ERR_NULL_ARGUMENT,
 * PBP_ERR_MODEL_NOT_OPEN, PBP_ERR_WRONG_TASK (a multiclass, count or heteroscedastic model),
 * PBP_ERR_STORAGE_TYPE (weights in a storage type the learner cannot read: none of pbp_open's
 * today), PBP_ERR_MISALIGNED_POINTER, PBP_ERR_BUFFER_TOO_SMALL, PBP_ERR_SECTION_COUNT (a blob
 * without learn_check whose section table is full: no room to write it),
 * PBP_ERR_BAD_LEARN_CHECK (a learn_check section of another length or with a field out of range:
 * pbp_open does not read it); on any error `learner` is zeroed and nothing is written to
 * `state`. */
pbp_status pbp_learn_init(pbp_learner* learner, const pbp_model* source, void* state,
                          size_t state_bytes);

/* One update from a labelled row: `input` as for pbp_predict (raw units, input_count values),
 * `target` in the model's units (regression: the raw target; binary: 0 or 1). All or nothing:
 * on any error the learner and its state are left bit for bit as they were. Errors:
 * PBP_ERR_NULL_ARGUMENT (outcome may be NULL), PBP_ERR_MODEL_NOT_OPEN (learner not initialised),
 * PBP_ERR_INPUT_WIDTH, PBP_ERR_NONFINITE_INPUT, PBP_ERR_BAD_TARGET (non-finite, or a binary
 * label not 0 or 1), PBP_ERR_MISALIGNED_POINTER, PBP_ERR_WORKSPACE_TOO_SMALL (fewer than
 * learner->workspace_bytes), PBP_ERR_NONFINITE_OUTPUT (the output moments or a gradient of
 * log Z overflowed: where the trainer would skip the weights it reaches, the device changes
 * nothing). `workspace` (4-byte aligned) is overwritten. */
pbp_status pbp_learn_update(pbp_learner* learner, const float* input, uint32_t input_count,
                            float target, void* workspace, size_t workspace_bytes,
                            pbp_learn_outcome* outcome);

/* Turns the re-fit of the epistemic scale and noise from the running check (see the top) on
 * (`enabled` not 0; the default for an epistemic-scaled model) or off (0: the predictive keeps the
 * last fit's scale, and ADF's noise Gamma). Persisted by pbp_learn_write_blob. Errors:
 * PBP_ERR_NULL_ARGUMENT, PBP_ERR_MODEL_NOT_OPEN, PBP_ERR_WRONG_TASK (turning it on for a model
 * that is not Gaussian epistemic-scaled regression). */
pbp_status pbp_learn_set_recalibration(pbp_learner* learner, uint32_t enabled);

/* Writes the learnt model as a blob into `out` (4-byte aligned, `capacity` >=
 * learner->blob_bytes): the source blob's sections and section table, the learnt weights as
 * float32 (a float16 or int8 source's weight tensors are appended to its tensor data as float32),
 * the predictive's noise Gamma and scale, and the learn_check section (added after the body if the
 * source has none: PBP_LEARN_WRITTEN_BYTES for a float32 source), the CRC recomputed; the result is
 * checked with pbp_open before PBP_OK is returned. `*written` gets the size (0 on error). Errors:
 * PBP_ERR_NULL_ARGUMENT, PBP_ERR_MODEL_NOT_OPEN, PBP_ERR_MISALIGNED_POINTER,
 * PBP_ERR_BUFFER_TOO_SMALL, or pbp_open's status if the written blob does not open (the source blob
 * changed under the learner). */
pbp_status pbp_learn_write_blob(const pbp_learner* learner, void* out, size_t capacity,
                                size_t* written);

#ifdef __cplusplus
}
#endif

#endif /* PBP_PBP_LEARN_H */
