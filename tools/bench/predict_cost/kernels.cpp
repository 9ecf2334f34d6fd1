// SPDX-License-Identifier: Apache-2.0
// Baselines for tools/bench/predict_cost.sh: see kernels.hpp.
#include "kernels.hpp"

#include "pbp/math.hpp"
#include "pbp/moments.hpp"

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
