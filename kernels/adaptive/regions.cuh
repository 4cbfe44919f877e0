// regions.cuh — adaptive cubature's regions on the GPU (src/lib/adaptive.c
// drives the passes): one warp per region, the rule's points
// (adaptive_rule.h) strided over its lanes, each lane summing its points
// into the rule, the lower rule and the rule on |f|, then a butterfly of
// shuffles; lane 0 writes the estimate, the error and the split axis.
// Genz-Malik's axis points go through shared memory for the fourth
// differences.  A warp per region keeps the 17 (D = 2) to 401 (D = 8)
// points of a region in one warp's registers and needs no block-level
// synchronisation; G7-K15's 15 points use half a warp.  Compiled by NVRTC in
// the expression's module (kernels/adaptive/adaptive.cu), whose
// gq_jit::Map<0> is Map.
#ifndef GQ_ADAPTIVE_REGIONS_CUH
#define GQ_ADAPTIVE_REGIONS_CUH

#include "lib/adaptive_rule.h"

namespace gq {
namespace adaptive {

constexpr int WARPS = 4; // regions per block of 128 threads

// n regions: centre and half-widths region-major (D doubles each); results
// at the region's index.
struct Batch {
  const double *centre, *half;
  double *estimate, *error;
  unsigned char *axis;
  unsigned long long n;
};

// w[cls] by selects: a register array indexed at run time would go to
// local memory.
__device__ __forceinline__ double pick(const double (&w)[5], int cls)
{
  double v = w[0];
#pragma unroll
  for (int k = 1; k < 5; k++)
    v = cls == k ? w[k] : v;
  return v;
}

__device__ __forceinline__ double warp_sum(double v)
{
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

template <int D, class Map> __global__ void __launch_bounds__(32 * WARPS) regions_kernel(Batch b)
{
  __shared__ double axis_f[WARPS][4 * D + 1]; // the axis points' f, then the centre's
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned long long r = (unsigned long long)blockIdx.x * WARPS + warp;
  if (r >= b.n) // the whole warp: the shuffles below see only full warps
    return;
  double c[D], h[D];
#pragma unroll
  for (int d = 0; d < D; d++) {
    c[d] = b.centre[r * D + d];
    h[d] = b.half[r * D + d];
  }
  if constexpr (D == 1) {
    double v = 0.0, wk = 0.0, wg = 0.0;
    if (lane < GQ_GK15_POINTS) {
      double u;
      gq_gk15_point(lane, &u, &wk, &wg);
      const double x = c[0] + h[0] * u;
      v = Map()(&x);
    }
    const double resk = warp_sum(wk * v), resg = warp_sum(wg * v), resabs = warp_sum(wk * fabs(v));
    const double mean = resk / 2.0;
    const double resasc = warp_sum(wk * fabs(v - mean));
    if (lane == 0) {
      b.estimate[r] = resk * h[0];
      b.error[r] = gq_gk15_error(resk * h[0], resg * h[0], resabs * h[0], resasc * h[0]);
      b.axis[r] = 0;
    }
  } else {
    constexpr int P = 1 + 4 * D + 2 * D * (D - 1) + (1 << D);
    double w7[5], w5[5], w3a[5], w3b[5];
    gq_gm_weights(D, w7, w5);
    gq_gm_low_weights(D, w3a, w3b);
    double s7 = 0.0, s5 = 0.0, s3a = 0.0, s3b = 0.0, sabs = 0.0;
    for (int p = lane; p < P; p += 32) {
      double x[D];
      const gq_gm_pt q = gq_gm_describe(D, p);
      const int cls = q.cls, slot = q.slot;
#pragma unroll
      for (int d = 0; d < D; d++)
        x[d] = c[d] + h[d] * gq_gm_coordinate(&q, d);
      const double v = Map()(x), a7 = pick(w7, cls);
      s7 += a7 * v;
      s5 += pick(w5, cls) * v;
      s3a += pick(w3a, cls) * v;
      s3b += pick(w3b, cls) * v;
      sabs += fabs(a7) * fabs(v);
      if (slot >= 0)
        axis_f[warp][slot] = v;
      if (p == 0)
        axis_f[warp][4 * D] = v;
    }
    s7 = warp_sum(s7);
    s5 = warp_sum(s5);
    s3a = warp_sum(s3a);
    s3b = warp_sum(s3b);
    sabs = warp_sum(sabs);
    __syncwarp();
    if (lane == 0) {
      double volume = 1.0;
#pragma unroll
      for (int d = 0; d < D; d++)
        volume *= 2.0 * h[d];
      b.estimate[r] = s7 * volume;
      const double f0 = axis_f[warp][4 * D];
      b.error[r] = gq_gm_error(s7 * volume, s5 * volume, s3a * volume, s3b * volume, f0 * volume, sabs * volume);
      int best = 0;
      double best_d = gq_gm_fourth_difference(&axis_f[warp][0], f0);
#pragma unroll
      for (int d = 1; d < D; d++) {
        const double diff = gq_gm_fourth_difference(&axis_f[warp][4 * d], f0);
        if (gq_gm_axis_better(diff, h[d], best_d, h[best])) {
          best = d;
          best_d = diff;
        }
      }
      b.axis[r] = (unsigned char)best;
    }
  }
}

} // namespace adaptive
} // namespace gq

#endif
