/* superacc.c — the host side of the exact accumulator (superacc.h): the
 * one rounding to double (round to nearest, ties to even, subnormals and
 * overflow as IEEE 754 defines them), the exact quotient by a count, and the
 * exact products a finish needs (n x y, and x times an accumulator). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "superacc_host.h"

enum { DIGITS = GQ_SUPERACC_WORDS };

/* The value as a sign and a magnitude in 32-bit digits (least first).
 * Returns -1, 0 or 1. */
static int magnitude(const gq_superacc *a, uint64_t digit[DIGITS])
{
  gq_superacc t = *a;
  gq_superacc_normalize(&t);
  const int negative = t.word[DIGITS - 1] < 0;
  if (negative && t.word[DIGITS - 1] == -1) {
    /* words h+1 .. DIGITS-2 are 2^32 - 1 and the top -1: the value is
     * sum_{k<=h} w_k 2^32k - 2^32(h+1), its negation 2^32(h+1) less those */
    int h = DIGITS - 2;
    while (h >= 0 && t.word[h] == 0xffffffff)
      h--;
    for (int k = 0; k <= h; k++)
      t.word[k] = -t.word[k];
    for (int k = h + 1; k < DIGITS; k++)
      t.word[k] = 0;
    t.word[h + 1] = 1;
    gq_superacc_normalize(&t);
  } else if (negative) {
    for (int k = 0; k < DIGITS; k++)
      t.word[k] = -t.word[k];
    gq_superacc_normalize(&t);
  }
  int any = 0;
  for (int k = 0; k < DIGITS; k++) {
    digit[k] = (uint64_t)t.word[k];
    any |= digit[k] != 0;
  }
  return any ? (negative ? -1 : 1) : 0;
}

static int bit_at(const uint64_t digit[DIGITS], int i)
{
  return i >= 0 && i < 32 * DIGITS ? (int)((digit[i >> 5] >> (i & 31)) & 1) : 0;
}

/* Bits lo..hi (hi - lo < 64; bits below index 0 are zero), as an integer:
 * the three digits that hold them, shifted. */
static uint64_t bits(const uint64_t digit[DIGITS], int hi, int lo)
{
  const int from = lo < 0 ? 0 : lo, k = from >> 5;
  unsigned __int128 window = 0;
  for (int j = 2; j >= 0; j--)
    window = window << 32 | (k + j < DIGITS ? digit[k + j] : 0);
  window >>= from & 31;
  const int n = hi - from + 1;
  const uint64_t m = n <= 0 ? 0 : (uint64_t)(window & (((unsigned __int128)1 << n) - 1));
  return m << (from - lo);
}

/* Is any bit below index i set? */
static int any_below(const uint64_t digit[DIGITS], int i)
{
  if (i <= 0)
    return 0;
  const int k = i >> 5;
  for (int j = 0; j < k && j < DIGITS; j++)
    if (digit[j])
      return 1;
  return k < DIGITS && (i & 31) && (digit[k] & ((UINT64_C(1) << (i & 31)) - 1)) != 0;
}

/* The index of the leading bit, or -1 when every digit is 0. */
static int top_bit(const uint64_t digit[DIGITS])
{
  int k = DIGITS - 1;
  while (k >= 0 && !digit[k])
    k--;
  return k < 0 ? -1 : 32 * k + 31 - __builtin_clz((unsigned)digit[k]);
}

/* (sign) digits 2^lsb, plus a nonzero fraction below digit 0 when sticky,
 * rounded once to the nearest double (ties to even). */
static double round_digits(const uint64_t digit[DIGITS], int sign, int lsb, int sticky)
{
  const int top = top_bit(digit);
  if (top < 0) /* only the fraction: below 2^lsb, itself below half of 2^-1074 */
    return sign < 0 ? -0.0 : 0.0;
  const int exponent = top + lsb; /* of the leading bit */
  if (exponent > 1023)
    return sign < 0 ? -INFINITY : INFINITY;
  const int q = exponent - 52 > -1074 ? exponent - 52 : -1074; /* the double's last bit */
  const int first = q - lsb;                                   /* its bit index */
  uint64_t m = bits(digit, top, first);
  const int half = bit_at(digit, first - 1);
  const int rest = sticky || any_below(digit, first - 1);
  if (half && (rest || (m & 1)))
    m++; /* 2^53 is still exact, and ldexp overflows to Inf where IEEE does */
  const double v = ldexp((double)m, q);
  return sign < 0 ? -v : v;
}

double gq_superacc_round(const gq_superacc *a, int shift)
{
  uint64_t digit[DIGITS];
  const int sign = magnitude(a, digit);
  return sign ? round_digits(digit, sign, GQ_SUPERACC_LSB - shift, 0) : 0.0;
}

double gq_superacc_div_round(const gq_superacc *a, uint64_t n)
{
  uint64_t digit[DIGITS];
  const int sign = magnitude(a, digit);
  if (!sign || n == 0)
    return n == 0 ? NAN : 0.0;
  /* Long division by 32-bit digits, most significant first: the quotient
   * keeps every bit down to 2^-2176, far below the last bit of any double,
   * and the remainder only decides the sticky bit. */
  unsigned __int128 rem = 0;
  for (int k = DIGITS - 1; k >= 0; k--) {
    const unsigned __int128 cur = (rem << 32) | digit[k];
    digit[k] = (uint64_t)(cur / n);
    rem = cur % n;
  }
  return round_digits(digit, sign, GQ_SUPERACC_LSB, rem != 0);
}

int gq_superacc_sign(const gq_superacc *a)
{
  uint64_t digit[DIGITS];
  return magnitude(a, digit);
}

int gq_superacc_top(const gq_superacc *a)
{
  uint64_t digit[DIGITS];
  if (!magnitude(a, digit))
    return GQ_SUPERACC_LSB - 1;
  return top_bit(digit) + GQ_SUPERACC_LSB;
}

void gq_superacc_to_dd(const gq_superacc *a, int shift, double *hi, double *lo)
{
  *hi = gq_superacc_round(a, shift);
  *lo = 0.0;
  if (*hi == 0.0 || !isfinite(*hi))
    return;
  gq_superacc rest = *a;
  int e, negative;
  uint64_t m = gq_superacc_split_(*hi, &e, &negative);
  e += shift;
  /* hi 2^shift is a multiple of the accumulator's last bit (it rounds a
   * value that is): drop the mantissa's trailing zeros below that bit */
  for (; e < GQ_SUPERACC_LSB; e++)
    m >>= 1;
  gq_superacc_add_u64_(&rest, m, e, !negative);
  *lo = gq_superacc_round(&rest, shift);
}

/* +- m 2^e for a 128-bit m, as two 64-bit halves (digits below 2^32 each:
 * the callers' few hundred adds stay far inside a word's budget, and they
 * carry once at the end). */
static void add_u128(gq_superacc *a, unsigned __int128 m, int e, int negative)
{
  gq_superacc_add_u64_(a, (uint64_t)m, e, negative);
  gq_superacc_add_u64_(a, (uint64_t)(m >> 64), e + 64, negative);
}

void gq_superacc_add_product_n(gq_superacc *a, double x, double y, uint64_t n, int negate)
{
  int ex, ey, nx, ny;
  const uint64_t mx = gq_superacc_split_(x, &ex, &nx), my = gq_superacc_split_(y, &ey, &ny);
  const unsigned __int128 p = (unsigned __int128)mx * my; /* < 2^106 */
  const int negative = (nx ^ ny ^ negate) & 1, e = ex + ey;
  gq_superacc_normalize(a); /* a's own adds may have used its budget */
  add_u128(a, (unsigned __int128)(uint64_t)p * n, e, negative);
  add_u128(a, (unsigned __int128)(uint64_t)(p >> 64) * n, e + 64, negative);
  gq_superacc_normalize(a);
}

void gq_superacc_add_scaled(gq_superacc *a, const gq_superacc *b, double x, int shift, int negate)
{
  uint64_t digit[DIGITS];
  const int sign = magnitude(b, digit);
  int ex, nx;
  const uint64_t mx = gq_superacc_split_(x, &ex, &nx);
  if (!sign || !mx)
    return;
  const int negative = (sign < 0) ^ nx ^ (negate & 1);
  gq_superacc_normalize(a);
  for (int k = 0; k < DIGITS; k++)
    if (digit[k])
      add_u128(a, (unsigned __int128)digit[k] * mx, 32 * k + GQ_SUPERACC_LSB + ex + shift, negative);
  gq_superacc_normalize(a);
}
