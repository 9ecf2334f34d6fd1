// SPDX-License-Identifier: Apache-2.0
// The model blob, format v1: the one definition of its layout, shared by the writer (trainer)
// and the reader (runtime). runtime/FORMAT.md describes the same bytes in prose.
// All fields little-endian; every offset below is in bytes.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "pbp/float16.hpp"
#include "pbp/likelihoods.hpp"
#include "pbp/pbp.h"
#include "pbp/pbp_learn.h"

namespace pbp::format {

inline constexpr uint8_t kMagic[4] = {'P', 'B', 'P', 'M'};
inline constexpr uint32_t kVersion = PBP_FORMAT_VERSION;

// File header, at offset 0. header_size may grow in later versions: readers skip the excess.
namespace header {
inline constexpr uint32_t kMagic = 0;          // u8[4]
inline constexpr uint32_t kVersion = 4;        // u32
inline constexpr uint32_t kTotalSize = 8;      // u32, the whole blob including the CRC trailer
inline constexpr uint32_t kHeaderSize = 12;    // u32, >= kSize, multiple of 4
inline constexpr uint32_t kSectionCount = 16;  // u32, 1 .. PBP_MAX_SECTIONS
inline constexpr uint32_t kFlags = 20;         // u32, reserved: written 0, ignored by v1 readers
inline constexpr uint32_t kSize = 32;          // bytes 24..31 reserved (0)
}  // namespace header

// The section table follows the header: section_count entries of 16 bytes.
namespace section_entry {
inline constexpr uint32_t kType = 0;     // u32, SectionType
inline constexpr uint32_t kFlags = 4;    // u32, bit 0: kSectionRequired
inline constexpr uint32_t kOffset = 8;   // u32, from the blob start, multiple of 4
inline constexpr uint32_t kLength = 12;  // u32
inline constexpr uint32_t kSize = 16;
}  // namespace section_entry

// A reader that does not know a section's type skips it, unless the entry is marked required.
inline constexpr uint32_t kSectionRequired = 1u;

enum class SectionType : uint32_t {
  model = 1,            // required: task, counts, Gammas
  layers = 2,           // required: one LayerRecord per layer
  standardisation = 3,  // required: input and target scaling
  tensor_data = 4,      // required: the bytes the tensor descriptors point into
  metadata = 5,         // optional: name, feature names, ... (key/length/value entries)
  learn_check = 6,      // optional: a device learner's running check (namespace learn_check)
  // optional, written required (a reader without it must not predict without its variance):
  // the distance variance's scale and each input's training-value occupancy
  input_occupancy = 7,
  // optional, written required, likewise: the pair variance's scale and each input pair's
  // occupied cells
  input_pair_occupancy = 8,
  // optional, written required: a Student-t predictive's degrees of freedom (a reader without it
  // would give Gaussian intervals)
  predictive_tail = 9,
};
inline constexpr uint32_t kKnownSectionTypes = 9;

// The CRC-32 trailer: the last 4 bytes of the blob, over every byte before it.
inline constexpr uint32_t kCrcSize = 4;
// The smallest blob that can hold a header, one section entry and the trailer.
inline constexpr uint32_t kMinimumBlobSize = header::kSize + section_entry::kSize + kCrcSize;

// Section "model". Longer sections are accepted (later fields are appended); shorter rejected.
namespace model_section {
inline constexpr uint32_t kLikelihood = 0;   // u32, likelihoods.hpp's kId (it implies the Task)
inline constexpr uint32_t kInputCount = 4;   // u32, 1 .. PBP_MAX_UNITS
inline constexpr uint32_t kOutputCount = 8;  // u32, multiclass: 2 .. PBP_MAX_CLASSES, else 1
inline constexpr uint32_t kLayerCount = 12;  // u32, 1 .. PBP_MAX_LAYERS
inline constexpr uint32_t kNoiseA = 16;      // f32 > 1: Gamma on the noise precision
inline constexpr uint32_t kNoiseB = 20;      // f32 > 0
inline constexpr uint32_t kPriorA = 24;      // f32 > 1: Gamma on the weights' prior precision
inline constexpr uint32_t kPriorB = 28;      // f32 > 0
inline constexpr uint32_t kSize = 32;
// The likelihoods whose table line says so (likelihoods.hpp): the section is at least
// kSizeWithEpistemicScale.
inline constexpr uint32_t kEpistemicScale = 32;  // f32 in [kMinEpistemicScale, kMaxEpistemicScale]
inline constexpr uint32_t kSizeWithEpistemicScale = 36;
inline constexpr float kMinEpistemicScale = 1.0f / 1024.0f;
inline constexpr float kMaxEpistemicScale = 1024.0f;
}  // namespace model_section

// What a model predicts (the C API's PBP_TASK_*).
enum class Task : uint32_t {
  regression = PBP_TASK_REGRESSION,
  binary = PBP_TASK_BINARY,
  multiclass = PBP_TASK_MULTICLASS,
  count = PBP_TASK_COUNT_DATA,
};

// A tensor descriptor: where a tensor's bytes are in the tensor data section and how they
// encode its elements. The storage type defines the encoding of [offset, offset + byte_length);
// a reader rejects a type it does not know (or one not allowed for that tensor) cleanly.
namespace tensor {
inline constexpr uint32_t kStorage = 0;       // u32, Storage
inline constexpr uint32_t kElementCount = 4;  // u32, the tensor's shape product
inline constexpr uint32_t kOffset = 8;        // u32, from the tensor data section start, % 4 == 0
inline constexpr uint32_t kByteLength =
    12;  // u32, exactly storage_types.hpp's weight_tensor_byte_length
inline constexpr uint32_t kSize = 16;
}  // namespace tensor

enum class Storage : uint32_t {
  float32 = PBP_STORAGE_FLOAT32,  // IEEE-754 binary32, little-endian: 4 bytes per element
  // IEEE-754 binary16 (float16.hpp), little-endian u16: 2 bytes per element. Layer weight
  // tensors only (mean and variance of a layer alike); the variances are > 0.
  float16 = PBP_STORAGE_FLOAT16,
  // 1 byte per element plus float32 scales (namespace int8_weights). Layer weight tensors only
  // (mean and variance of a layer alike).
  int8 = PBP_STORAGE_INT8,
  // Type 3's mean tensor; the variances as 8-bit logarithmic codes with one float32 scale
  // (namespace int8_log_variance). Layer weight tensors only (mean and variance alike).
  int8_log_variance = PBP_STORAGE_INT8_LOG_VARIANCE,
};

// Storage type 3, a layer's weights as int8 codes with float32 scales (FORMAT.md explains the
// choice). Mean tensor: `rows` (the layer's outputs) f32 scales s_j, finite and > 0, then the
// rows' int8 codes q (two's complement, row-major [outputs][inputs + 1]): mean = s_j q.
// Variance tensor: one f32 scale w, finite and > 0, then the u8 codes u, 1 .. 255, row-major:
// variance = w u^2 (u is a standard deviation in units of sqrt w, so a decode is a multiply).
namespace int8_weights {
inline constexpr uint32_t kScaleSize = 4;
inline constexpr int32_t kMeanCodeMax = 127;       // the writer's codes: -127 .. 127
inline constexpr uint32_t kVarianceCodeMax = 255;  // 0 is invalid: a variance is > 0
inline constexpr uint64_t mean_byte_length(uint32_t rows, uint32_t count) {
  return uint64_t{kScaleSize} * rows + count;
}
inline constexpr uint64_t variance_byte_length(uint32_t count) {
  return uint64_t{kScaleSize} + count;
}
// Where the codes start in a tensor's bytes.
inline constexpr uint32_t mean_codes_offset(uint32_t rows) {
  return kScaleSize * rows;
}
inline constexpr uint32_t kVarianceCodesOffset = kScaleSize;
// The decoded values, exact in double (a float times an integer below 2^16).
template <class T>
inline T mean(float row_scale, int8_t code) {
  return static_cast<T>(row_scale) * static_cast<T>(code);
}
template <class T>
inline T variance(float scale, uint8_t code) {
  return static_cast<T>(scale) * static_cast<T>(uint32_t{code} * code);
}
}  // namespace int8_weights

// Storage type 4, for layers whose variances span more binades than type 3's square-root codes
// hold (FORMAT.md measures why): the mean tensor exactly as type 3's. Variance tensor: one f32
// scale t, finite, > 0 and below 2^95, then u8 codes u, every value valid: 8 codes per octave over
// 32 octaves, variance = t M[u % 8] 2^(u / 8 - 7), M[f] = round(128 2^(f / 8)) (so a decode is
// a table and a shift, and the kernel's sums stay integers). Its byte lengths are type 3's.
namespace int8_log_variance {
inline constexpr uint8_t kMantissa[8] = {128, 140, 152, 166, 181, 197, 215, 235};
inline constexpr int32_t kMantissaShift = 7;  // M[0] = 2^7: code 0 decodes to t
inline constexpr uint32_t kCodesPerOctave = 8;
inline constexpr float kScaleLimit = 0x1p95f;  // t M 2^(31 - 7) stays below float's largest
inline constexpr uint32_t mantissa(uint8_t code) {
  return kMantissa[code % kCodesPerOctave];
}
inline constexpr uint32_t octave(uint8_t code) {
  return code / kCodesPerOctave;
}
// The decoded value: M 2^(u / 8) is exact in float and double (8 significant bits), so a float
// decode rounds once (the product with t) and a double decode is exact.
template <class T>
inline T variance(float scale, uint8_t code) {
  const T steps = static_cast<T>(uint64_t{mantissa(code)} << octave(code));
  return static_cast<T>(scale) * (steps / static_cast<T>(1u << kMantissaShift));
}
}  // namespace int8_log_variance

// Types 3 and 4: int8 means (the int8 kernel runs both).
inline constexpr bool has_int8_means(uint32_t storage) {
  return storage == PBP_STORAGE_INT8 || storage == PBP_STORAGE_INT8_LOG_VARIANCE;
}
// A variance code of a type 3 or 4 tensor decoded: the one place the two codes are told apart.
template <class T>
inline T int8_layer_variance(uint32_t storage, float scale, uint8_t code) {
  return storage == PBP_STORAGE_INT8_LOG_VARIANCE ? int8_log_variance::variance<T>(scale, code)
                                                  : int8_weights::variance<T>(scale, code);
}

enum class Activation : uint32_t {
  linear = PBP_ACTIVATION_LINEAR,
  relu = PBP_ACTIVATION_RELU,
  erf = PBP_ACTIVATION_ERF,
  sign = PBP_ACTIVATION_SIGN,
};

// Section "layers": layer_count records, exactly. Weights row-major [outputs][inputs + 1],
// bias last in each row, the layout of LayerWeights in moments.hpp.
namespace layer_record {
inline constexpr uint32_t kInputs = 0;   // u32
inline constexpr uint32_t kOutputs = 4;  // u32
inline constexpr uint32_t kActivation =
    8;                                     // u32, Activation: ReLU, erf or sign hidden, linear last
inline constexpr uint32_t kFlags = 12;     // u32, reserved: written 0, ignored by v1 readers
inline constexpr uint32_t kMean = 16;      // tensor descriptor, outputs * (inputs + 1) elements
inline constexpr uint32_t kVariance = 32;  // tensor descriptor, same shape and storage, >= 0
inline constexpr uint32_t kSize = 48;
}  // namespace layer_record

// Section "standardisation": x' = (x - input_mean) / input_std, y = y' * target_std + target_mean.
// Exactly kSize bytes: no input ranges (blobs written before them); otherwise at least
// kSizeWithRanges, the appended descriptors holding each input's training range.
namespace standardisation_section {
inline constexpr uint32_t kTargetMean = 0;  // f32
inline constexpr uint32_t kTargetStd = 4;   // f32 > 0
inline constexpr uint32_t kInputMean = 8;   // tensor descriptor, input_count elements
inline constexpr uint32_t kInputStd = 24;   // tensor descriptor: valid_input_standardisation
inline constexpr uint32_t kSize = 40;
inline constexpr uint32_t kInputMin = 40;  // tensor descriptor, input_count elements
inline constexpr uint32_t kInputMax = 56;  // tensor descriptor, min <= input_mean <= max
inline constexpr uint32_t kSizeWithRanges = 72;
}  // namespace standardisation_section

// Section "input_occupancy": the variance (A target_std d)^2 a regression prediction adds for an
// input row at distance d from the training values (data_distance.hpp). Exactly
// size(input_count) bytes; needs the input ranges. Bit b of word 2i + b / 32 (b in 0 .. kBins-1)
// is set when a training value of input i falls in bin b of kBins equal bins over
// [input_min, input_max] (bin floor((x - min) / ((max - min) / kBins)), the last bin closed);
// bins 0 and kBins - 1 are always set.
namespace input_occupancy_section {
inline constexpr uint32_t kDistanceScale = 0;  // f32 A, finite, in [0, kMaxDistanceScale]
inline constexpr uint32_t kBitmaps = 4;        // u32[kWordsPerInput] per input, input order
inline constexpr uint32_t kBins = 64;
inline constexpr uint32_t kWordsPerInput = kBins / 32;
inline constexpr float kMaxDistanceScale = 1024.0f;
inline constexpr uint64_t size(uint32_t input_count) {
  return kBitmaps + 4ull * kWordsPerInput * input_count;
}
}  // namespace input_occupancy_section

// Section "input_pair_occupancy": the variance (A2 target_std f)^2 a regression prediction adds
// for an input row whose fraction f of input pairs falls on a cell no training row occupies
// (data_distance.hpp). Exactly size(input_count) bytes, 2 .. kMaxInputs inputs; needs the input
// ranges. Pairs (a, b), a < b, in the order (0, 1), (0, 2) .. (n - 2, n - 1); bit
// kBins bin_a + bin_b of the pair's kWordsPerPair words is set when a training row falls in that
// cell of kBins x kBins equal cells over the two ranges (clamped to the range's end bins).
namespace input_pair_occupancy_section {
inline constexpr uint32_t kPairScale = 0;  // f32 A2, finite, in [0, kMaxPairScale]
inline constexpr uint32_t kGrids = 4;      // u32[kWordsPerPair] per input pair, pair order
inline constexpr uint32_t kBins = 16;
inline constexpr uint32_t kWordsPerPair = kBins * kBins / 32;
inline constexpr uint32_t kMaxInputs = 32;  // 496 pairs, 15.5 KiB: wider inputs go without
inline constexpr float kMaxPairScale = 1024.0f;
inline constexpr uint32_t pair_count(uint32_t input_count) {
  return input_count * (input_count - 1u) / 2u;
}
inline constexpr uint64_t size(uint32_t input_count) {
  return kGrids + 4ull * kWordsPerPair * pair_count(input_count);
}
}  // namespace input_pair_occupancy_section

// Section "predictive_tail": a regression model whose predictive is a Student-t with nu degrees
// of freedom instead of a Gaussian, of the same variance: scale std sqrt((nu - 2) / nu)
// (math/student_t.hpp: even nu, so its CDF is algebraic). Exactly kSize bytes; regression with the
// Gaussian likelihoods only.
namespace predictive_tail_section {
inline constexpr uint32_t kDegreesOfFreedom = 0;  // u32, even, in [4, 32]
inline constexpr uint32_t kSize = 4;
}  // namespace predictive_tail_section

// The smallest input std a blob may hold for an input of mean `mean`, as a fraction of |mean|:
// rounding an input near the mean to float32 moves it by up to 2^-24 |mean|, which this bound
// keeps below 2^-10 of a std in the standardised input the network sees.
inline constexpr float kMinInputStdOverMean = 1.0f / 16384.0f;  // 2^-14
inline constexpr float kSmallestNormalFloat = 1.17549435e-38f;  // FLT_MIN

// An input standardisation float32 can carry out: a finite std that is a normal float (no
// division by a subnormal) and at least 2^-14 |mean|. Columns constant in training store
// max(1, |mean|).
inline bool valid_input_standardisation(float mean, float std) {
  const float magnitude = mean < 0.0f ? -mean : mean;
  return std - std == 0.0f && std >= kSmallestNormalFloat &&
         std >= kMinInputStdOverMean * magnitude;
}

// Section "metadata": a sequence of entries {u32 key, u32 length, length bytes, zero padding
// to a multiple of 4}, filling the section exactly. Unknown keys are skipped.
namespace metadata_entry {
inline constexpr uint32_t kKey = 0;
inline constexpr uint32_t kLength = 4;
inline constexpr uint32_t kHeaderSize = 8;
}  // namespace metadata_entry

enum class MetadataKey : uint32_t {
  name = 1,           // string, at most once
  target_name = 2,    // string, at most once
  notes = 3,          // free-form string, at most once
  training_rows = 4,  // u64, exactly 8 bytes, at most once
  feature_name = 5,   // string, repeated: 0 or input_count entries, in input order
  // ARD models: input_count + 1 input_prior_records, at most once. Read by the tools (pbp
  // inspect), not by the runtime, which skips it: prediction does not need it.
  input_prior_precision = 6,
  // Laplace input-prior models: one input_laplace_scale record, at most once. Read by the tools,
  // skipped by the runtime like input_prior_precision.
  input_laplace_scale = 7,
  writer = 8,  // string, at most once: the program and version that wrote the blob
};

// The value of MetadataKey::input_prior_precision: Gamma(a, b) on the prior precision of layer
// 0's weights from each input, in input order, then of layer 0's bias weights.
namespace input_prior_record {
inline constexpr uint32_t kA = 0;  // f32, finite, > 1
inline constexpr uint32_t kB = 4;  // f32, finite, > 0
inline constexpr uint32_t kSize = 8;
}  // namespace input_prior_record

// The value of MetadataKey::input_laplace_scale: q(phi) = N(mean, variance), the posterior of
// phi = log of the Laplace prior's variance shared by layer 0's input weights (not its bias).
namespace laplace_scale_record {
inline constexpr uint32_t kMean = 0;      // f32, finite
inline constexpr uint32_t kVariance = 4;  // f32, finite, > 0
inline constexpr uint32_t kSize = 8;
}  // namespace laplace_scale_record

inline constexpr uint32_t padded_to_4(uint32_t n) {
  return (n + 3u) & ~3u;
}

// Section "learn_check", written by the device's learner (pbp_learn_write_blob) so that a learner
// restarted from its blob goes on bit for bit as one that never stopped: the noise Gamma its
// update uses, whether it re-fits the predictive, and its running check (pbp_learn_check in
// pbp_learn.h). Exactly kSize bytes; a blob without it starts a learner with a fresh check.
namespace learn_check {
inline constexpr uint32_t kUpdateNoiseA = 0;     // f32 > 1: the update's noise Gamma (eqs. 9-10)
inline constexpr uint32_t kUpdateNoiseB = 4;     // f32 > 0
inline constexpr uint32_t kFlags = 8;            // u32: bit 0 kRecalibrate, the other bits 0
inline constexpr uint32_t kRows = 12;            // u32, rows scored
inline constexpr uint32_t kWindow = 16;          // f32 in [0, kMaxWindow]; 0 exactly when rows is 0
inline constexpr uint32_t kMeanLoglik = 20;      // f32, finite
inline constexpr uint32_t kMeanZ2 = 24;          // f32, finite, >= 0
inline constexpr uint32_t kInside95 = 28;        // f32 in [0, 1]
inline constexpr uint32_t kCandidateCount = 32;  // u32, exactly kCandidates
inline constexpr uint32_t kResidualSums = 36;    // f32[kCandidates], finite, >= 0
inline constexpr uint32_t kCandidates = PBP_LEARN_CHECK_CANDIDATES;
inline constexpr uint32_t kLogSpreadSums = kResidualSums + 4u * kCandidates;  // same
inline constexpr uint32_t kSize = kLogSpreadSums + 4u * kCandidates;          // 180
inline constexpr uint32_t kRecalibrate = 1u;
// The window's weight w <- w 127/128 + 1 never passes 128 in float (127/128 exact, 128 fixed).
inline constexpr float kMaxWindow = 128.0f;
}  // namespace learn_check

// Little-endian field access, independent of the host's byte order and alignment.
inline uint32_t load_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

inline float load_f32(const uint8_t* p) {
  const uint32_t bits = load_u32(p);
  float value;
  __builtin_memcpy(&value, &bits, sizeof value);
  return value;
}

inline void store_u32(uint8_t* p, uint32_t value) {
  p[0] = static_cast<uint8_t>(value);
  p[1] = static_cast<uint8_t>(value >> 8);
  p[2] = static_cast<uint8_t>(value >> 16);
  p[3] = static_cast<uint8_t>(value >> 24);
}

inline void store_f32(uint8_t* p, float value) {
  uint32_t bits;
  __builtin_memcpy(&bits, &value, sizeof bits);
  store_u32(p, bits);
}

// CRC-32 (IEEE 802.3: reflected polynomial 0xEDB88320, initial value and final xor 0xFFFFFFFF;
// "123456789" -> 0xCBF43926), table-driven, its tables built at compile time: a byte a step with
// 256 entries (1 KiB), or a nibble a step with 16 (64 bytes), the same CRC.
template <uint32_t kBits>
struct Crc32Table {
  uint32_t entries[1u << kBits];
  constexpr Crc32Table() : entries{} {
    for (uint32_t i = 0; i < (1u << kBits); ++i) {
      uint32_t c = i;
      for (uint32_t bit = 0; bit < kBits; ++bit) c = (c & 1u) ? (0xEDB88320u ^ (c >> 1)) : (c >> 1);
      entries[i] = c;
    }
  }
};
inline constexpr Crc32Table<8> kCrc32Table{};
inline constexpr Crc32Table<4> kCrc32NibbleTable{};

inline uint32_t crc32_by_bytes(const uint8_t* data, size_t size) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) c = kCrc32Table.entries[(c ^ data[i]) & 0xFFu] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

inline uint32_t crc32_by_nibbles(const uint8_t* data, size_t size) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    c ^= data[i];
    c = kCrc32NibbleTable.entries[c & 0xFu] ^ (c >> 4);
    c = kCrc32NibbleTable.entries[c & 0xFu] ^ (c >> 4);
  }
  return c ^ 0xFFFFFFFFu;
}

// Size builds (-Os: the device install) take the nibbles: 960 bytes less flash for about twice
// the instructions a byte, paid once per pbp_open (and pbp_store save or boot).
inline uint32_t crc32(const uint8_t* data, size_t size) {
#if defined(__OPTIMIZE_SIZE__)
  return crc32_by_nibbles(data, size);
#else
  return crc32_by_bytes(data, size);
#endif
}

}  // namespace pbp::format
