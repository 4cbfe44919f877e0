// lookback.cuh — the tile states of a single-pass scan with decoupled
// look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan with
// Decoupled Look-back", 2016), and the look-back itself.
//
// Publishing.  A compensated double pair is 16 bytes and a status needs a
// few bits more, so the value cannot travel with its flag in one access
// (sm_90 has no 128-bit atomic store, and a 16-byte vector store is not
// promised to be seen whole).  Each tile therefore has two value slots,
// aggregate[t] and inclusive[t], written once each per launch, and one
// 64-bit flag word flag[t] = epoch << 2 | status:
//   writer: plain store of the slot, then st.release.gpu of the flag: the
//           release orders the slot's store before the flag's for any thread
//           that acquires the flag (without it the flag could reach L2
//           before the value and a reader would add stale bytes);
//   reader: ld.acquire.gpu of the flag, then a plain load of the slot the
//           status names: the acquire keeps that load from being performed
//           before the flag's (or served from a stale L1 line).
// The two slots are never rewritten within a launch, so a reader never sees
// a half-written value whichever status it found.  The epoch (the launch's
// sequence number, 62 bits) makes every flag of an earlier launch read as
// "not yet", so the flags need no reset between launches.
#ifndef GQ_SCAN_LOOKBACK_CUH
#define GQ_SCAN_LOOKBACK_CUH

#include "warp_scan.cuh"

namespace gq {
namespace scan {

enum : unsigned long long { STATUS_NONE = 0, STATUS_AGGREGATE = 1, STATUS_INCLUSIVE = 2 };

__device__ __forceinline__ unsigned long long load_acquire(const unsigned long long *p)
{
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_release(unsigned long long *p, unsigned long long v)
{
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

template <class Acc> struct TileStates {
  unsigned long long *flag;  // one per tile
  Acc *aggregate, *inclusive; // one each per tile
  unsigned long long epoch;   // this launch's; >= 1 (fresh flags are 0)

  __device__ __forceinline__ void publish(int tile, unsigned long long status, const Acc &v) const
  {
    (status == STATUS_AGGREGATE ? aggregate : inclusive)[tile] = v;
    store_release(&flag[tile], epoch << 2 | status);
  }

  // By one whole warp of tile `tile` > 0: the combination of every item
  // before the tile.  Each pass reads the 32 predecessors below `end` at
  // once (lane l the tile end - 1 - l), waits until all of them have
  // published at least an aggregate, and stops at the nearest inclusive
  // prefix; without one it adds the 32 aggregates and goes 32 tiles back.
  // Tiles take their numbers in launch order (an atomic counter), so every
  // predecessor is running or done: the wait ends.
  template <class Op> __device__ __forceinline__ Acc look_back(int tile) const
  {
    const int lane = threadIdx.x & 31;
    Acc prefix = Op::zero();
    for (int end = tile;;) {
      const int t = end - 1 - lane; // >= 0 in lane 0; tile 0 publishes an inclusive prefix
      unsigned long long status = STATUS_INCLUSIVE; // below tile 0: nothing, inclusive of zero
      Acc v = Op::zero();
      if (t >= 0) {
        unsigned long long word;
        do {
          word = load_acquire(&flag[t]);
        } while ((word >> 2) != epoch); // an older launch's, or not yet written
        status = word & 3;
        v = status == STATUS_INCLUSIVE ? inclusive[t] : aggregate[t];
      }
      // The lowest lane holding an inclusive prefix: lanes above it are
      // further back and already counted in it.
      const unsigned inclusive_lanes = __ballot_sync(WARP_MASK, status == STATUS_INCLUSIVE);
      const int stop = __ffs(inclusive_lanes) - 1; // -1: none in this window
      const int last = stop < 0 ? 31 : stop;
      // Combine lanes last .. 0 in order (the oldest first): a reversed
      // inclusive scan, read from lane 0.
      Acc w = lane <= last ? v : Op::zero();
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        const Acc older = shfl_down(w, d);
        if (lane + d < 32)
          w = Op::combine(older, w);
      }
      prefix = Op::combine(shfl_from(w, 0), prefix);
      if (stop >= 0)
        return prefix;
      end -= 32;
    }
  }
};

} // namespace scan
} // namespace gq
#endif
