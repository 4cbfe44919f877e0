// tile.cuh — one tile of a scan: BLOCK threads x ITEMS consecutive items
// each.  Loads are striped (thread t reads t, t + BLOCK, ...: coalesced)
// into shared memory and read back blocked (thread t holds items t ITEMS ..
// t ITEMS + ITEMS - 1), so each thread scans its run sequentially and the
// block scans only one value per thread; stores go back the same way.
// The shared array is padded by one element every ITEMS so that the blocked
// reads (stride ITEMS) fall in distinct banks.
//
// Sources give the items, sinks take the results:
//   ArraySource<T>   x[i]                  ArraySink<Op>   y[i] = the inclusive or exclusive prefix
//   (cumulative.cuh) g(x_i) of a grid      CumulativeSink  the cumulative trapezoid of g
#ifndef GQ_SCAN_TILE_CUH
#define GQ_SCAN_TILE_CUH

#include "block_scan.cuh"
#include "scan_ops.cuh"

namespace gq {
namespace scan {

template <class T, int BLOCK, int ITEMS> struct Staging {
  static constexpr int ITEMS_PER_TILE = BLOCK * ITEMS;
  static constexpr int SIZE = ITEMS_PER_TILE + ITEMS_PER_TILE / ITEMS;
  static __device__ __forceinline__ int pad(int i) { return i + i / ITEMS; }
  // Striped: lane `lane` of a group of STRIDE threads moves items from + k
  // STRIDE + lane (coalesced), the identity in place of items past valid.
  template <int STRIDE>
  static __device__ __forceinline__ void stage_striped(T *stage, const T *tile, int from, int lane, int valid)
  {
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const int i = from + k * STRIDE + lane;
      stage[pad(i)] = i < valid ? tile[i] : T(0);
    }
  }
  template <int STRIDE>
  static __device__ __forceinline__ void unstage_striped(const T *stage, T *tile, int from, int lane, int valid)
  {
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const int i = from + k * STRIDE + lane;
      if (i < valid)
        tile[i] = stage[pad(i)];
    }
  }
  // Blocked: thread t's items t ITEMS .. t ITEMS + ITEMS - 1.
  static __device__ __forceinline__ void read_blocked(T (&items)[ITEMS], const T *stage)
  {
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
      items[k] = stage[pad((int)threadIdx.x * ITEMS + k)];
  }
  static __device__ __forceinline__ void write_blocked(const T (&values)[ITEMS], T *stage)
  {
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
      stage[pad((int)threadIdx.x * ITEMS + k)] = values[k];
  }
};

template <class T> struct ArraySource {
  using Item = T;
  const T *x;
  // items[k] = x[first + t ITEMS + k], identity (0) past valid.
  template <int BLOCK, int ITEMS>
  __device__ __forceinline__ void load(T (&items)[ITEMS], T *stage, unsigned long long first, int valid) const
  {
    using S = Staging<T, BLOCK, ITEMS>;
    S::template stage_striped<BLOCK>(stage, x + first, 0, (int)threadIdx.x, valid);
    __syncthreads();
    S::read_blocked(items, stage);
    __syncthreads(); // the stage is written again by the store
  }
  // The first item, which the cumulative sink needs and ArraySink does not:
  // nothing is read for it.
  __device__ __forceinline__ T at_start() const { return T(0); }
};

template <class Op> struct ArraySink {
  typename Op::Out *y;
  int exclusive;
  // What the thread's results start from: its exclusive prefix as it is.
  template <class Item>
  __device__ __forceinline__ typename Op::Acc thread_start(typename Op::Acc running, Item) const
  {
    return running;
  }
  template <class Item>
  __device__ __forceinline__ typename Op::Out value(const typename Op::Acc &before, const typename Op::Acc &after,
                                                    Item, Item) const
  {
    return Op::out(exclusive ? before : after);
  }
  // y[first .. first + valid - 1] from the blocked values.
  template <int BLOCK, int ITEMS>
  __device__ __forceinline__ void store(const typename Op::Out (&values)[ITEMS], typename Op::Out *stage,
                                        unsigned long long first, int valid) const
  {
    using S = Staging<typename Op::Out, BLOCK, ITEMS>;
    S::write_blocked(values, stage);
    __syncthreads();
    S::template unstage_striped<BLOCK>(stage, y + first, 0, (int)threadIdx.x, valid);
  }
};

// The results through warp-private staging (CUB's BLOCK_STORE_WARP_TRANSPOSE):
// warp w's blocked results are the tile's items w 32 ITEMS .. (w + 1) 32
// ITEMS - 1, so the transpose needs __syncwarp only and no block barrier.
// The staging layout (and so its padding) is ArraySink's: pad(i) of a
// warp-local index stays inside the warp's run.  VEC = 2 moves 16 bytes per
// access where y is 16-byte aligned (a tile starts at an even item; ITEMS
// even), halving the store instructions; an unaligned pointer takes the
// 8-byte path, chosen per call.  (The matching loads, WarpArraySource, were
// slower than the block's for array scans on the H200 and are in history.)
// Two 8-byte items as one 16-byte access (the bits moved as they are).
template <class T> struct alignas(16) Pair {
  T lo, hi;
};

template <class Op, int VEC> struct WarpArraySink : ArraySink<Op> {
  template <int BLOCK, int ITEMS>
  __device__ __forceinline__ void store(const typename Op::Out (&values)[ITEMS], typename Op::Out *stage,
                                        unsigned long long first, int valid) const
  {
    using Out = typename Op::Out;
    using S = Staging<Out, BLOCK, ITEMS>;
    static_assert(VEC == 1 || (VEC == 2 && sizeof(Out) == 8), "16-byte vectors of 8-byte results");
    const int lane = threadIdx.x & 31;
    const int run = ((int)threadIdx.x >> 5) * 32 * ITEMS;
    S::write_blocked(values, stage);
    __syncwarp();
    Out *base = this->y + first + run;
    const int left = valid - run;
    if (VEC == 2 && (reinterpret_cast<unsigned long long>(this->y) & 15) == 0) {
      Pair<Out> *base2 = reinterpret_cast<Pair<Out> *>(base);
#pragma unroll
      for (int k = 0; k < ITEMS / 2; k++) {
        const int i = 2 * (k * 32 + lane);
        const Pair<Out> v{stage[S::pad(run + i)], stage[S::pad(run + i + 1)]};
        if (i + 1 < left)
          base2[k * 32 + lane] = v;
        else if (i < left)
          base[i] = v.lo;
      }
    } else {
      S::template unstage_striped<32>(stage, this->y + first, run, lane, valid);
    }
  }
};

// The total of a thread's items, in order.
template <class Op, class Item, int ITEMS> __device__ __forceinline__ typename Op::Acc thread_total(const Item (&items)[ITEMS])
{
  typename Op::Acc a = Op::zero();
#pragma unroll
  for (int k = 0; k < ITEMS; k++)
    Op::add(a, items[k]);
  return a;
}

// The thread's results from its exclusive prefix: the running value before
// and after each item, handed to the sink (which keeps one of them, or
// transforms both), from what the sink makes of the prefix once per thread
// (thread_start: a term every result subtracts, added once instead).
template <class Op, class Sink, class Item, int ITEMS>
__device__ __forceinline__ void thread_results(const Sink &sink, typename Op::Acc running, const Item (&items)[ITEMS],
                                               Item start, typename Op::Out (&values)[ITEMS])
{
  running = sink.thread_start(running, start);
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    const typename Op::Acc before = running;
    Op::add(running, items[k]);
    values[k] = sink.value(before, running, items[k], start);
  }
}

} // namespace scan
} // namespace gq
#endif
