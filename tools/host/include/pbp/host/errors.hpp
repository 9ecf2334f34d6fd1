// SPDX-License-Identifier: Apache-2.0
// A mistake in what was asked (an option, a combination of options, a network the runtime cannot
// hold): the command line reports it with a usage hint (exit 2), Python raises ValueError.
#pragma once
#include <stdexcept>

namespace pbp::host {

class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace pbp::host
