/* numparse.c — exact parsing of counts and finite reals for the command line. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numparse.h"

typedef unsigned __int128 u128;

static int fail(char *err, size_t errlen, const char *msg)
{
  if (err && errlen)
    snprintf(err, errlen, "%s", msg);
  return -1;
}

/* Digits with optional '_' separators between them; returns chars consumed,
 * accumulates into *v (saturating at a huge value), counts digits. */
static size_t read_digits(const char *s, u128 *v, int *ndigits)
{
  const u128 cap = (u128)1 << 100;
  size_t i = 0;
  *ndigits = 0;
  for (;;) {
    if (isdigit((unsigned char)s[i])) {
      if (*v < cap)
        *v = *v * 10 + (u128)(s[i] - '0');
      (*ndigits)++;
      i++;
    } else if (s[i] == '_' && *ndigits > 0 && isdigit((unsigned char)s[i + 1])) {
      i++;
    } else {
      return i;
    }
  }
}

static const struct {
  const char *name;
  u128 factor;
} suffixes[] = {
  {"Ki", (u128)1 << 10}, {"Mi", (u128)1 << 20}, {"Gi", (u128)1 << 30},
  {"Ti", (u128)1 << 40}, {"Pi", (u128)1 << 50},
  {"k", 1000}, {"K", 1000}, {"M", 1000000}, {"G", 1000000000},
  {"T", (u128)1000000000 * 1000}, {"P", (u128)1000000000 * 1000000},
};

int gq_parse_count(const char *text, uint64_t max, uint64_t *out, char *err, size_t errlen)
{
  if (!text || !*text)
    return fail(err, errlen, "is empty");
  const char *s = text;
  while (isspace((unsigned char)*s))
    s++;
  int negative = 0;
  if (*s == '+' || *s == '-')
    negative = *s++ == '-';
  if (!isdigit((unsigned char)*s) && !(*s == '.' && isdigit((unsigned char)s[1])))
    return fail(err, errlen, "is not a number");

  u128 mant = 0;
  int nd = 0, nfrac = 0;
  s += read_digits(s, &mant, &nd);
  u128 value;
  if (*s == '^') { /* base^exponent */
    u128 e = 0;
    int ne = 0;
    s++;
    s += read_digits(s, &e, &ne);
    if (ne == 0 || *s)
      return fail(err, errlen, "is not a number (expected BASE^EXPONENT, e.g. 2^30)");
    value = 1;
    for (u128 k = 0; k < e && value <= ((u128)1 << 100); k++)
      value *= mant;
    if (mant == 0 && e == 0)
      value = 1;
  } else {
    if (*s == '.') {
      u128 frac = mant;
      s++;
      s += read_digits(s, &frac, &nfrac);
      mant = frac;
    }
    long exp10 = 0;
    if (*s == 'e' || *s == 'E') {
      const char *e0 = s++;
      int eneg = 0;
      if (*s == '+' || *s == '-')
        eneg = *s++ == '-';
      if (!isdigit((unsigned char)*s)) {
        s = e0;
      } else {
        while (isdigit((unsigned char)*s)) {
          if (exp10 < 100000)
            exp10 = exp10 * 10 + (*s - '0');
          s++;
        }
        if (eneg)
          exp10 = -exp10;
      }
    }
    u128 factor = 1;
    if (*s) {
      size_t k;
      for (k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++)
        if (strcmp(s, suffixes[k].name) == 0)
          break;
      if (k == sizeof suffixes / sizeof suffixes[0])
        return fail(err, errlen, "is not a number");
      factor = suffixes[k].factor;
    }
    /* value = mant * factor * 10^(exp10 - nfrac), exactly; anything past
     * too_big is too large for every use. */
    const u128 too_big = (u128)1 << 70;
    if (mant > too_big)
      return fail(err, errlen, "is too large");
    value = mant * factor;
    for (long p = exp10 - nfrac; p < 0; p++) {
      if (value % 10 != 0)
        return fail(err, errlen, "is not a whole number");
      value /= 10;
    }
    for (long p = exp10 - nfrac; p > 0 && value != 0; p--) {
      if (value > too_big)
        break;
      value *= 10;
    }
  }
  if (negative && value != 0)
    return fail(err, errlen, "must be positive");
  if (value == 0)
    return fail(err, errlen, "must be positive");
  if (value > (u128)max) {
    char msg[128];
    snprintf(msg, sizeof msg, "is too large (at most %llu)", (unsigned long long)max);
    return fail(err, errlen, msg);
  }
  *out = (uint64_t)value;
  return 0;
}

int gq_parse_real(const char *text, double *out, char *err, size_t errlen)
{
  if (!text || !*text)
    return fail(err, errlen, "is empty");
  static const struct {
    const char *name;
    double value;
  } named[] = {
    {"pi", 3.14159265358979323846}, {"-pi", -3.14159265358979323846},
    {"e", 2.71828182845904523536},  {"-e", -2.71828182845904523536},
  };
  for (size_t k = 0; k < sizeof named / sizeof named[0]; k++)
    if (strcmp(text, named[k].name) == 0) {
      *out = named[k].value;
      return 0;
    }
  char *end;
  errno = 0;
  const double v = strtod(text, &end);
  if (end == text || *end)
    return fail(err, errlen, "is not a number");
  if (isnan(v))
    return fail(err, errlen, "is not a number (NaN is not allowed here)");
  if (isinf(v) || errno == ERANGE) {
    if (isinf(v) || fabs(v) > 1.0)
      return fail(err, errlen, "is not a finite number");
  }
  *out = v;
  return 0;
}
