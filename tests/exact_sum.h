/* exact_sum.h — the trapezoid sum computed by the tests themselves, in
 * double-double arithmetic (relative error ~n * 2^-104), as the reference the
 * backends must match to 1-2 ulp. */
#ifndef GQ_EXACT_SUM_H
#define GQ_EXACT_SUM_H

#include <math.h>
#include <stdint.h>

typedef struct {
  double hi, lo;
} dd;

static inline dd dd_add(dd a, double v)
{
  const double s = a.hi + v, bp = s - a.hi, e = (a.hi - (s - bp)) + (v - bp);
  const double lo = a.lo + e, hi = s + lo;
  return (dd){hi, lo - (hi - s)};
}

/* T(h) for f on [a,b] with n intervals, x_i = fma(i, h, a), and sum |f|. */
static inline double exact_trapezoid(double (*f)(double), double a, double b, uint64_t n,
                                     double *abs_sum)
{
  const double h = (b - a) / (double)n;
  dd s = {0, 0}, sa = {0, 0};
  for (uint64_t i = 0; i <= n; i++) {
    const double x = i == 0 ? a : i == n ? b : fma((double)i, h, a);
    const double w = (i == 0 || i == n) ? 0.5 : 1.0;
    const double v = w * f(x);
    s = dd_add(s, v);
    sa = dd_add(sa, fabs(v));
  }
  if (abs_sum)
    *abs_sum = fabs(h) * sa.hi;
  return h * (s.hi + s.lo);
}

/* The same rule on spacing 2h over [x_0, x_m], m the largest even index <= n,
 * plus the last interval of spacing h when n is odd (as the library defines it). */
static inline double exact_coarse(double (*f)(double), double a, double b, uint64_t n)
{
  const double h = (b - a) / (double)n;
  const uint64_t m = n & ~(uint64_t)1;
  dd s = {0, 0};
  for (uint64_t i = 0; i <= m; i += 2) {
    const double x = i == 0 ? a : i == n ? b : fma((double)i, h, a);
    s = dd_add(s, (i == 0 || i == m ? 0.5 : 1.0) * f(x));
  }
  double t = 2.0 * h * (s.hi + s.lo);
  if (n % 2)
    t += 0.5 * h * (f(fma((double)(n - 1), h, a)) + f(b));
  return t;
}

static inline double ulp_of(double x) { return nextafter(fabs(x), INFINITY) - fabs(x); }

#endif
