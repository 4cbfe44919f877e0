// tally.cuh — the deterministic array reductions' block and grid levels
// (issue 20; kernels/exact_reduce.cu): what a block and the grid merge
// besides the exact words — the tally words a kind fills (extremes, max
// |a - b|), the non-finite counts and first indices (Rare per block,
// RareTotal per grid) — the grid's last block, and its export of the
// result into the context's mapped host memory.
#ifndef GQ_EXACT_TALLY_CUH
#define GQ_EXACT_TALLY_CUH

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../engine/exact_accumulator.cuh"
#include "../engine/grid_levels.cuh" // fence_acq_rel_gpu
#include "../../src/lib/exact_acc.h"
#include "../../src/lib/internal.h" /* GQ_REDUCE_* */

namespace gq_exact {

constexpr int EXACT_BLOCK = 256;
// Doubles per expansion (any K is exact; a smaller one only spills to the
// words more often): 2 for sums of doubles, whose 53-bit terms a second part
// holds below the first almost always (a third cost 6 FP64 operations a
// term for nothing), 3 where TwoProd's halves carry 106 bits a term (with
// 2, nearly every product's low half spilled).
constexpr int EXPANSION_SUM = 2, EXPANSION_PRODUCT = 3;
constexpr int CHANNELS = 3;  // sums per accumulator (exact_acc.h)
constexpr int WORDS = GQ_SUPERACC_WORDS;

// A tally as its 8-byte words (every field is one), and back.
constexpr unsigned TALLY_WORDS = sizeof(gq_exact_tally) / sizeof(unsigned long long);
static_assert(sizeof(gq_exact_tally) % sizeof(unsigned long long) == 0, "a tally is whole 8-byte words");

// The words of a tally a kind's threads fill — stats the extremes, rms
// max |a - b|, sum and dot none — the only ones the block and grid merges
// move.  Counts of non-finite values and their first indices go through
// Rare and RareTotal; the finite count is n less those (the host's).
constexpr unsigned TALLY_MIN = offsetof(gq_exact_tally, min) / 8, TALLY_ARGMAX = offsetof(gq_exact_tally, argmax) / 8;
constexpr unsigned TALLY_MAX_ABS = offsetof(gq_exact_tally, max_abs) / 8;
static_assert(offsetof(gq_exact_tally, max) / 8 == TALLY_MIN + 1 && offsetof(gq_exact_tally, argmin) / 8 == TALLY_MIN + 2 &&
                  TALLY_ARGMAX == TALLY_MIN + 3,
              "the extremes are four consecutive words");
template <int KIND>
__host__ __device__ constexpr bool tally_word(unsigned k)
{
  return KIND == GQ_REDUCE_STATS ? k >= TALLY_MIN && k <= TALLY_ARGMAX : KIND == GQ_REDUCE_RMS ? k == TALLY_MAX_ABS : false;
}
template <int KIND>
__host__ __device__ constexpr bool has_tally()
{
  return KIND == GQ_REDUCE_STATS || KIND == GQ_REDUCE_RMS;
}

// A tally's kind's words from the lane d above (the rest: t's own).
template <int KIND>
__device__ __forceinline__ gq_exact_tally shuffle_down(const gq_exact_tally &t, unsigned d, unsigned mask)
{
  unsigned long long w[TALLY_WORDS];
  memcpy(w, &t, sizeof t);
#pragma unroll
  for (unsigned k = 0; k < TALLY_WORDS; k++)
    if (tally_word<KIND>(k))
      w[k] = __shfl_down_sync(mask, w[k], d);
  gq_exact_tally o;
  memcpy(&o, w, sizeof o);
  return o;
}

// The grid's non-finite counts and first indices, merged by global atomics
// from the blocks that saw any (few do): zero bytes are the empty state, so
// the first indices are kept complemented (a maximum of ~i is ~ the minimum
// of i).  Zeroed by the export.
struct RareTotal {
  unsigned long long nan, posinf, neginf;
  unsigned long long inv_first_nan, inv_first_posinf, inv_first_neginf;
};

// The block's non-finite elements, counted with their first indices by
// the rare path's shared-memory atomics: the hot loop then carries none of
// those fields (constant in the threads' tallies, so in no register).
struct Rare {
  unsigned long long nan, posinf, neginf;
  unsigned long long first_nan, first_posinf, first_neginf;
  __device__ void zero()
  {
    nan = posinf = neginf = 0;
    first_nan = first_posinf = first_neginf = GQ_NO_INDEX;
  }
  // as gq_exact_tally_nonfinite
  __device__ void nonfinite(double t, uint64_t i)
  {
    if (t != t) {
      atomicAdd(&nan, 1ull);
      atomicMin(&first_nan, (unsigned long long)i);
    } else if (t > 0) {
      atomicAdd(&posinf, 1ull);
      atomicMin(&first_posinf, (unsigned long long)i);
    } else {
      atomicAdd(&neginf, 1ull);
      atomicMin(&first_neginf, (unsigned long long)i);
    }
  }
  // as gq_exact_tally_rms_nonfinite: NaN where a - b or a is, else Inf
  __device__ void rms_nonfinite(double a, double b)
  {
    const double d = a - b;
    atomicAdd(d != d || a != a ? &nan : &posinf, 1ull);
  }
  // into the grid's (one thread; most blocks have nothing to add)
  __device__ void into(RareTotal *g) const
  {
    if ((nan | posinf | neginf) == 0)
      return;
    atomicAdd(&g->nan, nan);
    atomicAdd(&g->posinf, posinf);
    atomicAdd(&g->neginf, neginf);
    atomicMax(&g->inv_first_nan, ~first_nan);
    atomicMax(&g->inv_first_posinf, ~first_posinf);
    atomicMax(&g->inv_first_neginf, ~first_neginf);
  }
};

// A finite value into a thread's extremes.  A thread takes its elements in
// increasing index order, so a strict comparison keeps the first
// occurrence, as the merge's tie rule does (gq_exact_tally_extremes).
__device__ __forceinline__ void extremes_in_order(gq_exact_tally &t, double a, uint64_t i)
{
  if (a < t.min) {
    t.min = a;
    t.argmin = i;
  }
  if (a > t.max) {
    t.max = a;
    t.argmax = i;
  }
}

// The first `span` lanes' tallies (a power of two) merged into lane 0's
// (the merge is order-free: ties go to the smaller index); every one of
// the warp's `lanes` takes part in the shuffles.
template <int KIND>
__device__ __forceinline__ void warp_tally(gq_exact_tally &t, unsigned lanes, unsigned span)
{
  const unsigned lane = threadIdx.x % 32, mask = lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
  for (unsigned d = span / 2; d > 0; d /= 2) {
    const gq_exact_tally o = shuffle_down<KIND>(t, d, mask);
    if (lane < d)
      gq_exact_tally_combine(&t, &o);
  }
}

// The block's tallies merged into thread 0's *out: each warp's by shuffles,
// then warp 0 over the warps' by shuffles again.  Kinds without a tally
// skip it; the barrier is every kind's: it orders the threads' flushes into
// the words, and their rare atomics, before the block carries and adds
// them.
template <int KIND>
__device__ void block_tally(gq_exact_tally t, gq_exact_tally *out)
{
  __shared__ gq_exact_tally warps[EXACT_BLOCK / 32];
  const unsigned lanes = blockDim.x < 32 ? blockDim.x : 32, nwarps = (blockDim.x + 31) / 32;
  if constexpr (has_tally<KIND>()) {
    warp_tally<KIND>(t, lanes, lanes);
    if (threadIdx.x % 32 == 0)
      warps[threadIdx.x / 32] = t;
  }
  __syncthreads();
  if constexpr (has_tally<KIND>()) {
    if (threadIdx.x < 32) {
      gq_exact_tally w;
      gq_exact_tally_zero(&w);
      if (threadIdx.x < nwarps)
        w = warps[threadIdx.x];
      unsigned span = 1;
      while (span < nwarps)
        span *= 2;
      warp_tally<KIND>(w, lanes, span);
      if (threadIdx.x == 0)
        *out = w;
    }
  }
}

// Where the grid's tallies end: the last block to finish (a ticket) merges
// every block's into *tally — written by a launch's first slice, merged into
// by the next ones — and puts the ticket back to 0 for the next launch.  So
// one tally comes back, not one per block.  In a reduction's last launch it
// exports the result instead (export_result).
struct Total {
  gq_exact_tally *tally;
  RareTotal *rare;
  unsigned long long *ticket;
  int first, last;              // the first and last launches of a reduction
  unsigned long long *mapped;   // the context's mapped words and tally
};

// The mapped result's layout, in 8-byte words: a header per channel (the
// first nonzero word's index and the count of words from it to the last
// nonzero one: lo | count << 16), the tally, PARTS doubles a channel (a
// single block's merged expansions, which the host adds exactly; zeros
// from a grid, whose blocks added theirs to the words), then each
// channel's window of words in turn.  Only the windows cross the bus and
// are polled: a sum of doubles of similar magnitude fills a few of a
// channel's WORDS.
constexpr unsigned PARTS = 3;
constexpr unsigned MAPPED_HEADERS = 0, MAPPED_TALLY = CHANNELS, MAPPED_PARTS = MAPPED_TALLY + TALLY_WORDS;
constexpr unsigned MAPPED_WINDOWS = MAPPED_PARTS + CHANNELS * PARTS;
constexpr unsigned MAPPED_WORDS = MAPPED_WINDOWS + CHANNELS * WORDS;
__host__ __device__ constexpr unsigned long long window_header(unsigned lo, unsigned count)
{
  return (unsigned long long)lo | (unsigned long long)count << 16;
}
__host__ __device__ constexpr unsigned window_lo(unsigned long long h) { return (unsigned)(h & 0xffff); }
__host__ __device__ constexpr unsigned window_count(unsigned long long h) { return (unsigned)(h >> 16 & 0xffff); }

// The result into mapped host memory (the layout above): word(k) gives
// word k of USED x WORDS, rare(j) the tally's non-finite word 1 + j (the
// three counts, then the three first indices), both read once by one
// thread; `scratch` (USED x WORDS of shared memory that no thread reads
// any more) holds the words until the windows are known.  No fence and no
// flag: the host poisoned every word (GQ_POISON, a value no word can hold:
// the words stay below 2^62 in magnitude, the tally's doubles are never
// NaN, its counts and indices below 2^62 or all ones, a header below 2^32)
// and waits until none it needs is left, as the fast path's one-shot does.
// The tally's n is the host's to fill.
template <int USED, class Word, class RareWord>
__device__ void export_result(const gq_exact_tally &merged, const double (&parts)[CHANNELS][PARTS],
                              unsigned long long *mapped, unsigned long long *scratch, Word word, RareWord rare)
{
  static_assert(offsetof(gq_exact_tally, nan_count) == 8 && offsetof(gq_exact_tally, first_neginf) == 48,
                "the non-finite counts and first indices are the tally's words 1..6");
  static_assert(WORDS < 0x10000, "a window's bounds fit a header's 16-bit fields");
  __shared__ unsigned long long tally[TALLY_WORDS];
  __shared__ int lo[USED], hi[USED];
  if (threadIdx.x == 0) {
    memcpy(tally, &merged, sizeof merged);
    for (unsigned k = 0; k < CHANNELS * PARTS; k++)
      mapped[MAPPED_PARTS + k] = (unsigned long long)__double_as_longlong(parts[k / PARTS][k % PARTS]);
  }
  for (unsigned c = threadIdx.x; c < USED; c += blockDim.x) {
    lo[c] = WORDS;
    hi[c] = -1;
  }
  __syncthreads();
  for (unsigned j = threadIdx.x; j < 6; j += blockDim.x) // blocks of fewer threads too (tests force 1)
    tally[1 + j] = rare(j);
  for (unsigned k = threadIdx.x; k < USED * WORDS; k += blockDim.x) {
    const unsigned long long w = word(k);
    if (w) {
      atomicMin(&lo[k / WORDS], (int)(k % WORDS));
      atomicMax(&hi[k / WORDS], (int)(k % WORDS));
    }
    scratch[k] = w;
  }
  __syncthreads();
  for (unsigned k = threadIdx.x; k < USED * WORDS; k += blockDim.x) {
    const unsigned c = k / WORDS;
    const int j = (int)(k % WORDS);
    if (j >= lo[c] && j <= hi[c]) {
      unsigned at = MAPPED_WINDOWS;
      for (unsigned b = 0; b < c; b++)
        at += hi[b] >= lo[b] ? hi[b] - lo[b] + 1 : 0;
      mapped[at + j - lo[c]] = scratch[k];
    }
  }
  for (unsigned c = threadIdx.x; c < CHANNELS; c += blockDim.x)
    mapped[MAPPED_HEADERS + c] =
      c < USED && hi[c] >= lo[c] ? window_header(lo[c], hi[c] - lo[c] + 1) : window_header(0, 0);
  for (unsigned k = threadIdx.x; k < TALLY_WORDS; k += blockDim.x)
    mapped[MAPPED_TALLY + k] = tally[k];
}

// The grid's result, exported by its last block: the grid's words and
// non-finite totals, each read and zeroed for the next reduction (every
// block's atomics came before its block's ticket).
template <int USED>
__device__ void export_grid(unsigned long long *d_words, const gq_exact_tally &merged, const Total &total,
                            unsigned long long *scratch)
{
  static_assert(sizeof(RareTotal) == 48, "the non-finite totals are six words, first indices complemented");
  const double none[CHANNELS][PARTS] = {};
  export_result<USED>(
    merged, none, total.mapped, scratch,
    [&](unsigned k) {
      const unsigned long long w = __ldcg(&d_words[k]);
      if (w)
        d_words[k] = 0;
      return w;
    },
    [&](unsigned j) {
      unsigned long long *g = reinterpret_cast<unsigned long long *>(total.rare) + j;
      const unsigned long long v = __ldcg(g);
      *g = 0;
      return j < 3 ? v : ~v;
    });
}

// A reduction of one block and one launch: its own words, merged
// expansions (parts: thread 0's) and non-finite tally are the result,
// exported straight from shared memory (no grid words, no ticket: two
// round trips to L2 fewer).
template <int KIND, int USED>
__device__ void export_block(const gq_exact_tally &tally, const Rare &rare, const double (&parts)[CHANNELS][PARTS],
                             unsigned long long *words, const Total &total)
{
  gq_exact_tally merged; // thread 0's
  gq_exact_tally_zero(&merged);
  block_tally<KIND>(tally, &merged); // its barrier: every spill into the words is done
  export_result<USED>(
    merged, parts, total.mapped, words, [&](unsigned k) { return words[k]; },
    [&](unsigned j) {
      const unsigned long long v[6] = {rare.nan,       rare.posinf,       rare.neginf,
                                       rare.first_nan, rare.first_posinf, rare.first_neginf};
      return v[j];
    });
}

// The ticket: the block's barrier orders every thread's adds and thread 0's
// stores before thread 0's release fence and ticket; the last block's
// thread 0 acquires before its barrier lets the others read.  One fence a
// block where each thread's __threadfence() (MEMBAR.SC.GPU) waited for its
// own adds.
template <int KIND, int USED>
__device__ void last_block_total(const gq_exact_tally *d_tallies, unsigned long long *d_words, const Total &total,
                                 unsigned long long *scratch)
{
  __shared__ bool last;
  __syncthreads(); // every thread's adds; thread 0 wrote this block's tally (block_tally) and rare counts
  if (threadIdx.x == 0) {
    gq::fence_acq_rel_gpu(); // release: this block's adds and tally before its ticket
    last = atomicAdd(total.ticket, 1ull) == gridDim.x - 1;
    if (last)
      gq::fence_acq_rel_gpu(); // acquire: every block's, after every ticket
  }
  __syncthreads();
  if (!last)
    return;
  gq_exact_tally t;
  gq_exact_tally_zero(&t);
  if constexpr (has_tally<KIND>()) {
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
      gq_exact_tally o = t; // the kind's words read through L2: other multiprocessors wrote them
      const unsigned long long *src = reinterpret_cast<const unsigned long long *>(&d_tallies[b]);
      unsigned long long w[TALLY_WORDS];
      memcpy(w, &o, sizeof o);
#pragma unroll
      for (unsigned k = 0; k < TALLY_WORDS; k++)
        if (tally_word<KIND>(k))
          w[k] = __ldcg(src + k);
      memcpy(&o, w, sizeof o);
      gq_exact_tally_combine(&t, &o);
    }
  }
  gq_exact_tally merged; // thread 0's
  gq_exact_tally_zero(&merged);
  block_tally<KIND>(t, &merged);
  if (threadIdx.x == 0) {
    if (!total.first)
      gq_exact_tally_combine(&merged, total.tally);
    if (!total.last)
      *total.tally = merged;
    *total.ticket = 0;
  }
  if (total.last)
    export_grid<USED>(d_words, merged, total, scratch);
}

} // namespace gq_exact

#endif
