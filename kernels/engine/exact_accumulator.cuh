// exact_accumulator.cuh — the deterministic reductions' thread and block
// levels (issue 20), after ExBLAS (Collange, Defour, Graillat, Iakymchuk,
// Parallel Computing 2015): each thread keeps a short floating-point
// expansion per sum (K doubles, TwoSum'd, so the expansion plus what left it
// is always exactly what was added), and only what does not fit — a
// remainder after K TwoSums, a term too large or too small for the
// expansion's error-free arithmetic — goes into the block's exact
// accumulator (src/lib/superacc.h's words, in shared memory, with 64-bit
// integer atomics).  Integer adds commute, so neither which thread took
// which element nor the order of the atomics changes a bit.
#ifndef GQ_EXACT_ACCUMULATOR_CUH
#define GQ_EXACT_ACCUMULATOR_CUH

#include "../../src/lib/superacc.h"

namespace gq {

// Terms at or above this go straight into the words: the TwoSums of the
// few terms per element (six for rms) of EXACT_TERMS_PER_THREAD elements
// cannot overflow (2^996 2^19 < 2^1023), and a block's words take 6 2^16
// EXACT_BLOCK digit adds (< 2^59 each) before they are carried.
constexpr double EXACT_EXPANSION_LIMIT = 0x1p996;
constexpr unsigned long long EXACT_TERMS_PER_THREAD = 1ull << 16;
// Products whose TwoProd error is a double: |x y| >= 2^-968 puts the
// product's last bit (2^(ex + ey - 104)) at or above 2^-1074.
constexpr double EXACT_PRODUCT_FLOOR = 0x1p-968;

// +-m 2^e into shared words (superacc.h's layout), three 32-bit digits.
__device__ __forceinline__ void exact_words_add_u64(unsigned long long *words, uint64_t m, int e, int negative)
{
  if (m == 0)
    return;
  const int bit = e - GQ_SUPERACC_LSB;
  const int k = bit >> 5, s = bit & 31;
  const uint64_t lo = m << s, hi = s ? m >> (64 - s) : 0;
  const uint64_t d[3] = {lo & 0xffffffffull, lo >> 32, hi};
#pragma unroll
  for (int j = 0; j < 3; j++)
    if (d[j])
      atomicAdd(&words[k + j], negative ? (unsigned long long)(-(long long)d[j]) : (unsigned long long)d[j]);
}

__device__ __forceinline__ void exact_words_add(unsigned long long *words, double x)
{
  int e, negative;
  const uint64_t m = gq_superacc_split_(x, &e, &negative);
  exact_words_add_u64(words, m, e, negative);
}

// +-2^shift x y, exactly (the 106-bit product of the mantissas).
__device__ __forceinline__ void exact_words_add_product(unsigned long long *words, double x, double y, int shift,
                                                        int negate)
{
  int ex, ey, nx, ny;
  const uint64_t mx = gq_superacc_split_(x, &ex, &nx), my = gq_superacc_split_(y, &ey, &ny);
  const int e = ex + ey + shift, negative = (nx ^ ny ^ negate) & 1;
  exact_words_add_u64(words, mx * my, e, negative);
  exact_words_add_u64(words, __umul64hi(mx, my), e + 64, negative);
}

// A thread's expansion of one sum.
template <int K>
struct Expansion {
  double part[K];

  __device__ __forceinline__ void zero()
  {
#pragma unroll
    for (int k = 0; k < K; k++)
      part[k] = 0.0;
  }
  // Add t; what is left after K TwoSums (exactly) goes to the words.
  __device__ __forceinline__ void add(double t, unsigned long long *words)
  {
    if (!(fabs(t) < EXACT_EXPANSION_LIMIT)) {
      exact_words_add(words, t);
      return;
    }
    add_in_range(t, words);
  }
  // add, for |t| below EXACT_EXPANSION_LIMIT (the caller has checked),
  // from part[FROM] on.
  template <int FROM = 0>
  __device__ __forceinline__ void add_in_range(double t, unsigned long long *words)
  {
    t = add_leaving<FROM>(t);
    if (t != 0.0)
      exact_words_add(words, t);
  }
  // t (|t| below EXACT_EXPANSION_LIMIT) through part[FROM] on, with no
  // branch: what is left after the last part, which the caller must put
  // somewhere (or, for a tile's terms gone through at once, restore the
  // parts: see Sums::add_tile).
  template <int FROM = 0>
  __device__ __forceinline__ double add_leaving(double t)
  {
#pragma unroll
    for (int k = FROM; k < K; k++)
      part[k] = gq_two_sum(part[k], t, &t);
    return t;
  }
  // add_in_range from part[1] on: for a term below part[0]'s rounding
  // error (TwoProd's error beside its product), which part[0] would only
  // pass down.  Any part may take any term: the parts and the words still
  // hold exactly what was added.
  __device__ __forceinline__ void add_tail(double t, unsigned long long *words) { add_in_range<1>(t, words); }
  // x y, both halves of TwoProd, or the exact product where they would
  // not be doubles (tiny or huge products).
  __device__ __forceinline__ void add_product(double x, double y, int shift, int negate, unsigned long long *words)
  {
    const double p = x * y, ap = fabs(p);
    if (x == 0.0 || y == 0.0)
      return;
    if (ap >= EXACT_PRODUCT_FLOOR && ap < EXACT_EXPANSION_LIMIT) {
      const double err = fma(x, y, -p), sign = negate ? -1.0 : 1.0;
      const double scale = shift ? 2.0 * sign : sign; // exact: a power of two
      add_in_range(scale * p, words);
      add_tail(scale * err, words);
    } else {
      exact_words_add_product(words, x, y, shift, negate);
    }
  }
  __device__ __forceinline__ void flush(unsigned long long *words) const
  {
#pragma unroll
    for (int k = 0; k < K; k++)
      if (part[k] != 0.0)
        exact_words_add(words, part[k]);
  }
  // The expansions of a warp's lanes (the first `lanes`, a power of two)
  // added into lane 0's, exactly: at each step the lower half adds the
  // upper half's parts (add: a part beyond the limit goes to the words,
  // as does what falls off the end), and the upper half's are zeroed.  So
  // one lane per warp flushes, instead of every lane's atomics meeting on
  // the same few words.  Parts stay far below overflow: a thread's terms
  // are below 2^996 and fewer than 2^16 per launch, 32 lanes add 2^5.
  __device__ __forceinline__ void warp_merge(unsigned lanes, unsigned long long *words)
  {
    const unsigned lane = threadIdx.x % 32, mask = lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
    for (unsigned d = lanes / 2; d > 0; d /= 2) {
      double other[K];
#pragma unroll
      for (int k = 0; k < K; k++)
        other[k] = __shfl_down_sync(mask, part[k], d);
      if (lane < d) {
#pragma unroll
        for (int k = 0; k < K; k++)
          if (other[k] != 0.0)
            add(other[k], words);
      } else {
        zero();
      }
    }
  }
};

// A block's expansions merged into thread 0's, exactly: each warp's into
// its lane 0 (warp_merge), those lanes' parts through shared memory
// (row[warp][FIRST + k]; ROW parts a warp in all), then warp 0 merges
// them the same way.  `words` takes what a merge spills; the caller's
// barrier comes between the stores and the loads: every expansion of a
// block stores, the block waits once, every expansion loads.
template <int K>
__device__ __forceinline__ void warp_merge_store(Expansion<K> &e, unsigned long long *words, double *row_of_warp)
{
  e.warp_merge(blockDim.x < 32 ? blockDim.x : 32, words);
  if (threadIdx.x % 32 == 0) {
#pragma unroll
    for (int k = 0; k < K; k++)
      row_of_warp[k] = e.part[k];
  }
}
// ...after the barrier, in warp 0 (row_of_lane: lane's warp's row)
template <int K>
__device__ __forceinline__ void warps_merge_load(Expansion<K> &e, unsigned long long *words, const double *row_of_lane)
{
  const unsigned nwarps = (blockDim.x + 31) / 32;
  unsigned span = 1;
  while (span < nwarps)
    span *= 2;
  e.zero();
  if (threadIdx.x < nwarps) {
#pragma unroll
    for (int k = 0; k < K; k++)
      e.part[k] = row_of_lane[k];
  }
  if (threadIdx.x < span)
    e.warp_merge(span, words);
}

// Two expansions, of the terms >= 0 (P) and of those < 0 (N): a term goes
// to one of them, chosen by selects rather than a branch, so that sum t =
// P + N and sum |t| = P - N (formed on the host) cost one expansion's work
// where two expansions (t and |t|) cost two.
template <int K>
struct SplitExpansion {
  Expansion<K> pos, neg;

  __device__ __forceinline__ void zero()
  {
    pos.zero();
    neg.zero();
  }
  // |t| below EXACT_EXPANSION_LIMIT; from part[FROM] on (add_tail: 1).
  template <int FROM = 0>
  __device__ __forceinline__ void add_in_range(double t, bool negative, unsigned long long *wpos,
                                               unsigned long long *wneg)
  {
    t = add_leaving<FROM>(t, negative);
    if (t != 0.0)
      exact_words_add(negative ? wneg : wpos, t);
  }
  // add_in_range's arithmetic with no branch: what is left (as
  // Expansion::add_leaving).
  template <int FROM = 0>
  __device__ __forceinline__ double add_leaving(double t, bool negative)
  {
    double part[K];
#pragma unroll
    for (int k = FROM; k < K; k++)
      part[k] = negative ? neg.part[k] : pos.part[k];
#pragma unroll
    for (int k = FROM; k < K; k++)
      part[k] = gq_two_sum(part[k], t, &t);
#pragma unroll
    for (int k = FROM; k < K; k++) {
      pos.part[k] = negative ? pos.part[k] : part[k];
      neg.part[k] = negative ? part[k] : neg.part[k];
    }
    return t;
  }
  __device__ __forceinline__ void flush(unsigned long long *wpos, unsigned long long *wneg) const
  {
    pos.flush(wpos);
    neg.flush(wneg);
  }
  __device__ __forceinline__ void warp_merge(unsigned lanes, unsigned long long *wpos, unsigned long long *wneg)
  {
    pos.warp_merge(lanes, wpos);
    neg.warp_merge(lanes, wneg);
  }
};

// The block's words, carried: digits 0..WORDS-2 in [0, 2^32), the sign in
// the top word, so that the grid's atomics (one add per block and word)
// cannot overflow.  One thread per accumulator.
__device__ __forceinline__ void exact_words_normalize(unsigned long long *words)
{
  long long carry = 0;
  for (int k = 0; k < GQ_SUPERACC_WORDS - 1; k++) {
    const long long w = (long long)words[k] + carry;
    carry = w >> 32;
    words[k] = (unsigned long long)(w - carry * (1ll << 32));
  }
  words[GQ_SUPERACC_WORDS - 1] = (unsigned long long)((long long)words[GQ_SUPERACC_WORDS - 1] + carry);
}

} // namespace gq

#endif
