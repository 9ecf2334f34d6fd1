// SPDX-License-Identifier: Apache-2.0
// Exit status 0 when this CPU runs AVX2 and FMA code (configure-time probe).
int main() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 0 : 1; }
