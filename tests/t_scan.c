/* t_scan.c — prefix sums (gq_scan) and cumulative integrals
 * (gq_cumulative_integral) against references computed here: integers
 * exactly (unsigned, wrapping), doubles and floats against a long double
 * Neumaier sum (relative error ~2^-63, far below the bound tested),
 * for sizes 1, 31, 2^k +- 1 (across warps, tiles and the CPU's chunks) and
 * 10^7 + 3, both methods, inclusive and exclusive, from a carry, in place,
 * chunk after chunk; outputs are poisoned first, and the element after the
 * end must stay poisoned.  The cumulative trapezoid's values against a
 * double-double reference, its last value against gq_integrate_rule's
 * (within 2 u |T| + 4 n u^2 sum h |f|) and against GSL (gq_trapezoid_check).
 * On the CPU backend; `t_scan gpu` (tests/scan.gpu) on the CUDA backend. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "../src/lib/poison.h"
#include "exact_sum.h"
#include "tap.h"
#include "tap_context.h"

static gq_context *ctx;
static double worst_ratio[2]; /* the largest |y - P| / bound seen (f64, f32), for the record */

/* Reproducible data: xorshift64*, doubles of mixed sign over ten binades
 * (cancellation and carries in the pairs), floats, and integers spanning the
 * whole range (sums wrap). */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next_word(void)
{
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1dULL;
}
static double next_double(void)
{
  const double u = (double)(next_word() >> 11) * 0x1p-53;
  const int e = (int)(next_word() % 10) - 5;
  return ldexp(u - 0.3, e);
}

static size_t elem_size(gq_scan_type t) { return t == GQ_SCAN_F32 ? 4 : 8; }
static const char *type_name(gq_scan_type t) { return t == GQ_SCAN_F64 ? "f64" : t == GQ_SCAN_F32 ? "f32" : "i64"; }

static void fill(gq_scan_type t, void *x, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    if (t == GQ_SCAN_F64)
      ((double *)x)[i] = next_double();
    else if (t == GQ_SCAN_F32)
      ((float *)x)[i] = (float)next_double();
    else
      ((int64_t *)x)[i] = (int64_t)next_word();
  }
}

static double value_at(gq_scan_type t, const void *x, size_t i)
{
  return t == GQ_SCAN_F32 ? (double)((const float *)x)[i] : ((const double *)x)[i];
}

/* Compare y (n results, the (n+1)-th a guard) with the reference scan of x
 * from carry0.  Returns the number of bad elements (and prints the first). */
static size_t compare(gq_scan_type t, int exclusive, int plain, const void *x, const void *y, size_t n,
                      gq_scan_carry carry0, const gq_scan_carry *carry, const void *poisoned)
{
  size_t bad = 0;
  const double u = t == GQ_SCAN_F32 ? 0x1p-24 : 0x1p-53;
  if (t == GQ_SCAN_I64) {
    uint64_t s = (uint64_t)carry0.isum;
    for (size_t i = 0; i < n; i++) {
      const uint64_t before = s;
      s += (uint64_t)((const int64_t *)x)[i];
      const uint64_t want = exclusive ? before : s;
      if ((uint64_t)((const int64_t *)y)[i] != want && bad++ == 0)
        diag("element %zu: %lld, expected %lld", i, (long long)((const int64_t *)y)[i], (long long)want);
    }
    if ((uint64_t)carry->isum != s && bad++ == 0)
      diag("carry %lld, expected %lld", (long long)carry->isum, (long long)s);
  } else {
    /* Neumaier in long double from the carry's pair. */
    long double s = (long double)carry0.sum, c = (long double)carry0.err, abs_sum = fabsl(s + c);
    for (size_t i = 0; i < n; i++) {
      const long double before = s + c;
      const long double v = value_at(t, x, i);
      const long double sum = s + v;
      c += fabsl(s) >= fabsl(v) ? (s - sum) + v : (v - sum) + s;
      s = sum;
      abs_sum += fabsl(v);
      const long double want = exclusive ? before : s + c;
      const double got = value_at(t, y, i);
      /* plain (CUB's) sums: any order of i + 1 roundings, i u sum |x_j| */
      const long double spread = plain ? (long double)(i + 1) * u * abs_sum : 2.0L * (long double)(i + 1) * 0x1p-106L * abs_sum;
      const double bound = (double)(u * fabsl(want) + spread) + (double)(0x1p-62L * fabsl(want)) + DBL_TRUE_MIN;
      const double err = fabs((double)((long double)got - want));
      if (!plain && err / bound > worst_ratio[t == GQ_SCAN_F32])
        worst_ratio[t == GQ_SCAN_F32] = err / bound;
      if (!(err <= bound) && bad++ == 0)
        diag("element %zu: %.17g, expected %.17Lg (error %.3g, bound %.3g)", i, got, want, err, bound);
    }
    const long double total = carry->sum + (long double)carry->err;
    const long double slack = plain ? (long double)(n + 1) * u * abs_sum : 0x1p-100L * abs_sum;
    if (!(fabsl(total - (s + c)) <= slack + 0x1p-62L * fabsl(s + c)) && bad++ == 0)
      diag("carry %.17Lg, expected %.17Lg", total, s + c);
  }
  const size_t end = n * elem_size(t);
  if (memcmp((const char *)y + end, (const char *)poisoned + end, elem_size(t)) != 0 && bad++ == 0)
    diag("the element after the end was written");
  return bad;
}

static void poison_buffer(void *h, size_t bytes)
{
  for (size_t k = 0; k + 8 <= bytes; k += 8)
    memcpy((char *)h + k, &(uint64_t){GQ_POISON}, 8);
  for (size_t k = bytes / 8 * 8; k < bytes; k++)
    ((unsigned char *)h)[k] = 0xf4;
}

/* One scan of n elements, checked.  pieces > 1: scanned chunk after chunk
 * with the carry passed on; in_place: y is x. */
static void check_scan(gq_scan_type t, int exclusive, gq_scan_method m, size_t n, int pieces, int in_place,
                       int with_carry)
{
  const size_t es = elem_size(t), bytes = (n + 1) * es + 8;
  char *hx = malloc(bytes), *hy = malloc(bytes), *hp = malloc(bytes);
  void *dx = NULL, *dy = NULL;
  if (!hx || !hy || !hp || gq_alloc(ctx, bytes, &dx) != GQ_SUCCESS || gq_alloc(ctx, bytes, &dy) != GQ_SUCCESS) {
    tap_ok(0, "allocate %zu bytes: %s", bytes, gq_last_error());
    goto out;
  }
  poison_buffer(hp, bytes);
  memcpy(hx, hp, bytes);
  memcpy(hy, hp, bytes);
  fill(t, hx, n);
  gq_scan_carry carry0 = {0.0, 0.0, 0};
  if (with_carry) {
    carry0.sum = 1234.5;
    carry0.err = 0x1p-45;
    carry0.isum = INT64_MAX - 5;
  }
  gq_scan_carry carry = carry0;
  int status = gq_copy_to(ctx, dx, hx, bytes);
  if (status == GQ_SUCCESS)
    status = gq_copy_to(ctx, dy, in_place ? hx : hy, bytes);
  void *target = in_place ? dx : dy;
  for (int k = 0; k < pieces && status == GQ_SUCCESS; k++) {
    const size_t from = n * (size_t)k / (size_t)pieces, to = n * (size_t)(k + 1) / (size_t)pieces;
    status = gq_scan(ctx, t, exclusive, m, to - from, (char *)dx + from * es,
                     (char *)target + from * es, &carry);
  }
  if (status == GQ_SUCCESS)
    status = gq_copy_from(ctx, hy, target, bytes);
  const size_t bad = status == GQ_SUCCESS ? compare(t, exclusive, m == GQ_SCAN_CUB, hx, hy, n, carry0, &carry, hp) : n;
  tap_ok(status == GQ_SUCCESS && bad == 0, "%s %s %s n = %zu%s%s%s: %s", type_name(t),
         exclusive ? "exclusive" : "inclusive",
         m == GQ_SCAN_LOOKBACK ? "lookback" : m == GQ_SCAN_THREE_PHASE ? "three-phase" : "cub", n,
         pieces > 1 ? " in pieces" : "", in_place ? " in place" : "", with_carry ? " from a carry" : "",
         status != GQ_SUCCESS ? gq_last_error() : bad ? "wrong elements" : "ok");
out:
  gq_free(ctx, dx);
  gq_free(ctx, dy);
  free(hx);
  free(hy);
  free(hp);
}

static void scans(int gpu)
{
  const gq_scan_type types[] = {GQ_SCAN_F64, GQ_SCAN_F32, GQ_SCAN_I64};
  const gq_scan_method methods[] = {GQ_SCAN_LOOKBACK, GQ_SCAN_THREE_PHASE, GQ_SCAN_CUB};
  const size_t nmethods = gpu ? 3 : 2; /* CUB is the GPU's baseline */
  size_t sizes[32];
  int count = 0;
  sizes[count++] = 1;
  sizes[count++] = 31;
  const int ks[] = {5, 8, 12, 13, 16, 17, 20};
  for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
    sizes[count++] = ((size_t)1 << ks[k]) - 1;
    sizes[count++] = ((size_t)1 << ks[k]) + 1;
  }
  for (int s = 0; s < count; s++)
    for (size_t t = 0; t < 3; t++)
      for (size_t m = 0; m < nmethods; m++)
        for (int ex = 0; ex <= 1; ex++)
          check_scan(types[t], ex, methods[m], sizes[s], 1, 0, s % 2);
  for (size_t t = 0; t < 3; t++) {
    check_scan(types[t], 0, GQ_SCAN_LOOKBACK, 100003, 7, 0, 1);
    check_scan(types[t], 1, GQ_SCAN_THREE_PHASE, 100003, 3, 0, 0);
    check_scan(types[t], 0, GQ_SCAN_LOOKBACK, 70001, 1, 1, 1);
    check_scan(types[t], 1, GQ_SCAN_THREE_PHASE, 70001, 1, 1, 0);
  }
  if (gpu)
    for (size_t t = 0; t < 3; t++) {
      check_scan(types[t], 0, GQ_SCAN_CUB, 100003, 7, 0, 1);
      check_scan(types[t], 1, GQ_SCAN_CUB, 70001, 1, 1, 1);
    }
  for (size_t m = 0; m < nmethods; m++) {
    check_scan(GQ_SCAN_F64, 0, methods[m], 10000003, 1, 0, 1);
    check_scan(GQ_SCAN_I64, 1, methods[m], 10000003, 1, 0, 0);
  }
  diag("largest |y - P| / (u |P| + 2 i u^2 sum |x|): f64 %.3g, f32 %.3g", worst_ratio[0], worst_ratio[1]);
}

static void arguments(void)
{
  double x = 1.0, y = 0.0;
  tap_ok(gq_scan(NULL, GQ_SCAN_F64, 0, GQ_SCAN_LOOKBACK, 1, &x, &y, NULL) == GQ_EINVAL, "NULL context");
  tap_ok(gq_scan(ctx, (gq_scan_type)7, 0, GQ_SCAN_LOOKBACK, 1, &x, &y, NULL) == GQ_EINVAL, "unknown type");
  tap_ok(gq_scan(ctx, GQ_SCAN_F64, 0, (gq_scan_method)9, 1, &x, &y, NULL) == GQ_EINVAL, "unknown method");
  tap_ok(gq_scan(ctx, GQ_SCAN_F64, 0, GQ_SCAN_LOOKBACK, 1, NULL, &y, NULL) == GQ_EINVAL && *gq_last_error(),
         "NULL x: %s", gq_last_error());
  tap_ok(gq_scan(ctx, GQ_SCAN_F64, 0, GQ_SCAN_LOOKBACK, 1, &x, NULL, NULL) == GQ_EINVAL, "NULL y");
  const gq_integrand *c = gq_integrand_builtin("circle");
  tap_ok(gq_cumulative_integral(NULL, c, 0, 1, 10, GQ_RULE_TRAPEZOID, &y, 1, NULL) == GQ_EINVAL &&
             gq_cumulative_integral(ctx, NULL, 0, 1, 10, GQ_RULE_TRAPEZOID, &y, 1, NULL) == GQ_EINVAL &&
             gq_cumulative_integral(ctx, c, 0, 1, 10, GQ_RULE_TRAPEZOID, NULL, 1, NULL) == GQ_EINVAL,
         "gq_cumulative_integral: NULL ctx, f, out");
  tap_ok(gq_cumulative_integral(ctx, c, 0, 1, 10, (gq_rule)42, &y, 1, NULL) == GQ_EINVAL, "an unknown rule");
  gq_scan_carry carry = {3.0, 0.0, 3};
  tap_ok(gq_scan(ctx, GQ_SCAN_F64, 0, GQ_SCAN_LOOKBACK, 0, NULL, NULL, &carry) == GQ_SUCCESS && carry.sum == 3.0,
         "n = 0 leaves the carry alone");
  tap_ok(gq_scan(ctx, GQ_SCAN_F64, 0, GQ_SCAN_LOOKBACK, SIZE_MAX / 4, &x, &y, NULL) == GQ_EINVAL,
         "a length no object can hold");
  tap_ok(gq_cumulative_count(10, 1) == 11 && gq_cumulative_count(10, 3) == 5 && gq_cumulative_count(10, 5) == 3 &&
             gq_cumulative_count(10, 20) == 2 && gq_cumulative_count(10, 0) == 0,
         "gq_cumulative_count");
}

/* ---- cumulative integrals ------------------------------------------------ */
static const gq_integrand *integrand(const char *text, gq_integrand **owned)
{
  *owned = NULL;
  const gq_integrand *f = gq_integrand_builtin(text);
  if (!f && gq_integrand_parse(text, NULL, 0, 1, owned, NULL) == GQ_SUCCESS)
    f = *owned;
  return f;
}

/* F_i in double-double on the host: h (S_i - f_0/2 - f_i/2), and the scale
 * of its rounding h sum_{j<=i} |f_j|. */
/* The Simpson terms of cumulative.cuh / scipy's cumulative_simpson, on the
 * host: 12/h times the integral over [x_{i-1}, x_i]. */
static double simpson_term(const gq_integrand *f, double a, double b, uint64_t n, uint64_t i)
{
  const double h = (b - a) / (double)n;
#define FX(k) gq_integrand_eval(f, (k) == n ? b : fma((double)(k), h, a))
  if (i == 0)
    return 0.0;
  const uint64_t j = i - 1;
  if (j % 2 == 0 && j != n - 1)
    return 5.0 * FX(j) + 8.0 * FX(j + 1) - FX(j + 2);
  return -FX(j - 1) + 8.0 * FX(j) + 5.0 * FX(j + 1);
#undef FX
}

static void check_cumulative_rule(const char *text, double a, double b, uint64_t n, uint64_t every, gq_rule rule)
{
  const int simpson = rule == GQ_RULE_SIMPSON && n >= 2;
  gq_integrand *owned;
  const gq_integrand *f = integrand(text, &owned);
  const uint64_t count = gq_cumulative_count(n, every);
  double *h_out = malloc((count + 1) * sizeof *h_out);
  double *d_out = NULL;
  if (!f || !h_out || gq_alloc(ctx, (count + 1) * sizeof(double), (void **)&d_out) != GQ_SUCCESS) {
    tap_ok(0, "cumulative %s: setup: %s", text, gq_last_error());
    goto out;
  }
  poison_buffer(h_out, (count + 1) * sizeof *h_out);
  int status = gq_copy_to(ctx, d_out, h_out, (count + 1) * sizeof *h_out);
  double ms = -1;
  if (status == GQ_SUCCESS)
    status = gq_cumulative_integral(ctx, f, a, b, n, rule, d_out, every, &ms);
  if (status == GQ_SUCCESS)
    status = gq_copy_from(ctx, h_out, d_out, (count + 1) * sizeof *h_out);
  if (!tap_ok(status == GQ_SUCCESS, "cumulative %s %s on [%g, %g], n = %llu, every %llu: %s", gq_rule_name(rule),
              text, a, b, (unsigned long long)n, (unsigned long long)every, status ? gq_last_error() : "ran"))
    goto out;
  const double h = (b - a) / (double)n, u = 0x1p-53;
  const double f0 = gq_integrand_eval(f, a);
  dd s = {0, 0};
  double abs_sum = 0.0, worst = 0.0;
  size_t bad = 0;
  for (uint64_t i = 0; i <= n; i++) {
    const double fi = gq_integrand_eval(f, i == n ? b : fma((double)i, h, a));
    const double term = simpson ? simpson_term(f, a, b, n, i) : fi;
    s = dd_add(s, term);
    abs_sum += fabs(fi);
    uint64_t j = UINT64_MAX;
    if (i % every == 0)
      j = i / every;
    else if (i == n)
      j = count - 1;
    if (j == UINT64_MAX)
      continue;
    dd t = simpson ? s : dd_add(dd_add(s, -0.5 * f0), -0.5 * fi);
    const double want = i == 0 ? 0.0 : (t.hi + t.lo) * (simpson ? h / 12 : h);
    /* 4 u |F| + 8 u h sum|f|: the device's f may differ from the host's by an
     * ulp or two; a Simpson term (weights 5, 8, 1) rounds once more */
    const double bound = 4 * u * fabs(want) + (simpson ? 16 : 8) * u * fabs(h) * abs_sum + DBL_TRUE_MIN;
    const double err = fabs(h_out[j] - want);
    if (err / bound > worst)
      worst = err / bound;
    if (!(err <= bound) && bad++ == 0)
      diag("F_%llu = %.17g, expected %.17g (bound %.3g)", (unsigned long long)i, h_out[j], want, bound);
  }
  uint64_t guard;
  memcpy(&guard, &h_out[count], 8);
  tap_ok(bad == 0 && guard == GQ_POISON && h_out[0] == 0.0, "  the %llu values against double-double (worst %.3g of the bound)%s",
         (unsigned long long)count, worst, guard != GQ_POISON ? "; the element after the end was written" : "");
  if (rule == GQ_RULE_SIMPSON && n % 2) /* no plain Simpson rule on an odd n */
    goto out;
  gq_rule_result r;
  status = gq_integrate_rule(ctx, f, rule, a, b, n, GQ_PRECISION_DOUBLE, &r);
  const double last = h_out[count - 1];
  /* the two kernels' f may differ by an ulp (the GPU's plain rule runs its
   * fast functions first, the cumulative one CUDA's): 2 u h sum|f|; Simpson:
   * the terms' roundings, 4 u h sum|f|, besides */
  const double bound = 2 * u * fabs(r.result) + 4 * (double)n * u * u * fabs(h) * abs_sum +
                       (simpson ? 6 : 2) * u * fabs(h) * abs_sum + DBL_TRUE_MIN;
  tap_ok(status == GQ_SUCCESS && fabs(last - r.result) <= bound,
         "  F_n = %.17g, the plain %s %.17g (difference %.3g, bound %.3g)", last, gq_rule_name(rule), r.result,
         fabs(last - r.result), bound);
  gq_reference ref;
  if (n >= 1000 && gq_integrate_reference(f, a, b, &ref) == GQ_SUCCESS) { /* a converged rule */
    double tol;
    gq_rule_result c = r;
    c.result = last;
    const int verdict = gq_trapezoid_check(&c, GQ_PRECISION_DOUBLE, &ref, &tol);
    tap_ok(verdict == GQ_SUCCESS, "  F_n against GSL/exact %.17g: difference %.3g, tolerance %.3g", ref.value,
           last - ref.value, tol);
  }
out:
  gq_free(ctx, d_out);
  free(h_out);
  gq_integrand_free(owned);
}

static void check_cumulative(const char *text, double a, double b, uint64_t n, uint64_t every)
{
  check_cumulative_rule(text, a, b, n, every, GQ_RULE_TRAPEZOID);
}

/* Simpson's parabolas integrate a quadratic exactly on every interval, and
 * a cubic at every even point: F_i against the antiderivative. */
static void simpson_exact(const char *text, double (*F)(double), uint64_t n, int every_point)
{
  gq_integrand *owned;
  const gq_integrand *f = integrand(text, &owned);
  double *h_out = malloc((n + 1) * sizeof *h_out), *d_out = NULL;
  int status = f && h_out ? gq_alloc(ctx, (n + 1) * sizeof *h_out, (void **)&d_out) : GQ_ENOMEM;
  if (status == GQ_SUCCESS)
    status = gq_cumulative_integral(ctx, f, 0.0, 2.0, n, GQ_RULE_SIMPSON, d_out, 1, NULL);
  if (status == GQ_SUCCESS)
    status = gq_copy_from(ctx, h_out, d_out, (n + 1) * sizeof *h_out);
  double worst = 0.0;
  for (uint64_t i = 0; status == GQ_SUCCESS && i <= n; i += every_point ? 1 : 2) {
    const double x = i == n ? 2.0 : fma((double)i, 2.0 / (double)n, 0.0);
    worst = fmax(worst, fabs(h_out[i] - (F(x) - F(0.0))));
  }
  tap_ok(status == GQ_SUCCESS && worst <= 64 * 0x1p-53 * 8.0, "cumulative simpson of %s, n = %llu, at %s point: "
         "the antiderivative to %.3g", text, (unsigned long long)n, every_point ? "every" : "every even", worst);
  gq_free(ctx, d_out);
  free(h_out);
  gq_integrand_free(owned);
}
static double quadratic_F(double x) { return x * x * x - x * x + x; }
static double cubic_F(double x) { return x * x * x * x - x; }

static void cumulative(void)
{
  simpson_exact("3*x^2 - 2*x + 1", quadratic_F, 7, 1);
  simpson_exact("3*x^2 - 2*x + 1", quadratic_F, 10, 1);
  simpson_exact("4*x^3 - 1", cubic_F, 12, 0);
  check_cumulative_rule("sin(x)*exp(-x/3)", -1.0, 7.5, 100000, 7, GQ_RULE_SIMPSON);
  check_cumulative_rule("runge", -5.0, 5.0, 4097, 1, GQ_RULE_SIMPSON);
  check_cumulative_rule("circle", 0.0, 1.0, 1000002, 1000, GQ_RULE_SIMPSON);
  check_cumulative_rule("circle", 0.0, 1.0, 1, 1, GQ_RULE_SIMPSON); /* one interval: the trapezoid */
  check_cumulative("circle", 0.0, 1.0, 1, 1);
  check_cumulative("circle", 0.0, 1.0, 10007, 1);
  check_cumulative("sin(x)*exp(-x/3)", -1.0, 7.5, 100000, 7);
  check_cumulative("sin(x)*exp(-x/3)", 7.5, -1.0, 65537, 65537);
  check_cumulative("runge", -5.0, 5.0, 4097, 4096);
  check_cumulative("x^3 - 2*x", 0.0, 2.0, 1000003, 1000);
  double out[4];
  const gq_integrand *c = gq_integrand_builtin("circle");
  tap_ok(gq_cumulative_integral(ctx, c, 0, 1, 12, GQ_RULE_BOOLE, out, 1, NULL) == GQ_EUNSUP,
         "cumulative Boole: GQ_EUNSUP");
  tap_ok(gq_cumulative_integral(ctx, c, 0, INFINITY, 10, GQ_RULE_TRAPEZOID, out, 1, NULL) == GQ_EINVAL,
         "an infinite limit: GQ_EINVAL");
  tap_ok(gq_cumulative_integral(ctx, c, 0, 1, 10, GQ_RULE_TRAPEZOID, out, 0, NULL) == GQ_EINVAL,
         "every = 0: GQ_EINVAL");
  tap_ok(gq_cumulative_integral(ctx, c, 0, 1, 0, GQ_RULE_TRAPEZOID, out, 1, NULL) == GQ_EINVAL, "n = 0: GQ_EINVAL");
}

int main(int argc, char **argv)
{
  int gpu;
  ctx = tap_context(argc, argv, &gpu);
  if (!ctx)
    return tap_done();
  arguments();
  scans(gpu);
  double x = 1, y;
  tap_ok(gpu || gq_scan(ctx, GQ_SCAN_F64, 0, GQ_SCAN_CUB, 1, &x, &y, NULL) == GQ_EUNSUP,
         "the CUB method on a CPU context: GQ_EUNSUP");
  cumulative();
  gq_context_free(ctx);
  return tap_done();
}
