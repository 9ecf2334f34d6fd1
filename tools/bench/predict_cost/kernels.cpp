// SPDX-License-Identifier: Apache-2.0
// Baselines for tools/bench/predict_cost.sh: see kernels.hpp.
#include "kernels.hpp"

#include "pbp/format.hpp"
#include "pbp/math.hpp"
#include "pbp/moments.hpp"

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#endif

namespace pbp_bench {
namespace {

void standardise(const pbp_model& model, const float* input, float* x) {
  for (uint32_t i = 0; i < model.input_count; ++i) {
    x[i] = (input[i] - model.input_mean[i]) / model.input_std[i];
  }
}

}  // namespace

float mlp_forward(const pbp_model& model, const float* input, float* workspace) {
  float* x = workspace;
  float* buffers[2] = {workspace + model.input_count,
                       workspace + model.input_count + model.max_width};
  standardise(model, input, x);
  const float* in = x;
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    const pbp_layer& layer = model.layers[l];
    const float scale = pbp::layer_scale<float>(layer.inputs).mean;
    const uint32_t row_length = layer.inputs + 1;
    const bool relu = l + 1 < model.layer_count;
    float* out = buffers[l & 1u];
    for (uint32_t j = 0; j < layer.outputs; ++j) {
      const float* w = layer.mean + j * row_length;
      float sum = 0.0f;
      for (uint32_t k = 0; k < layer.inputs; ++k) sum += w[k] * in[k];
      sum += w[layer.inputs];
      sum *= scale;
      out[j] = (relu && !(sum > 0.0f)) ? 0.0f : sum;
    }
    in = out;
  }
  return in[0] * model.target_std + model.target_mean;
}

float normal_draw(Rng& rng) {
  uint32_t s = rng.state;
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  const uint32_t a = s;
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  rng.state = s;
  // Sum of four uniforms on {0..65535}: mean 131070, variance (65536^2 - 1) / 3.
  const int32_t sum =
      static_cast<int32_t>((a & 0xffffu) + (a >> 16) + (s & 0xffffu) + (s >> 16)) - 131070;
  return static_cast<float>(sum) * 2.6428965e-5f;  // 1 / sqrt((65536^2 - 1) / 3)
}

void prepare_sd(const pbp_layer& layer, float* out) {
  const uint32_t n = layer.outputs * (layer.inputs + 1);
  for (uint32_t i = 0; i < n; ++i) out[i] = pbp::math::sqrt(layer.variance[i]);
}

void sampled_prediction(const pbp_model& model, const float* const* sd, const float* input,
                        uint32_t samples, Rng& rng, float* workspace, float* mean, float* std) {
  float* x = workspace;
  float* buffers[2] = {workspace + model.input_count,
                       workspace + model.input_count + model.max_width};
  standardise(model, input, x);
  float outputs[64];
  for (uint32_t s = 0; s < samples; ++s) {
    const float* in = x;
    for (uint32_t l = 0; l < model.layer_count; ++l) {
      const pbp_layer& layer = model.layers[l];
      const float scale = pbp::layer_scale<float>(layer.inputs).mean;
      const uint32_t row_length = layer.inputs + 1;
      const bool relu = l + 1 < model.layer_count;
      float* out = buffers[l & 1u];
      for (uint32_t j = 0; j < layer.outputs; ++j) {
        const float* m = layer.mean + j * row_length;
        const float* d = sd[l] + j * row_length;
        float sum = 0.0f;
        for (uint32_t k = 0; k < layer.inputs; ++k) sum += (m[k] + d[k] * normal_draw(rng)) * in[k];
        sum += m[layer.inputs] + d[layer.inputs] * normal_draw(rng);
        sum *= scale;
        out[j] = (relu && !(sum > 0.0f)) ? 0.0f : sum;
      }
      in = out;
    }
    outputs[s] = in[0];
  }
  float total = 0.0f;
  for (uint32_t s = 0; s < samples; ++s) total += outputs[s];
  const float m = total / static_cast<float>(samples);
  float squares = 0.0f;
  for (uint32_t s = 0; s < samples; ++s) squares += (outputs[s] - m) * (outputs[s] - m);
  *mean = m * model.target_std + model.target_mean;
  *std = pbp::math::sqrt(squares / static_cast<float>(samples - 1)) * model.target_std;
}

void first_linear(const pbp_model& model, const float* x, float* mean, float* var) {
  const pbp_layer& layer = model.layers[0];
  const pbp::LayerWeights<float> w{layer.mean, layer.variance, layer.inputs, layer.outputs};
  pbp::linear_moments<float, true>(w, x, nullptr, mean, var);
}

void relu_layer(uint32_t count, float* mean, float* var) {
  pbp::relu_moments_inplace(count, mean, var);
}

void second_linear(const pbp_model& model, const float* mean_in, const float* var_in, float* mean,
                   float* var) {
  const pbp_layer& layer = model.layers[1];
  const pbp::LayerWeights<float> w{layer.mean, layer.variance, layer.inputs, layer.outputs};
  pbp::linear_moments<float, false>(w, mean_in, var_in, mean, var);
}

}  // namespace pbp_bench

namespace pbp_bench {
namespace {

namespace int8 = pbp::format::int8_weights;

const int8_t* mean_codes(const pbp_layer& layer) {
  return reinterpret_cast<const int8_t*>(static_cast<const uint8_t*>(layer.stored_mean) +
                                         int8::mean_codes_offset(layer.outputs));
}
float row_scale(const pbp_layer& layer, uint32_t j) {
  return pbp::format::load_f32(static_cast<const uint8_t*>(layer.stored_mean) +
                               int8::kScaleSize * j);
}
int32_t round_to_int(float x) {
  return static_cast<int32_t>(x >= 0.0f ? x + 0.5f : x - 0.5f);
}
int8_t saturate(int32_t x, int32_t low) {
  return static_cast<int8_t>(x < low ? low : x > 127 ? 127 : x);
}

// Two rows' sums over the same n int8 activations, as arm_nn_vec_mat_mult_t_s8 takes them: four
// activations per step extended once into two SXTB16 pairs, each row's four weights likewise,
// two SMLADs per row; the rest one at a time.
struct RowPair {
  int32_t first, second;
};
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
inline uint32_t sxtb16_ror8(uint32_t x) {  // bytes 1 and 3 (one instruction)
  uint32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
  return r;
}
inline uint32_t load_word(const int8_t* p) {
  uint32_t w;
  __builtin_memcpy(&w, p, sizeof w);
  return w;
}
#endif
RowPair dot_s8(const int8_t* w0, const int8_t* w1, const int8_t* a, uint32_t n, int32_t acc0,
               int32_t acc1) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  for (uint32_t steps = n / 4u; steps != 0; --steps) {
    const uint32_t av = load_word(a), x0 = load_word(w0), x1 = load_word(w1);
    const uint32_t a02 = __sxtb16(av), a13 = sxtb16_ror8(av);
    acc0 = __smlad(__sxtb16(x0), a02, acc0);
    acc0 = __smlad(sxtb16_ror8(x0), a13, acc0);
    acc1 = __smlad(__sxtb16(x1), a02, acc1);
    acc1 = __smlad(sxtb16_ror8(x1), a13, acc1);
    a += 4;
    w0 += 4;
    w1 += 4;
  }
  n %= 4u;
#endif
  for (uint32_t k = 0; k < n; ++k) {
    acc0 += int32_t{w0[k]} * a[k];
    acc1 += int32_t{w1[k]} * a[k];
  }
  return {acc0, acc1};
}

// x (Q31 multiplier, then a rounding right shift), as arm_nn_requantize.
int32_t requantize(int32_t x, const Int8MlpRow& row) {
  const int64_t product = int64_t{x} * row.multiplier;
  const uint32_t shift = 31u + static_cast<uint32_t>(row.shift);
  return static_cast<int32_t>((product + (int64_t{1} << (shift - 1u))) >> shift);
}

}  // namespace

bool prepare_int8_mlp(const pbp_model& model, const float* calibration_input, Int8MlpRow* rows,
                      uint32_t row_capacity, float* workspace, Int8Mlp& mlp) {
  uint32_t total = 0;
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    if (model.layers[l].storage != PBP_STORAGE_INT8) return false;
    total += model.layers[l].outputs;
  }
  if (total > row_capacity) return false;
  // Calibration: the float MLP on the decoded means, each layer's largest |output|.
  float* x = workspace;
  float* buffers[2] = {workspace + model.input_count,
                       workspace + model.input_count + model.max_width};
  standardise(model, calibration_input, x);
  float largest = 0.0f;
  for (uint32_t i = 0; i < model.input_count; ++i) {
    const float magnitude = x[i] < 0.0f ? -x[i] : x[i];
    largest = magnitude > largest ? magnitude : largest;
  }
  float in_step = largest > 0.0f ? largest / 127.0f : 1.0f;
  mlp.input_scale = 1.0f / in_step;
  const float* in = x;
  Int8MlpRow* row = rows;
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    const pbp_layer& layer = model.layers[l];
    const float scale = pbp::layer_scale<float>(layer.inputs).mean;
    const bool last = l + 1 == model.layer_count;
    float* out = buffers[l & 1u];
    float out_largest = 0.0f;
    for (uint32_t j = 0; j < layer.outputs; ++j) {
      const int8_t* q = mean_codes(layer) + j * (layer.inputs + 1u);
      float sum = 0.0f;
      for (uint32_t k = 0; k < layer.inputs; ++k) sum += static_cast<float>(q[k]) * in[k];
      sum = (sum + static_cast<float>(q[layer.inputs])) * row_scale(layer, j) * scale;
      out[j] = (!last && !(sum > 0.0f)) ? 0.0f : sum;
      out_largest = out[j] > out_largest ? out[j] : out_largest;
    }
    const float out_step = out_largest > 0.0f ? out_largest / 127.0f : 1.0f;
    for (uint32_t j = 0; j < layer.outputs; ++j, ++row) {
      const int8_t* q = mean_codes(layer) + j * (layer.inputs + 1u);
      // the row's sums count steps of s_j in_step (weights times activations)
      const float sum_step = row_scale(layer, j) * in_step;
      row->bias = round_to_int(static_cast<float>(q[layer.inputs]) / in_step);
      row->scale = sum_step * scale;
      float multiplier = sum_step * scale / out_step;  // the real multiplier, below 1 here
      int32_t shift = 0;
      while (multiplier < 0.5f && shift < 30) multiplier *= 2.0f, ++shift;
      row->multiplier = round_to_int(multiplier * 2147483648.0f * 0.999999f);
      row->shift = shift;
    }
    in_step = out_step;
    in = out;
  }
  mlp.model = &model;
  mlp.rows = rows;
  return true;
}

float int8_mlp_forward(const Int8Mlp& mlp, const float* input, int8_t* workspace) {
  const pbp_model& model = *mlp.model;
  int8_t* x = workspace;
  int8_t* buffers[2] = {workspace + model.input_count,
                        workspace + model.input_count + model.max_width};
  for (uint32_t i = 0; i < model.input_count; ++i) {
    const float z = (input[i] - model.input_mean[i]) / model.input_std[i];
    x[i] = saturate(round_to_int(z * mlp.input_scale), -127);
  }
  const int8_t* in = x;
  const Int8MlpRow* row = mlp.rows;
  float output = 0.0f;
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    const pbp_layer& layer = model.layers[l];
    const uint32_t row_length = layer.inputs + 1u;
    const bool last = l + 1 == model.layer_count;
    int8_t* out = buffers[l & 1u];
    for (uint32_t j = 0; j < layer.outputs; j += 2u) {
      const int8_t* q = mean_codes(layer) + j * row_length;
      const bool pair = j + 1u < layer.outputs;  // an odd last row runs alone, twice
      const Int8MlpRow& r0 = row[j];
      const Int8MlpRow& r1 = row[pair ? j + 1u : j];
      const RowPair sums = dot_s8(q, pair ? q + row_length : q, in, layer.inputs, r0.bias, r1.bias);
      if (last) {  // every output to float (their sum: the caller's sink)
        output += static_cast<float>(sums.first) * r0.scale;
        if (pair) output += static_cast<float>(sums.second) * r1.scale;
        continue;
      }
      out[j] = saturate(requantize(sums.first, r0), 0);
      if (pair) out[j + 1u] = saturate(requantize(sums.second, r1), 0);
    }
    row += layer.outputs;
    in = out;
  }
  return output * model.target_std + model.target_mean;
}

}  // namespace pbp_bench
