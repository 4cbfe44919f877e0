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
};

template <class T> struct ArraySource {
  using Item = T;
  const T *x;
  // items[k] = x[first + t ITEMS + k], identity (0) past valid.
  template <int BLOCK, int ITEMS>
  __device__ __forceinline__ void load(T (&items)[ITEMS], T *stage, unsigned long long first, int valid) const
  {
    using S = Staging<T, BLOCK, ITEMS>;
    const T *base = x + first;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const int i = k * BLOCK + (int)threadIdx.x;
      stage[S::pad(i)] = i < valid ? base[i] : T(0);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
      items[k] = stage[S::pad((int)threadIdx.x * ITEMS + k)];
    __syncthreads(); // the stage is written again by the store
  }
  // The first item, which the cumulative sink needs and ArraySink does not:
  // nothing is read for it.
  __device__ __forceinline__ T at_start() const { return T(0); }
};

template <class Op> struct ArraySink {
  typename Op::Out *y;
  int exclusive;
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
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
      stage[S::pad((int)threadIdx.x * ITEMS + k)] = values[k];
    __syncthreads();
    typename Op::Out *base = y + first;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const int i = k * BLOCK + (int)threadIdx.x;
      if (i < valid)
        base[i] = stage[S::pad(i)];
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
// transforms both).
template <class Op, class Sink, class Item, int ITEMS>
__device__ __forceinline__ void thread_results(const Sink &sink, typename Op::Acc running, const Item (&items)[ITEMS],
                                               Item start, typename Op::Out (&values)[ITEMS])
{
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
