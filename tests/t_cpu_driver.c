/* t_cpu_driver.c — the CPU driver's guarantees (src/lib/cpu/driver.c): every
 * source x accumulator gives the same bits for 1 and 3 threads (the parts
 * are a function of the problem, merged in order), on sizes that span many
 * parts and end inside a chunk; the classifying pass as well; n = 0 is the
 * identity of every accumulator. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../src/lib/internal.h"
#include "tap.h"

#ifdef _OPENMP
static void threads(int n) { omp_set_num_threads(n); }
#else
static void threads(int n) { (void)n; }
#endif

static int same_bits(const void *a, const void *b, size_t size) { return memcmp(a, b, size) == 0; }

/* Fields compared one by one: the unions carry padding. */
static int same_sum(const gq_sum_acc *a, const gq_sum_acc *b)
{
  return same_bits(&a->sum, &b->sum, sizeof a->sum) && same_bits(&a->sum_err, &b->sum_err, sizeof a->sum_err) &&
         same_bits(&a->abs_sum, &b->abs_sum, sizeof a->abs_sum) && a->n == b->n && a->scale == b->scale &&
         a->nan_count == b->nan_count && a->posinf_count == b->posinf_count;
}

static int same_rms(const gq_rms_acc *a, const gq_rms_acc *b)
{
  return same_bits(&a->sq_diff, &b->sq_diff, sizeof a->sq_diff) &&
         same_bits(&a->sq_diff_err, &b->sq_diff_err, sizeof a->sq_diff_err) &&
         same_bits(&a->sq_ref, &b->sq_ref, sizeof a->sq_ref) && same_bits(&a->max_abs, &b->max_abs, sizeof a->max_abs) &&
         a->n == b->n && a->nan_count == b->nan_count && a->inf_count == b->inf_count;
}

static int same_stats(const gq_stats_acc *a, const gq_stats_acc *b)
{
  return same_bits(&a->s1, &b->s1, sizeof a->s1) && same_bits(&a->s2, &b->s2, sizeof a->s2) &&
         same_bits(&a->s2_err, &b->s2_err, sizeof a->s2_err) && same_bits(&a->shift, &b->shift, sizeof a->shift) &&
         a->min == b->min && a->argmin == b->argmin && a->max == b->max && a->argmax == b->argmax && a->n == b->n &&
         a->nan_count == b->nan_count && a->first_nan == b->first_nan;
}

static int same_acc(gq_reduce_kind kind, const gq_reduce_acc *a, const gq_reduce_acc *b)
{
  return kind == GQ_REDUCE_STATS ? same_stats(&a->stats, &b->stats)
         : kind == GQ_REDUCE_RMS ? same_rms(&a->rms, &b->rms)
                                 : same_sum(&a->sum, &b->sum);
}

static const char *const kind_names[] = {"sum", "dot", "rms", "stats"};

/* 3,000,017 elements: 1465 chunks in 45 parts, the last chunk partial. */
static void arrays(void)
{
  const size_t n = 3000017;
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  float *xf = malloc(n * sizeof *xf), *yf = malloc(n * sizeof *yf);
  gq_cpu_generate(GQ_GEN_NORMAL, n, 0, n, 21, x, NULL);
  gq_cpu_generate(GQ_GEN_UNIFORM, n, 0, n, 22, y, NULL);
  for (size_t i = 0; i < n; i++) {
    x[i] = 1e3 + x[i]; /* sums that round at every step */
    xf[i] = (float)x[i];
    yf[i] = (float)y[i];
  }
  for (int classify = 0; classify <= 1; classify++)
    for (int is_float = 0; is_float <= 1; is_float++)
      for (int kind = GQ_REDUCE_SUM; kind <= GQ_REDUCE_STATS; kind++) {
        const gq_array_reduce p = {(gq_reduce_kind)kind, is_float, classify, n, is_float ? (void *)xf : x,
                                   kind == GQ_REDUCE_DOT || kind == GQ_REDUCE_RMS ? (is_float ? (void *)yf : y) : NULL};
        gq_reduce_acc one, three;
        memset(&one, 0, sizeof one);
        memset(&three, 0x55, sizeof three);
        threads(1);
        const int s1 = gq_cpu_array_reduce(&p, &one, NULL);
        threads(3);
        const int s3 = gq_cpu_array_reduce(&p, &three, NULL);
        const uint64_t count = kind == GQ_REDUCE_STATS ? one.stats.n : kind == GQ_REDUCE_RMS ? one.rms.n : one.sum.n;
        tap_ok(s1 == GQ_SUCCESS && s3 == GQ_SUCCESS && count == n && same_acc((gq_reduce_kind)kind, &one, &three),
               "%s, %s%s: the same bits on 1 and 3 threads", kind_names[kind], is_float ? "float" : "double",
               classify ? ", classifying" : "");
      }
  free(x);
  free(y);
  free(xf);
  free(yf);
}

static void grid(void)
{
  const char *const texts[] = {"circle", "exp(-x^2)*cos(3*x)"};
  for (size_t k = 0; k < 2; k++) {
    const gq_integrand *builtin = gq_integrand_builtin(texts[k]);
    gq_integrand *parsed = NULL;
    if (!builtin && gq_integrand_parse(texts[k], NULL, 0, 1, &parsed, NULL) != GQ_SUCCESS)
      printf("# cannot parse %s: %s\n", texts[k], gq_last_error());
    const gq_integrand *f = builtin ? builtin : parsed;
    for (int precision = GQ_PRECISION_DOUBLE; f && precision <= GQ_PRECISION_FLOAT; precision++) {
      /* an odd first index: the parities of the lanes swap */
      const gq_grid_sum p = {f, precision, 0.0, 1.0 / 2000003, 1, 2000002};
      gq_csum one[GQ_GRID_KEYS], three[GQ_GRID_KEYS];
      threads(1);
      const int s1 = gq_cpu_grid_sum(NULL, &p, one, NULL);
      threads(3);
      const int s3 = gq_cpu_grid_sum(NULL, &p, three, NULL);
      tap_ok(s1 == GQ_SUCCESS && s3 == GQ_SUCCESS && same_bits(one, three, sizeof one) && one[0].s != one[1].s,
             "grid %s (%s): the keyed sums have the same bits on 1 and 3 threads (%.17g, %.17g)", texts[k],
             precision == GQ_PRECISION_FLOAT ? "float" : "double", one[0].s, one[1].s);
    }
    gq_integrand_free(parsed);
  }
  /* 1/(x - 0.5) is infinite at x = 0.5 only: index 2^19 of the grid */
  gq_integrand *f = NULL;
  gq_integrand_parse("1/(x-0.5)", NULL, 0, 1, &f, NULL);
  const gq_grid_sum p = {f, GQ_PRECISION_DOUBLE, 0.0, 1.0 / 1048576, 0, 1048576};
  uint64_t count = 0, first = 0;
  threads(3);
  const int status = f ? gq_cpu_grid_nonfinite(NULL, &p, &count, &first) : GQ_EPARSE;
  tap_ok(status == GQ_SUCCESS && count == 1 && first == 524288,
         "grid: one non-finite value, at index 524288 (%llu at %llu)", (unsigned long long)count,
         (unsigned long long)first);
  gq_integrand_free(f);
}

/* n = 0: the identity of every accumulator, fast and classifying. */
static void empty(void)
{
  for (int classify = 0; classify <= 1; classify++)
    for (int kind = GQ_REDUCE_SUM; kind <= GQ_REDUCE_STATS; kind++) {
      const gq_array_reduce p = {(gq_reduce_kind)kind, 0, classify, 0, NULL, NULL};
      gq_reduce_acc got, zero;
      memset(&got, 0x55, sizeof got);
      memset(&zero, 0, sizeof zero);
      if (kind == GQ_REDUCE_STATS)
        gq_stats_acc_zero(&zero.stats);
      else if (kind == GQ_REDUCE_RMS)
        gq_rms_acc_zero(&zero.rms);
      else
        gq_sum_acc_zero(&zero.sum);
      tap_ok(gq_cpu_array_reduce(&p, &got, NULL) == GQ_SUCCESS && same_acc((gq_reduce_kind)kind, &got, &zero),
             "n = 0: %s%s is the identity", kind_names[kind], classify ? " (classifying)" : "");
    }
  gq_integrand *f = NULL;
  gq_integrand_parse("x1 + 1", NULL, 0, 1, &f, NULL);
  gq_mc_batch b;
  memset(&b, 0, sizeof b);
  b.f = f;
  b.dims = 1;
  b.w[0] = 1.0;
  b.count = 0;
  gq_mc_moments m = {{1, 1}, {1, 1}};
  gq_grid_info info;
  tap_ok(f && gq_cpu_mc_batch(&b, &m, &info) == GQ_SUCCESS && m.s1.s == 0.0 && m.s1.c == 0.0 && m.s2.s == 0.0 &&
             m.s2.c == 0.0,
         "n = 0: the Monte Carlo moments are zero");
  gq_integrand_free(f);
}

int main(void)
{
  arrays();
  grid();
  empty();
  return tap_done();
}
