// exact_reduce.cu — the deterministic sum, dot, rms and statistics of device
// arrays (issue 20): one kernel per kind.  Each thread adds its elements
// (whole tiles, a grid-stride loop: which thread takes which element does
// not matter) into expansions that spill into the block's exact words in
// shared memory (engine/exact_accumulator.cuh); a warp's expansions are
// merged into one lane's before it flushes them; the block adds its words
// to the grid's with one atomic each, its non-finite counts (if any) to
// the grid's by atomics, and the tally words its kind fills (extremes, max
// |a - b|) to its slot, which the grid's last block merges into one.  The
// last block of a reduction's last launch writes the words and the tally
// into the context's mapped host memory, poisoned by the host, zeroing the
// device's words for the next reduction (nothing is zeroed, allocated or
// copied per call); the host spins until no word is poisoned and finishes
// them with the CPU backend's code (exact_acc.h), so a CUDA context gives
// the CPU context's bits.
#include <cstdint>
#include <cstdlib>

#include <cuda_pipeline.h>

#include "cuda_check.cuh"
#include "cuda_state.cuh"
#include "engine/exact_accumulator.cuh"
#include "engine/exact_deposit.cuh"
#include "grid.cuh" // exact_forced_blocks
#include "engine/launch.cuh"
#include "host_spin.cuh"
#include "../src/lib/exact.h"

namespace {

constexpr int EXACT_BLOCK = 256;
// Doubles per expansion (any K is exact; a smaller one only spills to the
// words more often): 2 for sums of doubles, whose 53-bit terms a second part
// holds below the first almost always (a third cost 6 FP64 operations a
// term for nothing), 3 where TwoProd's halves carry 106 bits a term (with
// 2, nearly every product's low half spilled).
constexpr int EXPANSION_SUM = 2, EXPANSION_PRODUCT = 3;
constexpr int CHANNELS = 3;  // sums per accumulator (exact_acc.h)
constexpr int WORDS = GQ_SUPERACC_WORDS;
// Digit adds the grid's words may take in one launch without each block
// carrying its own first: each add is below 2^32, so 2^30 of them keep a
// word far inside an int64.
constexpr uint64_t UNCARRIED_ADDS = 1ull << 30;

// Blocks per multiprocessor the registers must allow on a full grid.  4
// (64 registers a thread) against the compiler's own 78-86 (3 blocks, 2 for
// stats), H200, 2^28 doubles: sum 558 -> 531 us, dot 1096 -> 1053, stats
// 2283 -> 1814, though the kernels then spill a few registers (BENCHMARKS.md,
// issue 20).  -D overrides it for measurements.
#ifndef GQ_EXACT_MIN_BLOCKS
#define GQ_EXACT_MIN_BLOCKS 4
#endif
// Stats' levels, their snapshot for a whole tile, extremes and loads take
// 120 registers: 2 blocks, no spills (H200, 2^28 doubles: 1261 us, 1179
// with the staged loads; at 3 blocks, 80 registers and spills, 1269-1276,
// 1197-1225 staged).
#ifndef GQ_EXACT_STATS_MIN_BLOCKS
#define GQ_EXACT_STATS_MIN_BLOCKS 2
#endif

unsigned forced_threads; // the forced block size (tests), or 0 for the default

// The channels a kind fills (the host's s[0..]); sum and dot with
// magnitudes keep sum t as P (terms >= 0) and N (terms < 0) in channels 0
// and 1, which the host (run) turns into P + N and P - N.  Stats fills
// exact_acc.h's channels as they are (sum x, sum x^2, sum |x|).
template <int KIND, bool ABS>
__host__ __device__ constexpr int used_channels()
{
  return KIND == GQ_REDUCE_STATS ? 3 : KIND == GQ_REDUCE_RMS ? 2 : ABS ? 2 : 1;
}
template <int KIND, bool ABS>
__host__ __device__ constexpr bool split()
{
  return (KIND == GQ_REDUCE_SUM || KIND == GQ_REDUCE_DOT) && ABS;
}
// loads in flight per thread and tile: 64 bytes
template <int KIND>
__host__ __device__ constexpr int items()
{
  return KIND == GQ_REDUCE_DOT || KIND == GQ_REDUCE_RMS ? 4 : 8;
}
// word adds per element and channel at most (rms: three products of two
// halves), for the carry decision; and per thread, beyond those, the stats
// levels' flushes (4 levels a channel, each span and each reanchor)
constexpr uint64_t ADDS_PER_ELEMENT = 6;
constexpr uint64_t FLUSH_ADDS_PER_THREAD = 4 * (gq::DEPOSIT_REANCHORS + 2);

template <class T>
__device__ __forceinline__ double element(const T *v, uint64_t i)
{
  return (double)v[i];
}

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

// The grid's words and total tally into mapped host memory, the words and
// the non-finite totals zeroed for the next reduction (every block's
// atomics are done: each came before its block's ticket), each word read,
// zeroed and written by its own thread.  No fence and no flag: the host
// poisoned every word (GQ_POISON, a value no word can hold: the words stay
// below 2^62 in magnitude, the tally's doubles are never NaN, its counts
// and indices below 2^62 or all ones) and waits until none is left, as the
// fast path's one-shot does.  The tally's n is the host's to fill.
template <int USED>
__device__ void export_result(unsigned long long *d_words, const gq_exact_tally &merged, const Total &total)
{
  static_assert(offsetof(gq_exact_tally, nan_count) == 8 && offsetof(gq_exact_tally, first_neginf) == 48 &&
                    sizeof(RareTotal) == 48,
                "the non-finite totals are the tally's words 1..6, first indices complemented");
  __shared__ unsigned long long tally[TALLY_WORDS];
  if (threadIdx.x == 0)
    memcpy(tally, &merged, sizeof merged);
  __syncthreads();
  for (unsigned j = threadIdx.x; j < 6; j += blockDim.x) { // blocks of fewer threads too (tests force 1)
    unsigned long long *g = reinterpret_cast<unsigned long long *>(total.rare) + j;
    const unsigned long long v = __ldcg(g);
    *g = 0;
    tally[1 + j] = j < 3 ? v : ~v;
  }
  for (unsigned k = threadIdx.x; k < CHANNELS * WORDS; k += blockDim.x) {
    unsigned long long w = 0;
    if (k < USED * WORDS) {
      w = __ldcg(&d_words[k]);
      d_words[k] = 0;
    }
    total.mapped[k] = w;
  }
  __syncthreads();
  for (unsigned k = threadIdx.x; k < TALLY_WORDS; k += blockDim.x)
    total.mapped[CHANNELS * WORDS + k] = tally[k];
}

template <int KIND, int USED>
__device__ void last_block_total(const gq_exact_tally *d_tallies, unsigned long long *d_words, const Total &total)
{
  __shared__ bool last;
  __syncthreads(); // thread 0 wrote this block's tally (block_tally) and rare counts
  if (threadIdx.x == 0) {
    __threadfence(); // this block's tally before its ticket
    last = atomicAdd(total.ticket, 1ull) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last)
    return;
  __threadfence(); // every block's tally, after every ticket
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
    export_result<USED>(d_words, merged, total);
}

// A thread's sums: one expansion per channel, or for the split kinds P and
// N in one SplitExpansion (channels 0 and LAST); rms' sum a^2 in channel 1.
// Stats: fixed-grid levels (the specialization below).
template <int KIND, bool ABS>
struct Sums {
  static constexpr int USED = used_channels<KIND, ABS>();
  // sum: doubles; dot and rms: products
  static constexpr int K0 = KIND == GQ_REDUCE_SUM ? EXPANSION_SUM : EXPANSION_PRODUCT;
  gq::SplitExpansion<K0> pn;
  gq::Expansion<K0> e0;
  gq::Expansion<EXPANSION_PRODUCT> e1; // rms' sum a^2
  __device__ __forceinline__ void zero()
  {
    pn.zero();
    e0.zero();
    e1.zero();
  }
  template <int ITEMS>
  __device__ __forceinline__ void tile_done(unsigned long long (&)[USED][WORDS])
  {
  }
  // The warp's sums merged into lane 0's, which alone flushes them.
  __device__ __forceinline__ void flush(unsigned long long (&words)[USED][WORDS])
  {
    const unsigned lanes = blockDim.x < 32 ? blockDim.x : 32;
    if constexpr (split<KIND, ABS>()) {
      pn.warp_merge(lanes, words[0], words[USED - 1]);
      if (threadIdx.x % 32 == 0)
        pn.flush(words[0], words[USED - 1]);
    } else {
      e0.warp_merge(lanes, words[0]);
      if (threadIdx.x % 32 == 0)
        e0.flush(words[0]);
    }
    if constexpr (KIND == GQ_REDUCE_RMS) {
      e1.warp_merge(lanes, words[1]);
      if (threadIdx.x % 32 == 0)
        e1.flush(words[1]);
    }
  }
};

// Stats: sum x, sum x^2 and sum |x| in gq::StatsDeposit's levels (three
// additions a level where an expansion's TwoSum takes six: H200, 2^28
// doubles, 1602 -> 1413 us; whole tiles at once, 1261), flushed every
// 2^DEPOSIT_LOG_SPAN elements a thread into expansions (touched that
// rarely, they may live in local memory; flushing into the words instead
// took 64-bit shared atomics, compare-and-swap loops that a warp's lanes
// contend on); at the end the levels go there too, and a warp merges the
// expansions before one lane flushes them.
template <bool ABS>
struct Sums<GQ_REDUCE_STATS, ABS> {
  static constexpr int USED = 3;
  gq::StatsDeposit dep;
  gq::Expansion<EXPANSION_SUM> f0, f2; // sum x, sum |x|
  gq::Expansion<EXPANSION_PRODUCT> f1; // sum x^2
  static constexpr unsigned TILES = (1u << gq::DEPOSIT_LOG_SPAN) / items<GQ_REDUCE_STATS>(); // a span's
  unsigned left; // tiles before the levels are flushed
  __device__ __forceinline__ void zero()
  {
    dep.zero();
    f0.zero();
    f1.zero();
    f2.zero();
    left = TILES;
  }
  // A whole tile into the levels at once, when the levels take every
  // element and leave nothing of any: no branch per element, so the
  // compiler interleaves the elements' chains of dependent additions
  // (per element, the branches had serialized them).  Else the levels as
  // they were, and false: the caller adds the tile element by element.
  template <int ITEMS>
  __device__ __forceinline__ bool add_tile(const double (&a)[ITEMS])
  {
    bool all = true;
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
      all &= dep.takes(a[k]);
    if (!all)
      return false;
    const gq::StatsDeposit before = dep;
    unsigned long long left_bits = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
      left_bits |= dep.add_all(a[k], fabs(a[k]));
    if ((left_bits << 1) == 0) // no bits left below the levels (signs aside)
      return true;
    dep = before;
    return false;
  }
  // A level's part v of channel c into its expansion.
  __device__ __forceinline__ void bank(int c, double v, unsigned long long (&words)[USED][WORDS])
  {
    if (v == 0.0)
      return;
    if (c == 0)
      f0.add(v, words[0]);
    else if (c == 1)
      f1.add(v, words[1]);
    else
      f2.add(v, words[2]);
  }
  // (the partial tile and a rare element or two beyond a span are inside
  // the levels' margin of two)
  template <int ITEMS>
  __device__ __forceinline__ void tile_done(unsigned long long (&words)[USED][WORDS])
  {
    static_assert(ITEMS == items<GQ_REDUCE_STATS>(), "a span is whole tiles");
    if (--left == 0) {
      dep.flush([&](int c, double v) { bank(c, v, words); });
      left = TILES;
    }
  }
  __device__ __forceinline__ void flush(unsigned long long (&words)[USED][WORDS])
  {
    const unsigned lanes = blockDim.x < 32 ? blockDim.x : 32;
    dep.drain([&](int c, double v) { bank(c, v, words); });
    f0.warp_merge(lanes, words[0]);
    f1.warp_merge(lanes, words[1]);
    f2.warp_merge(lanes, words[2]);
    if (threadIdx.x % 32 == 0) {
      f0.flush(words[0]);
      f1.flush(words[1]);
      f2.flush(words[2]);
    }
  }
};

// What an element that the fast path does not take does: not finite (the
// block's Rare tally), or too large or too small for the expansions'
// error-free arithmetic (straight into the words).  Inlined: a call that
// takes the sums by reference puts them in local memory for the whole
// kernel (measured: dot 2^28 1.4 -> 3.9 ms).
template <int KIND, bool ABS, int USED>
__device__ __forceinline__ void add_rare(double a, double b, uint64_t i, gq_exact_tally &tally, Rare &rare,
                                      Sums<KIND, ABS> &sum, unsigned long long (&words)[USED][WORDS])
{
  constexpr int LAST = USED - 1;
  if constexpr (KIND == GQ_REDUCE_STATS) {
    if (!isfinite(a)) {
      rare.nonfinite(a, i);
      return;
    }
    const double ax = fabs(a);
    if (a == 0.0) { // adds nothing
    } else if (ax < gq::DEPOSIT_MAX && ax >= gq::DEPOSIT_MIN) { // above the levels' anchor
      sum.dep.reanchor(ax, [&](int c, double v) { sum.bank(c, v, words); });
      sum.dep.add(a, ax, words);
    } else { // beyond the levels' range: exactly into the words
      gq::exact_words_add(words[0], a);
      gq::exact_words_add(words[2], ax);
      gq::exact_words_add_product(words[1], a, a, 0, 0);
    }
    extremes_in_order(tally, a, i);
  } else if constexpr (KIND == GQ_REDUCE_SUM) {
    if (!isfinite(a)) {
      rare.nonfinite(a, i);
      return;
    }
    if constexpr (split<KIND, ABS>())
      gq::exact_words_add(signbit(a) ? words[LAST] : words[0], a);
    else
      gq::exact_words_add(words[0], a);
  } else {
    if (!isfinite(a) || !isfinite(b)) {
      if constexpr (KIND == GQ_REDUCE_DOT)
        rare.nonfinite(a * b, i);
      else
        rare.rms_nonfinite(a, b);
      return;
    }
    if constexpr (KIND == GQ_REDUCE_DOT) {
      if constexpr (ABS) {
        if (a != 0.0 && b != 0.0)
          gq::exact_words_add_product((signbit(a) != signbit(b)) ? words[LAST] : words[0], a, b, 0, 0);
      } else {
        sum.e0.add_product(a, b, 0, 0, words[0]);
      }
    }
  }
}

// One element (a pair for dot and rms) at index i.  The fast path: finite
// and in the expansions' range, checked by one comparison per value.
template <int KIND, bool ABS, int USED>
__device__ __forceinline__ void add_element(double a, double b, uint64_t i, Sums<KIND, ABS> &sum,
                                            gq_exact_tally &tally, Rare &rare,
                                            unsigned long long (&words)[USED][WORDS])
{
  constexpr int LAST = USED - 1;
  if constexpr (KIND == GQ_REDUCE_SUM) {
    if (fabs(a) < gq::EXACT_EXPANSION_LIMIT) {
      if constexpr (ABS)
        sum.pn.add_in_range(a, signbit(a), words[0], words[LAST]);
      else
        sum.e0.add_in_range(a, words[0]);
    } else {
      add_rare<KIND, ABS, USED>(a, b, i, tally, rare, sum, words);
    }
  } else if constexpr (KIND == GQ_REDUCE_STATS) {
    if (sum.dep.takes(a)) { // below the anchor, x^2 exact
      sum.dep.add(a, fabs(a), words);
      extremes_in_order(tally, a, i);
    } else {
      add_rare<KIND, ABS, USED>(a, b, i, tally, rare, sum, words);
    }
  } else if constexpr (KIND == GQ_REDUCE_DOT) {
    const double p = a * b, ap = fabs(p);
    if (ap >= gq::EXACT_PRODUCT_FLOOR && ap < gq::EXACT_EXPANSION_LIMIT) { // finite, TwoProd exact
      const double err = fma(a, b, -p);
      if constexpr (ABS) {
        const bool negative = signbit(p);
        sum.pn.add_in_range(p, negative, words[0], words[LAST]);
        sum.pn.template add_in_range<1>(err, negative, words[0], words[LAST]);
      } else {
        sum.e0.add_in_range(p, words[0]);
        sum.e0.add_tail(err, words[0]);
      }
    } else {
      add_rare<KIND, ABS, USED>(a, b, i, tally, rare, sum, words);
    }
  } else { // rms: (a - b)^2 = a^2 - 2ab + b^2, each product exact
    if (!isfinite(a) || !isfinite(b)) {
      add_rare<KIND, ABS, USED>(a, b, i, tally, rare, sum, words);
      return;
    }
    sum.e0.add_product(a, a, 0, 0, words[0]);
    sum.e0.add_product(a, b, 1, 1, words[0]);
    sum.e0.add_product(b, b, 0, 0, words[0]);
    sum.e1.add_product(a, a, 0, 0, words[1]);
    tally.max_abs = fmax(tally.max_abs, fabs(a - b));
  }
}

// kind: GQ_REDUCE_*; ABS: sum and dot also sum |t| (stats and rms always
// fill their channels).  Elements [0, n) of x (and y); indices in the tallies
// count from base.  Whole tiles of ITEMS coalesced loads per thread, all
// issued before any is added, then the last partial tile with bounds (the
// finite count is the host's: n less the non-finite ones).  carry: each block carries its words before adding them
// to the grid's (a launch of more adds than UNCARRIED_ADDS); else only the
// words a block touched are added, as they are.
template <int KIND, bool ABS, class T, bool SMALL>
__global__ void __launch_bounds__(EXACT_BLOCK, SMALL                       ? 1
                                               : KIND == GQ_REDUCE_STATS ? GQ_EXACT_STATS_MIN_BLOCKS
                                                                         : GQ_EXACT_MIN_BLOCKS)
    exact_kernel(const T *x, const T *y, uint64_t n, uint64_t base,
                                                             int carry, unsigned long long *d_words,
                                                             gq_exact_tally *d_tallies, Total total)
{
  constexpr bool PAIR = KIND == GQ_REDUCE_DOT || KIND == GQ_REDUCE_RMS;
  constexpr int USED = used_channels<KIND, ABS>(), ITEMS = items<KIND>();
  __shared__ unsigned long long words[USED][WORDS];
  __shared__ Rare rare;
  for (int k = threadIdx.x; k < USED * WORDS; k += blockDim.x)
    words[k / WORDS][k % WORDS] = 0;
  if (threadIdx.x == 0)
    rare.zero();
  __syncthreads();
  Sums<KIND, ABS> sum;
  sum.zero();
  gq_exact_tally tally;
  gq_exact_tally_zero(&tally);
  const uint64_t tile = (uint64_t)blockDim.x * ITEMS, whole = n / tile;
  // One whole tile: a[k] (b[k]) is element first + k blockDim.x.
  auto add_tile = [&](const double(&a)[ITEMS], const double(&b)[ITEMS], uint64_t first) {
    bool whole_tile = false;
    if constexpr (KIND == GQ_REDUCE_STATS) {
      whole_tile = sum.add_tile(a);
      if (whole_tile) {
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
          extremes_in_order(tally, a[k], base + first + (uint64_t)k * blockDim.x);
      }
    }
    if (!whole_tile) {
#pragma unroll
      for (int k = 0; k < ITEMS; k++)
        add_element<KIND, ABS, USED>(a[k], b[k], base + first + (uint64_t)k * blockDim.x, sum, tally, rare, words);
    }
    sum.template tile_done<ITEMS>(words);
  };
  if constexpr (KIND == GQ_REDUCE_STATS && !SMALL) {
    // Stats' tiles staged: each thread has the copy engine fetch its items
    // of the next tile into shared memory (cp.async: no registers held)
    // while it adds the current one, and reads back only its own items, so
    // no barrier is needed (H200, 2^28 doubles: 1254-1261 -> 1179 us, the
    // loads' long-scoreboard stalls gone).
    __shared__ T stage[2][ITEMS][EXACT_BLOCK];
    auto fetch = [&](uint64_t t, int s) {
      const uint64_t first = t * tile + threadIdx.x;
#pragma unroll
      for (int k = 0; k < ITEMS; k++)
        __pipeline_memcpy_async(&stage[s][k][threadIdx.x], x + first + (uint64_t)k * blockDim.x, sizeof(T));
      __pipeline_commit();
    };
    int s = 0;
    if (blockIdx.x < whole)
      fetch(blockIdx.x, 0);
    for (uint64_t t = blockIdx.x; t < whole; t += gridDim.x, s ^= 1) {
      if (t + gridDim.x < whole) {
        fetch(t + gridDim.x, s ^ 1);
        __pipeline_wait_prior(1);
      } else {
        __pipeline_wait_prior(0);
      }
      double a[ITEMS], b[ITEMS];
#pragma unroll
      for (int k = 0; k < ITEMS; k++) {
        a[k] = (double)stage[s][k][threadIdx.x];
        b[k] = 0.0;
      }
      add_tile(a, b, t * tile + threadIdx.x);
    }
  } else {
    for (uint64_t t = blockIdx.x; t < whole; t += gridDim.x) {
      const uint64_t first = t * tile + threadIdx.x;
      double a[ITEMS], b[ITEMS];
#pragma unroll
      for (int k = 0; k < ITEMS; k++) {
        a[k] = element(x, first + (uint64_t)k * blockDim.x);
        b[k] = PAIR ? element(y, first + (uint64_t)k * blockDim.x) : 0.0;
      }
      add_tile(a, b, first);
    }
  }
  if (whole * tile < n && blockIdx.x == whole % gridDim.x) { // the partial tile, by the block the stride gives it
    const uint64_t first = whole * tile + threadIdx.x;
    for (int k = 0; k < ITEMS; k++) {
      const uint64_t i = first + (uint64_t)k * blockDim.x;
      if (i < n) {
        add_element<KIND, ABS, USED>(element(x, i), PAIR ? element(y, i) : 0.0, base + i, sum, tally, rare, words);
      }
    }
  }
  sum.flush(words);
  block_tally<KIND>(tally, &d_tallies[blockIdx.x]); // its __syncthreads orders the flushes before the carry
  if (threadIdx.x == 0)
    rare.into(total.rare);
  if (carry) {
    for (unsigned c = threadIdx.x; c < USED; c += blockDim.x)
      gq::exact_words_normalize(words[c]);
    __syncthreads();
  }
  for (int k = threadIdx.x; k < USED * WORDS; k += blockDim.x)
    if (words[k / WORDS][k % WORDS])
      atomicAdd(&d_words[k], words[k / WORDS][k % WORDS]);
  __threadfence(); // this thread's adds before the block's ticket
  last_block_total<KIND, USED>(d_tallies, d_words, total);
}

template <int KIND, bool ABS, class T, bool SMALL>
int launch(gq_cuda_state *st, const gq_array_reduce *p, unsigned grid, unsigned threads, unsigned long long *d_words,
           gq_exact_tally *d_tallies, Total total)
{
  const T *x = static_cast<const T *>(p->x), *y = static_cast<const T *>(p->y);
  // Each thread adds at most EXACT_TERMS_PER_THREAD elements per launch:
  // its expansions cannot overflow and a block's words cannot either.
  const uint64_t slice = (uint64_t)grid * threads * gq::EXACT_TERMS_PER_THREAD;
  for (uint64_t first = 0; first < p->n; first += slice) {
    const uint64_t count = p->n - first < slice ? p->n - first : slice;
    const uint64_t per_thread = 2 * EXPANSION_PRODUCT + FLUSH_ADDS_PER_THREAD;
    const int carry = ADDS_PER_ELEMENT * count + 4 * (count >> gq::DEPOSIT_LOG_SPAN) + per_thread * grid * threads >=
                      UNCARRIED_ADDS;
    total.first = first == 0;
    total.last = first + count == p->n;
    exact_kernel<KIND, ABS, T, SMALL><<<grid, threads, 0, st->stream>>>(x + first, y ? y + first : nullptr, count,
                                                                     first, carry, d_words, d_tallies, total);
    GQ_CUDA_LAUNCH_CHECK();
  }
  return GQ_SUCCESS;
}

template <class T>
const void *kernel_of(int kind, bool abs)
{
  switch (kind) {
  case GQ_REDUCE_SUM:
    return abs ? (const void *)exact_kernel<GQ_REDUCE_SUM, true, T, false>
               : (const void *)exact_kernel<GQ_REDUCE_SUM, false, T, false>;
  case GQ_REDUCE_DOT:
    return abs ? (const void *)exact_kernel<GQ_REDUCE_DOT, true, T, false>
               : (const void *)exact_kernel<GQ_REDUCE_DOT, false, T, false>;
  case GQ_REDUCE_RMS: return (const void *)exact_kernel<GQ_REDUCE_RMS, true, T, false>;
  default: return (const void *)exact_kernel<GQ_REDUCE_STATS, true, T, false>;
  }
}

template <class T, bool SMALL>
int by_kind(gq_cuda_state *st, const gq_array_reduce *p, bool abs, unsigned grid, unsigned threads,
            unsigned long long *d_words, gq_exact_tally *d_tallies, Total total)
{
  switch (p->kind) {
  case GQ_REDUCE_SUM:
    return abs ? launch<GQ_REDUCE_SUM, true, T, SMALL>(st, p, grid, threads, d_words, d_tallies, total)
               : launch<GQ_REDUCE_SUM, false, T, SMALL>(st, p, grid, threads, d_words, d_tallies, total);
  case GQ_REDUCE_DOT:
    return abs ? launch<GQ_REDUCE_DOT, true, T, SMALL>(st, p, grid, threads, d_words, d_tallies, total)
               : launch<GQ_REDUCE_DOT, false, T, SMALL>(st, p, grid, threads, d_words, d_tallies, total);
  case GQ_REDUCE_RMS:
    return launch<GQ_REDUCE_RMS, true, T, SMALL>(st, p, grid, threads, d_words, d_tallies, total);
  default:
    return launch<GQ_REDUCE_STATS, true, T, SMALL>(st, p, grid, threads, d_words, d_tallies, total);
  }
}

// The context's device buffer (d_exact): the words (CHANNELS x WORDS), the
// total tally, the non-finite totals, the ticket — zeroed once, and left so
// by every reduction — then one tally per block.  The mapped host buffer:
// the words and the tally.
constexpr size_t HEAD_BYTES = CHANNELS * WORDS * sizeof(unsigned long long) + sizeof(gq_exact_tally);
constexpr size_t RARE_AT = HEAD_BYTES, TICKET_AT = RARE_AT + sizeof(RareTotal);
constexpr size_t ZEROED_BYTES = TICKET_AT + sizeof(unsigned long long);
constexpr size_t MAPPED_BYTES = HEAD_BYTES;

// Room for `grid` blocks' tallies, and the mapped buffer.  A buffer that
// grows is freed (cudaFree waits for the device) and zeroed afresh.
int ensure_buffers(gq_cuda_state *st, unsigned grid)
{
  if (!st->h_exact) {
    GQ_CUDA_TRY(cudaHostAlloc(&st->h_exact, MAPPED_BYTES, cudaHostAllocMapped));
    GQ_CUDA_TRY(cudaHostGetDevicePointer(&st->h_exact_dev, st->h_exact, 0));
  }
  if (st->d_exact && grid <= st->exact_blocks)
    return GQ_SUCCESS;
  if (st->d_exact) {
    GQ_CUDA_TRY(cudaFree(st->d_exact));
    st->d_exact = nullptr;
  }
  const unsigned blocks = grid > (unsigned)st->sms * 8 ? grid : (unsigned)st->sms * 8;
  GQ_CUDA_TRY(cudaMalloc(&st->d_exact, ZEROED_BYTES + (size_t)blocks * sizeof(gq_exact_tally)));
  st->exact_blocks = blocks;
  st->exact_dirty = 1;
  return GQ_SUCCESS;
}

// The launches, the wait and the host's part of the finish.  small: the
// grid is smaller than the device holds (a small array): the kernel
// compiled without GQ_EXACT_MIN_BLOCKS's register cap, whose spills cost a
// short launch more than its occupancy gains (one-shot sum of 2^20:
// 32.7 us uncapped, 39.8 capped at 4 blocks).
int run(gq_cuda_state *st, const gq_array_reduce *p, bool abs, bool small, struct gq_exact_acc *out, unsigned grid,
        unsigned threads)
{
  unsigned long long *d_words = static_cast<unsigned long long *>(st->d_exact);
  volatile unsigned long long *h_head = static_cast<volatile unsigned long long *>(st->h_exact);
  constexpr unsigned HEAD_WORDS = HEAD_BYTES / sizeof(unsigned long long);
  for (unsigned k = 0; k < HEAD_WORDS; k++)
    h_head[k] = GQ_POISON;
  char *head = static_cast<char *>(st->d_exact);
  const Total total{reinterpret_cast<gq_exact_tally *>(d_words + CHANNELS * WORDS),
                    reinterpret_cast<RareTotal *>(head + RARE_AT),
                    reinterpret_cast<unsigned long long *>(head + TICKET_AT),
                    1,
                    1,
                    static_cast<unsigned long long *>(st->h_exact_dev)};
  gq_exact_tally *d_tallies = reinterpret_cast<gq_exact_tally *>(static_cast<char *>(st->d_exact) + ZEROED_BYTES);
  if (st->exact_dirty) {
    GQ_CUDA_TRY(cudaMemsetAsync(st->d_exact, 0, ZEROED_BYTES, st->stream));
    st->exact_dirty = 0;
  }
  st->exact_dirty = 1; // until the last block has zeroed the words again
  int status;
  if (small)
    status = p->is_float ? by_kind<float, true>(st, p, abs, grid, threads, d_words, d_tallies, total)
                         : by_kind<double, true>(st, p, abs, grid, threads, d_words, d_tallies, total);
  else
    status = p->is_float ? by_kind<float, false>(st, p, abs, grid, threads, d_words, d_tallies, total)
                         : by_kind<double, false>(st, p, abs, grid, threads, d_words, d_tallies, total);
  if (status == GQ_SUCCESS)
    status = gq::spin(
      st,
      [&] {
        for (unsigned k = 0; k < HEAD_WORDS; k++)
          if (h_head[k] == GQ_POISON)
            return false;
        return true;
      },
      "deterministic data reduction");
  if (status != GQ_SUCCESS)
    return status;
  st->exact_dirty = 0;
  const unsigned long long *h_words = static_cast<const unsigned long long *>(st->h_exact);
  gq_exact_tally t;
  memcpy(&t, h_words + CHANNELS * WORDS, sizeof t);
  t.n = p->n - t.nan_count - t.posinf_count - t.neginf_count;
  gq_exact_tally_combine(&out->t, &t);
  for (int c = 0; c < CHANNELS; c++) {
    for (int k = 0; k < WORDS; k++)
      out->s[c].word[k] = (int64_t)h_words[c * WORDS + k];
    gq_superacc_normalize(&out->s[c]);
  }
  // P and N (used_channels, split) into sum t = P + N and sum |t| = P - N
  const int last = abs && (p->kind == GQ_REDUCE_SUM || p->kind == GQ_REDUCE_DOT) ? 1 : 0;
  if (last) {
    gq_superacc *sum = &out->s[0], *mag = &out->s[last];
    for (int k = 0; k < WORDS; k++) { // both carried: every word below 2^32 in magnitude
      const int64_t P = sum->word[k], N = mag->word[k];
      sum->word[k] = P + N;
      mag->word[k] = P - N;
    }
    gq_superacc_normalize(sum);
    gq_superacc_normalize(mag);
  }
  return GQ_SUCCESS;
}

} // namespace

unsigned gq::exact_forced_blocks;

extern "C" void gq_cuda_exact_force_shape(unsigned blocks, unsigned threads)
{
  if (threads > EXACT_BLOCK || (threads & (threads - 1)))
    threads = 0;
  gq::exact_forced_blocks = blocks;
  forced_threads = threads;
}

extern "C" int gq_cuda_exact_reduce(gq_cuda_state *st, const gq_array_reduce *p, int magnitudes,
                                    struct gq_exact_acc *out)
{
  gq_exact_acc_zero(out, (int)p->kind);
  out->magnitudes = magnitudes;
  if (p->n == 0)
    return GQ_SUCCESS;
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  const size_t esize = p->is_float ? sizeof(float) : sizeof(double);
  if (reinterpret_cast<uintptr_t>(p->x) % esize || (p->y && reinterpret_cast<uintptr_t>(p->y) % esize))
    return gq_fail(GQ_EINVAL, "data reduction: the arrays must be aligned to their element size");
  // The resident grid (a grid-stride loop: no tail of blocks waiting for
  // a multiprocessor); the shape changes no bit (tests force others: a
  // power of two up to EXACT_BLOCK threads, which the tallies' pairwise
  // merge needs).
  const unsigned threads = forced_threads ? forced_threads : EXACT_BLOCK;
  const void *kernel = p->is_float ? kernel_of<float>(p->kind, magnitudes) : kernel_of<double>(p->kind, magnitudes);
  const unsigned forced_blocks = gq::exact_forced_blocks;
  unsigned grid = forced_blocks ? forced_blocks : (unsigned)(gq::resident_per_sm(st, kernel, (int)threads) * st->sms);
  // a small array: blocks of 4 tiles of 8 elements a thread (2^20: 128
  // blocks; 396 took as long on the device and their tallies longer to
  // copy and merge: 46.6 against 52.6 us for the one-shot sum)
  const uint64_t per_block = (uint64_t)threads * 8 * 4, needed = (p->n + per_block - 1) / per_block;
  const bool small = !forced_blocks && needed < grid;
  if (small)
    grid = (unsigned)needed;
  const int status = ensure_buffers(st, grid);
  return status != GQ_SUCCESS ? status : run(st, p, magnitudes != 0, small, out, grid, threads);
}
