// SPDX-License-Identifier: Apache-2.0
// Status names and descriptions: one list, in enum order. Each column is one array of its own
// (its strings back to back), so a firmware that prints only the descriptions, or neither, links
// no name (-fdata-sections, --gc-sections), and no table of pointers.
#include "pbp/pbp.h"

namespace {

// X(status, description) for every status, in enum order.
#define PBP_STATUS_TEXTS(X)                                                                    \
  X(PBP_OK, "success")                                                                         \
  X(PBP_ERR_NULL_ARGUMENT, "a required pointer is null")                                       \
  X(PBP_ERR_MISALIGNED_POINTER, "blob or workspace pointer is not 4-byte aligned")             \
  X(PBP_ERR_TOO_SMALL, "blob is smaller than the smallest valid blob")                         \
  X(PBP_ERR_BAD_MAGIC, "not a pbp model blob (bad magic)")                                     \
  X(PBP_ERR_UNSUPPORTED_VERSION, "unsupported blob format version")                            \
  X(PBP_ERR_SIZE_MISMATCH, "blob size differs from the size in its header (truncated?)")       \
  X(PBP_ERR_CRC_MISMATCH, "CRC-32 mismatch: the blob is corrupted")                            \
  X(PBP_ERR_HEADER_SIZE, "invalid header size")                                                \
  X(PBP_ERR_SECTION_COUNT, "invalid section count")                                            \
  X(PBP_ERR_SECTION_MISALIGNED, "a section offset is not 4-byte aligned")                      \
  X(PBP_ERR_SECTION_RANGE, "a section lies outside the blob")                                  \
  X(PBP_ERR_DUPLICATE_SECTION, "a section appears twice")                                      \
  X(PBP_ERR_UNKNOWN_REQUIRED_SECTION, "a required section is unknown to this reader")          \
  X(PBP_ERR_MISSING_SECTION, "a required section is missing")                                  \
  X(PBP_ERR_SECTION_SIZE, "a section has the wrong length")                                    \
  X(PBP_ERR_UNSUPPORTED_TASK, "the model's task is not supported by this reader")              \
  X(PBP_ERR_LAYER_COUNT, "layer count out of range")                                           \
  X(PBP_ERR_UNIT_COUNT, "input count or layer width out of range")                             \
  X(PBP_ERR_OUTPUT_COUNT, "output count invalid for the task")                                 \
  X(PBP_ERR_LAYER_SHAPE, "layer shapes do not chain from inputs to outputs")                   \
  X(PBP_ERR_ACTIVATION,                                                                        \
    "hidden layers must be ReLU, erf or sign (as this runtime was built) and the last linear") \
  X(PBP_ERR_STORAGE_TYPE, "a tensor storage type is not supported")                            \
  X(PBP_ERR_TENSOR_SIZE, "a tensor has the wrong element count or byte length")                \
  X(PBP_ERR_TENSOR_MISALIGNED, "a tensor offset is not 4-byte aligned")                        \
  X(PBP_ERR_TENSOR_RANGE, "a tensor lies outside the tensor data section")                     \
  X(PBP_ERR_NONFINITE_VALUE, "NaN or infinity in the model's values")                          \
  X(PBP_ERR_NEGATIVE_VARIANCE, "a weight variance is negative (or zero in float16, int8)")     \
  X(PBP_ERR_BAD_GAMMA, "a Gamma distribution has a <= 1 or b <= 0")                            \
  X(PBP_ERR_BAD_STANDARDISATION,                                                               \
    "a standard deviation is not positive, or an input's is too small for its mean in float")  \
  X(PBP_ERR_BAD_METADATA, "malformed metadata")                                                \
  X(PBP_ERR_MODEL_NOT_OPEN, "the model has not been opened successfully")                      \
  X(PBP_ERR_INPUT_WIDTH, "input has the wrong number of values")                               \
  X(PBP_ERR_NONFINITE_INPUT, "NaN or infinity in the input")                                   \
  X(PBP_ERR_BAD_PROBABILITY, "interval probability must be in (0, 1)")                         \
  X(PBP_ERR_WORKSPACE_TOO_SMALL, "workspace is smaller than the model needs")                  \
  X(PBP_ERR_NONFINITE_OUTPUT, "the prediction overflowed to NaN or infinity")                  \
  X(PBP_ERR_INDEX_OUT_OF_RANGE, "index out of range")                                          \
  X(PBP_ERR_WRONG_TASK, "this predict function is not for the model's task")                   \
  X(PBP_ERR_OUTPUT_CAPACITY, "output buffer is shorter than the class count")                  \
  X(PBP_ERR_COUNT_STEPS, "count interval needs more than PBP_COUNT_MAX_STEPS terms")           \
  X(PBP_ERR_TENSOR_OVERLAP, "two tensors of the blob share bytes")                             \
  X(PBP_ERR_BAD_RANGE, "an input's training range has min > max or excludes its mean")         \
  X(PBP_ERR_BAD_EPISTEMIC_SCALE, "epistemic scale missing, not finite or out of range")        \
  X(PBP_ERR_BAD_SCALE, "an int8 weight scale is not finite or not above zero")                 \
  X(PBP_ERR_BAD_TARGET, "the target is not finite, or not a label of the model's task")        \
  X(PBP_ERR_BUFFER_TOO_SMALL,                                                                  \
    "the learner's state, the blob buffer or a store slot is smaller than needed")             \
  X(PBP_ERR_FLASH, "the flash reported a failed read, erase or program")                       \
  X(PBP_ERR_FLASH_VERIFY, "what was read back from flash differs from what was written")       \
  X(PBP_ERR_STORE_LAYOUT, "invalid store slots or flash geometry")                             \
  X(PBP_ERR_BAD_LEARN_CHECK, "the blob's learner check is malformed or out of range")          \
  X(PBP_ERR_BAD_PREDICTIVE_TAIL,                                                               \
    "a Student-t predictive not on Gaussian regression, or its dof not in 3 .. 32")

#define PBP_STATUS_NAME(status, description) #status "\0"
#define PBP_STATUS_DESCRIPTION(status, description) description "\0"
#define PBP_STATUS_VALUE(status, description) status,

constexpr pbp_status kOrder[] = {PBP_STATUS_TEXTS(PBP_STATUS_VALUE)};
constexpr bool in_enum_order() {
  for (int k = 0; k < PBP_NUM_STATUSES; ++k) {
    if (static_cast<int>(kOrder[k]) != k) return false;
  }
  return true;
}
static_assert(sizeof kOrder / sizeof kOrder[0] == PBP_NUM_STATUSES && in_enum_order(),
              "one text per status, in enum order");

// Each ends with the text of a value out of range.
constexpr char kNames[] = PBP_STATUS_TEXTS(PBP_STATUS_NAME) "PBP_UNKNOWN_STATUS";
constexpr char kDescriptions[] = PBP_STATUS_TEXTS(PBP_STATUS_DESCRIPTION) "unknown status";

// The status's string of `texts` (PBP_NUM_STATUSES strings, then the unknown one's).
const char* text_of(const char* texts, pbp_status status) {
  const int value = static_cast<int>(status);
  const int index = value >= 0 && value < PBP_NUM_STATUSES ? value : PBP_NUM_STATUSES;
  for (int k = 0; k < index; ++k) {
    while (*texts++ != '\0') {
    }
  }
  return texts;
}

}  // namespace

extern "C" const char* pbp_status_name(pbp_status status) {
  return text_of(kNames, status);
}

extern "C" const char* pbp_status_string(pbp_status status) {
  return text_of(kDescriptions, status);
}
