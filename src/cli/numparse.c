/* numparse.c — the command line's two number grammars (numparse.h): whole
 * numbers exactly, in 128-bit integers with every step bounded; reals through
 * strtod, on text our own scanner has already matched to the grammar. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "numparse.h"

typedef unsigned __int128 u128;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* Locale-free, unlike isdigit. */
static int is_digit(char c)
{
  return c >= '0' && c <= '9';
}

/* The length of the DIGITS at s ('_' only between two digits), 0 if none. */
static size_t scan_digits(const char *s)
{
  size_t i = 0;
  while (is_digit(s[i]) || (i > 0 && s[i] == '_' && is_digit(s[i + 1])))
    i++;
  return i;
}

/* The significant digits of one or two DIGITS spans, read as one string:
 * leading zeros dropped, the first few kept, trailing zeros counted apart. */
enum { KEPT_DIGITS = 40 };
typedef struct {
  char kept[KEPT_DIGITS];
  size_t count;        /* significant digits so far, trailing zeros included */
  size_t last_nonzero; /* count up to the last nonzero digit                  */
} digit_string;

static void take_digits(digit_string *sig, const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '_' || (sig->count == 0 && s[i] == '0'))
      continue;
    if (sig->count < KEPT_DIGITS)
      sig->kept[sig->count] = s[i];
    sig->count++;
    if (s[i] != '0')
      sig->last_nonzero = sig->count;
  }
}

/* The first ndigits (at most 38, so below 10^38 < 2^127) kept digits. */
static u128 digit_string_value(const digit_string *sig, size_t ndigits)
{
  u128 v = 0;
  for (size_t i = 0; i < ndigits; i++)
    v = v * 10 + (u128)(sig->kept[i] - '0');
  return v;
}

typedef enum { WHOLE_OK, WHOLE_NOT_NUMBER, WHOLE_NOT_POWER, WHOLE_NOT_WHOLE, WHOLE_TOO_LARGE, WHOLE_TOO_LONG } whole_status;

/* Past 2^64 - 1 a value is too large for every option. */
static const u128 whole_limit = UINT64_MAX;

/* BASE^EXPONENT, the two spans already matched. */
static whole_status eval_power(const char *base, size_t nbase, const char *exponent, size_t nexp, u128 *value)
{
  digit_string b = {{0}, 0, 0}, x = {{0}, 0, 0};
  take_digits(&b, base, nbase);
  take_digits(&x, exponent, nexp);
  if (x.count == 0 || (b.count == 1 && b.kept[0] == '1')) { /* anything^0 (0^0 as pow has it), 1^x */
    *value = 1;
    return WHOLE_OK;
  }
  if (b.count == 0) {
    *value = 0;
    return WHOLE_OK;
  }
  /* base >= 2: an exponent of 100 or more, or a base of 21 digits, is past 2^64 */
  if (b.count > 20 || x.count > 2)
    return WHOLE_TOO_LARGE;
  const u128 base_value = digit_string_value(&b, b.count);
  const unsigned times = (unsigned)digit_string_value(&x, x.count);
  u128 v = 1;
  for (unsigned k = 0; k < times; k++) {
    v *= base_value; /* v <= 2^64 and base < 10^20 < 2^67: no wrap in 128 bits */
    if (v > whole_limit)
      return WHOLE_TOO_LARGE;
  }
  *value = v;
  return WHOLE_OK;
}

static const struct {
  const char *name;
  int pow10, pow2;
} suffixes[] = {
  {"Ki", 0, 10}, {"Mi", 0, 20}, {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50},
  {"k", 3, 0},   {"K", 3, 0},   {"M", 6, 0},   {"G", 9, 0},   {"T", 12, 0}, {"P", 15, 0},
};

/* Exponent digits at s (no '_'), saturated far beyond any meaningful size. */
static long long read_exponent(const char *s, size_t len)
{
  long long e = 0;
  for (size_t i = 0; i < len; i++)
    if (e < 1000000000000LL)
      e = e * 10 + (s[i] - '0');
  return e;
}

/* DIGITS [. DIGITS] [e [+-] DIGITS] [SUFFIX] from s, exactly:
 * value = D * 10^e * 2^k with D the significant digits (no trailing zero). */
static whole_status eval_decimal(const char *s, u128 *value)
{
  digit_string sig = {{0}, 0, 0};
  long long fraction_digits = 0, e = 0;
  size_t n = scan_digits(s);
  if (n == 0 && !(s[0] == '.' && is_digit(s[1])))
    return WHOLE_NOT_NUMBER;
  take_digits(&sig, s, n);
  s += n;
  if (*s == '.') {
    s++;
    n = scan_digits(s);
    take_digits(&sig, s, n);
    for (size_t i = 0; i < n; i++)
      fraction_digits += s[i] != '_';
    s += n;
  }
  if (*s == 'e' || *s == 'E') {
    const char *p = s + 1;
    const int negative = *p == '-';
    if (*p == '+' || *p == '-')
      p++;
    size_t len = 0;
    while (is_digit(p[len]))
      len++;
    if (len == 0)
      return WHOLE_NOT_NUMBER;
    e = read_exponent(p, len);
    if (negative)
      e = -e;
    s = p + len;
  }
  int pow2 = 0;
  if (*s) {
    size_t k;
    for (k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++)
      if (strcmp(s, suffixes[k].name) == 0)
        break;
    if (k == sizeof suffixes / sizeof suffixes[0])
      return WHOLE_NOT_NUMBER;
    e += suffixes[k].pow10;
    pow2 = suffixes[k].pow2;
  }
  const long long ndigits = (long long)sig.last_nonzero;
  if (ndigits == 0) {
    *value = 0;
    return WHOLE_OK;
  }
  e += (long long)(sig.count - sig.last_nonzero) - fraction_digits;
  /* D * 10^e >= 10^(ndigits - 1 + e): from 10^20 on, past 2^64 */
  if (ndigits - 1 + e >= 20)
    return WHOLE_TOO_LARGE;
  if (ndigits > 38)
    return WHOLE_TOO_LONG;
  u128 d = digit_string_value(&sig, (size_t)ndigits);
  /* Below, d * 10^e < 10^20, and times 2^pow2 <= 2^50 stays below 2^118. */
  if (e >= 0) {
    for (long long p = 0; p < e; p++)
      d *= 10;
    d <<= pow2;
  } else {
    /* Whole only if 5^m and 2^m (m = -e) divide d * 2^pow2; d has no factor
     * 10, and 5^56 > 10^38 > d. */
    const long long m = -e;
    if (m > 55)
      return WHOLE_NOT_WHOLE;
    u128 p5 = 1;
    for (long long p = 0; p < m; p++)
      p5 *= 5;
    if (d % p5 != 0)
      return WHOLE_NOT_WHOLE;
    d /= p5;
    if (m <= pow2) {
      d <<= pow2 - m;
    } else {
      const u128 mask = ((u128)1 << (m - pow2)) - 1;
      if (d & mask)
        return WHOLE_NOT_WHOLE;
      d >>= m - pow2;
    }
  }
  if (d > whole_limit)
    return WHOLE_TOO_LARGE;
  *value = d;
  return WHOLE_OK;
}

int gq_parse_whole(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *err, size_t errlen)
{
  if (!text || !*text)
    return fail(err, errlen, "is empty");
  const char *s = text;
  int negative = 0;
  if (*s == '+' || *s == '-')
    negative = *s++ == '-';
  u128 value = 0;
  whole_status status;
  const size_t nbase = scan_digits(s);
  if (nbase > 0 && s[nbase] == '^') {
    const char *exponent = s + nbase + 1;
    const size_t nexp = scan_digits(exponent);
    status = nexp == 0 || exponent[nexp] ? WHOLE_NOT_POWER : eval_power(s, nbase, exponent, nexp, &value);
  } else {
    status = eval_decimal(s, &value);
  }
  switch (status) {
  case WHOLE_NOT_NUMBER:
    return fail(err, errlen, "is not a number");
  case WHOLE_NOT_POWER:
    return fail(err, errlen, "is not a number (expected BASE^EXPONENT, e.g. 2^30)");
  case WHOLE_TOO_LONG:
    return fail(err, errlen, "is not a number (more than 38 significant digits)");
  default: /* the sign is the first thing wrong with -1.5 or -1e30 */
    if (negative && (status != WHOLE_OK || value != 0))
      return fail(err, errlen, "%s", min > 0 ? "must be positive" : "must not be negative");
    break;
  }
  if (status == WHOLE_NOT_WHOLE)
    return fail(err, errlen, "is not a whole number");
  if (status == WHOLE_TOO_LARGE || value > (u128)max)
    return fail(err, errlen, "is too large (at most %llu)", (unsigned long long)max);
  if (value < (u128)min)
    return min == 1 ? fail(err, errlen, "must be positive")
                    : fail(err, errlen, "must be at least %llu", (unsigned long long)min);
  *out = (uint64_t)value;
  return 0;
}

int gq_parse_count(const char *text, uint64_t max, uint64_t *out, char *err, size_t errlen)
{
  return gq_parse_whole(text, 1, max, out, err, errlen);
}

int gq_parse_real(const char *text, double *out, char *err, size_t errlen)
{
  if (!text || !*text)
    return fail(err, errlen, "is empty");
  const char *s = text;
  int negative = 0;
  if (*s == '+' || *s == '-')
    negative = *s++ == '-';
  double v;
  if (strcmp(s, "pi") == 0 || strcmp(s, "e") == 0) {
    v = s[0] == 'p' ? 3.14159265358979323846 : 2.71828182845904523536;
    *out = negative ? -v : v;
    return 0;
  }
  size_t i = 0, digits = 0;
  while (is_digit(s[i]))
    i++, digits++;
  if (s[i] == '.')
    for (i++; is_digit(s[i]); i++)
      digits++;
  if (digits && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (s[j] == '+' || s[j] == '-')
      j++;
    if (is_digit(s[j])) {
      while (is_digit(s[j]))
        j++;
      i = j;
    }
  }
  if (!digits || s[i]) {
    if (strcasecmp(s, "nan") == 0)
      return fail(err, errlen, "is not a number (NaN is not allowed here)");
    if (strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0)
      return fail(err, errlen, "is not a finite number");
    return fail(err, errlen, "is not a number");
  }
  v = strtod(text, NULL);
  if (isinf(v))
    return fail(err, errlen, "is too large (beyond the largest double, 1.7976931348623157e308)");
  *out = v;
  return 0;
}

int gq_parse_limit(const char *text, double *out, char *err, size_t errlen)
{
  const char *s = text ? text + (*text == '+' || *text == '-') : NULL;
  if (s && (strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0)) {
    *out = *text == '-' ? -INFINITY : INFINITY;
    return 0;
  }
  return gq_parse_real(text, out, err, errlen);
}
