/* superacc.c — the host side of the exact accumulator (superacc.h): the
 * one rounding to double (round to nearest, ties to even, subnormals and
 * overflow as IEEE 754 defines them), the exact quotient by a count, and the
 * exact products a finish needs (n x y, and x times an accumulator). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "superacc_host.h"

enum { DIGITS = GQ_SUPERACC_WORDS };

typedef struct {
  int lo, hi; /* the digits that may be nonzero */
} span;

/* The value as a sign and a magnitude in 32-bit digits (least first), the
 * digits outside [sp->lo, sp->hi] zero.  Returns -1, 0 or 1.
 *
 * Only the accumulator's nonzero words are walked (a double's sum fills a
 * few of the 136): their carries are moved up within them and two words
 * above, where a carry has become 0 or -1, so the value is L + H 2^(32 k)
 * with L in k whole digits and H a small signed integer (the top word's own
 * value added when the walk reaches it).  A negative value's magnitude is
 * then -H 2^(32 k) - L: L's two's complement over its digits and -H - 1
 * above them. */
static int magnitude(const gq_superacc *a, uint64_t digit[DIGITS], span *sp)
{
  int k0 = 0, k1 = DIGITS - 1;
  while (k0 < DIGITS && a->word[k0] == 0)
    k0++;
  memset(digit, 0, DIGITS * sizeof digit[0]);
  if (k0 == DIGITS)
    return 0;
  while (a->word[k1] == 0)
    k1--;
  /* A normalized negative value ends in words of 2^32 - 1 up to a top word
   * of -1: together they are -2^(32 (k1 + 1)) above the last other word k1,
   * a word of -1 at k1 + 1 rather than words to walk. */
  int64_t above = 0; /* the word at k1 + 1 that stands for that tail */
  if (k1 == DIGITS - 1 && a->word[k1] == -1) {
    k1--;
    while (k1 >= k0 && a->word[k1] == 0xffffffff)
      k1--;
    if (k1 < k0) { /* -2^(32 k0) exactly */
      digit[k0] = 1;
      sp->lo = sp->hi = k0;
      return -1;
    }
    above = -1;
  }
  const int last = above ? k1 + 1 : k1; /* the last word that is not zero */
  int64_t carry = 0;
  int k = k0;
  for (; k < DIGITS - 1; k++) {
    if (k > last && (carry == 0 || carry == -1))
      break; /* the words above are zero: the value is fixed */
    const int64_t w = (k <= k1 ? a->word[k] : k == last ? above : 0) + carry;
    carry = w >> 32; /* arithmetic: floor(w / 2^32) */
    digit[k] = (uint64_t)(w - carry * ((int64_t)1 << 32));
  }
  /* the top word's value, where the walk reached it */
  const int64_t top = k < DIGITS - 1 ? 0 : last == DIGITS - 1 ? (above ? above : a->word[DIGITS - 1]) : 0;
  const int64_t H = carry + top;
  int lo = k0, hi = k - 1;
  while (hi >= lo && digit[hi] == 0)
    hi--;
  while (lo <= hi && digit[lo] == 0)
    lo++;
  /* digits lo..hi hold L (none when L = 0) */
  if (H >= 0) {
    if (H > 0) { /* only where the walk reached the top word (below it a carry is 0 or -1) */
      digit[k] = (uint64_t)H;
      if (hi < lo)
        lo = k;
      hi = k;
    }
    if (hi < lo)
      return 0;
    sp->lo = lo;
    sp->hi = hi;
    return 1;
  }
  /* negative: -H 2^(32 k) - L */
  uint64_t high = (uint64_t)(-(H + 1)); /* -H - 1, or -H when L = 0 */
  if (hi < lo) {
    high += 1;
    lo = k;
  } else {
    int j = lo;
    digit[j] = (UINT64_C(1) << 32) - digit[j]; /* the lowest nonzero digit: 2^32 less it */
    for (j = lo + 1; j < k; j++)
      digit[j] = 0xffffffffu - digit[j];
  }
  hi = k - 1;
  if (high) {
    digit[k] = high;
    hi = k;
  }
  while (hi > lo && digit[hi] == 0)
    hi--;
  sp->lo = lo;
  sp->hi = hi;
  return -1;
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

/* Is any bit below index i set?  (Digits below sp->lo are zero.) */
static int any_below(const uint64_t digit[DIGITS], span sp, int i)
{
  if (i <= 0)
    return 0;
  const int k = i >> 5;
  for (int j = sp.lo; j < k && j < DIGITS; j++)
    if (digit[j])
      return 1;
  return k < DIGITS && (i & 31) && (digit[k] & ((UINT64_C(1) << (i & 31)) - 1)) != 0;
}

/* The index of the leading bit, or -1 when every digit is 0.  (Digits
 * above sp->hi are zero.) */
static int top_bit(const uint64_t digit[DIGITS], span sp)
{
  int k = sp.hi;
  while (k >= 0 && !digit[k])
    k--;
  return k < 0 ? -1 : 32 * k + 31 - __builtin_clz((unsigned)digit[k]);
}

/* (sign) digits 2^lsb, plus a nonzero fraction below digit 0 when sticky,
 * rounded once to the nearest double (ties to even). */
static double round_digits(const uint64_t digit[DIGITS], span sp, int sign, int lsb, int sticky)
{
  const int top = top_bit(digit, sp);
  if (top < 0) /* only the fraction: below 2^lsb, itself below half of 2^-1074 */
    return sign < 0 ? -0.0 : 0.0;
  const int exponent = top + lsb; /* of the leading bit */
  if (exponent > 1023)
    return sign < 0 ? -INFINITY : INFINITY;
  const int q = exponent - 52 > -1074 ? exponent - 52 : -1074; /* the double's last bit */
  const int first = q - lsb;                                   /* its bit index */
  uint64_t m = bits(digit, top, first);
  const int half = bit_at(digit, first - 1);
  const int rest = sticky || any_below(digit, sp, first - 1);
  if (half && (rest || (m & 1)))
    m++; /* 2^53 is still exact, and ldexp overflows to Inf where IEEE does */
  const double v = ldexp((double)m, q);
  return sign < 0 ? -v : v;
}

double gq_superacc_round(const gq_superacc *a, int shift)
{
  uint64_t digit[DIGITS];
  span sp;
  const int sign = magnitude(a, digit, &sp);
  return sign ? round_digits(digit, sp, sign, GQ_SUPERACC_LSB - shift, 0) : 0.0;
}

double gq_superacc_div_round(const gq_superacc *a, uint64_t n)
{
  uint64_t digit[DIGITS];
  span sp;
  const int sign = magnitude(a, digit, &sp);
  if (!sign || n == 0)
    return n == 0 ? NAN : 0.0;
  /* Long division by 32-bit digits, most significant first: the quotient
   * keeps every bit down to 2^-2176, far below the last bit of any double,
   * and the remainder only decides the sticky bit. */
  unsigned __int128 rem = 0;
  for (int k = sp.hi; k >= 0; k--) { /* the digits above are zero, and so are their quotients */
    const unsigned __int128 cur = (rem << 32) | digit[k];
    digit[k] = (uint64_t)(cur / n);
    rem = cur % n;
  }
  sp.lo = 0; /* the quotient's digits reach below the dividend's */
  return round_digits(digit, sp, sign, GQ_SUPERACC_LSB, rem != 0);
}

int gq_superacc_sign(const gq_superacc *a)
{
  uint64_t digit[DIGITS];
  span sp;
  return magnitude(a, digit, &sp);
}

int gq_superacc_top(const gq_superacc *a)
{
  uint64_t digit[DIGITS];
  span sp;
  if (!magnitude(a, digit, &sp))
    return GQ_SUPERACC_LSB - 1;
  return top_bit(digit, sp) + GQ_SUPERACC_LSB;
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
  span sp;
  const int sign = magnitude(b, digit, &sp);
  int ex, nx;
  const uint64_t mx = gq_superacc_split_(x, &ex, &nx);
  if (!sign || !mx)
    return;
  const int negative = (sign < 0) ^ nx ^ (negate & 1);
  gq_superacc_normalize(a);
  for (int k = sp.lo; k <= sp.hi; k++)
    if (digit[k])
      add_u128(a, (unsigned __int128)digit[k] * mx, 32 * k + GQ_SUPERACC_LSB + ex + shift, negative);
  gq_superacc_normalize(a);
}
