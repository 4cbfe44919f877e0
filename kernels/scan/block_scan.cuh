// block_scan.cuh — the exclusive scan of one value per thread across a
// block: warp scans (warp_scan.cuh), the warp totals to shared memory, one
// warp scans them, and each warp adds its predecessors' total back.  Two
// barriers.
#ifndef GQ_BLOCK_SCAN_CUH
#define GQ_BLOCK_SCAN_CUH

#include "warp_scan.cuh"

namespace gq {
namespace scan {

template <class Op, int BLOCK> struct BlockScan {
  static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "whole warps, at most 32 of them");
  static constexpr int WARPS = BLOCK / 32;
  using Acc = typename Op::Acc;
  struct Storage {
    Acc warp[WARPS]; // inclusive scan of the warp totals, after the second barrier
  };

  // v: this thread's value.  Returns the combination of the values of the
  // threads before this one (Op::zero() for thread 0); *total: the whole
  // block's, in every thread.
  static __device__ __forceinline__ Acc exclusive(Storage &s, Acc v, Acc *total)
  {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const Acc inclusive = warp_inclusive<Op>(v, lane);
    if (lane == 31)
      s.warp[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
      Acc w = lane < WARPS ? s.warp[lane] : Op::zero();
      w = warp_inclusive<Op>(w, lane);
      if (lane < WARPS)
        s.warp[lane] = w;
    }
    __syncthreads();
    *total = s.warp[WARPS - 1];
    // The thread's exclusive prefix within its warp is the previous lane's
    // inclusive value; shuffled before any lane diverges.
    Acc before = shfl_up(inclusive, 1);
    if (lane == 0)
      before = Op::zero();
    return warp == 0 ? before : Op::combine(s.warp[warp - 1], before);
  }
};

} // namespace scan
} // namespace gq
#endif
