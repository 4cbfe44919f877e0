/* generate.c — the CPU backend's generated vectors (gpuquad.h, gq_generate):
 * a counter-based generator, so every element is computed independently
 * (x_i from (seed, i) alone) and the threads need no shared state.
 *
 * splitmix64 (Steele, Lea and Flood 2014) of seed + i * golden gamma gives 64
 * random bits; uniform is (top 53 bits + 1) * 2^-53, in (0, 1]; normal uses
 * Box-Muller on the uniforms of indices 2j and 2j+1 (cos for x_2j, sin for
 * x_2j+1).  This is not the sequence cuRAND gives on a CUDA context. */
#include "config.h"

#include <math.h>

#include "../internal.h"

static uint64_t splitmix64(uint64_t seed, uint64_t i)
{
  uint64_t z = seed + (i + 1) * UINT64_C(0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static double uniform(uint64_t seed, uint64_t i)
{
  return (double)((splitmix64(seed, i) >> 11) + 1) * 0x1p-53;
}

static double value(gq_gen_kind kind, size_t n, uint64_t seed, size_t i)
{
  switch (kind) {
  case GQ_GEN_LINSPACE:
    return n > 1 ? (double)i / (double)(n - 1) : 0.0;
  case GQ_GEN_NORMAL: {
    const uint64_t j = i & ~(uint64_t)1;
    const double r = sqrt(-2.0 * log(uniform(seed, j)));
    const double angle = 6.283185307179586 * uniform(seed, j + 1);
    return r * (i & 1 ? sin(angle) : cos(angle));
  }
  default:
    return uniform(seed, i);
  }
}

void gq_cpu_generate(gq_gen_kind kind, size_t n, uint64_t seed, double *xd, float *xf)
{
#pragma omp parallel for num_threads(gq_cpu_threads()) schedule(static)
  for (size_t i = 0; i < n; i++) {
    const double v = value(kind, n, seed, i);
    if (xd)
      xd[i] = v;
    else
      xf[i] = (float)v;
  }
}
