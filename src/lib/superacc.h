/* superacc.h — an exact accumulator of doubles and of products of two
 * doubles (Kulisch's long accumulator, in the carry-save form of ExBLAS,
 * Collange et al. 2015), shared by the CPU backend, the host merges and the
 * CUDA kernels.
 *
 * The value is  sum_k word[k] 2^(32 k + GQ_SUPERACC_LSB):  a fixed-point
 * integer whose least significant bit is 2^-2176, below the product of two
 * subnormals (2^-1074 2^-1074 = 2^-2148), and whose top word reaches
 * 2^2176, above 2^64 products of two doubles near DBL_MAX (2^2112).  So
 * every double and every product of two doubles is added with no rounding
 * at all, the sum of any number of them is exact, and integer addition is
 * associative: any order of adds and merges — lanes, threads, blocks,
 * chunks, ranks — gives the same integer, hence the same rounded result.
 *
 * Carry-save: a term adds 32-bit digits (below 2^32 in magnitude) to at
 * most five words, each an int64, so a word takes 2^30 adds with room to
 * spare before its carries must move up (gq_superacc_normalize); `pending`
 * counts adds since then.  Rounding and the arithmetic of the finish are
 * host code (superacc.c). */
#ifndef GQ_SUPERACC_H
#define GQ_SUPERACC_H

#if defined(__CUDACC_RTC__) /* NVRTC (the deterministic grid kernels): no C headers */
typedef unsigned long long uint64_t;
typedef long long int64_t;
typedef unsigned int uint32_t;
#define UINT64_C(c) c##ULL
#else
#include <stdint.h>
#include <string.h>
#endif

#include "compensated.h" /* GQ_HD */

#define GQ_SUPERACC_WORDS 136
#define GQ_SUPERACC_LSB (-2176)
/* adds a word may take between normalizations (each below 2^32: 2^30 of
 * them stay far below 2^63) */
#define GQ_SUPERACC_BUDGET (1u << 30)

typedef struct {
  int64_t word[GQ_SUPERACC_WORDS];
  uint32_t pending; /* adds since the last normalization */
} gq_superacc;

GQ_HD void gq_superacc_zero(gq_superacc *a)
{
  for (int k = 0; k < GQ_SUPERACC_WORDS; k++)
    a->word[k] = 0;
  a->pending = 0;
}

/* Move every word's carry into the next, leaving words 0..WORDS-2 in
 * [0, 2^32) and the sign of the value in the top word.  Only the span of
 * nonzero words is walked: zero words below it stay zero, and above it a
 * carry of 0 leaves the zeros as they are while a carry of -1 turns each
 * into 2^32 - 1 and reaches the top word (a value's few words, not all
 * GQ_SUPERACC_WORDS, on the one-shot reductions' path). */
GQ_HD void gq_superacc_normalize(gq_superacc *a)
{
  int k = 0, top = GQ_SUPERACC_WORDS - 2;
  while (k < GQ_SUPERACC_WORDS - 1 && a->word[k] == 0)
    k++;
  while (top > k && a->word[top] == 0)
    top--;
  int64_t carry = 0;
  for (; k < GQ_SUPERACC_WORDS - 1; k++) {
    if (k > top && (carry == 0 || carry == -1))
      break;
    const int64_t w = a->word[k] + carry;
    carry = w >> 32; /* arithmetic: floor(w / 2^32) */
    a->word[k] = w - carry * ((int64_t)1 << 32);
  }
  if (carry == -1)
    for (; k < GQ_SUPERACC_WORDS - 1; k++)
      a->word[k] = 0xffffffff;
  a->word[GQ_SUPERACC_WORDS - 1] += carry;
  a->pending = 0;
}

GQ_HD void gq_superacc_count_add_(gq_superacc *a)
{
  if (++a->pending >= GQ_SUPERACC_BUDGET)
    gq_superacc_normalize(a);
}

/* Add (negative ? -1 : 1) m 2^e, e >= GQ_SUPERACC_LSB and m 2^e < 2^2112:
 * m shifted to its word's bit offset spans three 32-bit digits. */
GQ_HD void gq_superacc_add_u64_(gq_superacc *a, uint64_t m, int e, int negative)
{
  if (m == 0)
    return;
  const int bit = e - GQ_SUPERACC_LSB;
  const int k = bit >> 5, s = bit & 31;
  const uint64_t lo = m << s, hi = s ? m >> (64 - s) : 0;
  const int64_t d0 = (int64_t)(lo & 0xffffffffu), d1 = (int64_t)(lo >> 32), d2 = (int64_t)hi;
  if (negative) {
    a->word[k] -= d0;
    a->word[k + 1] -= d1;
    a->word[k + 2] -= d2;
  } else {
    a->word[k] += d0;
    a->word[k + 1] += d1;
    a->word[k + 2] += d2;
  }
}

/* A finite double as sign, integer mantissa and exponent: x = +-m 2^e. */
GQ_HD uint64_t gq_superacc_split_(double x, int *e, int *negative)
{
  uint64_t bits;
#if defined(__CUDA_ARCH__)
  bits = (uint64_t)__double_as_longlong(x);
#else
  memcpy(&bits, &x, sizeof bits);
#endif
  const int field = (int)((bits >> 52) & 0x7ff);
  const uint64_t frac = bits & ((UINT64_C(1) << 52) - 1);
  *negative = (int)(bits >> 63);
  *e = (field ? field : 1) - 1075;
  return field ? frac | (UINT64_C(1) << 52) : frac;
}

/* Add a finite double, exactly. */
GQ_HD void gq_superacc_add(gq_superacc *a, double x)
{
  int e, negative;
  const uint64_t m = gq_superacc_split_(x, &e, &negative);
  gq_superacc_add_u64_(a, m, e, negative);
  gq_superacc_count_add_(a);
}

/* Add +-2^shift x y for finite doubles x, y (shift 0 or 1), exactly: the
 * 106-bit product of the mantissas, in two 64-bit halves. */
GQ_HD void gq_superacc_add_product(gq_superacc *a, double x, double y, int shift, int negate)
{
  int ex, ey, nx, ny;
  const uint64_t mx = gq_superacc_split_(x, &ex, &nx), my = gq_superacc_split_(y, &ey, &ny);
  uint64_t lo, hi;
#if defined(__CUDA_ARCH__)
  lo = mx * my;
  hi = __umul64hi(mx, my);
#else
  const unsigned __int128 p = (unsigned __int128)mx * my;
  lo = (uint64_t)p;
  hi = (uint64_t)(p >> 64);
#endif
  const int e = ex + ey + shift, negative = (nx ^ ny ^ negate) & 1;
  gq_superacc_add_u64_(a, lo, e, negative);
  gq_superacc_add_u64_(a, hi, e + 64, negative);
  gq_superacc_count_add_(a);
  gq_superacc_count_add_(a);
}

/* a += b (b unchanged: both are normalized on a copy of b's words first,
 * so the sum of two digits stays in range). */
GQ_HD void gq_superacc_merge(gq_superacc *a, const gq_superacc *b)
{
  gq_superacc_normalize(a);
  int64_t carry = 0;
  for (int k = 0; k < GQ_SUPERACC_WORDS - 1; k++) {
    const int64_t w = b->word[k] + carry;
    carry = w >> 32;
    a->word[k] += w - carry * ((int64_t)1 << 32);
  }
  a->word[GQ_SUPERACC_WORDS - 1] += b->word[GQ_SUPERACC_WORDS - 1] + carry;
  a->pending = 2;
}

#endif /* GQ_SUPERACC_H */
