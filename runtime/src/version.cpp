// SPDX-License-Identifier: Apache-2.0
// pbp_version: the version this library was built as (pbp_version.h, from CMake's project()).
#include "pbp/pbp.h"

extern "C" const char* pbp_version(void) {
  return PBP_VERSION_STRING;
}
