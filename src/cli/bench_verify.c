/* bench_verify.c — references and checks for `gpuquad bench` (bench_verify.h). */
#include "config.h"

#include <math.h>

#include "bench_verify.h"

uint64_t gqb_triangular(uint64_t n)
{
  /* One of n, n + 1 is even: halve it before the multiplication. */
  return n % 2 == 0 ? (n / 2) * (n + 1) : n * ((n + 1) / 2);
}

double gqb_unit_roundoff(gqb_type type)
{
  switch (type) {
  case GQB_FLOAT:
    return ldexp(1.0, -24);
  case GQB_DOUBLE:
    return ldexp(1.0, -53);
  default:
    return 0.0;
  }
}

double gqb_gamma(uint64_t h, double u)
{
  const double hu = (double)h * u;
  return hu < 1.0 ? hu / (1.0 - hu) : INFINITY;
}

uint64_t gqb_opaque_depth(uint64_t n, int sms)
{
  const uint64_t first = 32 * (uint64_t)(sms > 0 ? sms : 1);
  return (n + first - 1) / first + 64;
}

static void reference_integers(gqb_reference *r, const void *x, size_t n, int wide)
{
  const int32_t *x32 = x;
  const int64_t *x64 = x;
  uint64_t sum = 0; /* modulo 2^64: what a wrapping device sum gives in its low bits */
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t i = 0; i < n; i++) {
    const int64_t v = wide ? x64[i] : x32[i];
    sum += (uint64_t)v;
    if (v < lo)
      lo = v;
    if (v > hi)
      hi = v;
  }
  r->sum_bits = sum;
  r->imin = lo;
  r->imax = hi;
}

/* TwoSum accumulation (Ogita, Rump and Oishi's Sum2): the result errs by at
 * most u |S| + gamma_{n-1}^2 sum|x_i|.  Order matters here; compiled with
 * -ffp-contract=off and no -ffast-math. */
static void reference_reals(gqb_reference *r, const void *x, size_t n, int wide)
{
  const float *xf = x;
  const double *xd = x;
  double s = 0.0, c = 0.0, abs_sum = 0.0, lo = INFINITY, hi = -INFINITY;
  uint64_t argmax = 0;
  for (size_t i = 0; i < n; i++) {
    const double v = wide ? xd[i] : (double)xf[i];
    const double t = s + v, bp = t - s, ap = t - bp;
    c += (s - ap) + (v - bp);
    s = t;
    abs_sum += fabs(v);
    if (v < lo)
      lo = v;
    if (v > hi) {
      hi = v;
      argmax = i;
    }
  }
  const double u = ldexp(1.0, -53), g = gqb_gamma(n, u);
  r->sum = s + c;
  r->sum_err = 2.0 * u * fabs(r->sum) + g * g * abs_sum;
  r->abs_sum = abs_sum * (1.0 + g); /* the recursive abs_sum may be low by gamma_n */
  r->fmin = lo;
  r->fmax = hi;
  r->argmax = argmax;
}

void gqb_reference_compute(gqb_type type, const void *x, size_t n, gqb_reference *r)
{
  *r = (gqb_reference){.type = type, .n = n};
  if (type == GQB_INT32 || type == GQB_INT64)
    reference_integers(r, x, n, type == GQB_INT64);
  else
    reference_reals(r, x, n, type == GQB_DOUBLE);
}

static int verify_integer(const gqb_reference *ref, gqb_op op, const gqb_value *got)
{
  switch (op) {
  case GQB_SUM:
    if (ref->type == GQB_INT32)
      return (uint32_t)got->i == (uint32_t)ref->sum_bits && got->i == (int32_t)(uint32_t)got->i;
    return (uint64_t)got->i == ref->sum_bits;
  case GQB_MIN:
    return got->i == ref->imin;
  case GQB_MAX:
    return got->i == ref->imax;
  default:
    return 0;
  }
}

int gqb_verify(const gqb_reference *ref, gqb_op op, const gqb_value *got, uint64_t depth,
               double *error, double *bound)
{
  *error = *bound = 0.0;
  if (ref->type == GQB_INT32 || ref->type == GQB_INT64)
    return verify_integer(ref, op, got);
  switch (op) {
  case GQB_SUM:
    *error = fabs(got->f - ref->sum);
    *bound = gqb_gamma(depth, gqb_unit_roundoff(ref->type)) * ref->abs_sum + ref->sum_err;
    return *bound < INFINITY && *error <= *bound; /* no bound, or NaN: not verified */
  case GQB_MIN:
    return got->f == ref->fmin;
  case GQB_MAX:
    return got->f == ref->fmax;
  case GQB_ARGMAX:
    return got->f == ref->fmax && got->index >= 0 && (uint64_t)got->index == ref->argmax;
  default:
    return 0;
  }
}
