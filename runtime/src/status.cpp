// SPDX-License-Identifier: Apache-2.0
// Status names and descriptions: one table, indexed by the enum value.
#include "pbp/pbp.h"

namespace {

struct StatusText {
  const char* name;
  const char* description;
};

constexpr StatusText kStatusTexts[PBP_NUM_STATUSES] = {
    {"PBP_OK", "success"},
    {"PBP_ERR_NULL_ARGUMENT", "a required pointer is null"},
    {"PBP_ERR_MISALIGNED_POINTER", "blob or workspace pointer is not 4-byte aligned"},
    {"PBP_ERR_TOO_SMALL", "blob is smaller than the smallest valid blob"},
    {"PBP_ERR_BAD_MAGIC", "not a pbp model blob (bad magic)"},
    {"PBP_ERR_UNSUPPORTED_VERSION", "unsupported blob format version"},
    {"PBP_ERR_SIZE_MISMATCH", "blob size differs from the size in its header (truncated?)"},
    {"PBP_ERR_CRC_MISMATCH", "CRC-32 mismatch: the blob is corrupted"},
    {"PBP_ERR_HEADER_SIZE", "invalid header size"},
    {"PBP_ERR_SECTION_COUNT", "invalid section count"},
    {"PBP_ERR_SECTION_MISALIGNED", "a section offset is not 4-byte aligned"},
    {"PBP_ERR_SECTION_RANGE", "a section lies outside the blob"},
    {"PBP_ERR_DUPLICATE_SECTION", "a section appears twice"},
    {"PBP_ERR_UNKNOWN_REQUIRED_SECTION", "a required section is unknown to this reader"},
    {"PBP_ERR_MISSING_SECTION", "a required section is missing"},
    {"PBP_ERR_SECTION_SIZE", "a section has the wrong length"},
    {"PBP_ERR_UNSUPPORTED_TASK", "the model's task is not supported by this reader"},
    {"PBP_ERR_LAYER_COUNT", "layer count out of range"},
    {"PBP_ERR_UNIT_COUNT", "input count or layer width out of range"},
    {"PBP_ERR_OUTPUT_COUNT", "output count invalid for the task"},
    {"PBP_ERR_LAYER_SHAPE", "layer shapes do not chain from inputs to outputs"},
    {"PBP_ERR_ACTIVATION",
     "hidden layers must be ReLU, erf or sign (as this runtime was built) and the last linear"},
    {"PBP_ERR_STORAGE_TYPE", "a tensor storage type is not supported"},
    {"PBP_ERR_TENSOR_SIZE", "a tensor has the wrong element count or byte length"},
    {"PBP_ERR_TENSOR_MISALIGNED", "a tensor offset is not 4-byte aligned"},
    {"PBP_ERR_TENSOR_RANGE", "a tensor lies outside the tensor data section"},
    {"PBP_ERR_NONFINITE_VALUE", "NaN or infinity in the model's values"},
    {"PBP_ERR_NEGATIVE_VARIANCE", "a weight variance is negative (or zero in float16, int8)"},
    {"PBP_ERR_BAD_GAMMA", "a Gamma distribution has a <= 1 or b <= 0"},
    {"PBP_ERR_BAD_STANDARDISATION",
     "a standard deviation is not positive, or an input's is too small for its mean in float"},
    {"PBP_ERR_BAD_METADATA", "malformed metadata"},
    {"PBP_ERR_MODEL_NOT_OPEN", "the model has not been opened successfully"},
    {"PBP_ERR_INPUT_WIDTH", "input has the wrong number of values"},
    {"PBP_ERR_NONFINITE_INPUT", "NaN or infinity in the input"},
    {"PBP_ERR_BAD_PROBABILITY", "interval probability must be in (0, 1)"},
    {"PBP_ERR_WORKSPACE_TOO_SMALL", "workspace is smaller than the model needs"},
    {"PBP_ERR_NONFINITE_OUTPUT", "the prediction overflowed to NaN or infinity"},
    {"PBP_ERR_INDEX_OUT_OF_RANGE", "index out of range"},
    {"PBP_ERR_WRONG_TASK", "this predict function is not for the model's task"},
    {"PBP_ERR_OUTPUT_CAPACITY", "output buffer is shorter than the class count"},
    {"PBP_ERR_COUNT_STEPS", "count interval needs more than PBP_COUNT_MAX_STEPS terms"},
    {"PBP_ERR_TENSOR_OVERLAP", "two tensors of the blob share bytes"},
    {"PBP_ERR_BAD_RANGE", "an input's training range has min > max or excludes its mean"},
    {"PBP_ERR_BAD_EPISTEMIC_SCALE", "epistemic scale missing, not finite or out of range"},
    {"PBP_ERR_BAD_SCALE", "an int8 weight scale is not finite or not above zero"},
    {"PBP_ERR_BAD_TARGET", "the target is not finite, or not a label of the model's task"},
    {"PBP_ERR_BUFFER_TOO_SMALL",
     "the learner's state, the blob buffer or a store slot is smaller than needed"},
    {"PBP_ERR_FLASH", "the flash reported a failed read, erase or program"},
    {"PBP_ERR_FLASH_VERIFY", "what was read back from flash differs from what was written"},
    {"PBP_ERR_STORE_LAYOUT", "invalid store slots or flash geometry"},
    {"PBP_ERR_BAD_LEARN_CHECK", "the blob's learner check is malformed or out of range"},
};

const StatusText* find(pbp_status status) {
  const int value = static_cast<int>(status);
  return value >= 0 && value < PBP_NUM_STATUSES ? &kStatusTexts[value] : nullptr;
}

}  // namespace

extern "C" const char* pbp_status_name(pbp_status status) {
  const StatusText* text = find(status);
  return text ? text->name : "PBP_UNKNOWN_STATUS";
}

extern "C" const char* pbp_status_string(pbp_status status) {
  const StatusText* text = find(status);
  return text ? text->description : "unknown status";
}
