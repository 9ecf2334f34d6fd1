/* SPDX-License-Identifier: Apache-2.0 */
/* pbp runtime: C API (C99). Opens a model blob (format v1, see runtime/FORMAT.md) in place and
 * predicts with it. No heap, no libm, no global state: every buffer is the caller's, every call
 * returns a status. Untrusted blobs are safe to open (runtime/SECURITY.md).
 *
 * Typical use:
 *   pbp_model model;
 *   if (pbp_open(&model, blob, blob_size) != PBP_OK) ...
 *   static float workspace[PBP_WORKSPACE_FLOATS(MAX_INPUTS, MAX_WIDTH)];
 *   pbp_prediction p;
 *   pbp_status s = pbp_predict(&model, x, n, 0.95f, workspace, sizeof workspace, &p);
 *
 * Memory: the blob stays in flash, read in place; it takes 8 bytes per weight (float32 mean and
 * variance; 4 with float16 weights, PBP_STORAGE_FLOAT16; about 2 with int8 weights,
 * PBP_STORAGE_INT8 or PBP_STORAGE_INT8_LOG_VARIANCE), 16 per input, 48 per layer and 204
 * bytes of structure (FORMAT.md, "Sizes"). RAM is a pbp_model and one workspace of
 * PBP_WORKSPACE_BYTES(input_count, max_width) bytes.
 *
 * Requirements: a little-endian target with IEEE-754 binary32 floats.
 *
 * The rest of the API, each header on its own (a predict-only firmware includes none of them):
 * learning on the device, pbp/pbp_learn.h; keeping what it learnt across power cuts,
 * pbp/pbp_store.h; a C++ wrapper of all three, pbp/pbp.hpp. Build options: pbp/pbp_config.h.
 */
#ifndef PBP_PBP_H
#define PBP_PBP_H

#include <stddef.h>
#include <stdint.h>

#include "pbp/pbp_config.h"  /* what this build runs: PBP_WITH_ERF ... PBP_WITH_INT8 */
#include "pbp/pbp_version.h" /* PBP_VERSION_MAJOR, _MINOR, _PATCH, _STRING, _NUMBER */

#ifdef __cplusplus
extern "C" {
#endif

/* Format limits (a blob outside them is rejected). */
#define PBP_FORMAT_VERSION 1u
#define PBP_MAX_LAYERS 16u   /* dense layers, hidden + output */
#define PBP_MAX_UNITS 65535u /* inputs, and the outputs of any layer */
#define PBP_MAX_SECTIONS 16u /* entries in the section table */
#define PBP_MAX_CLASSES 64u  /* outputs of a multiclass model (2 .. PBP_MAX_CLASSES) */

/* pbp_predict_count computes its interval from the negative-binomial CDF, one pmf term per count
 * from 0 up to the upper bound: at most this many terms (PBP_ERR_COUNT_STEPS beyond). */
#define PBP_COUNT_MAX_STEPS 16384u

/* Workspace of one prediction, in floats: the standardised input vector plus two mean/variance
 * pairs of the widest layer (network_workspace_elements in moments.hpp). `max_inputs` and
 * `max_width` are the largest input count and layer width the firmware will open. */
#define PBP_WORKSPACE_FLOATS(max_inputs, max_width) ((max_inputs) + 4u * (max_width))
#define PBP_WORKSPACE_BYTES(max_inputs, max_width) \
  (4u * PBP_WORKSPACE_FLOATS(max_inputs, max_width))

/* Every outcome of every call. Each validation failure has its own code; the checks run in
 * the order listed (see SECURITY.md), so a blob reports the first thing wrong with it. */
typedef enum pbp_status {
  PBP_OK = 0,
  /* Arguments. */
  PBP_ERR_NULL_ARGUMENT = 1,      /* a required pointer is NULL */
  PBP_ERR_MISALIGNED_POINTER = 2, /* blob or workspace not 4-byte aligned */
  /* Blob envelope, checked before anything else is read. */
  PBP_ERR_TOO_SMALL = 3,           /* fewer bytes than the smallest possible blob */
  PBP_ERR_BAD_MAGIC = 4,           /* does not start with "PBPM" */
  PBP_ERR_UNSUPPORTED_VERSION = 5, /* format version is not 1 */
  PBP_ERR_SIZE_MISMATCH = 6,       /* header total_size differs from the size given */
  PBP_ERR_CRC_MISMATCH = 7,        /* CRC-32 trailer does not match the bytes */
  /* Structure. */
  PBP_ERR_HEADER_SIZE = 8,         /* header_size < 32, not a multiple of 4 or past the body */
  PBP_ERR_SECTION_COUNT = 9,       /* 0 or > PBP_MAX_SECTIONS sections, or table past the body */
  PBP_ERR_SECTION_MISALIGNED = 10, /* a section offset not a multiple of 4 */
  PBP_ERR_SECTION_RANGE = 11,      /* a section outside the body (or offset + length overflows) */
  PBP_ERR_DUPLICATE_SECTION = 12,  /* a known section type appears twice */
  /* A section this reader does not know is marked required. */
  PBP_ERR_UNKNOWN_REQUIRED_SECTION = 13,
  PBP_ERR_MISSING_SECTION = 14, /* model, layers, standardisation or tensor data missing */
  PBP_ERR_SECTION_SIZE = 15,    /* a known section has the wrong length */
  /* Model description. */
  PBP_ERR_UNSUPPORTED_TASK = 16, /* likelihood not one this runtime runs (PBP_LIKELIHOOD_*) */
  PBP_ERR_LAYER_COUNT = 17,      /* 0 or > PBP_MAX_LAYERS layers */
  PBP_ERR_UNIT_COUNT = 18,       /* an input count or layer width of 0 or > PBP_MAX_UNITS */
  PBP_ERR_OUTPUT_COUNT = 19,     /* output count invalid for the task (see PBP_TASK_*) */
  PBP_ERR_LAYER_SHAPE = 20,      /* layers do not chain from the inputs to the outputs */
  PBP_ERR_ACTIVATION = 21, /* a hidden layer not ReLU, erf or sign (built in), or last not linear */
  /* Tensors. */
  PBP_ERR_STORAGE_TYPE = 22,      /* a tensor storage type this reader does not support */
  PBP_ERR_TENSOR_SIZE = 23,       /* element count or byte length wrong for the tensor */
  PBP_ERR_TENSOR_MISALIGNED = 24, /* a tensor offset not a multiple of 4 */
  PBP_ERR_TENSOR_RANGE = 25,      /* a tensor outside the tensor data section */
  /* Values. */
  PBP_ERR_NONFINITE_VALUE = 26,   /* NaN or Inf in a weight, Gamma or standardisation value */
  PBP_ERR_NEGATIVE_VARIANCE = 27, /* a weight variance below zero (float16, int8: not above zero) */
  PBP_ERR_BAD_GAMMA = 28,         /* a Gamma with a <= 1 or b <= 0 */
  PBP_ERR_BAD_STANDARDISATION = 29, /* a std <= 0, subnormal, or (input) < 2^-14 |mean| */
  PBP_ERR_BAD_METADATA = 30,        /* malformed metadata section */
  /* Prediction. */
  PBP_ERR_MODEL_NOT_OPEN = 31,      /* the pbp_model was not (successfully) opened */
  PBP_ERR_INPUT_WIDTH = 32,         /* input count differs from the model's */
  PBP_ERR_NONFINITE_INPUT = 33,     /* NaN or Inf in the input */
  PBP_ERR_BAD_PROBABILITY = 34,     /* interval probability not in (0, 1) */
  PBP_ERR_WORKSPACE_TOO_SMALL = 35, /* fewer bytes than pbp_model.workspace_bytes */
  PBP_ERR_NONFINITE_OUTPUT = 36,    /* the prediction overflowed (extreme input or weights) */
  PBP_ERR_INDEX_OUT_OF_RANGE = 37,  /* a feature index >= the model's input count */
  PBP_ERR_WRONG_TASK = 38,          /* predict function not for the model's task (PBP_TASK_*) */
  PBP_ERR_OUTPUT_CAPACITY = 39,     /* probabilities buffer shorter than the class count */
  PBP_ERR_COUNT_STEPS = 40,         /* count interval needs > PBP_COUNT_MAX_STEPS pmf terms */
  PBP_ERR_TENSOR_OVERLAP = 41,      /* two tensors share bytes (checked once all are located) */
  /* Values (a check added after the prediction codes). */
  PBP_ERR_BAD_RANGE = 42, /* an input range with min > max, or not containing the input mean; or
                             input occupancy without ranges or without its first and last bins,
                             or input pair occupancy without ranges */
  PBP_ERR_BAD_EPISTEMIC_SCALE = 43, /* epistemic_scale missing, non-finite or outside its range
                                       (or the input occupancies' distance and pair scales) */
  PBP_ERR_BAD_SCALE = 44,           /* an int8 weight tensor's scale not finite or not > 0
                                       (logarithmic variance codes: or not below 2^95) */
  /* Learning (pbp_learn.h). */
  PBP_ERR_BAD_TARGET = 45,       /* a target that is not finite, or not a label of the task */
  PBP_ERR_BUFFER_TOO_SMALL = 46, /* learner state, blob buffer or store slot smaller than needed */
  /* Persistence (pbp_store.h). */
  PBP_ERR_FLASH = 47,        /* a flash read, erase or program reported a failure */
  PBP_ERR_FLASH_VERIFY = 48, /* what was read back differs from what was written (worn flash) */
  PBP_ERR_STORE_LAYOUT = 49, /* slots or flash geometry invalid (alignment, overlap, sizes) */
  /* A learner's running check (the blob's optional learn_check section, FORMAT.md) out of range. */
  PBP_ERR_BAD_LEARN_CHECK = 50,
  /* A predictive_tail section (FORMAT.md, section 9) on a model that is not Gaussian regression,
   * or its degrees of freedom not in 3 .. 32. */
  PBP_ERR_BAD_PREDICTIVE_TAIL = 51,
  /* Not a status: forces a 32-bit enum, so the ABI is the same with -fshort-enums (arm-none-eabi).
   */
  PBP_STATUS_FORCE_32_BITS = 0x7fffffff
} pbp_status;

#define PBP_NUM_STATUSES 52 /* statuses 0 .. PBP_NUM_STATUSES - 1 (a count, not a task) */

/* Tasks: what a model predicts, and the predict function for it. Calling another predict
 * function returns PBP_ERR_WRONG_TASK. */
#define PBP_TASK_REGRESSION 0u /* 1 output: pbp_predict */
#define PBP_TASK_BINARY 1u     /* 1 output: pbp_predict_classes (2 classes) */
#define PBP_TASK_MULTICLASS 2u /* 2 .. PBP_MAX_CLASSES outputs: pbp_predict_classes */
#define PBP_TASK_COUNT_DATA 3u /* 1 output, non-negative integers: pbp_predict_count */

/* Likelihoods (the blob's model-section field): how the network's outputs z ~ N(nu, psi) become
 * a predictive distribution. Each belongs to one task; a reader rejects a likelihood it does not
 * know (PBP_ERR_UNSUPPORTED_TASK), so a blob is never read with the wrong predictive. */
#define PBP_LIKELIHOOD_GAUSSIAN 0u /* regression: N(nu, psi + noise), noise from the Gamma */
#define PBP_LIKELIHOOD_PROBIT 1u   /* binary: Phi(z) */
#define PBP_LIKELIHOOD_SOFTMAX 2u  /* multiclass: softmax(z) */
#define PBP_LIKELIHOOD_POISSON 3u  /* count data: Poisson with rate e^z */
/* regression: N(nu, s psi + noise), the epistemic variance psi times the blob's epistemic_scale
 * s, set with the noise from held-out rows (ADF counts each row once per epoch, so psi is too
 * small by a factor the training rows measure) */
#define PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED 4u
/* regression with input-dependent noise: 2 outputs, f and g = log noise variance (standardised);
 * N(nu_f, s psi_f + exp(nu_g + psi_g / 2)), s = epistemic_scale */
#define PBP_LIKELIHOOD_GAUSSIAN_HETEROSCEDASTIC 5u
/* One past the ids named here; a runtime may run more (runtime/core/pbp/likelihoods.hpp). */
#define PBP_NUM_LIKELIHOODS 6u

/* Storage types of a tensor (format field): how a layer's weights are encoded in the blob. */
#define PBP_STORAGE_FLOAT32 1u /* IEEE binary32: 4 bytes per element */
#define PBP_STORAGE_FLOAT16 2u /* IEEE binary16: 2 bytes per element (layer weights only) */
#define PBP_STORAGE_INT8 3u    /* int8 codes with float32 scales (layer weights only) */
/* Type 3's int8 means with 8-bit logarithmic variance codes (layer weights only): for layers
   whose variances span more than type 3's square-root codes hold (runtime/FORMAT.md). */
#define PBP_STORAGE_INT8_LOG_VARIANCE 4u

/* Activations (format field). */
#define PBP_ACTIVATION_LINEAR 0u
#define PBP_ACTIVATION_RELU 1u
#define PBP_ACTIVATION_ERF 2u  /* erf(a / sqrt 2) = 2 Phi(a) - 1, the EP paper's probit unit */
#define PBP_ACTIVATION_SIGN 3u /* sign(a), sign(0) = 0 */

/* A string inside the blob: UTF-8 by convention, not NUL-terminated. */
typedef struct pbp_string {
  const char* data;
  uint32_t length;
} pbp_string;

/* One dense layer, pointing into the blob: row-major [outputs][inputs + 1], bias last. */
typedef struct pbp_layer {
  const float* mean;     /* PBP_STORAGE_FLOAT32 layers; NULL for other storage types */
  const float* variance; /* PBP_STORAGE_FLOAT32 layers; NULL for other storage types */
  uint32_t inputs;
  uint32_t outputs;
  uint32_t activation; /* PBP_ACTIVATION_* */
  uint32_t storage;    /* PBP_STORAGE_* of both weight tensors */
  /* The tensors' bytes in the blob whatever the storage (float16: little-endian halves; int8:
     scales then codes, format.hpp's int8_weights). */
  const void* stored_mean;
  const void* stored_variance;
} pbp_layer;

/* An opened model: a validated view into the blob (which must outlive it). Read the fields
 * freely; change none. Everything is zero after a failed pbp_open. */
typedef struct pbp_model {
  const uint8_t* blob;
  uint32_t blob_size;
  uint32_t task;         /* PBP_TASK_*, from the likelihood */
  uint32_t likelihood;   /* PBP_LIKELIHOOD_* */
  uint32_t input_count;  /* 1 .. PBP_MAX_UNITS */
  uint32_t output_count; /* multiclass: the class count (2 .. PBP_MAX_CLASSES); heteroscedastic: 2;
                          * else 1 */
  uint32_t layer_count;  /* 1 .. PBP_MAX_LAYERS */
  uint32_t max_width;    /* largest layer width */
  uint32_t weight_count; /* sum over layers of outputs * (inputs + 1); <= blob size / 4 */
  uint32_t
      workspace_bytes;    /* what pbp_predict needs: PBP_WORKSPACE_BYTES(input_count, max_width) */
  float noise_a, noise_b; /* Gamma on the noise precision (standardised units), a > 1, b > 0 */
  float prior_a, prior_b; /* Gamma on the weights' prior precision, a > 1, b > 0 */
  /* Regression: the factor on the network's epistemic variance, finite and in [2^-10, 2^10];
   * 1 for every likelihood but PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED and _HETEROSCEDASTIC. */
  float epistemic_scale;
  float target_mean, target_std;
  const float* input_mean; /* input_count values */
  const float* input_std;  /* input_count values, normal floats >= 2^-14 |input_mean| */
  /* Each input's training range, input_count values each; both NULL when the blob has none (a
   * blob written before ranges): the range reports then say PBP_RANGE_UNKNOWN. */
  const float* input_min;
  const float* input_max;
  /* Regression: the variance (distance_scale target_std d)^2 added to every prediction's epistemic
   * variance, d the input row's distance from the training values (FORMAT.md, section 7);
   * input_occupancy (2 words per input) NULL and distance_scale 0 when the blob has none. */
  const uint32_t* input_occupancy;
  float distance_scale;
  /* Regression: the variance (pair_scale target_std f)^2 added likewise, f the fraction of the
   * input row's input pairs on a cell no training row occupies (FORMAT.md, section 8);
   * pair_occupancy (8 words per input pair) NULL and pair_scale 0 when the blob has none. */
  const uint32_t* pair_occupancy;
  float pair_scale;
  /* Regression: 0 for a Gaussian predictive; else a Student-t predictive with this many degrees
   * of freedom (3 .. 32; FORMAT.md, section 9) and the same variance, which sets the
   * prediction's interval. */
  uint32_t tail_dof;
  pbp_layer layers[PBP_MAX_LAYERS];
  /* Metadata (all empty when the blob has none). */
  pbp_string name;
  pbp_string target_name;
  pbp_string notes;
  pbp_string writer; /* the program and version that wrote the blob, e.g. "pbp-edge 0.1.0" */
  uint64_t training_rows;
  uint32_t feature_name_count; /* 0 or input_count */
  const uint8_t* metadata;     /* the metadata section, for pbp_feature_name */
  uint32_t metadata_size;
  uint32_t open_marker; /* set by a successful pbp_open */
} pbp_model;

/* Where an input row lies relative to the inputs' training ranges: a cheap check (one pass over
 * the inputs) for a failed sensor or a device somewhere its model has never seen. What a device
 * should do with it: targets/DEPLOYING.md. */
#define PBP_RANGE_INSIDE 0u  /* every input within its training range */
#define PBP_RANGE_OUTSIDE 1u /* at least one input outside its training range */
#define PBP_RANGE_UNKNOWN 2u /* the blob has no ranges (written before they were added) */
typedef struct pbp_range_report {
  uint32_t status;         /* PBP_RANGE_* */
  uint32_t outside_count;  /* inputs outside their range */
  uint32_t farthest_input; /* index of the input farthest outside (lowest on ties); 0 if none */
  /* Its distance beyond the range in that input's training stds, (min - x) / std below the range
   * and (x - max) / std above, i.e. in the standardised units the network sees (a column constant
   * in training has std max(1, |value|)). 0 when inside or unknown (or outside by less than float
   * resolves); +inf beyond float; never NaN. */
  float distance;
} pbp_range_report;

/* One prediction, in original target units. */
typedef struct pbp_prediction {
  float mean;
  float epistemic_variance; /* from the weights' uncertainty */
  float aleatoric_variance; /* noise: b / (a - 1) of the noise Gamma, times target_std^2 */
  float std;                /* sqrt(epistemic + aleatoric) */
  float lower;              /* central interval holding `probability` of the predictive */
  float upper;
  pbp_range_report range; /* the input row against the training ranges */
} pbp_prediction;

/* A classification (binary or multiclass model), from the output moments (nu_c, psi_c) of one
 * deterministic forward pass; see runtime/core/pbp/outputs.hpp for the formulas. */
typedef struct pbp_class_result {
  uint32_t class_count;     /* binary: 2 (class 1 is the positive label); multiclass: C */
  uint32_t predicted_class; /* index of the largest probability (lowest index on ties) */
  float confidence;         /* that probability, in [1 / class_count, 1] */
  float entropy;            /* predictive entropy -sum p log p in nats, in [0, log class_count] */
  pbp_range_report range;   /* the input row against the training ranges */
} pbp_class_result;

/* A count prediction: the negative-binomial predictive NB(mean e^nu, scale psi) of the
 * ADF-extensions paper (Ghosh et al. 2016). Integer-valued fields are held as floats (exact up
 * to 2^24); mode can exceed any integer type when e^nu is huge. */
typedef struct pbp_count_result {
  float mean;             /* e^nu */
  float variance;         /* e^nu (1 + psi e^nu) */
  float mode;             /* floor((1 - psi) e^nu) if psi < 1, else 0 */
  float lower;            /* central interval holding at least `probability`: the smallest k with */
  float upper;            /* CDF(k) >= (1 - p) / 2, and the smallest k with CDF(k) >= (1 + p) / 2 */
  pbp_range_report range; /* the input row against the training ranges */
} pbp_count_result;

/* Validates `blob` (all of it: see SECURITY.md) and fills `model` with pointers into it. Copies
 * nothing: the blob must stay in place while the model is used. `blob` must be 4-byte aligned;
 * `size` must be exactly the blob's total size. Any bytes are safe to pass. */
pbp_status pbp_open(pbp_model* model, const void* blob, size_t size);

/* Predicts for one input row `input[0 .. input_count)` (raw, unstandardised units; must equal
 * model->input_count, all finite). `probability` in (0, 1) sets the central interval. For
 * regression models; the other tasks have their own functions below. `workspace`: 4-byte
 * aligned, at least model->workspace_bytes bytes; its contents are overwritten. On any error
 * `result` is left untouched. */
pbp_status pbp_predict(const pbp_model* model, const float* input, uint32_t input_count,
                       float probability, void* workspace, size_t workspace_bytes,
                       pbp_prediction* result);

/* Class probabilities of a binary or multiclass model for one input row (same input and
 * workspace rules as pbp_predict). `probabilities` receives result->class_count values (binary:
 * {p(y = 0), p(y = 1)}) and must hold at least that many (`capacity`); it may be NULL with
 * capacity 0 when only `result` is wanted. Binary: p(y = 1) = Phi(nu / sqrt(1 + psi)), exact for
 * the probit likelihood. Multiclass: a closed-form mean-field approximation of E[softmax(z)],
 * z ~ N(nu, diag psi) (outputs.hpp), O(C^2) exponentials. Stack: 8 * PBP_MAX_CLASSES bytes for
 * the output moments besides what pbp_predict uses. Errors: PBP_ERR_WRONG_TASK for a regression
 * or count model, PBP_ERR_OUTPUT_CAPACITY, and those of pbp_predict; on any error nothing is
 * written. */
pbp_status pbp_predict_classes(const pbp_model* model, const float* input, uint32_t input_count,
                               void* workspace, size_t workspace_bytes, float* probabilities,
                               uint32_t capacity, pbp_class_result* result);

/* Count prediction of a count model for one input row (same input and workspace rules as
 * pbp_predict); `probability` in (0, 1) sets the central interval. Mean, variance and mode are
 * closed forms; the interval walks the NB pmf from 0 (at most PBP_COUNT_MAX_STEPS terms, so e^nu
 * up to roughly PBP_COUNT_MAX_STEPS minus a few standard deviations). Errors: PBP_ERR_WRONG_TASK
 * for other tasks, PBP_ERR_NONFINITE_OUTPUT when e^nu or the variance overflows float,
 * PBP_ERR_COUNT_STEPS when the interval needs more terms, and those of pbp_predict; on any error
 * `result` is left untouched. */
pbp_status pbp_predict_count(const pbp_model* model, const float* input, uint32_t input_count,
                             float probability, void* workspace, size_t workspace_bytes,
                             pbp_count_result* result);

/* The input row against the training ranges alone, without predicting (same input rules as
 * pbp_predict: PBP_ERR_NULL_ARGUMENT, PBP_ERR_MODEL_NOT_OPEN, PBP_ERR_INPUT_WIDTH,
 * PBP_ERR_NONFINITE_INPUT); works for every task. The predict functions fill the same report. */
pbp_status pbp_check_input_range(const pbp_model* model, const float* input, uint32_t input_count,
                                 pbp_range_report* report);

/* The name of input column `index` (< model->feature_name_count) from the metadata. */
pbp_status pbp_feature_name(const pbp_model* model, uint32_t index, pbp_string* name);

/* Reads total_size from the first bytes of a blob (e.g. to size a read from flash), 0 when
 * fewer than 12 bytes are given or the magic is wrong. Validates nothing else. */
uint32_t pbp_peek_total_size(const void* blob_start, size_t available);

/* The runtime's version, PBP_VERSION_STRING as this library was built ("0.1.0"): compare it with
 * the header's to catch a firmware built against one version and linked with another. */
const char* pbp_version(void);

/* "PBP_ERR_CRC_MISMATCH" etc.; "PBP_UNKNOWN_STATUS" for values outside the enum. */
const char* pbp_status_name(pbp_status status);
/* A one-line English description of the status. */
const char* pbp_status_string(pbp_status status);

#ifdef __cplusplus
}
#endif

#endif /* PBP_PBP_H */
