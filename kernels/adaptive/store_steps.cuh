// store_steps.cuh — the region store's layout and the kernels of a pass's
// steps before the compaction (kernels/adaptive/store.cu drives them): the
// sums, the error bins, the cut bin's counts and each region's action.
// Every kernel works in tiles of TILE regions (THREADS threads, ITEMS each)
// whose results are merged in tile order, or as integers, so that nothing
// depends on scheduling.
#ifndef GQ_ADAPTIVE_STORE_STEPS_CUH
#define GQ_ADAPTIVE_STORE_STEPS_CUH

#include <stdint.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "../engine/grid_levels.cuh" // fence_acq_rel_gpu
#include "../../src/lib/adaptive_internal.h"

namespace gq {
namespace store {

constexpr int THREADS = 256, ITEMS = 8;
constexpr uint64_t TILE = (uint64_t)THREADS * ITEMS;
constexpr int BINS = GQ_STORE_BINS;
constexpr int MANT_SHIFT = 26; // a bin's errors summed as their top 27 mantissa bits (32 fit a 32-bit sum)
constexpr unsigned char KEEP = 0, SPLIT = 1, RETIRED = 2;

struct Regions {
  double *centre, *half; // room D each, region-major
  double *est, *err, *share;
  unsigned char *axis;
  uint64_t room;
  void *raw; // one buffer holds them all
  size_t bytes;
};

// The device-side results of a step, copied back in one piece.
struct Totals {
  gq_csum est, err;
  unsigned long long bad, keep, split;
  unsigned long long kept_below; // the compaction's: kept regions below K
};

__device__ __forceinline__ int exp_bin(double e)
{
  return (int)((unsigned long long)__double_as_longlong(e) >> 52 & 0x7ff);
}

__device__ __forceinline__ unsigned long long mantissa(double e)
{
  const unsigned long long bits = (unsigned long long)__double_as_longlong(e);
  const unsigned long long m = bits & ((1ull << 52) - 1);
  return ((bits >> 52 & 0x7ff) ? m | 1ull << 52 : m) >> MANT_SHIFT;
}

__device__ __forceinline__ bool live(const Regions &a, uint64_t r, double retire)
{
  return !(a.err[r] <= retire * a.share[r]);
}

// adaptive.c's splittable(): both halves' centres distinct.
__device__ __forceinline__ bool splittable(const Regions &a, int D, uint64_t r)
{
  const int ax = a.axis[r];
  const double c = a.centre[r * D + ax], q = a.half[r * D + ax] / 2.0;
  return q > 0.0 && c - q != c && c + q != c && c - q != c + q;
}

// Whether this block is the grid's last to get here, after every thread's
// stores: each thread's release fence, then thread 0's ticket, then an
// acquire in the last block.  The ticket wraps to 0 (atomicInc), ready for
// the next launch.  A kernel's serial tail (a merge, a scan of the tiles'
// counts) then runs in its last block instead of a launch of its own.
__device__ __forceinline__ bool last_block(unsigned int *ticket)
{
  __shared__ bool last;
  fence_acq_rel_gpu();
  __syncthreads();
  if (threadIdx.x == 0)
    last = atomicInc(ticket, gridDim.x - 1) == gridDim.x - 1;
  __syncthreads();
  if (last)
    fence_acq_rel_gpu();
  return last;
}

// The tickets of the kernels that end in a last block (in the store's fixed
// memory, zero when no launch is running).
enum { TICKET_SUMS, TICKET_CUT, TICKET_CLASSIFY, TICKETS };

// Two compensated sums over the block, in a fixed tree.
__device__ void block_merge(gq_csum (&v)[2], gq_csum (&sh)[2][THREADS])
{
  sh[0][threadIdx.x] = v[0];
  sh[1][threadIdx.x] = v[1];
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      gq_csum_merge(&sh[0][threadIdx.x], sh[0][threadIdx.x + s]);
      gq_csum_merge(&sh[1][threadIdx.x], sh[1][threadIdx.x + s]);
    }
    __syncthreads();
  }
  v[0] = sh[0][0];
  v[1] = sh[1][0];
}

// The tiles' sums merged in order by one block (each thread a fixed
// stride, then the fixed tree) into t's.
__device__ void merge_tiles(const gq_csum *part, uint64_t tiles, Totals *t, gq_csum (&sh)[2][THREADS])
{
  gq_csum v[2] = {gq_csum_zero(), gq_csum_zero()};
  for (uint64_t k = threadIdx.x; k < tiles; k += THREADS) {
    gq_csum_merge(&v[0], part[2 * k]);
    gq_csum_merge(&v[1], part[2 * k + 1]);
  }
  block_merge(v, sh);
  if (threadIdx.x == 0) {
    t->est = v[0];
    t->err = v[1];
  }
}

// The sums step's tail: the tiles' sums merged, and the error bins zeroed
// for the bins kernel, which fills them next on the stream (no memset).
__device__ void sums_tail(const gq_csum *part, uint64_t tiles, Totals *t, unsigned long long *bins,
                          gq_csum (&sh)[2][THREADS])
{
  for (int b = threadIdx.x; b < 2 * BINS; b += THREADS)
    bins[b] = 0;
  merge_tiles(part, tiles, t, sh);
}

// Each tile's sums of estimates and errors, the first new region not
// finite; the last block merges the tiles (sums_tail).
__global__ void __launch_bounds__(THREADS)
    sums_kernel(Regions a, uint64_t held, uint64_t first, uint64_t tiles, gq_csum *part, Totals *t,
                unsigned long long *bins, unsigned int *ticket)
{
  __shared__ gq_csum sh[2][THREADS];
  gq_csum v[2] = {gq_csum_zero(), gq_csum_zero()};
  const uint64_t base = blockIdx.x * TILE;
  for (int i = 0; i < ITEMS; i++) {
    const uint64_t r = base + (uint64_t)i * THREADS + threadIdx.x;
    if (r >= held)
      break;
    const double e = a.est[r], x = a.err[r];
    if (r >= first && !(e - e == 0.0 && x - x == 0.0))
      atomicMin(&t->bad, (unsigned long long)r);
    gq_csum_add(&v[0], e);
    gq_csum_add(&v[1], x);
  }
  block_merge(v, sh);
  if (threadIdx.x == 0) {
    part[2 * blockIdx.x] = v[0];
    part[2 * blockIdx.x + 1] = v[1];
  }
  if (last_block(ticket))
    sums_tail(part, tiles, t, bins, sh);
}

// One block: sums_tail of no tiles (an empty store).
__global__ void __launch_bounds__(THREADS)
    merge_kernel(const gq_csum *part, uint64_t tiles, Totals *t, unsigned long long *bins)
{
  __shared__ gq_csum sh[2][THREADS];
  sums_tail(part, tiles, t, bins, sh);
}

// An exclusive scan of n tile counts by one block, in chunks of TILE
// (thread t: the chunk's items [t ITEMS, (t + 1) ITEMS)), the carry passed
// from chunk to chunk.  The tiles number at most a few ten thousand (2^24
// regions are 8192 tiles), so one block does it in a few chunks, where a
// device-wide scan is two launches.
template <class Scan>
__device__ void block_exclusive_sum(const unsigned long long *in, unsigned long long *out, uint64_t n,
                                    typename Scan::TempStorage &tmp)
{
  unsigned long long carry = 0;
  for (uint64_t base = 0; base < n; base += TILE) {
    unsigned long long v[ITEMS], o[ITEMS];
    const uint64_t first = base + (uint64_t)threadIdx.x * ITEMS;
    for (int i = 0; i < ITEMS; i++)
      v[i] = first + i < n ? in[first + i] : 0ull;
    unsigned long long total = 0;
    Scan(tmp).ExclusiveSum(v, o, total);
    for (int i = 0; i < ITEMS; i++)
      if (first + i < n)
        out[first + i] = carry + o[i];
    carry += total;
    __syncthreads(); // tmp is reused
  }
}

// The regions counted in tiles [0, tiles) given each tile's count and its
// exclusive prefix.
__device__ __forceinline__ uint64_t kept_total(const unsigned long long *tile_keep,
                                               const unsigned long long *keep_off, uint64_t tiles)
{
  return keep_off[tiles - 1] + tile_keep[tiles - 1];
}

// The live regions' errors by exponent: counts and mantissa sums, in
// shared memory per block, then added to the device's bins.  A warp's
// lanes that share a bin add once (match, then a 32-bit sum of their
// mantissas): the errors of a pass crowd into a few bins, and one shared
// atomic per lane on the same word serialised the warp.
__global__ void __launch_bounds__(THREADS)
    bins_kernel(Regions a, uint64_t held, double retire, unsigned long long *g_count, unsigned long long *g_mant)
{
  __shared__ unsigned int count[BINS];
  __shared__ unsigned long long mant[BINS];
  for (int b = threadIdx.x; b < BINS; b += THREADS) {
    count[b] = 0;
    mant[b] = 0;
  }
  __syncthreads();
  const int lane = threadIdx.x % 32;
  for (uint64_t base = (uint64_t)blockIdx.x * THREADS + (threadIdx.x - lane); base < held;
       base += (uint64_t)gridDim.x * THREADS) { // uniform over the warp
    const uint64_t r = base + lane;
    int b = -1;
    unsigned m = 0;
    if (r < held && live(a, r, retire)) {
      const double e = a.err[r];
      b = exp_bin(e);
      m = (unsigned)mantissa(e);
    }
    const unsigned group = __match_any_sync(0xffffffffu, b);
    const unsigned sum = __reduce_add_sync(group, m);
    if (b >= 0 && lane == __ffs(group) - 1) {
      atomicAdd(&count[b], (unsigned)__popc(group));
      atomicAdd(&mant[b], (unsigned long long)sum);
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += THREADS)
    if (count[b]) {
      atomicAdd(&g_count[b], (unsigned long long)count[b]);
      atomicAdd(&g_mant[b], mant[b]);
    }
}

// Each tile's live regions in bin cut; the last block scans them (each
// tile's first rank in the bin).
__global__ void __launch_bounds__(THREADS)
    cut_kernel(Regions a, uint64_t held, uint64_t tiles, double retire, int cut, unsigned long long *tile_cut,
               unsigned long long *cut_off, unsigned int *ticket)
{
  typedef cub::BlockReduce<unsigned int, THREADS> Reduce;
  typedef cub::BlockScan<unsigned long long, THREADS> Scan;
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
  } tmp;
  unsigned int n = 0;
  const uint64_t base = blockIdx.x * TILE;
  for (int i = 0; i < ITEMS; i++) {
    const uint64_t r = base + (uint64_t)i * THREADS + threadIdx.x;
    if (r < held && live(a, r, retire) && exp_bin(a.err[r]) == cut)
      n++;
  }
  n = Reduce(tmp.reduce).Sum(n);
  if (threadIdx.x == 0)
    tile_cut[blockIdx.x] = n;
  if (last_block(ticket)) // its barriers keep tmp's reduction and scan apart
    block_exclusive_sum<Scan>(tile_cut, cut_off, tiles, tmp.scan);
}

// The classification's tail, by one block: the kept and split counts per
// tile scanned (each tile's first kept and first split rank), the totals,
// the retired regions' sums merged in tile order, and the kept regions
// below K (the tile holding K counted).  The host reads the totals while
// the compaction's kernels run (store.cu).
template <class Scan, class Reduce>
__device__ void offsets(const unsigned char *action, uint64_t held, uint64_t tiles, const gq_csum *part,
                        const unsigned long long *tile_keep, unsigned long long *keep_off,
                        const unsigned long long *tile_split, unsigned long long *split_off, Totals *t,
                        typename Scan::TempStorage &scan, typename Reduce::TempStorage &reduce,
                        gq_csum (&sh)[2][THREADS])
{
  block_exclusive_sum<Scan>(tile_keep, keep_off, tiles, scan);
  block_exclusive_sum<Scan>(tile_split, split_off, tiles, scan);
  merge_tiles(part, tiles, t, sh); // its tree's barriers order the scans' stores before the reads below
  const uint64_t K = kept_total(tile_keep, keep_off, tiles), S = kept_total(tile_split, split_off, tiles),
                 k = K / TILE;
  unsigned int n = 0;
  if (k < tiles) // else K = held, a whole number of tiles: every region kept
    for (uint64_t r = k * TILE + threadIdx.x; r < K && r < held; r += THREADS)
      n += action[r] == KEEP;
  n = Reduce(reduce).Sum(n);
  if (threadIdx.x == 0) {
    t->keep = K;
    t->split = S;
    t->kept_below = k < tiles ? keep_off[k] + n : K;
  }
}

// Each region's action; per tile the kept and split counts and the retired
// regions' sums.  The cut bin's regions are ranked thread by thread, item
// by item within a thread: the first take of them are split.  The last
// block runs the classification's tail (offsets).
__global__ void __launch_bounds__(THREADS)
    classify_kernel(Regions a, int D, uint64_t held, uint64_t tiles, double retire, int lowest, int cut,
                    unsigned long long take, const unsigned long long *cut_off, unsigned char *action,
                    unsigned long long *tile_keep, unsigned long long *keep_off, unsigned long long *tile_split,
                    unsigned long long *split_off, gq_csum *part, Totals *t, unsigned int *ticket)
{
  typedef cub::BlockScan<unsigned int, THREADS> Scan;
  typedef cub::BlockReduce<unsigned long long, THREADS> Reduce;
  typedef cub::BlockScan<unsigned long long, THREADS> TileScan;
  typedef cub::BlockReduce<unsigned int, THREADS> CountReduce;
  __shared__ union {
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
    typename TileScan::TempStorage tile_scan;
    typename CountReduce::TempStorage count_reduce;
  } tmp;
  __shared__ gq_csum sh[2][THREADS];
  const uint64_t base = blockIdx.x * TILE;
  unsigned int in_cut = 0;
  if (cut >= 0 && take > 0)
    for (int i = 0; i < ITEMS; i++) {
      const uint64_t r = base + (uint64_t)i * THREADS + threadIdx.x;
      if (r < held && live(a, r, retire) && exp_bin(a.err[r]) == cut)
        in_cut++;
    }
  unsigned int before = 0;
  Scan(tmp.scan).ExclusiveSum(in_cut, before);
  __syncthreads(); // tmp is reused below
  unsigned long long rank = (cut_off ? cut_off[blockIdx.x] : 0) + before;
  gq_csum v[2] = {gq_csum_zero(), gq_csum_zero()};
  unsigned long long counts = 0; // kept << 32 | split
  for (int i = 0; i < ITEMS; i++) {
    const uint64_t r = base + (uint64_t)i * THREADS + threadIdx.x;
    if (r >= held)
      break;
    unsigned char act = RETIRED;
    if (live(a, r, retire)) {
      const int b = exp_bin(a.err[r]);
      bool chosen = b >= lowest;
      if (b == cut) {
        chosen = rank < take;
        rank++;
      }
      act = !chosen ? KEEP : splittable(a, D, r) ? SPLIT : RETIRED;
    }
    if (act == RETIRED) {
      gq_csum_add(&v[0], a.est[r]);
      gq_csum_add(&v[1], a.err[r]);
    }
    counts += act == KEEP ? 1ull << 32 : act == SPLIT ? 1ull : 0ull;
    action[r] = act;
  }
  counts = Reduce(tmp.reduce).Sum(counts);
  block_merge(v, sh);
  if (threadIdx.x == 0) {
    tile_keep[blockIdx.x] = counts >> 32;
    tile_split[blockIdx.x] = counts & 0xffffffffull;
    part[2 * blockIdx.x] = v[0];
    part[2 * blockIdx.x + 1] = v[1];
  }
  if (last_block(ticket))
    offsets<TileScan, CountReduce>(action, held, tiles, part, tile_keep, keep_off, tile_split, split_off, t,
                                   tmp.tile_scan, tmp.count_reduce, sh);
}

} // namespace store
} // namespace gq

#endif
