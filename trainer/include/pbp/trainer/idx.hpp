// SPDX-License-Identifier: Apache-2.0
// IDX files, the MNIST / Fashion-MNIST format: a 4-byte big-endian magic (two zero bytes, the
// element type, the number of dimensions), one big-endian uint32 per dimension, then the data
// row-major. Only unsigned-byte data (type 0x08) is read, and only uncompressed files (gunzip
// them first; tools/scripts/fetch_fashion_mnist.sh does).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

struct IdxArray {
  std::string source;           // file name, for messages
  std::vector<uint32_t> dims;   // dims[0] counts the items (images or labels)
  std::vector<uint8_t> values;  // product(dims) bytes
  size_t items() const { return dims.empty() ? 0 : dims[0]; }
  size_t item_size() const;  // product of dims[1..]; 1 for a vector
};

// Parses IDX bytes; `source` names them in errors. Throws InputError (file only, no line) for a
// gzip stream, a bad magic, an unsupported element type, no dimensions, a zero item size, a
// header or data shorter than the header promises, or bytes after the data.
IdxArray parse_idx(const std::string& bytes, const std::string& source);
IdxArray read_idx(const std::string& path);  // InputError if it cannot be opened

// True if the file starts like an IDX file (two zero bytes) or a gzip stream: no CSV does, so
// this tells the two input formats apart. False if the file cannot be read.
bool looks_like_idx(const std::string& path);

// Images (N x ...) as N rows of raw pixel values with the
// labels (a vector of N) as targets named "label", each checked with target_problem(value, task,
// classes) - an error names the labels file and the label's 0-based index. Throws InputError if
// the counts differ or the labels are not a vector. The inputs stay unnamed (feature_names
// empty): pixels are matched by position, and 784 names would add ~7 KB to an MNIST blob.
Dataset idx_dataset(const IdxArray& images, const IdxArray& labels, Task task, uint32_t classes);
// The images alone, for prediction: y is empty.
Dataset idx_inputs(const IdxArray& images);

}  // namespace pbp::trainer
