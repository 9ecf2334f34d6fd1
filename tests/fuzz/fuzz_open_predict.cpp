// SPDX-License-Identifier: Apache-2.0
// Fuzz entry: open + predict with invariants checked. Heap buffers sized exactly (blob copy,
// workspace of model.workspace_bytes), so AddressSanitizer sees any read or write outside them.
// Every PBP_OK prediction is checked against an independent double evaluation of the same blob
// within a bound derived from the float arithmetic (double_reference.hpp states the invariant).
#include "fuzz_open_predict.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "double_reference.hpp"
#include "pbp/format.hpp"
#include "pbp/math.hpp"
#include "pbp/pbp.h"
#include "pbp/pbp_learn.h"
#include "pbp/storage_types.hpp"

namespace {

namespace fmt = pbp::format;

void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
  }
}

bool inside(const void* p, size_t bytes, const uint8_t* blob, size_t size) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  return b >= blob && bytes <= size && b - blob <= static_cast<ptrdiff_t>(size - bytes);
}

// The optional input ranges: both or neither, inside the blob, min <= mean <= max; every input
// std one the device can divide by.
void check_ranges(const pbp_model& m, const uint8_t* blob, size_t size) {
  require((m.input_min == nullptr) == (m.input_max == nullptr), "both ranges or neither");
  for (uint32_t k = 0; k < m.input_count; ++k) {
    require(fmt::valid_input_standardisation(m.input_mean[k], m.input_std[k]), "input std");
  }
  if (m.input_min == nullptr) return;
  require(inside(m.input_min, 4u * m.input_count, blob, size), "input min inside");
  require(inside(m.input_max, 4u * m.input_count, blob, size), "input max inside");
  for (uint32_t k = 0; k < m.input_count; ++k) {
    require(m.input_min[k] <= m.input_mean[k] && m.input_mean[k] <= m.input_max[k], "range");
  }
}

// The optional input occupancy: inside the blob, over the ranges, its end bins set, A in range.
void check_occupancy(const pbp_model& m, const uint8_t* blob, size_t size) {
  namespace layout = fmt::input_occupancy_section;
  if (m.input_occupancy == nullptr) {
    require(m.distance_scale == 0.0f, "no occupancy, no scale");
    return;
  }
  require(m.input_min != nullptr, "occupancy needs ranges");
  require(inside(m.input_occupancy, 4u * layout::kWordsPerInput * m.input_count, blob, size),
          "occupancy inside");
  require(m.distance_scale >= 0.0f && m.distance_scale <= layout::kMaxDistanceScale,
          "distance scale");
  for (uint32_t k = 0; k < m.input_count; ++k) {
    const uint32_t* bitmap = m.input_occupancy + layout::kWordsPerInput * k;
    require((bitmap[0] & 1u) != 0u && (bitmap[layout::kWordsPerInput - 1u] >> 31) != 0u,
            "end bins occupied");
  }
}

// The optional input pair occupancy: inside the blob, 2 .. 32 inputs with ranges, A2 in range.
void check_pair_occupancy(const pbp_model& m, const uint8_t* blob, size_t size) {
  namespace layout = fmt::input_pair_occupancy_section;
  if (m.pair_occupancy == nullptr) {
    require(m.pair_scale == 0.0f, "no pair occupancy, no scale");
    return;
  }
  require(m.input_min != nullptr, "pair occupancy needs ranges");
  require(m.input_count >= 2u && m.input_count <= layout::kMaxInputs, "pair input count");
  require(inside(m.pair_occupancy, 4u * layout::kWordsPerPair * layout::pair_count(m.input_count),
                 blob, size),
          "pair occupancy inside");
  require(m.pair_scale >= 0.0f && m.pair_scale <= layout::kMaxPairScale, "pair scale");
}

// pbp_check_input_range on a finite row: a consistent report, never NaN.
void check_range_report(const pbp_model& m, const float* x) {
  pbp_range_report r;
  require(pbp_check_input_range(&m, x, m.input_count, &r) == PBP_OK, "range check status");
  require(r.status == (m.input_min == nullptr ? PBP_RANGE_UNKNOWN
                       : r.outside_count == 0 ? PBP_RANGE_INSIDE
                                              : PBP_RANGE_OUTSIDE),
          "range status");
  require(r.outside_count <= m.input_count && r.farthest_input < m.input_count, "range input");
  // Outside by less than a float's resolution can underflow to 0; NaN never.
  require(r.outside_count == 0 ? r.distance == 0.0f : r.distance >= 0.0f, "range distance");
}

void check_model(const pbp_model& m, const uint8_t* blob, size_t size) {
  require(m.layer_count >= 1 && m.layer_count <= PBP_MAX_LAYERS, "layer count");
  require(m.input_count >= 1 && m.input_count <= PBP_MAX_UNITS, "input count");
  require(inside(m.input_mean, 4u * m.input_count, blob, size), "input mean inside");
  require(inside(m.input_std, 4u * m.input_count, blob, size), "input std inside");
  check_ranges(m, blob, size);
  check_occupancy(m, blob, size);
  check_pair_occupancy(m, blob, size);
  for (uint32_t l = 0; l < m.layer_count; ++l) {
    const pbp_layer& layer = m.layers[l];
    require(layer.storage == PBP_STORAGE_FLOAT32 || layer.storage == PBP_STORAGE_FLOAT16 ||
                pbp::format::has_int8_means(layer.storage),
            "storage type");
    require(layer.storage != PBP_STORAGE_FLOAT32 ||
                (layer.mean == layer.stored_mean && layer.variance == layer.stored_variance),
            "float32 views");
    const uint32_t count = layer.outputs * (layer.inputs + 1u);
    const size_t mean_bytes =
        pbp::weight_tensor_byte_length(layer.storage, false, layer.outputs, count);
    const size_t variance_bytes =
        pbp::weight_tensor_byte_length(layer.storage, true, layer.outputs, count);
    require(inside(layer.stored_mean, mean_bytes, blob, size), "means inside");
    require(inside(layer.stored_variance, variance_bytes, blob, size), "variances inside");
  }
  require(m.workspace_bytes == PBP_WORKSPACE_BYTES(m.input_count, m.max_width),
          "workspace formula");
}

void predict_rows(const pbp_model& m, const uint8_t* data, size_t size) {
  std::vector<float> workspace(m.workspace_bytes / sizeof(float));  // exactly what is asked for
  std::vector<float> x(m.input_count);
  for (int row = 0; row < 5; ++row) {
    for (uint32_t k = 0; k < m.input_count; ++k) {
      if (row == 0) x[k] = 0.0f;
      if (row == 1) x[k] = m.input_mean[k];
      if (row == 3) x[k] = k % 2 == 0 ? 1e20f : -1e20f;  // overflows x^2 in every layer sum
      if (row == 4) x[k] = k % 2 == 0 ? -3e38f : 3e38f;
      if (row == 2) {  // input bytes from the fuzz data itself
        uint32_t bits = 0;
        if (size >= 4) std::memcpy(&bits, data + (4u * k) % (size - 3), 4);
        std::memcpy(&x[k], &bits, 4);
        if (!pbp::math::is_finite(x[k])) x[k] = 1.0f;
      }
    }
    check_range_report(m, x.data());
    // Every entry point on every model: the wrong task must be refused, never run.
    pbp_prediction p;
    const pbp_status s =
        pbp_predict(&m, x.data(), m.input_count, 0.9f, workspace.data(), m.workspace_bytes, &p);
    if (m.task != PBP_TASK_REGRESSION) {
      require(s == PBP_ERR_WRONG_TASK, "predict refuses other tasks");
    } else {
      require(s == PBP_OK || s == PBP_ERR_NONFINITE_OUTPUT, "predict status");
    }
    if (s == PBP_OK) {
      require(pbp::math::is_finite(p.mean) && pbp::math::is_finite(p.std), "finite prediction");
      require(p.epistemic_variance >= 0.0f && p.aleatoric_variance >= 0.0f, "variances");
      require(p.lower <= p.mean && p.mean <= p.upper, "interval order");
      const char* broken = pbp_fuzz::check_regression(m, x.data(), 0.9f, p);
      require(broken == nullptr, broken);
    }
    std::vector<float> probabilities(PBP_MAX_CLASSES);  // heap-sized exactly to the capacity
    pbp_class_result c;
    const pbp_status sc =
        pbp_predict_classes(&m, x.data(), m.input_count, workspace.data(), m.workspace_bytes,
                            probabilities.data(), PBP_MAX_CLASSES, &c);
    const bool classifier = m.task == PBP_TASK_BINARY || m.task == PBP_TASK_MULTICLASS;
    require(classifier ? sc != PBP_ERR_WRONG_TASK : sc == PBP_ERR_WRONG_TASK, "classes task");
    if (sc == PBP_OK) {
      float sum = 0.0f;
      for (uint32_t k = 0; k < c.class_count; ++k) {
        require(probabilities[k] >= 0.0f && probabilities[k] <= 1.0f, "probability range");
        sum += probabilities[k];
      }
      require(sum > 0.99f && sum < 1.01f, "probabilities sum to 1");
      require(c.predicted_class < c.class_count, "predicted class");
      const char* broken =
          pbp_fuzz::check_classes(m, x.data(), probabilities.data(), c.class_count);
      require(broken == nullptr, broken);
    }
    pbp_count_result n;
    const pbp_status sn = pbp_predict_count(&m, x.data(), m.input_count, 0.9f, workspace.data(),
                                            m.workspace_bytes, &n);
    require(m.task == PBP_TASK_COUNT_DATA ? sn != PBP_ERR_WRONG_TASK : sn == PBP_ERR_WRONG_TASK,
            "count task");
    if (sn == PBP_OK) {
      require(n.mean >= 0.0f && n.variance >= n.mean * 0.999f, "count moments");
      require(n.lower <= n.upper, "count interval order");
      const char* broken = pbp_fuzz::check_count(m, x.data(), n);
      require(broken == nullptr, broken);
    }
  }
}

// A learner from every blob it takes (its learn_check section restored): one update, and the blob
// it writes must open. Buffers heap-sized exactly, so the sanitizers see any overrun.
void learn_once(const pbp_model& m) {
  if (m.weight_count > (1u << 16)) return;  // keep each input fast
  std::vector<float> state(PBP_LEARN_STATE_BYTES(m.weight_count) / 4u);
  pbp_learner learner;
  const pbp_status init = pbp_learn_init(&learner, &m, state.data(), state.size() * 4u);
  if (init != PBP_OK) {
    // BAD_LEARN_CHECK: a learn_check section pbp_open skipped (the learner's alone to check).
    require(init == PBP_ERR_WRONG_TASK || init == PBP_ERR_SECTION_COUNT ||
                init == PBP_ERR_BAD_LEARN_CHECK,
            "learn init status");
    return;
  }
  require(learner.check.window >= 0.0f && learner.check.window <= 128.0f, "restored window");
  std::vector<float> workspace(learner.workspace_bytes / 4u);
  std::vector<float> x(m.input_count);
  for (uint32_t k = 0; k < m.input_count; ++k) x[k] = m.input_mean[k];
  const pbp_status update = pbp_learn_update(&learner, x.data(), m.input_count, 1.0f,
                                             workspace.data(), workspace.size() * 4u, nullptr);
  require(update == PBP_OK || update == PBP_ERR_NONFINITE_OUTPUT, "learn update status");
  std::vector<uint32_t> out((learner.blob_bytes + 3u) / 4u);
  size_t written = 0;
  // Sections may overlap in a valid blob: the writer then reports the open that fails.
  if (pbp_learn_write_blob(&learner, out.data(), out.size() * 4u, &written) != PBP_OK) return;
  pbp_model reopened;
  require(pbp_open(&reopened, out.data(), written) == PBP_OK, "a learnt blob opens");
}

void open_and_predict(const uint8_t* blob, size_t size) {
  pbp_model m;
  const pbp_status status = pbp_open(&m, blob, size);
  require(status >= 0 && status < PBP_NUM_STATUSES, "status in range");
  require(pbp_status_name(status) != nullptr && pbp_status_string(status) != nullptr, "names");
  if (status != PBP_OK) {
    require(m.open_marker == 0 && m.layer_count == 0, "failed open leaves nothing");
    return;
  }
  check_model(m, blob, size);
  for (uint32_t k = 0; k < m.feature_name_count; ++k) {
    pbp_string name;
    require(pbp_feature_name(&m, k, &name) == PBP_OK, "feature name");
    require(name.length == 0 || inside(name.data, name.length, blob, size), "name inside");
  }
  predict_rows(m, blob, size);
  learn_once(m);
}

}  // namespace

void pbp_fuzz_open_predict(const uint8_t* data, size_t size) {
  // An exactly sized, 4-byte aligned copy (operator new aligns to at least 8).
  std::vector<uint8_t> blob(data, data + size);
  open_and_predict(blob.data(), blob.size());
  if (size >= fmt::kMinimumBlobSize && size <= UINT32_MAX) {
    fmt::store_u32(blob.data() + fmt::header::kTotalSize, static_cast<uint32_t>(size));
    const size_t covered = size - fmt::kCrcSize;
    fmt::store_u32(blob.data() + covered, fmt::crc32(blob.data(), covered));
    open_and_predict(blob.data(), blob.size());
  }
}
