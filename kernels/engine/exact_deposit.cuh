// exact_deposit.cuh — the deterministic statistics' thread level (issue
// 20): sum x, sum |x| and sum x^2 of a thread's elements, exactly, in
// fixed-grid accumulators ("pre-rounding": Rump, Ogita and Oishi's
// ExtractScalar; Demmel and Nguyen's binned sums) instead of TwoSum
// expansions.
//
// A level is a double S kept in the binade of its anchor A = 1.5 2^a, so
// its last bit is always u = 2^(a-52).  Depositing x into it,
//     t = S + x,  q = t - S,  S = t,  r = x - q,
// costs three additions against TwoSum's six: q is x rounded to a multiple
// of u, added to S without error (S stays in its binade), and r = x - q is
// exact (|r| <= u/2) and goes on to the next level, whose anchor is lower.
// What is left after the last level — bits below every level's grid — goes
// straight into the block's exact words (exact_accumulator.cuh); S - A
// (exact: S and A share a binade) goes to the caller at each flush.
//
// The anchors follow the thread's data: every element the levels take has
// |x| < 2^k, and an element at or above 2^k first flushes the levels and
// raises k (reanchor).  A level takes at most SPAN deposits between
// flushes, so its drift stays below half its binade:
//   sum x, sum |x|: a1 = k + GUARD, a2 = a1 - DROP;
//   sum x^2 (x^2 < 2^2k, TwoProd's p and err): b1 = 2k + GUARD, then b2,
//   b3, b4 DROP apart: p goes through b1..b3 and err (|err| <= 2^(2k-54))
//   through b2..b4; levels that take two streams (b2, b3) keep a factor two
//   of margin, which GUARD = log2 SPAN + 3 gives every level.
// With SPAN = 2^11 and DROP = 39: x is taken whole when |x| >= 2^(k-25), x^2
// when |x| >= 2^(k-25) as well; smaller elements of a thread whose largest
// is far above them leave bits to the words (exact, only slower).  Anchors
// below the normal range are subnormal or zero, where every sum is exact.
//
// Element counts, extremes and non-finite values are the caller's.
#ifndef GQ_EXACT_DEPOSIT_CUH
#define GQ_EXACT_DEPOSIT_CUH

#include "exact_accumulator.cuh"

namespace gq {

constexpr int DEPOSIT_LOG_SPAN = 11;                 // deposits per level between flushes: 2^11
constexpr int DEPOSIT_GUARD = DEPOSIT_LOG_SPAN + 3;  // a level's anchor above what it takes
constexpr int DEPOSIT_DROP = 50 - DEPOSIT_LOG_SPAN;  // from one level's anchor to the next
constexpr int DEPOSIT_SLACK = 2;                     // k above the element that set it
// The hot path's range: x^2 and TwoProd's error are doubles (x^2 >=
// EXACT_PRODUCT_FLOOR) and the top anchor 2 (k + SLACK + 1) + GUARD stays
// below 2^1023.
constexpr double DEPOSIT_MIN = 0x1p-484, DEPOSIT_MAX = 0x1p480;
// Reanchors a thread may make: each raises k by 1 + SLACK at least, within
// the range's exponents.
constexpr int DEPOSIT_REANCHORS = (484 + 480) / (1 + DEPOSIT_SLACK) + 1;

// One deposit into a level: S takes x rounded to its grid, the rest is
// returned.  The _rn intrinsics are never contracted into an FMA.
__device__ __forceinline__ double deposit(double &s, double x)
{
  const double t = __dadd_rn(s, x);
  const double q = __dsub_rn(t, s);
  s = t;
  return __dsub_rn(x, q);
}

// 1.5 2^e: a level's anchor (0 or subnormal far below the normal range).
__device__ __forceinline__ double anchor(int e) { return ldexp(1.5, e); }

struct StatsDeposit {
  double x1, x2;          // sum x
  double m1, m2;          // sum |x|
  double s1, s2, s3, s4;  // sum x^2
  unsigned span;           // the levels take x with DEPOSIT_MIN <= |x| < 2^k: the high words
                           //   of those |x| less MIN_HIGH are below span (0 before the first)
  int k;
  static constexpr unsigned MIN_HIGH = (1023u - 484u) << 20; // DEPOSIT_MIN's high word

  __device__ __forceinline__ void zero()
  {
    span = 0;
    k = 0;
    x1 = x2 = m1 = m2 = s1 = s2 = s3 = s4 = 0.0;
  }
  // Whether the levels take x: one integer comparison (zero, tiny, huge and
  // non-finite values are not taken).
  __device__ __forceinline__ bool takes(double x) const
  {
    const unsigned high = (unsigned)((unsigned long long)__double_as_longlong(x) >> 32) & 0x7fffffffu;
    return high - MIN_HIGH < span;
  }
  __device__ __forceinline__ int a(int j) const { return k + DEPOSIT_GUARD - j * DEPOSIT_DROP; }
  __device__ __forceinline__ int b(int j) const { return 2 * k + DEPOSIT_GUARD - j * DEPOSIT_DROP; }
  // every level at its anchor
  __device__ __forceinline__ void reset()
  {
    x1 = m1 = anchor(a(0));
    x2 = m2 = anchor(a(1));
    s1 = anchor(b(0));
    s2 = anchor(b(1));
    s3 = anchor(b(2));
    s4 = anchor(b(3));
  }
  // What the levels hold, S - A for each (exact), to take(channel, part)
  // (channels 0: sum x, 1: sum x^2, 2: sum |x|); nothing before the first
  // element.
  template <class Take>
  __device__ __forceinline__ void drain(Take take) const
  {
    if (span == 0)
      return;
    take(0, __dsub_rn(x1, anchor(a(0))));
    take(0, __dsub_rn(x2, anchor(a(1))));
    take(2, __dsub_rn(m1, anchor(a(0))));
    take(2, __dsub_rn(m2, anchor(a(1))));
    take(1, __dsub_rn(s1, anchor(b(0))));
    take(1, __dsub_rn(s2, anchor(b(1))));
    take(1, __dsub_rn(s3, anchor(b(2))));
    take(1, __dsub_rn(s4, anchor(b(3))));
  }
  // The levels drained to take, and back to their anchors.
  template <class Take>
  __device__ __forceinline__ void flush(Take take)
  {
    drain(take);
    if (span != 0)
      reset();
  }
  // Make room for |x| (DEPOSIT_MIN <= |x| < DEPOSIT_MAX): flush to take,
  // then anchor above x.
  template <class Take>
  __device__ __forceinline__ void reanchor(double ax, Take take)
  {
    flush(take);
    k = ilogb(ax) + 1 + DEPOSIT_SLACK; // -481 .. 482: every anchor finite, the lowest subnormal at worst
    span = (unsigned)(k + 1023) * (1u << 20) - MIN_HIGH;
    reset();
  }
  // What x (takes(x)) and x^2 leave below the last levels: of x, |x|, and
  // TwoProd's two halves of x^2.
  struct Left {
    double x, ax, p, err;
  };
  // x and x^2 into the levels.  What x and |x| leave is zero together:
  // both go through the same grids, so x - q1 - q2 = 0 exactly when
  // |x| - q1' - q2' = 0.
  __device__ __forceinline__ Left deposit_all(double x, double ax)
  {
    Left left;
    left.x = deposit(x2, deposit(x1, x));
    left.ax = deposit(m2, deposit(m1, ax));
    const double p = __dmul_rn(x, x), err = __fma_rn(x, x, -p);
    double rp = deposit(s2, deposit(s1, p));
    double re = deposit(s2, err);
    left.p = deposit(s3, rp);
    left.err = deposit(s4, deposit(s3, re));
    return left;
  }
  // For a caller that checks a whole tile at once: the bits of what x
  // leaves (the sign's bit aside, nonzero exactly when anything is left).
  __device__ __forceinline__ unsigned long long add_all(double x, double ax)
  {
    const Left left = deposit_all(x, ax);
    return (unsigned long long)__double_as_longlong(left.x) | (unsigned long long)__double_as_longlong(left.p) |
           (unsigned long long)__double_as_longlong(left.err);
  }
  // x (takes(x)) and x^2 into the levels, what they leave into the words.
  template <int USED>
  __device__ __forceinline__ void add(double x, double ax, unsigned long long (&words)[USED][GQ_SUPERACC_WORDS])
  {
    const Left left = deposit_all(x, ax);
    if (left.x != 0.0 || left.p != 0.0 || left.err != 0.0) {
      if (left.x != 0.0)
        exact_words_add(words[0], left.x);
      if (left.ax != 0.0)
        exact_words_add(words[2], left.ax);
      if (left.p != 0.0)
        exact_words_add(words[1], left.p);
      if (left.err != 0.0)
        exact_words_add(words[1], left.err);
    }
  }
};

} // namespace gq

#endif
