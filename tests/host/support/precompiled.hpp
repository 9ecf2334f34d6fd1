// SPDX-License-Identifier: Apache-2.0
// The host tests' precompiled header (tests/host/CMakeLists.txt, PBP_TEST_PCH): what most test
// files include, parsed once per build. Every test file still includes what it uses.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"
