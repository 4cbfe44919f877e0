// regions.cuh — adaptive cubature's regions on the GPU (src/lib/adaptive.c
// drives the passes): one warp per region, the rule's points
// (adaptive_rule.h, decoded once per block into a shared table) strided over
// its lanes, each lane summing its points into the rule, the lower rules
// and the rule on |f|, then a butterfly of shuffles; lane 0 writes the
// estimate, the error and the split axis.  Genz-Malik's axis points go
// through shared memory for the fourth differences.  Blocks stay for many
// regions (a grid-stride loop over warps).  A warp per region keeps the 17 (D = 2) to 401 (D = 8)
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

__device__ __forceinline__ double warp_sum(double v)
{
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// One region's Gauss-Kronrod G7-K15 (D = 1), on lanes 0..14 of its warp.
template <class Map> __device__ __forceinline__ void line_region(const Batch &b, unsigned long long r, int lane)
{
  const double c = b.centre[r], h = b.half[r];
  double v = 0.0, wk = 0.0, wg = 0.0;
  if (lane < GQ_GK15_POINTS) {
    double u;
    gq_gk15_point(lane, &u, &wk, &wg);
    const double x = c + h * u;
    v = Map()(&x);
  }
  const double resk = warp_sum(wk * v), resg = warp_sum(wg * v), resabs = warp_sum(wk * fabs(v));
  const double mean = resk / 2.0;
  const double resasc = warp_sum(wk * fabs(v - mean));
  if (lane == 0) {
    b.estimate[r] = resk * h;
    b.error[r] = gq_gk15_error(resk * h, resg * h, resabs * h, resasc * h);
    b.axis[r] = 0;
  }
}

// Genz-Malik's points of one block, built once by the block from
// gq_gm_describe: coordinate d of point p at u[d][p] (lanes read
// neighbouring points: no bank conflicts), its class and axis slot, and the
// four rules' weights per class.  A thread then reads its points' values
// instead of decoding them (integer division, the pair loop, selects)
// for every region.
template <int D> struct PointTable {
  static constexpr int P = 1 + 4 * D + 2 * D * (D - 1) + (1 << D);
  double u[D][P];
  double w[4][5]; // w7, w5, w3a, w3b by class
  signed char cls[P], slot[P];
};

template <int D> __device__ void fill_table(PointTable<D> &t)
{
  constexpr int P = PointTable<D>::P;
  for (int p = threadIdx.x; p < P; p += blockDim.x) {
    const gq_gm_pt q = gq_gm_describe(D, p);
#pragma unroll
    for (int d = 0; d < D; d++)
      t.u[d][p] = gq_gm_coordinate(&q, d);
    t.cls[p] = (signed char)q.cls;
    t.slot[p] = (signed char)q.slot;
  }
  if (threadIdx.x == 0) {
    double w7[5], w5[5], w3a[5], w3b[5];
    gq_gm_weights(D, w7, w5);
    gq_gm_low_weights(D, w3a, w3b);
    for (int k = 0; k < 5; k++) {
      t.w[0][k] = w7[k];
      t.w[1][k] = w5[k];
      t.w[2][k] = w3a[k];
      t.w[3][k] = w3b[k];
    }
  }
}

// One region of Genz-Malik's rule on its warp: the points strided over the
// lanes, each lane summing its points into the rules, then shuffles; lane
// 0 writes the estimate, the error and the split axis.
template <int D, class Map>
__device__ __forceinline__ void box_region(const Batch &b, unsigned long long r, int lane,
                                           const PointTable<D> &t, double *axis_f)
{
  constexpr int P = PointTable<D>::P;
  double c[D], h[D];
#pragma unroll
  for (int d = 0; d < D; d++) {
    c[d] = b.centre[r * D + d];
    h[d] = b.half[r * D + d];
  }
  double s7 = 0.0, s5 = 0.0, s3a = 0.0, s3b = 0.0, sabs = 0.0;
  for (int p = lane; p < P; p += 32) {
    double x[D];
#pragma unroll
    for (int d = 0; d < D; d++)
      x[d] = c[d] + h[d] * t.u[d][p];
    const int cls = t.cls[p], slot = t.slot[p];
    const double v = Map()(x), a7 = t.w[0][cls];
    s7 += a7 * v;
    s5 += t.w[1][cls] * v;
    s3a += t.w[2][cls] * v;
    s3b += t.w[3][cls] * v;
    sabs += fabs(a7) * fabs(v);
    if (slot >= 0)
      axis_f[slot] = v;
    if (p == 0)
      axis_f[4 * D] = v;
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
    const double f0 = axis_f[4 * D];
    b.error[r] = gq_gm_error(s7 * volume, s5 * volume, s3a * volume, s3b * volume, f0 * volume, sabs * volume);
    int best = 0;
    double best_d = gq_gm_fourth_difference(&axis_f[0], f0);
#pragma unroll
    for (int d = 1; d < D; d++) {
      const double diff = gq_gm_fourth_difference(&axis_f[4 * d], f0);
      if (gq_gm_axis_better(diff, h[d], best_d, h[best])) {
        best = d;
        best_d = diff;
      }
    }
    b.axis[r] = (unsigned char)best;
  }
  __syncwarp(); // lane 0 has read axis_f before the warp's next region writes it
}

// The launch: any grid; each warp takes regions blockIdx.x WARPS + warp,
// then a grid's worth of warps further on, so a block builds its point
// table once for many regions (adaptive.cu caps the grid at what the
// device holds at once).
template <int D, class Map> __global__ void __launch_bounds__(32 * WARPS) regions_kernel(Batch b)
{
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned long long stride = (unsigned long long)gridDim.x * WARPS;
  if constexpr (D == 1) {
    for (unsigned long long r = (unsigned long long)blockIdx.x * WARPS + warp; r < b.n; r += stride)
      line_region<Map>(b, r, lane); // whole warps: the shuffles see only full warps
  } else {
    __shared__ PointTable<D> table;
    __shared__ double axis_f[WARPS][4 * D + 1]; // the axis points' f, then the centre's
    fill_table<D>(table);
    __syncthreads();
    for (unsigned long long r = (unsigned long long)blockIdx.x * WARPS + warp; r < b.n; r += stride)
      box_region<D, Map>(b, r, lane, table, axis_f[warp]);
  }
}

} // namespace adaptive
} // namespace gq

#endif
