// device_scan.cuh — device-wide scans, two ways, over any source and sink
// (tile.cuh) and any Op (scan_ops.cuh):
//
//   lookback_kernel      one pass (decoupled look-back, lookback.cuh): each
//                        block takes the next tile number from a counter,
//                        scans its tile, publishes the tile's aggregate, looks
//                        back for the prefix of the tiles before it, publishes
//                        its inclusive prefix and writes its results.  Reads
//                        n items and writes n: the traffic of a copy.
//   three phases         reduce_tiles_kernel (each tile's total), then
//                        scan_totals_kernel (one block: the tiles' offsets),
//                        then rescan_tiles_kernel (each tile scanned again
//                        from its offset).  Reads n items twice and writes n;
//                        the tiles' totals are never rounded, so the results
//                        keep the one-pass scan's bound (the pairs combine in
//                        another order: the last bits may differ).
//
// Both start from a carry (the total of whatever came before the first
// item: the previous chunk of a stream) and leave the total of everything
// in carry_out; the two may be the same word (it is read before it is
// written: see lookback_kernel).
#ifndef GQ_DEVICE_SCAN_CUH
#define GQ_DEVICE_SCAN_CUH

#include "block_scan.cuh"
#include "lookback.cuh"
#include "tile.cuh"

namespace gq {
namespace scan {

template <class Op, class Source, class Sink> struct ScanProblem {
  using Acc = typename Op::Acc;
  Source src;
  Sink sink;
  unsigned long long n;       // items
  unsigned long long tiles;   // tiles of BLOCK x ITEMS
  unsigned long long *counter; // tile numbers: atomicAdd(counter, 1) - base
  unsigned long long base;    // the counter's value before this launch
  TileStates<Acc> states;     // look-back; three phases: aggregate[] holds the offsets
  const Acc *carry_in;
  Acc *carry_out;
};

// Items of tile `tile` that exist.
template <int TILE> __device__ __forceinline__ int tile_valid(unsigned long long n, unsigned long long tile)
{
  const unsigned long long left = n - tile * TILE;
  return left < (unsigned long long)TILE ? (int)left : TILE;
}

// The shared memory of one tile.
template <class Op, class Item, int BLOCK, int ITEMS> struct TileStorage {
  alignas(16) Item stage[Staging<Item, BLOCK, ITEMS>::SIZE]; // 16: a bulk store's source (cumulative.cuh)
  typename BlockScan<Op, BLOCK>::Storage scan;
  typename Op::Acc prefix;
  unsigned long long tile;
  Item start;
};

// A tile's items in blocked order, and what the block scan made of them.
template <class Op, class Item, int ITEMS> struct TileItems {
  Item items[ITEMS];
  typename Op::Acc excl;  // the thread's exclusive prefix within the tile
  typename Op::Acc total; // the tile's total
  unsigned long long first;
  int valid;
};

template <class Op, class Source, class Sink, int BLOCK, int ITEMS>
__device__ __forceinline__ void load_and_scan(const ScanProblem<Op, Source, Sink> &p,
                                              TileStorage<Op, typename Source::Item, BLOCK, ITEMS> &s,
                                              unsigned long long tile,
                                              TileItems<Op, typename Source::Item, ITEMS> &t)
{
  constexpr int TILE = BLOCK * ITEMS;
  t.first = tile * TILE;
  t.valid = tile_valid<TILE>(p.n, tile);
  p.src.template load<BLOCK, ITEMS>(t.items, s.stage, t.first, t.valid);
  t.excl = BlockScan<Op, BLOCK>::exclusive(s.scan, thread_total<Op>(t.items), &t.total);
}

// Scan the tile from `prefix` (the combination of every item before the
// tile, in every thread) and store the results.
template <class Op, class Source, class Sink, int BLOCK, int ITEMS>
__device__ __forceinline__ void finish_tile(const ScanProblem<Op, Source, Sink> &p,
                                            TileStorage<Op, typename Source::Item, BLOCK, ITEMS> &s,
                                            const TileItems<Op, typename Source::Item, ITEMS> &t,
                                            typename Op::Acc prefix)
{
  using Out = typename Op::Out;
  static_assert(sizeof(Out) == sizeof(typename Source::Item), "results are staged where the items were");
  Out values[ITEMS];
  thread_results<Op>(p.sink, Op::combine(prefix, t.excl), t.items, s.start, values);
  p.sink.template store<BLOCK, ITEMS>(values, reinterpret_cast<Out *>(s.stage), t.first, t.valid);
}

// The tile's place in the chain, by the whole block once its total is
// known: tile 0 publishes its inclusive prefix (from the carry); any other
// publishes its aggregate, then warp 0 looks back and publishes the
// inclusive prefix.  Thread 0 leaves the combination of everything before
// the tile in *prefix (shared memory: the caller's barrier publishes it).
template <class Op, class Source, class Sink>
__device__ __forceinline__ void publish_and_look_back(const ScanProblem<Op, Source, Sink> &p, unsigned long long tile,
                                                      const typename Op::Acc &total, typename Op::Acc *prefix)
{
  using Acc = typename Op::Acc;
  if (tile == 0) {
    if (threadIdx.x == 0) {
      // Read before tile 0 publishes: every later tile, the last included
      // (which may write carry_out over carry_in), waits for that release.
      const Acc carry = p.carry_in ? *p.carry_in : Op::zero();
      *prefix = carry;
      p.states.publish(0, STATUS_INCLUSIVE, Op::combine(carry, total));
    }
  } else {
    if (threadIdx.x == 0)
      p.states.publish((int)tile, STATUS_AGGREGATE, total);
    if (threadIdx.x < 32) {
      const Acc before = p.states.template look_back<Op>((int)tile);
      if (threadIdx.x == 0) {
        p.states.publish((int)tile, STATUS_INCLUSIVE, Op::combine(before, total));
        *prefix = before;
      }
    }
  }
}

// One pass.  One tile per block: grid = p.tiles.  MIN_BLOCKS (the policy's)
// caps the registers so that that many blocks fit on a multiprocessor: the
// look-back and the scans leave a block's loads idle, so the loads in flight
// come from the other resident blocks.  0 states no minimum (PTX gets no
// .minnctapersm: the compiler's own register choice).
template <class Op, class Source, class Sink, int BLOCK, int ITEMS, int MIN_BLOCKS = 0>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) lookback_kernel(const ScanProblem<Op, Source, Sink> p)
{
  using Acc = typename Op::Acc;
  __shared__ TileStorage<Op, typename Source::Item, BLOCK, ITEMS> s;
  if (threadIdx.x == 0) {
    // In-order numbers, not blockIdx: a block that holds a number is
    // running, so the tiles it waits for are running or done (blocks are not
    // scheduled in blockIdx order; waiting on an unscheduled one could hang).
    s.tile = atomicAdd(p.counter, 1ull) - p.base;
    s.start = p.src.at_start();
  }
  __syncthreads();
  const unsigned long long tile = s.tile;
  TileItems<Op, typename Source::Item, ITEMS> t;
  load_and_scan(p, s, tile, t);
  publish_and_look_back(p, tile, t.total, &s.prefix);
  __syncthreads();
  const Acc prefix = s.prefix;
  if (tile == p.tiles - 1 && threadIdx.x == 0 && p.carry_out)
    *p.carry_out = Op::combine(prefix, t.total);
  finish_tile(p, s, t, prefix);
}

// Three phases, 1: each tile's total into aggregate[tile].
template <class Op, class Source, class Sink, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) reduce_tiles_kernel(const ScanProblem<Op, Source, Sink> p)
{
  __shared__ TileStorage<Op, typename Source::Item, BLOCK, ITEMS> s;
  TileItems<Op, typename Source::Item, ITEMS> t;
  load_and_scan(p, s, blockIdx.x, t);
  if (threadIdx.x == 0)
    p.states.aggregate[blockIdx.x] = t.total;
}

// 2: one block turns the totals into exclusive offsets, from the carry, in
// place; the grand total goes to carry_out.
template <class Op, class Source, class Sink, int BLOCK>
__global__ void __launch_bounds__(BLOCK) scan_totals_kernel(const ScanProblem<Op, Source, Sink> p)
{
  using Acc = typename Op::Acc;
  __shared__ typename BlockScan<Op, BLOCK>::Storage s;
  __shared__ Acc running_s;
  if (threadIdx.x == 0)
    running_s = p.carry_in ? *p.carry_in : Op::zero();
  __syncthreads();
  Acc running = running_s;
  for (unsigned long long at = 0; at < p.tiles; at += BLOCK) {
    const unsigned long long i = at + threadIdx.x;
    const Acc v = i < p.tiles ? p.states.aggregate[i] : Op::zero();
    Acc total;
    const Acc excl = BlockScan<Op, BLOCK>::exclusive(s, v, &total);
    if (i < p.tiles)
      p.states.aggregate[i] = Op::combine(running, excl);
    running = Op::combine(running, total);
    __syncthreads(); // the block scan's storage is used again
  }
  if (threadIdx.x == 0 && p.carry_out)
    *p.carry_out = running;
}

// 3: each tile scanned from its offset.
template <class Op, class Source, class Sink, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) rescan_tiles_kernel(const ScanProblem<Op, Source, Sink> p)
{
  __shared__ TileStorage<Op, typename Source::Item, BLOCK, ITEMS> s;
  if (threadIdx.x == 0)
    s.start = p.src.at_start(); // published by the load's barriers
  TileItems<Op, typename Source::Item, ITEMS> t;
  load_and_scan(p, s, blockIdx.x, t);
  finish_tile(p, s, t, p.states.aggregate[blockIdx.x]);
}

} // namespace scan
} // namespace gq
#endif
