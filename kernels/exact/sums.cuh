// sums.cuh — the deterministic array reductions' thread level (issue 20;
// kernels/exact_reduce.cu): each kind's sums (expansions, or stats' fixed-
// grid levels), how one element is added, and the rare path for what the
// fast path does not take.
#ifndef GQ_EXACT_SUMS_CUH
#define GQ_EXACT_SUMS_CUH

#include "../engine/exact_deposit.cuh"
#include "tally.cuh"

namespace gq_exact {

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
  // A whole tile of sum or dot at once, when every term is in the
  // expansions' range and none leaves anything below their last part: no
  // branch per element, so the elements' chains of dependent additions
  // interleave (per element, the branch to the words after each term's
  // last TwoSum serialized them).  Else the expansions as they were, and
  // false: the caller adds the tile element by element.
  template <int ITEMS>
  __device__ __forceinline__ bool add_tile(const double (&a)[ITEMS], const double (&b)[ITEMS])
  {
    static_assert(KIND == GQ_REDUCE_SUM || KIND == GQ_REDUCE_DOT, "sum and dot");
    bool all = true;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      if constexpr (KIND == GQ_REDUCE_SUM) {
        all &= fabs(a[k]) < gq::EXACT_EXPANSION_LIMIT; // false for NaN too
      } else {
        const double ap = fabs(a[k] * b[k]);
        all &= ap >= gq::EXACT_PRODUCT_FLOOR && ap < gq::EXACT_EXPANSION_LIMIT;
      }
    }
    if (!all)
      return false;
    const gq::SplitExpansion<K0> pn_before = pn;
    const gq::Expansion<K0> e0_before = e0;
    bool left = false;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      if constexpr (KIND == GQ_REDUCE_SUM) {
        if constexpr (split<KIND, ABS>())
          left |= pn.add_leaving(a[k], signbit(a[k])) != 0.0;
        else
          left |= e0.add_leaving(a[k]) != 0.0;
      } else {
        const double p = a[k] * b[k], err = fma(a[k], b[k], -p);
        if constexpr (split<KIND, ABS>()) {
          left |= pn.add_leaving(p, signbit(p)) != 0.0;
          left |= pn.template add_leaving<1>(err, signbit(p)) != 0.0;
        } else {
          left |= e0.add_leaving(p) != 0.0;
          left |= e0.template add_leaving<1>(err) != 0.0;
        }
      }
    }
    if (!left)
      return true;
    pn = pn_before;
    e0 = e0_before;
    return false;
  }
  template <int ITEMS>
  __device__ __forceinline__ void tile_done(unsigned long long (&)[USED][WORDS])
  {
  }
  // The block's sums merged into thread 0's, which gives each part to
  // sink(channel, part) (the block's words take only what merges spill):
  // no lane's flush meets another's on the words' compare-and-swap loops.
  template <class Sink>
  __device__ __forceinline__ void flush_block(unsigned long long (&words)[USED][WORDS], Sink sink)
  {
    constexpr int ROW = split<KIND, ABS>() ? 2 * K0 : KIND == GQ_REDUCE_RMS ? K0 + EXPANSION_PRODUCT : K0;
    __shared__ double rows[EXACT_BLOCK / 32][ROW];
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if constexpr (split<KIND, ABS>()) {
      gq::warp_merge_store(pn.pos, words[0], &rows[warp][0]);
      gq::warp_merge_store(pn.neg, words[USED - 1], &rows[warp][K0]);
    } else {
      gq::warp_merge_store(e0, words[0], &rows[warp][0]);
    }
    if constexpr (KIND == GQ_REDUCE_RMS)
      gq::warp_merge_store(e1, words[1], &rows[warp][K0]);
    __syncthreads();
    if (warp != 0)
      return;
    if constexpr (split<KIND, ABS>()) {
      gq::warps_merge_load(pn.pos, words[0], &rows[lane][0]);
      gq::warps_merge_load(pn.neg, words[USED - 1], &rows[lane][K0]);
    } else {
      gq::warps_merge_load(e0, words[0], &rows[lane][0]);
    }
    if constexpr (KIND == GQ_REDUCE_RMS)
      gq::warps_merge_load(e1, words[1], &rows[lane][K0]);
    if (threadIdx.x != 0)
      return;
#pragma unroll
    for (int k = 0; k < K0; k++) {
      if constexpr (split<KIND, ABS>()) {
        sink(0, pn.pos.part[k]);
        sink(USED - 1, pn.neg.part[k]);
      } else {
        sink(0, e0.part[k]);
      }
    }
    if constexpr (KIND == GQ_REDUCE_RMS) {
#pragma unroll
      for (int k = 0; k < EXPANSION_PRODUCT; k++)
        sink(1, e1.part[k]);
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
  // The levels into the expansions, then as Sums::flush_block.
  template <class Sink>
  __device__ __forceinline__ void flush_block(unsigned long long (&words)[USED][WORDS], Sink sink)
  {
    constexpr int K0 = EXPANSION_SUM, K1 = EXPANSION_PRODUCT, ROW = 2 * K0 + K1;
    __shared__ double rows[EXACT_BLOCK / 32][ROW];
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    dep.drain([&](int c, double v) { bank(c, v, words); });
    gq::warp_merge_store(f0, words[0], &rows[warp][0]);
    gq::warp_merge_store(f1, words[1], &rows[warp][K0]);
    gq::warp_merge_store(f2, words[2], &rows[warp][K0 + K1]);
    __syncthreads();
    if (warp != 0)
      return;
    gq::warps_merge_load(f0, words[0], &rows[lane][0]);
    gq::warps_merge_load(f1, words[1], &rows[lane][K0]);
    gq::warps_merge_load(f2, words[2], &rows[lane][K0 + K1]);
    if (threadIdx.x != 0)
      return;
#pragma unroll
    for (int k = 0; k < K0; k++) {
      sink(0, f0.part[k]);
      sink(2, f2.part[k]);
    }
#pragma unroll
    for (int k = 0; k < K1; k++)
      sink(1, f1.part[k]);
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

} // namespace gq_exact

#endif
