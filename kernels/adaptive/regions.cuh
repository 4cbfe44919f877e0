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

constexpr int WARPS = 4; // warps per block of 128 threads

// The lanes that evaluate one region: 16 where the rule has at most 128
// points (G7-K15, Genz-Malik up to D = 5), so that a warp holds two regions
// and the shuffles and lane 0's tail (the error, the axis) serve two; 32
// above (D = 6, 7, 8: 201 to 401 points).
__host__ __device__ constexpr int lanes_of(int D)
{
  return (D == 1 ? 15 : 1 + 4 * D + 2 * D * (D - 1) + (1 << D)) <= 128 ? 16 : 32;
}
template <int D> constexpr int lanes_for() { return lanes_of(D); }

// n regions: centre and half-widths region-major (D doubles each); results
// at the region's index.
struct Batch {
  const double *centre, *half;
  double *estimate, *error;
  unsigned char *axis;
  unsigned long long n;
};

// The sum over a region's LANES lanes (xor within the group: the whole
// warp takes part, each group summing its own).
template <int LANES> __device__ __forceinline__ double group_sum(double v)
{
#pragma unroll
  for (int offset = LANES / 2; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// One region's Gauss-Kronrod G7-K15 (D = 1), on lanes 0..14 of its group;
// a region not to write (valid false) is computed all the same, for the
// shuffles.
template <class Map>
__device__ __forceinline__ void line_region(const Batch &b, unsigned long long r, bool valid, int lane)
{
  constexpr int LANES = lanes_for<1>();
  const double c = b.centre[r], h = b.half[r];
  double v = 0.0, wk = 0.0, wg = 0.0;
  if (lane < GQ_GK15_POINTS) {
    double u;
    gq_gk15_point(lane, &u, &wk, &wg);
    const double x = c + h * u;
    v = Map()(&x);
  }
  const double resk = group_sum<LANES>(wk * v), resg = group_sum<LANES>(wg * v),
               resabs = group_sum<LANES>(wk * fabs(v));
  const double mean = resk / 2.0;
  const double resasc = group_sum<LANES>(wk * fabs(v - mean));
  if (lane == 0 && valid) {
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

// One region of Genz-Malik's rule on its group of lanes: the points
// strided over the lanes, each lane summing its points into the rules, then
// shuffles; lane 0 of the group writes the estimate, the error and the
// split axis (not where valid is false: a copy computed for the shuffles).
template <int D, class Map>
__device__ __forceinline__ void box_region(const Batch &b, unsigned long long r, bool valid, int lane,
                                           const PointTable<D> &t, double *axis_f)
{
  constexpr int P = PointTable<D>::P, LANES = lanes_for<D>();
  double c[D], h[D];
#pragma unroll
  for (int d = 0; d < D; d++) {
    c[d] = b.centre[r * D + d];
    h[d] = b.half[r * D + d];
  }
  double s7 = 0.0, s5 = 0.0, s3a = 0.0, s3b = 0.0, sabs = 0.0;
  for (int p = lane; p < P; p += LANES) {
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
  s7 = group_sum<LANES>(s7);
  s5 = group_sum<LANES>(s5);
  s3a = group_sum<LANES>(s3a);
  s3b = group_sum<LANES>(s3b);
  sabs = group_sum<LANES>(sabs);
  __syncwarp();
  // the fourth differences side by side, lane d of the group axis d's, then
  // to every lane (the choice below is lane 0's, in axis order)
  const double f0 = axis_f[4 * D];
  const double own = gq_gm_fourth_difference(&axis_f[4 * (lane < D ? lane : 0)], f0);
  double diff[D];
#pragma unroll
  for (int d = 0; d < D; d++)
    diff[d] = __shfl_sync(0xffffffffu, own, d, LANES);
  if (lane == 0 && valid) {
    double volume = 1.0;
#pragma unroll
    for (int d = 0; d < D; d++)
      volume *= 2.0 * h[d];
    b.estimate[r] = s7 * volume;
    b.error[r] = gq_gm_error(s7 * volume, s5 * volume, s3a * volume, s3b * volume, f0 * volume, sabs * volume);
    int best = 0;
    double best_d = diff[0], best_h = h[0];
#pragma unroll
    for (int d = 1; d < D; d++)
      if (gq_gm_axis_better(diff[d], h[d], best_d, best_h)) {
        best = d;
        best_d = diff[d];
        best_h = h[d];
      }
    b.axis[r] = (unsigned char)best;
  }
  __syncwarp(); // lane 0 has read axis_f before the group's next region writes it
}

// The launch: any grid.  A warp holds 32 / LANES groups; group g of warp w
// of block k takes region (k WARPS + w) G + g, then a grid's worth of
// groups further on, so a block builds its point table once for many
// regions (adaptive.cu caps the grid at what the device holds at once).
// The loop runs while the warp's first group has a region, so every lane
// reaches every shuffle; a group past the end recomputes that region and
// writes nothing.
template <int D, class Map> __global__ void __launch_bounds__(32 * WARPS) regions_kernel(Batch b)
{
  constexpr int LANES = lanes_for<D>(), G = 32 / LANES;
  const int warp = threadIdx.x / 32, group = threadIdx.x % 32 / LANES, lane = threadIdx.x % LANES;
  const unsigned long long stride = (unsigned long long)gridDim.x * WARPS * G;
  unsigned long long base = ((unsigned long long)blockIdx.x * WARPS + warp) * G;
  if constexpr (D == 1) {
    for (; base < b.n; base += stride) {
      const bool valid = base + group < b.n;
      line_region<Map>(b, valid ? base + group : base, valid, lane);
    }
  } else {
    __shared__ PointTable<D> table;
    __shared__ double axis_f[WARPS * G][4 * D + 1]; // the axis points' f, then the centre's
    fill_table<D>(table);
    __syncthreads();
    for (; base < b.n; base += stride) {
      const bool valid = base + group < b.n;
      box_region<D, Map>(b, valid ? base + group : base, valid, lane, table, axis_f[warp * G + group]);
    }
  }
}

} // namespace adaptive
} // namespace gq

#endif
