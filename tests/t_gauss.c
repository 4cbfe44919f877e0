/* t_gauss.c — the Gauss-Legendre tables (src/lib/gauss.c) against GSL's
 * gsl_integration_glfixed tables for every K, their symmetry and exactness,
 * the lower-order rule of the error estimate (exact to its stated degree,
 * not one higher), first use from several threads, and gq_rule_spec_parse /
 * gq_rule_spec_degree.
 *
 * Exactness is shown on monomials x^j, and "not one degree higher" on the
 * Legendre polynomial of that degree: a rule's error on the monomial x^d is
 * that on P_d divided by P_d's leading coefficient, about 2^d, so for large
 * K it sinks below the rounding of the sum (x^128 with K = 64: some 1e-39),
 * while on P_d it is of order 1/sqrt(K). */
#include "config.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>

#include "../src/gpuquad.h"
#include "../src/lib/gauss.h"
#include "../src/lib/poison.h"
#include "tap.h"

enum { KMIN = GQ_GL_MIN_NODES, KMAX = GQ_GL_MAX_NODES };

/* Distance in units in the last place (doubles ordered as integers). */
static double ulps(double a, double b)
{
  int64_t ia, ib;
  memcpy(&ia, &a, sizeof a);
  memcpy(&ib, &b, sizeof b);
  if (ia < 0)
    ia = INT64_MIN - ia;
  if (ib < 0)
    ib = INT64_MIN - ib;
  return fabs((double)ia - (double)ib);
}

static void poison(double *v, int n)
{
  const uint64_t word = GQ_POISON;
  for (int k = 0; k < n; k++)
    memcpy(&v[k], &word, sizeof word);
}

static int poisoned(const double *v, int n)
{
  for (int k = 0; k < n; k++) {
    uint64_t word;
    memcpy(&word, &v[k], sizeof word);
    if (word == GQ_POISON)
      return 1;
  }
  return 0;
}

static int cmp_double(const void *p, const void *q)
{
  const double a = *(const double *)p, b = *(const double *)q;
  return (a > b) - (a < b);
}

/* Legendre P_d(x) by the recurrence. */
static long double legendre(int d, long double x)
{
  long double p0 = 1.0L, p1 = x;
  if (d == 0)
    return p0;
  for (int j = 1; j < d; j++) {
    const long double p2 = ((2 * j + 1) * x * p1 - j * p0) / (j + 1);
    p0 = p1;
    p1 = p2;
  }
  return p1;
}

/* sum_k w[k] g(x[k]) (g: x^d, or P_d) and the sum of the terms' sizes, in
 * long double. */
static long double rule_on(const double *x, const double *w, int K, int d, int use_legendre,
                           long double *size)
{
  long double sum = 0.0L;
  *size = 0.0L;
  for (int k = 0; k < K; k++) {
    const long double g = use_legendre ? legendre(d, x[k]) : powl(x[k], d);
    sum += w[k] * g;
    *size += fabsl(w[k] * g);
  }
  return sum;
}

/* The integral of x^d, or of P_d, over [-1, 1]. */
static long double exact_on(int d, int use_legendre)
{
  if (use_legendre)
    return d == 0 ? 2.0L : 0.0L;
  return d % 2 ? 0.0L : 2.0L / (d + 1);
}

/* The largest degree d <= dmax on which the rule is exact: every degree up
 * to d within the rounding of the terms (the weights' own rounding, 1 ulp
 * each, and the long double sum: 8 ulp of the terms' sizes) on both bases;
 * *next_error: the error on P_{dmax + 1}, relative to the terms' size. */
static int exact_degree(const double *x, const double *w, int K, int dmax, double *next_error)
{
  int d = -1;
  for (int deg = 0; deg <= dmax; deg++) {
    int ok = 1;
    for (int use_legendre = 0; use_legendre < 2; use_legendre++) {
      long double size;
      const long double got = rule_on(x, w, K, deg, use_legendre, &size);
      /* P_d vanishes at nodes (d = K), where its terms are rounding noise:
       * its absolute accuracy (|P_d| <= 1, some d ulp) counts as well */
      ok &= fabsl(got - exact_on(deg, use_legendre)) <= 8.0L * (K + deg) * DBL_EPSILON * (size + 2.0L);
    }
    if (!ok)
      break;
    d = deg;
  }
  long double size;
  const long double next = rule_on(x, w, K, dmax + 1, 1, &size);
  *next_error = (double)(fabsl(next - exact_on(dmax + 1, 1)) / fmaxl(size, 1.0L));
  return d;
}

/* GSL keeps precomputed tables (2..20, 32, 64, ...: t->precomputed) and
 * computes the others in double, with weights up to some 1e6 ulp off (K = 52;
 * an mpmath computation at 40 digits puts ours within 1 ulp there): those
 * are compared within GSL's own accuracy, 1e-9, and ours are vouched for by
 * their exactness (shape_and_exactness).  GSL's middle node of an odd K is
 * its affine map's rounding of 0 (1.2e-32 for K = 21). */
static double distance(double ours, double gsl, int precomputed)
{
  if (fabs(gsl) < 1e-30)
    return ours == 0.0 ? 0.0 : INFINITY;
  return precomputed ? ulps(ours, gsl) : fabs(ours - gsl) / fabs(gsl);
}

static void against_gsl(void)
{
  double worst_x = 0.0, worst_w = 0.0, worst_relative = 0.0;
  int worst_xk = KMIN, worst_wk = KMIN;
  for (int K = KMIN; K <= KMAX; K++) {
    double x[KMAX], w[KMAX];
    struct { double x, w; } pairs[KMAX];
    gq_gauss_legendre(K, x, w, NULL);
    gsl_integration_glfixed_table *t = gsl_integration_glfixed_table_alloc((size_t)K);
    for (int i = 0; i < K; i++)
      gsl_integration_glfixed_point(-1.0, 1.0, (size_t)i, &pairs[i].x, &pairs[i].w, t);
    const int precomputed = t->precomputed;
    gsl_integration_glfixed_table_free(t);
    qsort(pairs, (size_t)K, sizeof pairs[0], cmp_double); /* by x, the first member */
    double dx = 0.0, dw = 0.0;
    for (int i = 0; i < K; i++) {
      dx = fmax(dx, distance(x[i], pairs[i].x, precomputed));
      dw = fmax(dw, distance(w[i], pairs[i].w, precomputed));
    }
    if (precomputed) {
      if (dx > worst_x)
        worst_x = dx, worst_xk = K;
      if (dw > worst_w)
        worst_w = dw, worst_wk = K;
      tap_ok(dx <= 2.0 && dw <= 2.0, "K = %d: nodes within %g ulp, weights within %g ulp of GSL's table", K,
             dx, dw);
    } else {
      worst_relative = fmax(worst_relative, fmax(dx, dw));
      tap_ok(dx <= 1e-9 && dw <= 1e-9, "K = %d: nodes and weights within %.2g of GSL's computed rule", K,
             fmax(dx, dw));
    }
  }
  diag("largest distance from GSL's tables: nodes %g ulp (K = %d), weights %g ulp (K = %d); from its "
       "computed rules %.2g relative",
       worst_x, worst_xk, worst_w, worst_wk, worst_relative);
}

static void shape_and_exactness(void)
{
  double worst_next = INFINITY, worst_lower_next = INFINITY;
  for (int K = KMIN; K <= KMAX; K++) {
    double x[KMAX + 1], w[KMAX + 1], wl[KMAX + 1];
    poison(x, KMAX + 1);
    poison(w, KMAX + 1);
    poison(wl, KMAX + 1);
    const int status = gq_gauss_legendre(K, x, w, wl);
    uint64_t past;
    memcpy(&past, &x[K], sizeof past);
    tap_ok(status == GQ_SUCCESS && !poisoned(x, K) && !poisoned(w, K) && !poisoned(wl, K) &&
               past == GQ_POISON,
           "K = %d: every node and weight written, nothing past K", K);
    int shape = 1;
    long double sum = 0.0L;
    for (int i = 0; i < K; i++) {
      shape &= x[i] > -1.0 && x[i] < 1.0 && w[i] > 0.0 && (i == 0 || x[i] > x[i - 1]);
      shape &= x[K - 1 - i] == -x[i] && w[K - 1 - i] == w[i];
      sum += w[i];
    }
    tap_ok(shape && fabsl(sum - 2.0L) <= 2.0L * K * DBL_EPSILON,
           "K = %d: nodes ascending in (-1, 1), symmetric to the bit, weights positive, sum 2 - %.3Lg", K,
           2.0L - sum);

    double next;
    const int degree = exact_degree(x, w, K, 2 * K - 1, &next);
    worst_next = fmin(worst_next, next);
    tap_ok(degree == 2 * K - 1 && degree == gq_rule_spec_degree((gq_rule_spec){GQ_RULE_GAUSS_LEGENDRE, K}) &&
               next > 1e-6,
           "K = %d: exact on x^j and P_j for j <= %d (2K - 1), relative error on P_%d %.3g", K, degree, 2 * K,
           next);

    const int m = gq_gauss_legendre_dropped(K), lower = gq_gauss_legendre_lower_degree(K);
    double lower_next;
    const int lower_degree = exact_degree(x, wl, K, lower, &lower_next);
    worst_lower_next = fmin(worst_lower_next, lower_next);
    int positive = 1;
    for (int i = 0; i < K; i++)
      positive &= i == m || wl[i] > 0.0;
    tap_ok(wl[m] == 0.0 && positive && (K % 2 == 0 || x[m] == 0.0) && lower == K - 2 && lower_degree == lower &&
               lower_next > 1e-6,
           "K = %d: the lower rule drops x[%d] = %g, its other weights positive, is exact to degree %d and not "
           "on P_%d (relative error %.3g)",
           K, m, x[m], lower_degree, lower + 1, lower_next);
  }
  diag("smallest relative error one degree above exactness: Gauss %.3g, lower rule %.3g", worst_next,
       worst_lower_next);
}

static void bad_arguments(void)
{
  double x[KMAX + 2], w[KMAX + 2];
  static const int bad[] = {-1, 0, 1, KMAX + 1, 1000};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    tap_ok(gq_gauss_legendre(bad[k], x, w, NULL) == GQ_EINVAL && gq_gauss_legendre_lower_degree(bad[k]) == -1,
           "K = %d: GQ_EINVAL (%s)", bad[k], gq_last_error());
  tap_ok(gq_gauss_legendre(4, NULL, w, NULL) == GQ_EINVAL && gq_gauss_legendre(4, x, NULL, NULL) == GQ_EINVAL,
         "NULL nodes or weights: GQ_EINVAL");
}

/* The first use, from several threads at once, gives every thread the
 * same table (run first: the table is computed once per process). */
enum { THREADS = 8 };
static double from_thread[THREADS][KMAX];

static void *first_use(void *arg)
{
  double x[KMAX], w[KMAX];
  gq_gauss_legendre(KMAX, x, w, from_thread[(intptr_t)arg]);
  return NULL;
}

static void threads_first(void)
{
  pthread_t id[THREADS];
  int started = 0;
  for (intptr_t k = 0; k < THREADS; k++)
    started += pthread_create(&id[k], NULL, first_use, (void *)k) == 0;
  for (int k = 0; k < started; k++)
    pthread_join(id[k], NULL);
  int same = started == THREADS;
  for (int k = 1; k < started; k++)
    same &= memcmp(from_thread[0], from_thread[k], sizeof from_thread[0]) == 0;
  tap_ok(same, "first use from %d threads: one table", started);
}

static void spec_parse(void)
{
  const int gl_named = gq_rule_name(GQ_RULE_GAUSS_LEGENDRE) != NULL;
  static const struct {
    const char *text;
    gq_rule rule;
    int nodes; /* -1: the default */
    int gl;    /* needs rules.c's gauss-legendre name */
  } good[] = {
      {"trapezoid", GQ_RULE_TRAPEZOID, 0, 0}, {"simpson", GQ_RULE_SIMPSON, 0, 0},
      {"boole", GQ_RULE_BOOLE, 0, 0},         {"gauss-legendre", GQ_RULE_GAUSS_LEGENDRE, -1, 1},
      {"gauss-legendre:2", GQ_RULE_GAUSS_LEGENDRE, 2, 1},
      {"gauss-legendre:17", GQ_RULE_GAUSS_LEGENDRE, 17, 1},
      {"gauss-legendre:64", GQ_RULE_GAUSS_LEGENDRE, 64, 1},
      {"gauss-legendre:008", GQ_RULE_GAUSS_LEGENDRE, 8, 1},
  };
  for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
    if (good[k].gl && !gl_named) {
      tap_ok(1, "%s # SKIP gq_rule_name has no gauss-legendre yet (rules.c)", good[k].text);
      continue;
    }
    gq_rule_spec spec = {(gq_rule)-1, -7};
    const int status = gq_rule_spec_parse(good[k].text, &spec);
    const int nodes = good[k].nodes < 0 ? gq_rule_default_nodes() : good[k].nodes;
    tap_ok(status == GQ_SUCCESS && spec.rule == good[k].rule && spec.nodes == nodes, "'%s' is rule %d with %d nodes",
           good[k].text, (int)spec.rule, spec.nodes);
  }
  static const char *const bad[] = {"",
                                    "gauss",
                                    "Simpson",
                                    "simpson ",
                                    "gauss-legendre:",
                                    "gauss-legendre:1",
                                    "gauss-legendre:0",
                                    "gauss-legendre:65",
                                    "gauss-legendre:-4",
                                    "gauss-legendre:+4",
                                    "gauss-legendre:4x",
                                    "gauss-legendre:4 ",
                                    "gauss-legendre:4:4",
                                    "gauss-legendre:99999999999999999999",
                                    "simpson:4",
                                    "trapezoid:",
                                    "boole:8",
                                    ":8"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    gq_rule_spec spec = {GQ_RULE_SIMPSON, 5};
    const int status = gq_rule_spec_parse(bad[k], &spec);
    const char *message = gq_last_error();
    const int names_forms = strstr(message, "gauss-legendre:K") || strstr(message, "from 2 to 64");
    tap_ok(status == GQ_EINVAL && names_forms && spec.rule == GQ_RULE_SIMPSON && spec.nodes == 5,
           "'%s': GQ_EINVAL, spec untouched (%s)", bad[k], message);
  }
  gq_rule_spec spec;
  tap_ok(gq_rule_spec_parse(NULL, &spec) == GQ_EINVAL && gq_rule_spec_parse("simpson", NULL) == GQ_EINVAL,
         "NULL text or spec: GQ_EINVAL");

  const int K = gq_rule_default_nodes();
  tap_ok(K >= GQ_GL_MIN_NODES && K <= GQ_GL_MAX_NODES, "the default nodes per panel, %d, is a valid K", K);
  tap_ok(gq_rule_spec_degree((gq_rule_spec){GQ_RULE_TRAPEZOID, 9}) == 1 &&
             gq_rule_spec_degree((gq_rule_spec){GQ_RULE_SIMPSON, 0}) == 3 &&
             gq_rule_spec_degree((gq_rule_spec){GQ_RULE_BOOLE, 0}) == 5 &&
             gq_rule_spec_degree((gq_rule_spec){GQ_RULE_GAUSS_LEGENDRE, 0}) == 2 * K - 1 &&
             gq_rule_spec_degree((gq_rule_spec){GQ_RULE_GAUSS_LEGENDRE, 1}) == -1 &&
             gq_rule_spec_degree((gq_rule_spec){GQ_RULE_GAUSS_LEGENDRE, 65}) == -1 &&
             gq_rule_spec_degree((gq_rule_spec){(gq_rule)17, 0}) == -1,
         "degrees: 1, 3, 5, 2K - 1 (K = 0: the default), -1 for no rule or K outside 2..64");
}

int main(void)
{
  gsl_set_error_handler_off();
  threads_first();
  against_gsl();
  shape_and_exactness();
  bad_arguments();
  spec_parse();
  return tap_done();
}
