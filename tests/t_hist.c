/* t_hist.c — gq_hist_* on the CPU backend; `t_hist gpu` (tests/hist.gpu)
 * runs the same on the CUDA backend with every method, exit 77 without a
 * device.  Counts must equal, exactly, a host reference written here from
 * the edges alone (e_k <= x < e_k+1 by bisection over gq_hist_edge, hi in the
 * last bin) and GSL's (gq_hist_reference); the edges must be numpy.linspace's
 * (k * ((hi - lo) / K) + lo, e_K = hi); binned sums within
 * 4 (n_k + 2) eps sum |v| of a long double reference. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "../src/lib/poison.h"
#include "tap.h"
#include "tap_context.h"

static gq_context *ctx;
static int gpu;

/* The bin of x from the edges alone: K (under), K + 1 (over), K + 2 (NaN). */
static uint32_t edge_bin(const gq_hist *h, int axis, double x)
{
  const uint32_t k = h->bins[axis];
  if (isnan(x))
    return k + 2;
  if (x < h->lo[axis])
    return k;
  if (x > h->hi[axis])
    return k + 1;
  uint32_t lo = 0, hi = k; /* e_lo <= x, and x < e_hi unless hi == K */
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (x >= gq_hist_edge(h, axis, mid))
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Counts from edge_bin, 1-D or 2-D, into a fresh accumulator of h's shape. */
static gq_hist *host_counts(const gq_hist *h, size_t n, const double *x, const double *y)
{
  gq_hist *r = NULL;
  if (h->dims == 2)
    gq_hist2d_create(&r, h->bins[0], h->lo[0], h->hi[0], h->bins[1], h->lo[1], h->hi[1]);
  else
    gq_hist_create(&r, h->bins[0], h->lo[0], h->hi[0], GQ_HIST_COUNTS);
  for (size_t i = 0; i < n; i++) {
    const uint32_t bx = edge_bin(h, 0, x[i]), by = h->dims == 2 ? edge_bin(h, 1, y[i]) : 0;
    const uint32_t kx = h->bins[0], ky = h->dims == 2 ? h->bins[1] : 1;
    if (bx == kx + 2 || (h->dims == 2 && by == ky + 2))
      r->nan++;
    else if (bx == kx || (h->dims == 2 && by == ky))
      r->under++;
    else if (bx > kx || (h->dims == 2 && by > ky))
      r->over++;
    else
      r->counts[(size_t)bx * ky + by]++;
  }
  r->total = n;
  return r;
}

static int same_counts(const gq_hist *a, const gq_hist *b, char *why, size_t len)
{
  if (a->under != b->under || a->over != b->over || a->nan != b->nan) {
    snprintf(why, len, "under/over/nan %llu/%llu/%llu vs %llu/%llu/%llu", (unsigned long long)a->under,
             (unsigned long long)a->over, (unsigned long long)a->nan, (unsigned long long)b->under,
             (unsigned long long)b->over, (unsigned long long)b->nan);
    return 0;
  }
  for (size_t k = 0; k < a->cells; k++)
    if (a->counts[k] != b->counts[k]) {
      snprintf(why, len, "bin %zu: %llu vs %llu", k, (unsigned long long)a->counts[k], (unsigned long long)b->counts[k]);
      return 0;
    }
  why[0] = '\0';
  return 1;
}

/* The data in the context's memory, followed by `pad` poison elements
 * (values that land in bin 0, and NaN) that a pass reading past n would count. */
static double *place(size_t n, const double *host, double pad_value)
{
  enum { PAD = 1000 };
  double *staged = malloc((n + PAD) * sizeof *staged), *dev = NULL;
  memcpy(staged, host, n * sizeof *host);
  for (size_t i = n; i < n + PAD; i++)
    staged[i] = i % 2 ? pad_value : NAN;
  if (gq_alloc(ctx, (n + PAD) * sizeof *dev, (void **)&dev) != GQ_SUCCESS ||
      gq_copy_to(ctx, dev, staged, (n + PAD) * sizeof *dev) != GQ_SUCCESS)
    dev = NULL;
  free(staged);
  return dev;
}

static int methods(void) { return gpu ? GQ_HIST_NMETHODS : 1; }

/* One data set through every method (CPU: one): counts equal the edge
 * reference and GSL's. */
static void counts_case(const char *name, uint32_t bins, double lo, double hi, size_t n, const double *x)
{
  double *dx = place(n, x, lo);
  for (int m = 0; m < methods(); m++) {
    gq_hist *h = NULL, *gsl = NULL;
    gq_hist_create(&h, bins, lo, hi, GQ_HIST_COUNTS);
    const int status = gq_hist_accumulate(ctx, h, n, dx, NULL, NULL, (gq_hist_method)m);
    gq_hist *ref = host_counts(h, n, x, NULL);
    gq_hist_reference(h, n, x, NULL, NULL, &gsl, NULL);
    char why[160], why_gsl[160];
    const int ok = status == GQ_SUCCESS && h->total == n && same_counts(h, ref, why, sizeof why);
    const int ok_gsl = gsl && same_counts(ref, gsl, why_gsl, sizeof why_gsl);
    tap_ok(ok && ok_gsl, "%s, %u bins, method %s (ran %s): counts equal the edges' and GSL's %s%s%s", name, bins,
           gq_hist_method_name((gq_hist_method)m), gq_hist_method_name((gq_hist_method)h->method),
           status ? gq_last_error() : "", ok ? "" : why, ok_gsl ? "" : why_gsl);
    gq_hist_free(h);
    gq_hist_free(ref);
    gq_hist_free(gsl);
  }
  gq_free(ctx, dx);
}

static uint64_t lcg = 88172645463325252ULL;
static double uniform01(void)
{
  lcg ^= lcg << 13;
  lcg ^= lcg >> 7;
  lcg ^= lcg << 17;
  return (double)(lcg >> 11) * 0x1p-53;
}

static void test_edges_numpy(void)
{
  gq_hist *h = NULL;
  gq_hist_create(&h, 10, 0.0, 1.0, GQ_HIST_COUNTS);
  /* numpy.linspace(0, 1, 11)[3] is 3 * 0.1 = 0.30000000000000004, so 0.3 lies in
   * bin 2 for numpy, though (0.3 - 0) / 1 * 10 = 3.0000000000000004 truncates to 3 */
  tap_ok(gq_hist_edge(h, 0, 3) == 0.30000000000000004 && gq_hist_bin(h, 0, 0.3) == 2,
         "0.3 with 10 bins on [0, 1] is in bin 2 (edge 3 = %.17g), as numpy puts it", gq_hist_edge(h, 0, 3));
  tap_ok(gq_hist_edge(h, 0, 10) == 1.0 && gq_hist_bin(h, 0, 1.0) == 9, "hi is the last edge, in the last bin");
  tap_ok(gq_hist_bin(h, 0, -0.0) == 0 && gq_hist_bin(h, 0, -DBL_TRUE_MIN) == 10 && gq_hist_bin(h, 0, nextafter(1, 2)) == 11 &&
             gq_hist_bin(h, 0, NAN) == 12 && gq_hist_bin(h, 0, -INFINITY) == 10 && gq_hist_bin(h, 0, INFINITY) == 11,
         "-0 in bin 0; below lo, above hi, NaN, -inf, +inf in K, K+1, K+2");
  int all = 1;
  for (uint32_t k = 0; k <= 10; k++)
    all &= gq_hist_edge(h, 0, k) == (k == 10 ? 1.0 : (double)k * (1.0 / 10) + 0.0);
  tap_ok(all, "edges are k * ((hi - lo) / K) + lo, numpy.linspace's rounding");
  gq_hist_free(h);
}

/* Every edge, the values one ulp either side, and hi, for a range whose
 * edges are inexact. */
static void test_every_edge(uint32_t bins, double lo, double hi)
{
  gq_hist *h = NULL;
  gq_hist_create(&h, bins, lo, hi, GQ_HIST_COUNTS);
  const size_t n = 3 * ((size_t)bins + 1);
  double *x = malloc(n * sizeof *x);
  for (uint32_t k = 0; k <= bins; k++) {
    const double e = gq_hist_edge(h, 0, k);
    x[3 * k] = e;
    x[3 * k + 1] = nextafter(e, -INFINITY);
    x[3 * k + 2] = nextafter(e, INFINITY);
  }
  gq_hist_free(h);
  char name[96];
  snprintf(name, sizeof name, "every edge +-1 ulp on [%g, %g]", lo, hi);
  counts_case(name, bins, lo, hi, n, x);
  free(x);
}

static void test_counts(void)
{
  enum { N = 100003 };
  double *x = malloc(N * sizeof *x);
  for (size_t i = 0; i < N; i++)
    x[i] = uniform01();
  counts_case("uniform", 16, 0.0, 1.0, N, x);
  counts_case("uniform", 256, 0.0, 1.0, N, x);
  counts_case("uniform", 65536, 0.0, 1.0, N, x);
  counts_case("uniform, range inside the data", 7, 0.25, 0.7, N, x);
  for (size_t i = 0; i < N; i++)
    x[i] = i % 10 ? 0.5 + 1.0 / 512 : uniform01();
  counts_case("hot (90% in one bin)", 256, 0.0, 1.0, N, x);
  counts_case("hot (90% in one bin)", 65536, 0.0, 1.0, N, x);
  for (size_t i = 0; i < N; i++)
    x[i] = 0.1;
  counts_case("all equal", 256, 0.0, 1.0, N, x);
  counts_case("K = 1", 1, 0.0, 1.0, N, x);
  const double special[] = {NAN, INFINITY, -INFINITY, 0.0, 1.0, -1.0, 2.0, 0.5, -0.0, NAN, 1e308, -1e308};
  counts_case("NaN, +-inf, lo, hi, outside", 4, 0.0, 1.0, sizeof special / sizeof special[0], special);
  counts_case("K larger than n", 1000, 0.0, 1.0, 5, (const double[]){0.0, 0.001, 0.5, 0.999, 1.0});
  test_every_edge(10, 0.0, 1.0);
  test_every_edge(37, -3.3, 7.1);
  test_every_edge(1000, 1e-3, 1e-3 + 1e-9);
  free(x);
}

static void test_2d(void)
{
  enum { N = 50021 };
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  for (size_t i = 0; i < N; i++) {
    x[i] = i % 97 == 0 ? NAN : uniform01() * 1.2 - 0.1;
    y[i] = i % 89 == 0 ? 1.0 : uniform01();
  }
  double *dx = place(N, x, 0.5), *dy = place(N, y, 0.5);
  for (int m = 0; m < methods(); m++) {
    gq_hist *h = NULL, *gsl = NULL;
    gq_hist2d_create(&h, 17, 0.0, 1.0, 9, 0.0, 1.0);
    const int status = gq_hist_accumulate(ctx, h, N, dx, dy, NULL, (gq_hist_method)m);
    gq_hist *ref = host_counts(h, N, x, y);
    gq_hist_reference(h, N, x, y, NULL, &gsl, NULL);
    char why[160], why_gsl[160];
    const int ok = status == GQ_SUCCESS && same_counts(h, ref, why, sizeof why);
    const int ok_gsl = gsl && same_counts(ref, gsl, why_gsl, sizeof why_gsl);
    tap_ok(ok && ok_gsl && h->nan > 0 && h->under > 0 && h->over > 0,
           "2-D 17 x 9, method %s: cells equal the edges' and gsl_histogram2d's %s%s", gq_hist_method_name((gq_hist_method)m),
           ok ? "" : why, ok_gsl ? "" : why_gsl);
    gq_hist_free(h);
    gq_hist_free(ref);
    gq_hist_free(gsl);
  }
  gq_free(ctx, dx);
  gq_free(ctx, dy);
  free(x);
  free(y);
}

/* Sums: each bin within 4 (n_k + 2) eps sum |v| of the long double sum (a
 * bound on both plain atomics in any order and the compensated sum); the
 * compensated one also within 4 eps |sum| + that of n_k eps^2 (stated in
 * gpuquad.h), checked at 8 eps |sum| + 1e-25 sum |v|. */
static void test_sums(void)
{
  enum { N = 200003, K = 64 };
  double *x = malloc(N * sizeof *x), *v = malloc(N * sizeof *v);
  for (size_t i = 0; i < N; i++) {
    x[i] = i % 3 ? 0.01 : uniform01(); /* a hot bin: aggregation and contention */
    v[i] = (uniform01() - 0.3) * (i % 7 ? 1.0 : 1e8);
  }
  double *dx = place(N, x, 0.0), *dv = place(N, v, 1e300);
  for (int kind = GQ_HIST_SUMS; kind <= GQ_HIST_SUMS_COMPENSATED; kind++)
    for (int m = 0; m < methods(); m++) {
      gq_hist *h = NULL, *gsl = NULL, *gsl_abs = NULL;
      gq_hist_create(&h, K, 0.0, 1.0, (gq_hist_kind)kind);
      const int status = gq_hist_accumulate(ctx, h, N, dx, NULL, dv, (gq_hist_method)m);
      long double exact[K] = {0}, abs_sum[K] = {0};
      for (size_t i = 0; i < N; i++) {
        const uint32_t b = gq_hist_bin(h, 0, x[i]);
        exact[b] += v[i];
        abs_sum[b] += fabsl(v[i]);
      }
      double worst = 0, worst_comp = 0;
      for (int k = 0; k < K; k++) {
        const double sum = h->sums[k] + h->sums_err[k];
        const double err = (double)fabsl((long double)sum - exact[k]);
        const double bound = 4.0 * ((double)h->counts[k] + 2) * DBL_EPSILON * (double)abs_sum[k];
        if (err / bound > worst)
          worst = err / bound;
        const double comp_bound = 8 * DBL_EPSILON * fabs((double)exact[k]) + 1e-25 * (double)abs_sum[k];
        if (err / comp_bound > worst_comp)
          worst_comp = err / comp_bound;
      }
      gq_hist_reference(h, N, x, NULL, v, &gsl, &gsl_abs);
      double gsl_worst = 0;
      const int checked = gsl && gq_hist_check(h, gsl, gsl_abs, &gsl_worst) == GQ_SUCCESS;
      tap_ok(status == GQ_SUCCESS && worst <= 1 && (kind == GQ_HIST_SUMS || worst_comp <= 1) && checked,
             "%s sums, method %s: error/bound %.3g (compensated: %.3g), gq_hist_check against GSL %s (%.3g)",
             kind == GQ_HIST_SUMS ? "plain" : "compensated", gq_hist_method_name((gq_hist_method)m), worst, worst_comp,
             checked ? "passes" : gq_last_error(), gsl_worst);
      gq_hist_free(h);
      gq_hist_free(gsl);
      gq_hist_free(gsl_abs);
    }
  gq_free(ctx, dx);
  gq_free(ctx, dv);
  free(x);
  free(v);
}

/* Values that are not finite: a bin with +inf sums to +inf (not the NaN of
 * TwoSum's error term), one with NaN or with both infinities to NaN, others
 * stay exact. */
static void test_sums_nonfinite(void)
{
  enum { N = 4000 };
  double *x = malloc(N * sizeof *x), *v = malloc(N * sizeof *v);
  for (size_t i = 0; i < N; i++) {
    x[i] = (double)(i % 4) / 4 + 0.125; /* bins 0..3 of 4 on [0, 1] */
    v[i] = 1.0;
  }
  v[1] = INFINITY;                    /* bin 1: +inf     */
  v[2] = NAN;                         /* bin 2: NaN      */
  v[3] = INFINITY, v[7] = -INFINITY;  /* bin 3: inf - inf */
  double *dx = place(N, x, 0.0), *dv = place(N, v, 1.0);
  for (int kind = GQ_HIST_SUMS; kind <= GQ_HIST_SUMS_COMPENSATED; kind++)
    for (int m = 0; m < methods(); m++) {
      gq_hist *h = NULL;
      gq_hist_create(&h, 4, 0.0, 1.0, (gq_hist_kind)kind);
      const int status = gq_hist_accumulate(ctx, h, N, dx, NULL, dv, (gq_hist_method)m);
      double s[4];
      for (int k = 0; k < 4; k++)
        s[k] = h->sums[k] + h->sums_err[k];
      tap_ok(status == GQ_SUCCESS && s[0] == N / 4 && s[1] == INFINITY && isnan(s[2]) && isnan(s[3]),
             "%s sums, method %s: 1000, +inf, NaN (a NaN value), NaN (inf - inf): %g %g %g %g",
             kind == GQ_HIST_SUMS ? "plain" : "compensated", gq_hist_method_name((gq_hist_method)m), s[0], s[1], s[2], s[3]);
      gq_hist_free(h);
    }
  gq_free(ctx, dx);
  gq_free(ctx, dv);
  free(x);
  free(v);
}

/* Two chunks merged equal one pass; reset clears every word (poisoned first). */
static void test_merge_reset(void)
{
  enum { N = 30011 };
  double *x = malloc(N * sizeof *x);
  for (size_t i = 0; i < N; i++)
    x[i] = uniform01() * 3 - 1;
  double *dx = place(N, x, 0.0);
  gq_hist *whole = NULL, *a = NULL, *b = NULL;
  gq_hist_create(&whole, 50, 0, 1, GQ_HIST_COUNTS);
  gq_hist_create(&a, 50, 0, 1, GQ_HIST_COUNTS);
  gq_hist_create(&b, 50, 0, 1, GQ_HIST_COUNTS);
  gq_hist_accumulate(ctx, whole, N, dx, NULL, NULL, GQ_HIST_AUTO);
  gq_hist_accumulate(ctx, a, 1001, dx, NULL, NULL, GQ_HIST_AUTO); /* under a tile */
  gq_hist_accumulate(ctx, b, N - 1001, dx + 1001, NULL, NULL, GQ_HIST_AUTO); /* not 16-byte aligned */
  char why[160];
  tap_ok(gq_hist_merge(a, b) == GQ_SUCCESS && same_counts(a, whole, why, sizeof why) && a->total == N,
         "two chunks (one under a tile, one misaligned) merged equal one pass %s", why);
  memset(a->counts, 0xff, a->cells * sizeof *a->counts);
  a->under = a->over = a->nan = a->total = GQ_POISON;
  gq_hist_reset(a);
  int zero = a->under == 0 && a->over == 0 && a->nan == 0 && a->total == 0;
  for (size_t k = 0; k < a->cells; k++)
    zero &= a->counts[k] == 0;
  tap_ok(zero, "gq_hist_reset clears every poisoned word");
  gq_hist *other = NULL;
  gq_hist_create(&other, 51, 0, 1, GQ_HIST_COUNTS);
  tap_ok(gq_hist_merge(a, other) == GQ_EINVAL, "merging different shapes is GQ_EINVAL");
  tap_ok(gq_hist_accumulate(ctx, a, 0, NULL, NULL, NULL, GQ_HIST_AUTO) == GQ_SUCCESS && a->total == 0,
         "n = 0 leaves the accumulator as it was");
  gq_hist_free(other);
  gq_hist_free(whole);
  gq_hist_free(a);
  gq_hist_free(b);
  gq_free(ctx, dx);
  free(x);
}

static void test_hostile(void)
{
  gq_hist *h = (gq_hist *)1;
  tap_ok(gq_hist_create(&h, 0, 0, 1, GQ_HIST_COUNTS) == GQ_EINVAL && h == NULL, "K = 0 is GQ_EINVAL, *h NULL");
  tap_ok(gq_hist_create(&h, 4, 1, 1, GQ_HIST_COUNTS) == GQ_EINVAL, "lo == hi is GQ_EINVAL");
  tap_ok(gq_hist_create(&h, 4, 2, 1, GQ_HIST_COUNTS) == GQ_EINVAL, "lo > hi is GQ_EINVAL");
  tap_ok(gq_hist_create(&h, 4, NAN, 1, GQ_HIST_COUNTS) == GQ_EINVAL, "a NaN limit is GQ_EINVAL");
  tap_ok(gq_hist_create(&h, 4, 0, INFINITY, GQ_HIST_COUNTS) == GQ_EINVAL, "an infinite limit is GQ_EINVAL");
  tap_ok(gq_hist_create(&h, 4, -DBL_MAX, DBL_MAX, GQ_HIST_COUNTS) == GQ_EINVAL, "hi - lo beyond DBL_MAX is GQ_EINVAL");
  tap_ok(gq_hist_create(&h, GQ_HIST_MAX_BINS + 1, 0, 1, GQ_HIST_COUNTS) == GQ_EINVAL, "more than GQ_HIST_MAX_BINS is GQ_EINVAL");
  tap_ok(gq_hist2d_create(&h, 1 << 14, 0, 1, 1 << 13, 0, 1) == GQ_EINVAL, "2-D cells beyond GQ_HIST_MAX_BINS are GQ_EINVAL");
  tap_ok(gq_hist_create(NULL, 4, 0, 1, GQ_HIST_COUNTS) == GQ_EINVAL, "h NULL is GQ_EINVAL");
  gq_hist_create(&h, 4, 0, 1, GQ_HIST_SUMS);
  double one = 0.5;
  tap_ok(gq_hist_accumulate(ctx, h, 1, &one, NULL, NULL, GQ_HIST_AUTO) == GQ_EINVAL, "sums without values are GQ_EINVAL");
  tap_ok(gq_hist_accumulate(ctx, h, 1, &one, NULL, &one, (gq_hist_method)99) == GQ_EINVAL, "an unknown method is GQ_EINVAL");
  tap_ok(gq_hist_accumulate(ctx, h, SIZE_MAX / 4, &one, NULL, &one, GQ_HIST_AUTO) == GQ_EINVAL,
         "n beyond one object is GQ_EINVAL");
  gq_hist_method m;
  tap_ok(gq_hist_method_parse("match", &m) == GQ_SUCCESS && m == GQ_HIST_MATCH && gq_hist_method_parse("x", &m) == GQ_EINVAL &&
             gq_hist_method_name(GQ_HIST_NMETHODS) == NULL,
         "method names parse, others are GQ_EINVAL");
  tap_ok(isnan(gq_hist_edge(h, 0, 5)) && isnan(gq_hist_edge(h, 1, 0)), "an edge past K or an axis past dims is NaN");
  gq_hist *ref = (gq_hist *)1;
  tap_ok(gq_hist_accumulate(NULL, h, 1, &one, NULL, &one, GQ_HIST_AUTO) == GQ_EINVAL &&
             gq_hist_accumulate(ctx, NULL, 1, &one, NULL, &one, GQ_HIST_AUTO) == GQ_EINVAL &&
             gq_hist_accumulate(ctx, h, 1, NULL, NULL, &one, GQ_HIST_AUTO) == GQ_EINVAL &&
             gq_hist_merge(NULL, h) == GQ_EINVAL && gq_hist_merge(h, NULL) == GQ_EINVAL && gq_hist_reset(NULL) == GQ_EINVAL &&
             gq_hist_bin(NULL, 0, 0.5) == UINT32_MAX && isnan(gq_hist_edge(NULL, 0, 0)) &&
             gq_hist_method_for(NULL, h) == GQ_HIST_AUTO && gq_hist_method_parse(NULL, &m) == GQ_EINVAL &&
             gq_hist_reference(NULL, 1, &one, NULL, &one, &ref, NULL) == GQ_EINVAL &&
             gq_hist_reference(h, 1, NULL, NULL, &one, &ref, NULL) == GQ_EINVAL && ref == NULL &&
             gq_hist_check(NULL, h, NULL, NULL) == GQ_EINVAL && gq_hist_check(h, NULL, NULL, NULL) == GQ_EINVAL,
         "NULL arguments are GQ_EINVAL (or the neutral value), never a crash");
  gq_hist *two = NULL;
  gq_hist2d_create(&two, 2, 0, 1, 2, 0, 1);
  tap_ok(gq_hist_accumulate(ctx, two, 1, &one, NULL, NULL, GQ_HIST_AUTO) == GQ_EINVAL, "2-D without y is GQ_EINVAL");
  tap_ok(gq_hist_create(&ref, 4, 0, 1e-320, GQ_HIST_COUNTS) == GQ_EINVAL, "a range too narrow for K bins is GQ_EINVAL");
  gq_hist_free(two);
  gq_hist_free(h);
  gq_hist_free(NULL);
}

int main(int argc, char **argv)
{
  ctx = tap_context(argc, argv, &gpu);
  if (!ctx)
    return tap_done();
  test_edges_numpy();
  test_counts();
  test_2d();
  test_sums();
  test_sums_nonfinite();
  test_merge_reset();
  test_hostile();
  gq_context_free(ctx);
  return tap_done();
}
