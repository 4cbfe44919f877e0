// warp_scan.cuh — the inclusive scan of one value per lane through register
// shuffles (Kogge-Stone: log2(32) steps, lane l adds lane l - d's running
// value for d = 1, 2, 4, 8, 16).  Values of any Op (scan_ops.cuh) are
// shuffled one 32-bit word at a time (the engine's shfl_words).
#ifndef GQ_WARP_SCAN_CUH
#define GQ_WARP_SCAN_CUH

#include "../engine/warp_reduce.cuh"

namespace gq {
namespace scan {

constexpr unsigned WARP_MASK = FULL_MASK;

template <class T> __device__ __forceinline__ T shfl_up(T v, int d)
{
  return shfl_words(v, [d](int w) { return __shfl_up_sync(WARP_MASK, w, d); });
}
template <class T> __device__ __forceinline__ T shfl_down(T v, int d)
{
  return shfl_words(v, [d](int w) { return __shfl_down_sync(WARP_MASK, w, d); });
}
template <class T> __device__ __forceinline__ T shfl_from(T v, int lane)
{
  return shfl_words(v, [lane](int w) { return __shfl_sync(WARP_MASK, w, lane); });
}

// Inclusive scan across the warp; every lane must take part.  Lanes below d
// keep their value (shfl_up returns their own there).
template <class Op> __device__ __forceinline__ typename Op::Acc warp_inclusive(typename Op::Acc v, int lane)
{
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const typename Op::Acc up = shfl_up(v, d);
    if (lane >= d)
      v = Op::combine(up, v);
  }
  return v;
}

} // namespace scan
} // namespace gq
#endif
