// agent.cuh — the one tile loop of the engine: a source's items, mapped and
// added to a thread accumulator, tile by tile.
//
// Each block walks tiles of BLOCK*ITEMS consecutive items with a grid-stride
// loop, so any count is handled by a grid sized to the device; thread t takes
// items t, t+BLOCK, ... of a tile.  All ITEMS items of a tile are loaded (or
// generated) before any is used: ITEMS independent memory round trips or
// Philox chains in flight per thread.  Then each of an item's WIDTH values
// goes through the map into the thread accumulator, with its slot in the
// tile (a constant after unrolling) and its index; the accumulator closes
// the tile (close<N>: a tile summed plainly is folded into its compensated
// total here, once per N values).  The one partial tile is taken by one
// block, item by item, masked.
//
// A source (grid_source.cuh, philox_source.cuh, array_source.cuh) gives:
//   WIDTH, Item, Cursor          values per item, a loaded item, the position
//                                of an item (a double for the grid: indices
//                                advance by exact additions, never converted
//                                from 64-bit integers per point)
//   items(), whole_items()       items in all; those whose every lane counts
//   cursor(i), stride(n)         the cursor of item i; a step of n items
//                                (added with += or the source's advance)
//   load(c, k)                   item c + k
//   lanes(c, k)                  how many lanes of item c + k count
//   feed<CLASSIFY>(item, c, k, map, th, slot, lanes)
//   head<CLASSIFY>(map, th),     what is not in items (an array's misaligned
//   tail<CLASSIFY>(map, th)      head and scalar tail), before and after the
//                                items: a thread sees its indices in
//                                increasing order (the statistics' argmin
//                                and argmax keep the first of equal values)
// A thread accumulator (tile_accumulators.cuh, accumulators.cuh) gives
// add<CLASSIFY>(term, index, slot) and close<N>().
#ifndef GQ_AGENT_CUH
#define GQ_AGENT_CUH

namespace gq {

// The cursor of the thread's next tile: c + step for a cursor that is a
// number (an index, a counter); a source whose cursor is not (the product
// grid's digits) gives its own advance beside it, found by argument lookup.
template <class T> struct ValueOf {
  using type = T;
};
template <class T> struct ValueOf<T &> {
  using type = T;
};
template <class Source>
__device__ __forceinline__ auto advance(const Source &, typename Source::Cursor c, const typename Source::Cursor &step)
    -> typename ValueOf<decltype(c += step)>::type
{
  c += step;
  return c;
}

// Whether a source takes its tiles itself (OWN_TILES, with
// tile<BLOCK, ITEMS, CLASSIFY>(cursor, map, th), which adds a whole tile's
// values and closes it, and partial<BLOCK, ITEMS, CLASSIFY>(cursor, left,
// map, th), which adds the partial tile's first `left` items (thread t its
// items k with k BLOCK + t < left), each closed on its own as below): the
// rotating grid (grid_rot_source.cuh), whose items share work a tile at a
// time.
template <class S, class = void> struct OwnTiles {
  static constexpr bool value = false;
};
template <class S> struct OwnTiles<S, decltype(void(S::OWN_TILES))> {
  static constexpr bool value = S::OWN_TILES;
};

// The loop of block `block` of `blocks` over the source: a launch's own
// blocks (agent, below), or one problem's share of a packed launch
// (batch_kernel.cuh), which then walks its tiles exactly as that problem's
// launch alone would.
template <int BLOCK, int ITEMS, bool CLASSIFY, class Source, class Map, class Thread>
__device__ __forceinline__ void agent_of(const Source &src, const Map &map, Thread &th, unsigned block,
                                         unsigned blocks)
{
  constexpr int W = Source::WIDTH;
  constexpr unsigned long long TILE = (unsigned long long)BLOCK * ITEMS;
  src.template head<CLASSIFY>(map, th);

  const unsigned long long whole = src.whole_items(), items = src.items();
  unsigned long long base = (unsigned long long)block * TILE;
  const unsigned long long step = (unsigned long long)blocks * TILE;
  typename Source::Cursor c = src.cursor(base + threadIdx.x);
  const typename Source::Cursor c_step = src.stride(step);
  for (; base + TILE <= whole; base += step, c = advance(src, c, c_step)) {
    if constexpr (OwnTiles<Source>::value) {
      src.template tile<BLOCK, ITEMS, CLASSIFY>(c, map, th);
    } else {
      typename Source::Item it[ITEMS];
#pragma unroll
      for (int k = 0; k < ITEMS; k++)
        it[k] = src.load(c, k * BLOCK);
#pragma unroll
      for (int k = 0; k < ITEMS; k++)
        src.template feed<CLASSIFY>(it[k], c, k * BLOCK, map, th, k * W, W);
      th.template close<ITEMS * W>();
    }
  }
  if constexpr (OwnTiles<Source>::value) {
    if (base < items)
      src.template partial<BLOCK, ITEMS, CLASSIFY>(c, items - base, map, th);
  } else if (base < items) { // the one partial tile, taken by one block
    // All loads first, then the adds: loaded and added item by item, each
    // item would wait for its own round trip (a small reduction is nothing
    // but this tile).
    typename Source::Item it[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
      if (base + k * BLOCK + threadIdx.x < items)
        it[k] = src.load(c, k * BLOCK);
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
      if (base + k * BLOCK + threadIdx.x < items) {
        src.template feed<CLASSIFY>(it[k], c, k * BLOCK, map, th, 0, src.lanes(c, k * BLOCK));
        th.template close<W>();
      }
  }
  src.template tail<CLASSIFY>(map, th);
}

template <int BLOCK, int ITEMS, bool CLASSIFY, class Source, class Map, class Thread>
__device__ __forceinline__ void agent(const Source &src, const Map &map, Thread &th)
{
  agent_of<BLOCK, ITEMS, CLASSIFY>(src, map, th, blockIdx.x, gridDim.x);
}

} // namespace gq
#endif
