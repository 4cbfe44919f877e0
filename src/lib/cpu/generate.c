/* generate.c — the CPU backend's generated vectors (gpuquad.h, gq_generate).
 * The numbers are those kernels/generate.cu writes on a GPU: Philox4x32-10
 * in the layout of philox.h (element i is word i % 4 of the call with
 * counter i / 4, coordinate 0, key seed), uniforms by gq_uniform_double /
 * gq_uniform_float and normals by gq_box_muller on the word pairs (w0, w1)
 * and (w2, w3).  A counter-based generator computes every element from
 * (seed, i) alone, so the threads share no state and the same seed gives
 * the same uniforms bit for bit on both backends (normals: see
 * gq_box_muller for the last ulps). */
#include "config.h"

#include <math.h>

#include "../internal.h"
#include "../philox.h"

void gq_cpu_generate(gq_gen_kind kind, size_t n, size_t first, size_t count, uint64_t seed, double *xd, float *xf)
{
  if (kind == GQ_GEN_LINSPACE) {
#pragma omp parallel for num_threads(gq_cpu_threads()) schedule(static)
    for (size_t i = 0; i < count; i++) {
      const double v = n > 1 ? (double)(first + i) / (double)(n - 1) : 0.0;
      if (xd)
        xd[i] = v;
      else
        xf[i] = (float)v;
    }
    return;
  }
  const size_t quads = count / 4 + (count % 4 != 0), q0 = first / 4;
#pragma omp parallel for num_threads(gq_cpu_threads()) schedule(static)
  for (size_t q = 0; q < quads; q++) {
    const size_t at = 4 * q, got = count - at < 4 ? count - at : 4;
    if (xd) {
      double v[4];
      gq_philox_values(gq_philox_quad(q0 + q, 0u, seed), kind == GQ_GEN_NORMAL, v);
      for (size_t l = 0; l < got; l++)
        xd[at + l] = v[l];
    } else {
      float v[4];
      gq_philox_values_float(gq_philox_quad(q0 + q, 0u, seed), kind == GQ_GEN_NORMAL, v);
      for (size_t l = 0; l < got; l++)
        xf[at + l] = v[l];
    }
  }
}
