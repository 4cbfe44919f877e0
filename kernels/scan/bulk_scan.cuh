// bulk_scan.cuh — the one-pass scan of an array (x into y) with its tiles
// moved by the bulk-copy engine (bulk_copy.cuh) instead of by the threads.
//
// A block takes its tile number from the counter (in launch order, as
// lookback_kernel does), and one thread has the engine copy the whole tile
// into shared memory.  The threads then work on the tile where it lies:
//   pass 1   each thread adds its run of ITEMS consecutive items (read
//            blocked from shared memory: no transposes, no item registers);
//            the block scans the runs' totals; the tile publishes and looks
//            back (publish_and_look_back);
//   pass 2   each thread walks its run again from its exclusive prefix and
//            writes each result over its item;
// and one thread has the engine copy the tile's results out.  The same
// compensated pairs in the same order as lookback_kernel: the results are
// lookback_kernel's at the same tile shape, to the bit.
//
// ITEMS is odd: thread t's run starts t ITEMS items into the tile, so the
// runs of a warp's lanes start in distinct banks (2 ITEMS words apart for
// 8-byte items, ITEMS for 4-byte ones) and the blocked reads and writes are
// free of bank conflicts without padding (which a bulk copy cannot leave).
//
// A tile the engine cannot move — the last, partial one, or any tile of an
// x or y that is not 16-byte aligned, or a build for an architecture before
// sm_90 — is moved by the threads, striped (coalesced), through the same
// shared array.
#ifndef GQ_SCAN_BULK_SCAN_CUH
#define GQ_SCAN_BULK_SCAN_CUH

#include "bulk_copy.cuh"
#include "device_scan.cuh"

namespace gq {
namespace scan {

template <class Op, int BLOCK, int ITEMS> struct BulkTileStorage {
  alignas(128) typename Op::In tile_items[BLOCK * ITEMS];
  typename BlockScan<Op, BLOCK>::Storage scan;
  typename Op::Acc prefix;
  unsigned long long tile;
  unsigned long long bar; // the load's mbarrier
};

template <class Op> using ArrayProblem = ScanProblem<Op, ArraySource<typename Op::In>, ArraySink<Op>>;

template <class Op, int BLOCK, int ITEMS, int MIN_BLOCKS = 0>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) bulk_lookback_kernel(const ArrayProblem<Op> p)
{
  using T = typename Op::In;
  using Acc = typename Op::Acc;
  static_assert(std::is_same<T, typename Op::Out>::value, "results are written over their items");
  static_assert(ITEMS % 2 == 1, "odd runs: conflict-free blocked accesses");
  constexpr int TILE = BLOCK * ITEMS;
  constexpr unsigned BYTES = TILE * sizeof(T);
  static_assert(BYTES % 16 == 0, "a bulk copy moves whole 16-byte units");
  __shared__ BulkTileStorage<Op, BLOCK, ITEMS> s;
  const T *x = p.src.x;
  T *y = p.sink.y;
  if (threadIdx.x == 0) {
    const unsigned long long tile = atomicAdd(p.counter, 1ull) - p.base; // see lookback_kernel
    s.tile = tile;
    if (bulk_aligned(x) && tile_valid<TILE>(p.n, tile) == TILE) {
      bulk_barrier_init(&s.bar);
      bulk_load(s.tile_items, x + tile * TILE, BYTES, &s.bar);
    }
  }
  __syncthreads();
  const unsigned long long tile = s.tile, first = tile * TILE;
  const int valid = tile_valid<TILE>(p.n, tile);
  if (bulk_aligned(x) && valid == TILE) {
    bulk_wait(&s.bar, 0);
  } else {
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const int i = k * BLOCK + threadIdx.x;
      s.tile_items[i] = i < valid ? x[first + i] : T(0);
    }
    __syncthreads();
  }

  T *run = s.tile_items + threadIdx.x * ITEMS;
  Acc mine = Op::zero();
#pragma unroll
  for (int k = 0; k < ITEMS; k++)
    Op::add(mine, run[k]);
  Acc total;
  const Acc excl = BlockScan<Op, BLOCK>::exclusive(s.scan, mine, &total);
  publish_and_look_back(p, tile, total, &s.prefix);
  __syncthreads();
  const Acc prefix = s.prefix;
  if (tile == p.tiles - 1 && threadIdx.x == 0 && p.carry_out)
    *p.carry_out = Op::combine(prefix, total);

  Acc running = Op::combine(prefix, excl);
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    const T v = run[k];
    const Acc before = running;
    Op::add(running, v);
    run[k] = p.sink.value(before, running, v, v);
  }

  if (bulk_aligned(y) && valid == TILE) {
    bulk_fence_writes();
    __syncthreads();
    if (threadIdx.x == 0)
      bulk_store(y + first, s.tile_items, BYTES);
  } else {
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const int i = k * BLOCK + threadIdx.x;
      if (i < valid)
        y[first + i] = s.tile_items[i];
    }
  }
}

} // namespace scan
} // namespace gq
#endif
