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

#include "accumulators.cuh"
#include "block_reduce.cuh"
#include "global_accumulate.cuh"
#include "last_block.cuh"
#include "sources.cuh"

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

// The array source: source (one or two arrays) x map (Identity,
// ExactProduct, Difference) x thread accumulator (SumThread, RmsThread,
// StatsThread), then the block tree and the last-block merge into *result.
// Tiles are BLOCK*ITEMS vectors; thread t loads vectors t, t+BLOCK, ... of a
// tile, all ITEMS (per array) issued before any is used, so ITEMS x 16 bytes
// per array are in flight per thread.  The misaligned head goes to block 0,
// the scalar tail to the last block.  Element indices (for min/max and the
// first NaN) are 64-bit and absolute within the arrays.
template <int BLOCK, int ITEMS, int MIN_BLOCKS, bool CLASSIFY, class Source, class Map, class Thread>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
array_reduce_kernel(Source src, Map map, typename CombineOf<Thread>::acc *scratch, unsigned *counter,
                    typename CombineOf<Thread>::acc *result)
{
  using Combine = typename CombineOf<Thread>::type;
  constexpr int W = Source::WIDTH;
  constexpr uint64_t TILE = (uint64_t)BLOCK * ITEMS;
  Thread th;

  if (blockIdx.x == 0 && threadIdx.x < (unsigned)src.head) {
    const uint64_t i = threadIdx.x;
    th.template add<CLASSIFY>(map(src.elem_a(i), src.elem_b(i)), i);
  }

  const uint64_t nvec = src.vectors();
  uint64_t base = (uint64_t)blockIdx.x * TILE;
  const uint64_t step = (uint64_t)gridDim.x * TILE;
  for (; base + TILE <= nvec; base += step) {
    typename Source::V va[ITEMS], vb[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      va[k] = src.load_a(base + (uint64_t)k * BLOCK + threadIdx.x);
      vb[k] = src.load_b(base + (uint64_t)k * BLOCK + threadIdx.x);
    }
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const uint64_t first = (uint64_t)src.head + (base + (uint64_t)k * BLOCK + threadIdx.x) * W;
#pragma unroll
      for (int j = 0; j < W; j++)
        th.template add<CLASSIFY>(map(lane(va[k], j), lane(vb[k], j)), first + j);
    }
  }
  if (base < nvec) { // the one partial tile, taken by one block
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const uint64_t v = base + (uint64_t)k * BLOCK + threadIdx.x;
      if (v < nvec) {
        const typename Source::V a = src.load_a(v), b = src.load_b(v);
#pragma unroll
        for (int j = 0; j < W; j++)
          th.template add<CLASSIFY>(map(lane(a, j), lane(b, j)), (uint64_t)src.head + v * W + j);
      }
    }
  }
  if (blockIdx.x == gridDim.x - 1) {
    const uint64_t i = src.tail_begin() + threadIdx.x;
    if (i < src.n)
      th.template add<CLASSIFY>(map(src.elem_a(i), src.elem_b(i)), i);
  }

  auto acc = block_reduce<BLOCK>(th.result(), Combine(), Combine::identity());
  last_block_merge<BLOCK>(acc, scratch, counter, result, Combine(), Combine::identity());
}

// Blocks to launch: as many as stay resident on the device, no more than the
// tiles there are.
template <class Kernel>
inline int resident_grid(Kernel kernel, int block, int sms, long long tiles)
{
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0) != cudaSuccess || per_sm < 1)
    per_sm = 1;
  long long grid = (long long)per_sm * sms;
  if (grid > tiles)
    grid = tiles;
  return grid < 1 ? 1 : (int)grid;
}

} // namespace gq
#endif
