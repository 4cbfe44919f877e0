// mc_reduce.cuh — the Monte Carlo reduction kernel: source (a quad of random
// points) x map (g at each point, minus the shift) x accumulator (shifted
// sums) -> warp shuffles -> block -> last-block merge.
//
// Work is laid out in quads (four samples, one Philox call per coordinate).
// Each block walks tiles of BLOCK*QUADS consecutive quads with a grid-stride
// loop, so any n up to 2^63 is handled by a grid sized to the device.  Thread
// t takes quads t, t+BLOCK, ... of a tile: QUADS independent Philox chains in
// flight (ILP), whose values are summed pairwise before one TwoSum per tile.
// The random words are used from registers and never stored.
#ifndef GQ_MC_REDUCE_CUH
#define GQ_MC_REDUCE_CUH

#include "mc_moments.cuh"
#include "philox_source.cuh"

namespace gq {

// Values of one quad, shifted; lanes at or past `valid` count as nothing.
template <int D, class Real, class Source, class Map>
__device__ __forceinline__ void quad_sums(const Source &src, const Map &map, double shift, unsigned long long q,
                                          int valid, double *sum, double *sum_sq)
{
  Real x[4][D];
  src.quad(q, x);
  double y[4];
#pragma unroll
  for (int l = 0; l < 4; l++) {
    y[l] = (double)map(x[l]) - shift;
    if (l >= valid)
      y[l] = 0.0;
  }
  *sum = (y[0] + y[1]) + (y[2] + y[3]);
  *sum_sq = fma(y[0], y[0], y[1] * y[1]) + fma(y[2], y[2], y[3] * y[3]);
}

// Quads first .. first+quads-1 of the stream (source-relative indices for a
// buffer), samples up to sample_end (exclusive, counted like the quads) only.
template <int BLOCK, int QUADS, int D, class Real, class Source, class Map>
__global__ void __launch_bounds__(BLOCK)
mc_moments_kernel(Source src, Map map, double shift, unsigned long long first, unsigned long long quads,
                  unsigned long long sample_end, gq_mc_moments *partials, unsigned int *ticket, gq_mc_moments *out)
{
  constexpr unsigned long long TILE = (unsigned long long)BLOCK * QUADS;
  gq_mc_moments acc = gq_mc_moments_zero();
  // whole quads only in the unmasked loop
  const unsigned long long whole = (sample_end - 4 * first) / 4 < quads ? (sample_end - 4 * first) / 4 : quads;
  unsigned long long base = (unsigned long long)blockIdx.x * TILE;
  const unsigned long long step = (unsigned long long)gridDim.x * TILE;
  for (; base + TILE <= whole; base += step) {
    double s[QUADS], q[QUADS];
#pragma unroll
    for (int k = 0; k < QUADS; k++)
      quad_sums<D, Real>(src, map, shift, first + base + k * BLOCK + threadIdx.x, 4, &s[k], &q[k]);
#pragma unroll
    for (int w = 1; w < QUADS; w *= 2)
#pragma unroll
      for (int k = 0; k + w < QUADS; k += 2 * w) {
        s[k] += s[k + w];
        q[k] += q[k + w];
      }
    gq_mc_moments_add(&acc, s[0], q[0]);
  }
  if (base < quads) { // the one partial tile, taken by one block
#pragma unroll
    for (int k = 0; k < QUADS; k++) {
      const unsigned long long j = base + k * BLOCK + threadIdx.x;
      if (j < quads) {
        const unsigned long long left = sample_end - 4 * (first + j);
        double s, q;
        quad_sums<D, Real>(src, map, shift, first + j, left < 4 ? (int)left : 4, &s, &q);
        gq_mc_moments_add(&acc, s, q);
      }
    }
  }
  acc = block_reduce<BLOCK>(acc, MomentsMerge(), gq_mc_moments_zero());
  last_block_merge<BLOCK>(acc, partials, ticket, out);
}

} // namespace gq
#endif
