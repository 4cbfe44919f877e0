// store_compact.cuh — the region store's compaction in place (the kernels
// of an apply after the classification; kernels/adaptive/store.cu drives
// them).
#ifndef GQ_ADAPTIVE_STORE_COMPACT_CUH
#define GQ_ADAPTIVE_STORE_COMPACT_CUH

#include "store_steps.cuh"

namespace gq {
namespace store {

// The compaction is in place and moves only what changes: with K regions
// kept, those below K stay where they are; the leavers below K are holes,
// which the kept regions at or above K fill in order (the m-th such region
// into the m-th hole); the split regions' halves go to [K, K + 2 S).  A split
// region may itself be a hole, so the split regions are first gathered into
// the buffer c; then the holes are filled; then the halves are made from c.
// Every copy's source is read before it is overwritten, the launches being
// ordered on the stream, and every copy is a flat loop over the doubles it
// moves, so that neighbouring threads move neighbouring doubles.  The bytes
// moved are those of the regions that change, not of all those held.
//
// lists_kernel takes a tile's items blocked (thread t: the tile's regions
// [t ITEMS, (t + 1) ITEMS)), so a block scan of the threads' counts gives
// each region the exact numbers of kept and split regions before it.
// The lists: each split region at its rank (parent), each hole below K at
// the number of leavers before it (hole_pos), each kept region at or above K
// at its rank among those (mover).
__global__ void __launch_bounds__(THREADS)
    lists_kernel(const unsigned char *action, uint64_t held, uint64_t tiles, const unsigned long long *tile_keep,
                 const unsigned long long *keep_off, const unsigned long long *split_off,
                 const unsigned long long *kept_below, unsigned long long *parent, unsigned long long *hole_pos,
                 unsigned long long *mover)
{
  typedef cub::BlockScan<unsigned long long, THREADS> Scan;
  __shared__ typename Scan::TempStorage scan;
  const uint64_t first = blockIdx.x * TILE + (uint64_t)threadIdx.x * ITEMS;
  unsigned long long mine = 0; // kept << 32 | split
  for (int i = 0; i < ITEMS; i++) {
    const uint64_t r = first + i;
    if (r < held)
      mine += action[r] == KEEP ? 1ull << 32 : action[r] == SPLIT ? 1ull : 0ull;
  }
  unsigned long long before = 0;
  Scan(scan).ExclusiveSum(mine, before);
  uint64_t keep = keep_off[blockIdx.x] + (before >> 32), split = split_off[blockIdx.x] + (before & 0xffffffffull);
  const uint64_t K = kept_total(tile_keep, keep_off, tiles), below = *kept_below;
  for (int i = 0; i < ITEMS; i++) {
    const uint64_t r = first + i;
    if (r >= held)
      break;
    const unsigned char act = action[r];
    if (act == KEEP) {
      if (r >= K)
        mover[keep - below] = r;
      keep++;
      continue;
    }
    if (r < K)
      hole_pos[r - keep] = r; // the leavers before r: r - (kept before r)
    if (act == SPLIT)
      parent[split++] = r;
  }
}

// j / D in the flat loops: a 32-bit division where j fits (the GPU's 64-bit
// division is a long software routine, and these loops are one per double).
__device__ __forceinline__ uint64_t over_d(uint64_t j, int D)
{
  return j <= 0xffffffffull ? (uint64_t)((unsigned)j / (unsigned)D) : j / (uint64_t)D;
}

// The split regions into c, in order: centre, half-widths, share, axis.
__global__ void __launch_bounds__(THREADS)
    gather_kernel(Regions a, Regions c, int D, uint64_t tiles, const unsigned long long *tile_split,
                  const unsigned long long *split_off, const unsigned long long *parent)
{
  const uint64_t S = kept_total(tile_split, split_off, tiles), n = S * (uint64_t)D;
  for (uint64_t j = (uint64_t)blockIdx.x * THREADS + threadIdx.x; j < n; j += (uint64_t)gridDim.x * THREADS) {
    const uint64_t k = over_d(j, D), d = j - k * D, r = parent[k];
    c.centre[j] = a.centre[r * D + d];
    c.half[j] = a.half[r * D + d];
    if (d == 0) {
      c.share[k] = a.share[r];
      c.axis[k] = a.axis[r];
    }
  }
}

// The kept regions at or above K into the holes, the m-th into the m-th.
__global__ void __launch_bounds__(THREADS)
    move_kernel(Regions a, int D, uint64_t tiles, const unsigned long long *tile_keep,
                const unsigned long long *keep_off, const unsigned long long *kept_below,
                const unsigned long long *hole_pos, const unsigned long long *mover)
{
  const uint64_t H = kept_total(tile_keep, keep_off, tiles) - *kept_below, n = H * (uint64_t)D;
  for (uint64_t j = (uint64_t)blockIdx.x * THREADS + threadIdx.x; j < n; j += (uint64_t)gridDim.x * THREADS) {
    const uint64_t m = over_d(j, D), d = j - m * D, src = mover[m], dst = hole_pos[m];
    a.centre[dst * D + d] = a.centre[src * D + d];
    a.half[dst * D + d] = a.half[src * D + d];
    if (d == 0) {
      a.est[dst] = a.est[src];
      a.err[dst] = a.err[src];
      a.share[dst] = a.share[src];
      a.axis[dst] = a.axis[src];
    }
  }
}

// The halves of the gathered regions to [K, K + 2 S): half k of region k / 2,
// the lower (k even) or the upper, cut along its axis.
__global__ void __launch_bounds__(THREADS)
    halves_kernel(Regions a, Regions c, int D, uint64_t tiles, const unsigned long long *tile_keep,
                  const unsigned long long *keep_off, const unsigned long long *tile_split,
                  const unsigned long long *split_off)
{
  const uint64_t K = kept_total(tile_keep, keep_off, tiles), S = kept_total(tile_split, split_off, tiles),
                 n = 2 * S * (uint64_t)D;
  for (uint64_t j = (uint64_t)blockIdx.x * THREADS + threadIdx.x; j < n; j += (uint64_t)gridDim.x * THREADS) {
    const uint64_t k = over_d(j, D), d = j - k * D, p = k / 2, dst = K + k;
    const double cd = c.centre[p * D + d], h = c.half[p * D + d];
    if ((int)d == c.axis[p]) {
      const double q = h / 2.0;
      a.centre[dst * D + d] = k & 1 ? cd + q : cd - q;
      a.half[dst * D + d] = q;
    } else {
      a.centre[dst * D + d] = cd;
      a.half[dst * D + d] = h;
    }
    if (d == 0)
      a.share[dst] = c.share[p] / 2.0;
  }
}

} // namespace store
} // namespace gq

#endif
