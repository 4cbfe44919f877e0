// vegas.cuh — one VEGAS+ pass on the GPU (gq_vegas_pass, internal.h), as a
// kernel template that NVRTC instantiates over the expression's map.
//
// A thread takes one quad: four consecutive samples of one hypercube (the
// samples of hypercube h are its quads first_quad[h] .. first_quad[h+1] - 1,
// found by binary search), places them by vegas_map.h exactly as the CPU
// does, and evaluates f at each.  Two accumulations per quad:
//   sum, sum2 per hypercube — the thread's four samples share a hypercube,
//     and neighbouring threads mostly do too, so the warp combines equal
//     hypercubes (hist/warp_aggregate.cuh, __match_any_sync) and one lane per
//     hypercube adds to global memory;
//   train and train_weight, D x bins cells of v^2 / n_h and of 1 / n_h — a
//     histogram by key inside the sampling kernel, two ways (Bins):
//       WARP    warp-aggregated atomics by key straight to global memory (one
//               match, two shuffle trees, two atomics per key and warp);
//       SHARED  the block's private copy of the cells in shared memory (when
//               2 x D x bins doubles fit), each lane's own shared atomics,
//               added to global memory once per block.
// The loop over quads is warp-uniform (lanes past the end evaluate the last
// quad and add nothing), since the warp functions need every lane.
// Atomic additions make the sums' last bits depend on their order.
#ifndef GQ_VEGAS_CUH
#define GQ_VEGAS_CUH

#include "../hist/warp_aggregate.cuh"
#include "../../src/lib/vegas_map.h"

namespace gq {
namespace vegas {

enum Bins { WARP = 0, SHARED = 1 };
constexpr int BLOCK = 256;

template <int D> struct Pass {
  const double *edges;                  // D x (bins + 1)
  const unsigned long long *counts;     // hcubes
  const unsigned long long *first_quad; // hcubes + 1: the pass's quads at hcubes
  double *sum, *sum2;                   // hcubes each (zeroed)
  double *train, *train_weight;         // D x bins each (zeroed)
  double a[D], w[D];
  unsigned long long seed;
  unsigned int hcubes, pass;
  int bins, strata;
};

// warp_aggregate.cuh's sink: the leader lane's atomic for its key.
struct Cells {
  double *cells;
  __device__ __forceinline__ void add(unsigned key, unsigned, double v) const { atomicAdd(cells + key, v); }
};

// The hypercube holding quad q: the last h with first_quad[h] <= q.
__device__ __forceinline__ unsigned int hcube_of(const unsigned long long *first_quad, unsigned int hcubes,
                                                 unsigned long long q)
{
  unsigned int lo = 0, hi = hcubes - 1;
  while (lo < hi) {
    const unsigned int mid = (lo + hi + 1) / 2;
    if (first_quad[mid] <= q)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// Both training cells of key by warp_aggregate.cuh's primitives: the peers
// that share the key found once, both values summed over them, the leader's
// two atomics.
__device__ __forceinline__ void add_training(double *train, double *weight, unsigned key, double v, double w,
                                             bool valid)
{
  const unsigned peers = __match_any_sync(hist::FULL_WARP, valid ? key : 0xffffffffu);
  const double sv = hist::reduce_peers(peers, valid ? v : 0.0), sw = hist::reduce_peers(peers, valid ? w : 0.0);
  if (valid && hist::lane_id() == __ffs(peers) - 1) {
    atomicAdd(train + key, sv);
    atomicAdd(weight + key, sw);
  }
}

template <int D, class Real, class Map, int BINS>
__global__ void __launch_bounds__(BLOCK) pass_kernel(const Pass<D> p)
{
  extern __shared__ double shared_cells[];
  const int cells = D * p.bins;
  if (BINS == SHARED) {
    for (int c = threadIdx.x; c < 2 * cells; c += BLOCK)
      shared_cells[c] = 0.0;
    __syncthreads();
  }
  const Cells sum{p.sum}, sum2{p.sum2};
  const Map map;
  const unsigned long long quads = p.first_quad[p.hcubes]; // computed on the device (alloc.cu)
  const unsigned long long stride = (unsigned long long)gridDim.x * BLOCK;
  for (unsigned long long base = (unsigned long long)blockIdx.x * BLOCK; base < quads; base += stride) {
    const unsigned long long mine = base + threadIdx.x;
    const bool valid = mine < quads;
    const unsigned long long q = valid ? mine : quads - 1;
    const unsigned int h = hcube_of(p.first_quad, p.hcubes, q);
    const unsigned long long k4 = q - p.first_quad[h], n = p.counts[h];
    const int lanes = valid ? (n - 4 * k4 < 4 ? (int)(n - 4 * k4) : 4) : 0;
    unsigned int cell[D];
    unsigned int rest = h;
#pragma unroll
    for (int d = 0; d < D; d++) {
      cell[d] = rest % (unsigned int)p.strata;
      rest /= (unsigned int)p.strata;
    }
    gq_philox4 words[D];
#pragma unroll
    for (int d = 0; d < D; d++)
      words[d] = gq_vegas_quad(p.seed, p.pass, h, k4, d);
    double s = 0.0, s2 = 0.0;
    const double inv_n = 1.0 / (double)n;
#pragma unroll
    for (int l = 0; l < 4; l++) {
      Real x[D];
      int bin[D];
      double jacobian = 1.0;
#pragma unroll
      for (int d = 0; d < D; d++)
        x[d] = (Real)fma(gq_vegas_map(p.edges + d * (p.bins + 1), p.bins, p.strata, cell[d], words[d].v[l], &bin[d],
                                      &jacobian),
                         p.w[d], p.a[d]);
      const bool counts = l < lanes;
      const double v = counts ? (double)map(x) * jacobian : 0.0, v2 = v * v;
      s += v;
      s2 += v2;
#pragma unroll
      for (int d = 0; d < D; d++) {
        const unsigned key = (unsigned)(d * p.bins + bin[d]);
        if (BINS == SHARED) {
          if (counts) {
            atomicAdd(shared_cells + key, v2 * inv_n);
            atomicAdd(shared_cells + cells + key, inv_n);
          }
        } else {
          add_training(p.train, p.train_weight, key, v2 * inv_n, inv_n, counts);
        }
      }
    }
    hist::add_match<true>(sum, h, s, valid);
    hist::add_match<true>(sum2, h, s2, valid);
  }
  if (BINS == SHARED) {
    __syncthreads();
    for (int c = threadIdx.x; c < cells; c += BLOCK)
      if (shared_cells[cells + c] != 0.0) {
        atomicAdd(p.train + c, shared_cells[c]);
        atomicAdd(p.train_weight + c, shared_cells[cells + c]);
      }
  }
}

} // namespace vegas
} // namespace gq
#endif
