/* SPDX-License-Identifier: Apache-2.0 */
/* pbp/pbp_config.h: every compile-time option of the runtime, with its default and meaning, in
 * one place (pbp.h includes it). An option is a macro, 0 or 1, set in one of three ways:
 *   - CMake: the cache options named below; the runtime is compiled with them, and the installed
 *     copy of this header (cmake --install) has the defaults replaced by what the installed
 *     library was built with, so the package states what it holds.
 *   - Without CMake (the amalgamation, an IDE, targets/arduino): -D on the compiler line, for the
 *     runtime's sources and for the firmware alike; what is not defined takes the default here.
 *   - Editing the defaults below in a copy of the headers shipped with the sources.
 * Options left out save their flash (targets/DEPLOYING.md, "Footprint"); pbp_open refuses a blob
 * needing what is 0 here (PBP_ERR_ACTIVATION, PBP_ERR_STORAGE_TYPE, PBP_ERR_UNSUPPORTED_TASK),
 * never misreads it.
 *
 * Not options, and not here: what the compiler says the CPU has (the DSP dual 16-bit multiply,
 * __fp16 conversion, a square-root instruction) is detected where it is used and changes no bit;
 * so is -Os (__OPTIMIZE_SIZE__: the int8 kernel's compact row loop, runtime/QUANTISATION.md). */
#ifndef PBP_PBP_CONFIG_H
#define PBP_PBP_CONFIG_H

/* Hidden activations. ReLU is always built in; CMake: -DPBP_RUNTIME_ACTIVATIONS="relu;erf;sign"
 * (default all three). */
/* erf hidden layers, PBP_ACTIVATION_ERF (probit units): default 1. */
#ifndef PBP_WITH_ERF
#define PBP_WITH_ERF 1
#endif
/* sign hidden layers, PBP_ACTIVATION_SIGN: default 1. */
#ifndef PBP_WITH_SIGN
#define PBP_WITH_SIGN 1
#endif

/* Weight storage types; at least one. One option per type of the storage table
 * (runtime/core/pbp/storage_types.hpp; `pbp quantize --help` lists them): PBP_WITH_<NAME>, <NAME>
 * the type's name in upper case (int8-logvar is built with int8: PBP_WITH_INT8). Default 1 for
 * every one: the type's codec header (runtime/core/pbp/storage/<type>.hpp) defines the default
 * next to the encoding, so that a new type is its codec, its kernel and its table line
 * (runtime/ADDING.md); tests/host/blob/storage_flags_test.cpp checks each default is 1. CMake:
 * -DPBP_RUNTIME_STORAGE="float32;float16;int8" (default every type of the table). */
/* The storage options this library was built with (the installed copy: CMake writes them). */

/* Likelihoods a device may leave out: one option per likelihood of the table with a flag
 * (runtime/core/pbp/likelihoods.hpp), PBP_WITH_<NAME>, e.g. PBP_WITH_HETEROSCEDASTIC
 * (PBP_LIKELIHOOD_GAUSSIAN_HETEROSCEDASTIC models: their predictive's exp of the log noise
 * variance). Default 1 for every one: the likelihood's header (runtime/core/pbp/
 * likelihood_<name>.hpp) defines it next to its predictive. The others (gaussian, its
 * epistemic-scaled form, probit, softmax, poisson) are always built in. CMake:
 * -DPBP_RUNTIME_LIKELIHOODS="heteroscedastic" (default every flag of the table), or empty for
 * none. */
/* The likelihood options this library was built with (the installed copy: CMake writes them). */

/* The distance variance of regression models (pbp train's default, FORMAT.md section 7): the
 * prediction's epistemic variance grows with the input row's distance from the training values.
 * 0: pbp_open refuses blobs holding it (PBP_ERR_UNKNOWN_REQUIRED_SECTION). CMake:
 * -DPBP_RUNTIME_DATA_DISTANCE=OFF. Default 1. */
#ifndef PBP_WITH_DATA_DISTANCE
#define PBP_WITH_DATA_DISTANCE 1
#endif

/* Student-t predictives of regression models (pbp train's default where held-out rows want one,
 * FORMAT.md section 9): the interval of a t of the prediction's variance. 0: pbp_open refuses
 * blobs holding one (PBP_ERR_UNKNOWN_REQUIRED_SECTION). CMake: -DPBP_RUNTIME_PREDICTIVE_TAIL=OFF.
 * Default 1. */
#ifndef PBP_WITH_PREDICTIVE_TAIL
#define PBP_WITH_PREDICTIVE_TAIL 1
#endif

#endif /* PBP_PBP_CONFIG_H */
