/* vegas_map.h — one VEGAS+ sample, shared by the CPU backend (C11) and the
 * CUDA kernels (nvcc and NVRTC): its random words, and the map from a point
 * y of a stratification hypercube through the importance grid to x in the
 * unit cube, with the Jacobian.  Both backends call these and nothing else to
 * place a sample, so they place it at the same bits (division, fma and the
 * Philox words are exact or correctly rounded on both); only f's math
 * library may differ in the last bits.
 *
 * The stream: sample k of hypercube h in pass p, coordinate d, is word k % 4
 * of Philox4x32-10 with counter (lo32(k/4), h + 2^20 hi32(k/4), d, 1 + p) and
 * key seed.  The counter names the sample by hypercube and rank rather than
 * by a global index, so an allocation that moves one sample between two
 * hypercubes changes no other sample; c3 >= 1 keeps every pass off plain Monte
 * Carlo's stream (c3 = 0, philox.h) and off Sobol's seeds (c3 = 0x50B01:
 * passes stay far below).  Hypercubes number below 2^20 and ranks below 2^42
 * (vegas.c's limits), so the counter is unique. */
#ifndef GQ_VEGAS_MAP_H
#define GQ_VEGAS_MAP_H

#include "philox.h"

/* The most hypercubes a pass: beyond, the CPU backend's host work per
 * hypercube and pass (sums, allocation) costs more than the finer
 * stratification gains (BENCHMARKS.md, issue 17); the CUDA backend keeps
 * them on the device, and both keep the same limit so that they draw the
 * same samples.  The counter layout above would allow 2^20. */
#define GQ_VEGAS_MAX_HCUBES (1u << 16)

GQ_PHILOX_HD gq_philox4 gq_vegas_quad(unsigned long long seed, unsigned int pass, unsigned int hcube,
                                      unsigned long long quad, int d)
{
  return gq_philox4x32_10((unsigned int)quad, hcube + ((unsigned int)(quad >> 32) << 20), (unsigned int)d,
                          1u + pass, (unsigned int)seed, (unsigned int)(seed >> 32));
}

/* y = (cell + u) / strata along one axis, then through that axis's grid of
 * bins increments (edges[0..bins], 0 to 1): x = edges[k] + (y bins - k)
 * (edges[k+1] - edges[k]), the Jacobian multiplied by bins (edges[k+1] -
 * edges[k]); *bin = k.  y rounded up to 1 stays in the last bin. */
GQ_PHILOX_HD double gq_vegas_map(const double *edges, int bins, int strata, unsigned int cell, unsigned int word,
                                 int *bin, double *jacobian)
{
  const double y = ((double)cell + gq_uniform_double(word)) / (double)strata;
  const double t = y * (double)bins;
  int k = (int)t;
  if (k > bins - 1)
    k = bins - 1;
  const double lo = edges[k], width = edges[k + 1] - lo;
  *bin = k;
  *jacobian *= (double)bins * width;
  return fma(t - (double)k, width, lo);
}

#endif /* GQ_VEGAS_MAP_H */
