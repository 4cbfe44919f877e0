// array_reduce_kernel.cuh — the engine over arrays: source (one or two
// arrays, 16-byte loads) x map x thread accumulator, then the block tree and
// the last-block merge.  The grid kernel (transform_reduce.cuh) stays free of
// these headers so that NVRTC, which is given only what it needs, compiles it.
#ifndef GQ_ARRAY_REDUCE_KERNEL_CUH
#define GQ_ARRAY_REDUCE_KERNEL_CUH

#include <type_traits>

#include "accumulators.cuh"
#include "block_reduce.cuh"
#include "last_block.cuh"
#include "sources.cuh"

namespace gq {

// The block tree and the grid level over the threads' results.
template <int BLOCK, bool CLASSIFY, class Grid, class Thread>
__device__ __forceinline__ void block_and_grid(const Thread &th, typename CombineOf<Thread>::acc *scratch,
                                               unsigned *counter, typename CombineOf<Thread>::acc *result,
                                               void *finished, Completion completion, uint64_t n)
{
  using Combine = typename CombineOf<Thread>::type;
  auto acc = block_reduce<BLOCK>(th.result(), Combine(), Combine::identity());
  Grid::template finish<BLOCK, Combine>(acc, scratch, counter, result, finished, completion, n);
}

// The statistics' fast pass under the fenced last block: the trees carry
// StatsLite (accumulators.cuh says why), written to the scratch in its
// place, and only the result is built as a gq_stats_acc — the same merges
// in the same order as with gq_stats_acc, so the same bits.
#ifndef GQ_STATS_LITE_TREE
#define GQ_STATS_LITE_TREE 1
#endif
struct StatsLiteFull { // a merged StatsLite as the gq_stats_acc it stands for
  double shift;
  __device__ __forceinline__ gq_stats_acc operator()(const StatsLite &p) const { return p.full(shift); }
};
template <int BLOCK, bool CLASSIFY, class Grid>
__device__ __forceinline__ void block_and_grid(const StatsThread &th, gq_stats_acc *scratch, unsigned *counter,
                                               gq_stats_acc *result, void *finished, Completion completion,
                                               uint64_t n)
{
  if constexpr (CLASSIFY || !GQ_STATS_LITE_TREE || !std::is_same<Grid, LastBlock>::value) {
    auto acc = block_reduce<BLOCK>(th.result(), StatsCombine(), StatsCombine::identity());
    Grid::template finish<BLOCK, StatsCombine>(acc, scratch, counter, result, finished, completion, n);
  } else {
    static_assert(sizeof(StatsLite) <= sizeof(gq_stats_acc), "a StatsLite partial fits a gq_stats_acc slot");
    // The fenced last block over StatsLite partials, written to the scratch
    // in place of gq_stats_acc ones; the merged total becomes the result.
    const StatsLiteCombine op;
    const StatsLite v = block_reduce<BLOCK>(th.lite(), op, StatsLiteCombine::identity());
    last_block_merge_by<BLOCK, Fenced, StatsLite, StatsLiteCombine, gq_stats_acc, StatsCombine>(
        v, reinterpret_cast<StatsLite *>(scratch), counter, result, op, StatsLiteCombine::identity(), finished,
        completion, n, StatsLiteFull{th.shift});
  }
}

// The array source: source (one or two arrays) x map (Identity,
// ExactProduct, Difference) x thread accumulator (SumThread, RmsThread,
// StatsThread), then the block tree and the last-block merge into *result.
// Tiles are BLOCK*ITEMS vectors; thread t loads vectors t, t+BLOCK, ... of a
// tile, all ITEMS (per array) issued before any is used, so ITEMS x 16 bytes
// per array are in flight per thread.  The misaligned head goes to block 0,
// the scalar tail to the last block.  Element indices (for min/max and the
// first NaN) are 64-bit and absolute within the arrays.
//
// The grid level (Grid, last_block.cuh): the last-block merge into *result
// (and `finished`), with fences (LastBlock: any accumulator) or against a
// poisoned scratch (PoisonedLastBlock: the lite ones, made of doubles).  The
// benches plug in others (bench/host_merge.cuh, bench/bench_grid.cu).
template <int BLOCK, int ITEMS, int MIN_BLOCKS, bool CLASSIFY, class Source, class Map, class Thread,
          class Grid = LastBlock>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
array_reduce_kernel(Source src, Map map, typename CombineOf<Thread>::acc *scratch, unsigned *counter,
                    typename CombineOf<Thread>::acc *result, void *finished, Completion completion)
{
  using Combine = typename CombineOf<Thread>::type;
  constexpr int W = Source::WIDTH;
  constexpr uint64_t TILE = (uint64_t)BLOCK * ITEMS;
  Thread th;
  thread_begin<CLASSIFY>(th, src, map);

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
    th.flush(); // a thread accumulator that adds a tile plainly folds it in here
  }
  if (base < nvec) { // the one partial tile, taken by one block
    // All loads first, then the adds: loaded and added item by item, each
    // item would wait for its own memory round trip (a small reduction is
    // nothing but this tile).
    typename Source::V va[ITEMS], vb[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const uint64_t v = base + (uint64_t)k * BLOCK + threadIdx.x;
      if (v < nvec) {
        va[k] = src.load_a(v);
        vb[k] = src.load_b(v);
      }
    }
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const uint64_t v = base + (uint64_t)k * BLOCK + threadIdx.x;
      if (v < nvec) {
#pragma unroll
        for (int j = 0; j < W; j++)
          th.template add<CLASSIFY>(map(lane(va[k], j), lane(vb[k], j)), (uint64_t)src.head + v * W + j);
      }
    }
  }
  if (blockIdx.x == gridDim.x - 1) {
    const uint64_t i = src.tail_begin() + threadIdx.x;
    if (i < src.n)
      th.template add<CLASSIFY>(map(src.elem_a(i), src.elem_b(i)), i);
  }

  block_and_grid<BLOCK, CLASSIFY, Grid>(th, scratch, counter, result, finished, completion, src.n);
}

} // namespace gq
#endif
