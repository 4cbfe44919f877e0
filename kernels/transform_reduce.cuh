// transform_reduce.cuh — the device-level reduction engine:
//   source (an index range) x map (index -> value) x accumulator (compensated
//   sum) -> warp shuffles -> block (shared memory) -> one atomic per block.
//
// Each block walks tiles of BLOCK*ITEMS consecutive indices with a grid-stride
// loop; thread t takes indices t, t+BLOCK, ... of a tile (coalesced when the
// map reads arrays).  The ITEMS values of a tile are independent (ILP), summed
// pairwise, then added to the thread's compensated sum with one TwoSum: the
// pairwise step errs by at most ~3u of a tile's value and those errors are
// independent across the ~n/ITEMS tiles, so the total stays far below an ulp
// of the result while TwoSum is paid once per ITEMS points.
//
// Indices are carried as doubles (exact below 2^53): the tile base advances
// by one exact addition, so no 64-bit integer-to-double conversion (a slow
// path on the GPU) is done per point.
#ifndef GQ_TRANSFORM_REDUCE_CUH
#define GQ_TRANSFORM_REDUCE_CUH

#include "block_reduce.cuh"
#include "global_accumulate.cuh"

namespace gq {

// out[k], k < KEYS, receives the sum over the threads t with t % KEYS == k.
// BLOCK and the tile are multiples of KEYS, so that thread's indices are
// first + t (mod KEYS): KEYS = 2 splits the sum by index parity for free.
// out must be zeroed before the launch.
template <int BLOCK, int ITEMS, int KEYS, class Map>
__global__ void __launch_bounds__(BLOCK)
transform_csum_kernel(double first, long long count, Map map, gq_csum *out)
{
  constexpr long long TILE = (long long)BLOCK * ITEMS;
  static_assert(BLOCK % KEYS == 0, "BLOCK must be a multiple of KEYS");
  gq_csum acc = gq_csum_zero();
  long long base = (long long)blockIdx.x * TILE;
  const long long step = (long long)gridDim.x * TILE;
  double index = first + (double)base + (double)threadIdx.x;
  const double index_step = (double)step;

  for (; base + TILE <= count; base += step, index += index_step) {
    double v[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
      v[k] = map(index + (double)(k * BLOCK));
#pragma unroll
    for (int w = 1; w < ITEMS; w *= 2)
#pragma unroll
      for (int k = 0; k + w < ITEMS; k += 2 * w)
        v[k] += v[k + w];
    gq_csum_add(&acc, v[0]);
  }
  if (base < count) { // the one partial tile, taken by one block
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
      if (base + k * BLOCK + threadIdx.x < count)
        gq_csum_add(&acc, map(index + (double)(k * BLOCK)));
  }

  acc = block_reduce<BLOCK, KEYS>(acc, CsumMerge(), gq_csum_zero());
  if (threadIdx.x < KEYS)
    atomic_add(&out[threadIdx.x], acc);
}

} // namespace gq
#endif
