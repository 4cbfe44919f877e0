/* t_reduce_cpu.c — the CPU backend's data reductions against exact
 * references (reduce_ref.h): sizes around the lanes, blocks and threads,
 * float input, the ill-conditioned 1e7 +- 0.1 case, n = 0, the NaN/Inf
 * policies, chunked accumulation against one pass, correctly rounded
 * statistics of integers, overflow, and NULL arguments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "reduce_ref.h"

static gq_context *cpu;

static void sizes(void)
{
  const size_t ns[] = {1, 2, 7, 8, 9, 31, 1001, 2049, 65535, 65537, 1000003};
  for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
    const size_t n = ns[k];
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    float *xf = malloc(n * sizeof *xf), *yf = malloc(n * sizeof *yf);
    double *hxf = malloc(n * sizeof *hxf), *hyf = malloc(n * sizeof *hyf);
    gq_generate(cpu, GQ_GEN_NORMAL, n, 11, x);
    gq_generate(cpu, GQ_GEN_UNIFORM, n, 12, y);
    for (size_t i = 0; i < n; i++) {
      x[i] = 3.0 + x[i]; /* a mean away from 0, and both signs */
      xf[i] = (float)x[i];
      yf[i] = (float)y[i];
      hxf[i] = xf[i];
      hyf[i] = yf[i];
    }
    check_reductions(cpu, "cpu double", 0, n, x, y, x, y);
    check_reductions(cpu, "cpu float", 1, n, xf, yf, hxf, hyf);
    if (n > 1) /* a start that is not 16-byte aligned */
      check_reductions(cpu, "cpu double +1", 0, n - 1, x + 1, y + 1, x + 1, y + 1);
    free(x); free(y); free(xf); free(yf); free(hxf); free(hyf);
  }
}

/* Values around 1e7 with a spread of 0.1: the mean must keep its ulps and the
 * sd its digits.  The naive one-pass formula fails the same tolerance. */
static void ill_conditioned(void)
{
  const size_t n = 1000000;
  double *x = malloc(n * sizeof *x);
  gq_generate(cpu, GQ_GEN_UNIFORM, n, 5, x);
  for (size_t i = 0; i < n; i++)
    x[i] = 1e7 + 0.1 * (x[i] - 0.5);
  exact_ref e;
  exact_reference(n, x, NULL, &e);
  gq_stats_result s;
  POISON(s);
  const int st = gq_stats(cpu, n, x, &s);
  const double tol_var = ((double)n + 8) * U * e.var, sd = sqrt(e.var);
  tap_ok(st == GQ_SUCCESS && fabs(s.mean - e.mean) <= 2 * ulp_of(e.mean),
         "1e7 +- 0.1: mean %.17g, exact %.17g (%.2g ulp)", s.mean, e.mean, fabs(s.mean - e.mean) / ulp_of(e.mean));
  tap_ok(fabs(s.var_sample - e.var) <= tol_var, "1e7 +- 0.1: variance %.17g, exact %.17g (rel. error %.2g, tol %.2g)",
         s.var_sample, e.var, fabs(s.var_sample - e.var) / e.var, tol_var / e.var);
  /* Rounding errors that behave randomly grow as sqrt(n) u (Higham, 2.8):
   * 8 sqrt(n) u = 9e-13 relative, against the data's own limit of
   * ulp(1e7)/2 / sd = 3e-8. */
  tap_ok(fabs(s.sd_sample - sd) <= 8 * sqrt((double)n) * U * sd, "1e7 +- 0.1: sd %.17g, exact %.17g (rel. error %.2g)",
         s.sd_sample, sd, fabs(s.sd_sample - sd) / sd);
  double s1 = 0, s2 = 0;
  for (size_t i = 0; i < n; i++) {
    s1 += x[i];
    s2 += x[i] * x[i];
  }
  const double naive = (s2 - s1 * s1 / (double)n) / (double)(n - 1);
  tap_ok(!(fabs(naive - e.var) <= tol_var), "the naive sum of squares fails that tolerance (%.6g vs %.6g)", naive, e.var);
  free(x);
}

static void empty(void)
{
  double v = NAN;
  tap_ok(gq_sum(cpu, 0, NULL, &v) == GQ_SUCCESS && v == 0.0, "n = 0: sum is 0");
  v = NAN;
  tap_ok(gq_dot(cpu, 0, NULL, NULL, &v) == GQ_SUCCESS && v == 0.0, "n = 0: dot is 0");
  gq_rms_result r;
  POISON(r);
  tap_ok(gq_rms_diff(cpu, 0, NULL, NULL, &r) == GQ_SUCCESS && r.n == 0 && isnan(r.rms) && r.max_abs == 0.0 &&
             isnan(r.relative),
         "n = 0: rms NaN, max 0, relative NaN");
  gq_stats_result s;
  POISON(s);
  tap_ok(gq_stats(cpu, 0, NULL, &s) == GQ_SUCCESS && s.n == 0 && s.total == 0 && s.sum == 0.0 && isnan(s.mean) &&
             isnan(s.var_sample) && isnan(s.min) && s.argmin == GQ_NO_INDEX && s.l1 == 0.0 && s.l2 == 0.0 &&
             s.linf == 0.0,
         "n = 0: stats sum 0, mean NaN, min NaN with no index, norms 0");
  tap_ok(gq_stats(cpu, 1, (const double[]){2.5}, &s) == GQ_SUCCESS && s.mean == 2.5 && isnan(s.var_sample) &&
             s.var_population == 0.0 && s.argmin == 0 && s.argmax == 0,
         "n = 1: mean is the value, sample variance NaN, population 0");
}

static void nan_policies(void)
{
  double x[20];
  for (int i = 0; i < 20; i++)
    x[i] = i + 1.0;
  x[3] = NAN;
  x[5] = INFINITY;
  x[9] = -INFINITY;
  x[12] = NAN;
  gq_stats_acc acc;
  gq_stats_acc_init(&acc);
  tap_ok(gq_stats_accumulate(cpu, &acc, 20, x) == GQ_SUCCESS && acc.nan_count == 2 && acc.posinf_count == 1 &&
             acc.neginf_count == 1 && acc.n == 16 && acc.first_nan == 3,
         "counts: 2 NaN (first at 3), 1 +Inf, 1 -Inf, 16 finite");
  gq_stats_result s;
  tap_ok(gq_stats_finish(&acc, GQ_NAN_PROPAGATE, &s) == GQ_SUCCESS && isnan(s.sum) && isnan(s.mean) &&
             isnan(s.var_sample) && isnan(s.min) && s.argmin == 3 && isnan(s.l1) && s.n == 20,
         "propagate: NaN everywhere, min NaN at the first NaN (index 3)");
  double finite_sum = 0;
  for (int i = 0; i < 20; i++)
    if (isfinite(x[i]))
      finite_sum += x[i];
  tap_ok(gq_stats_finish(&acc, GQ_NAN_OMIT, &s) == GQ_SUCCESS && s.n == 16 && s.sum == finite_sum &&
             s.min == 1.0 && s.argmin == 0 && s.max == 20.0 && s.argmax == 19 && s.nan_count == 2 && s.inf_count == 2,
         "omit: statistics of the 16 finite values (sum %g)", s.sum);
  tap_ok(gq_stats_finish(&acc, GQ_NAN_ERROR, &s) == GQ_EDOM, "error: GQ_EDOM (%s)", gq_last_error());
  x[3] = x[12] = 1.0;
  gq_stats_acc_init(&acc);
  gq_stats_accumulate(cpu, &acc, 20, x);
  tap_ok(gq_stats_finish(&acc, GQ_NAN_PROPAGATE, &s) == GQ_SUCCESS && isnan(s.sum) && s.min == -INFINITY &&
             s.argmin == 9 && s.max == INFINITY && s.argmax == 5 && s.l1 == INFINITY,
         "propagate, infinities of both signs: sum NaN, min -Inf at 9, max +Inf at 5");
  x[9] = 1.0;
  double v;
  tap_ok(gq_sum(cpu, 20, x, &v) == GQ_SUCCESS && v == INFINITY, "one +Inf: the sum is +Inf");
  const double a[4] = {1, 2, NAN, 4}, b[4] = {1, 1, 1, INFINITY};
  gq_sum_acc d;
  gq_sum_acc_init(&d);
  gq_dot_accumulate(cpu, &d, 4, a, b);
  tap_ok(gq_sum_finish(&d, GQ_NAN_OMIT, &v) == GQ_SUCCESS && v == 3.0 && d.nan_count == 1 && d.posinf_count == 1,
         "dot, omit: 1*1 + 2*1 = 3, one NaN and one +Inf term left out");
  gq_rms_acc ra;
  gq_rms_result r;
  gq_rms_acc_init(&ra);
  gq_rms_accumulate(cpu, &ra, 4, a, b);
  tap_ok(gq_rms_finish(&ra, GQ_NAN_OMIT, &r) == GQ_SUCCESS && r.n == 2 && r.max_abs == 1.0 && r.nan_count == 1 &&
             r.inf_count == 1 && gq_rms_finish(&ra, GQ_NAN_PROPAGATE, &r) == GQ_SUCCESS && isnan(r.rms),
         "rms: omit keeps 2 pairs (max 1), propagate gives NaN");
}

/* Chunks merged by the accumulator API give what one pass gives. */
static void chunks(void)
{
  const size_t n = 100003;
  double *x = malloc(n * sizeof *x);
  gq_generate(cpu, GQ_GEN_NORMAL, n, 9, x);
  gq_stats_result one, merged;
  gq_stats(cpu, n, x, &one);
  gq_stats_acc acc, part;
  gq_stats_acc_init(&acc);
  const size_t cuts[] = {0, 7, 1007, 50000, 50001, n};
  for (size_t k = 0; k + 1 < sizeof cuts / sizeof cuts[0]; k++) {
    if (k % 2) { /* alternately accumulate, and merge a separate accumulator */
      gq_stats_accumulate(cpu, &acc, cuts[k + 1] - cuts[k], x + cuts[k]);
    } else {
      gq_stats_acc_init(&part);
      gq_stats_accumulate(cpu, &part, cuts[k + 1] - cuts[k], x + cuts[k]);
      gq_stats_acc_merge(&acc, &part);
    }
  }
  gq_stats_finish(&acc, GQ_NAN_PROPAGATE, &merged);
  tap_ok(merged.total == n && merged.argmin == one.argmin && merged.argmax == one.argmax &&
             fabs(merged.mean - one.mean) <= 4 * U * one.l1 / (double)n &&
             fabs(merged.var_sample - one.var_sample) <= 64 * U * one.var_sample,
         "chunks 7/1000/48993/1/50002 merge to the one-pass result (min@%llu, var %.17g vs %.17g)",
         (unsigned long long)merged.argmin, merged.var_sample, one.var_sample);
  free(x);
}

/* The accumulator API with NULL arguments or a policy that does not exist:
 * GQ_EINVAL and a message, never a crash. */
static void null_arguments(void)
{
  gq_sum_acc s;
  gq_rms_acc r;
  gq_stats_acc t;
  gq_sum_acc_init(&s);
  gq_rms_acc_init(&r);
  gq_stats_acc_init(&t);
  double v;
  gq_rms_result rr;
  gq_stats_result sr;
  const double x[2] = {1, 2};
  tap_ok(gq_sum_acc_merge(NULL, &s) == GQ_EINVAL && gq_sum_acc_merge(&s, NULL) == GQ_EINVAL &&
             gq_rms_acc_merge(NULL, &r) == GQ_EINVAL && gq_rms_acc_merge(&r, NULL) == GQ_EINVAL &&
             gq_stats_acc_merge(NULL, &t) == GQ_EINVAL && gq_stats_acc_merge(&t, NULL) == GQ_EINVAL,
         "*_acc_merge with a NULL accumulator: GQ_EINVAL (%s)", gq_last_error());
  tap_ok(gq_sum_acc_init(NULL) == GQ_EINVAL && gq_rms_acc_init(NULL) == GQ_EINVAL && gq_stats_acc_init(NULL) == GQ_EINVAL,
         "*_acc_init(NULL): GQ_EINVAL");
  tap_ok(gq_sum_finish(NULL, GQ_NAN_OMIT, &v) == GQ_EINVAL && gq_sum_finish(&s, GQ_NAN_OMIT, NULL) == GQ_EINVAL &&
             gq_rms_finish(NULL, GQ_NAN_OMIT, &rr) == GQ_EINVAL && gq_stats_finish(&t, GQ_NAN_OMIT, NULL) == GQ_EINVAL,
         "*_finish with NULL: GQ_EINVAL");
  tap_ok(gq_sum_finish(&s, (gq_nan_policy)7, &v) == GQ_EINVAL && gq_rms_finish(&r, (gq_nan_policy)-1, &rr) == GQ_EINVAL &&
             gq_stats_finish(&t, (gq_nan_policy)3, &sr) == GQ_EINVAL,
         "*_finish with a policy that does not exist: GQ_EINVAL (%s)", gq_last_error());
  tap_ok(gq_sum_accumulate(NULL, &s, 2, x) == GQ_EINVAL && gq_sum_accumulate(cpu, NULL, 2, x) == GQ_EINVAL &&
             gq_dot_accumulate(cpu, &s, 2, x, NULL) == GQ_EINVAL && gq_rms_accumulate(cpu, &r, 2, NULL, x) == GQ_EINVAL &&
             gq_stats_accumulate(cpu, &t, 2, NULL) == GQ_EINVAL && gq_stats_accumulate(NULL, &t, 0, x) == GQ_EINVAL,
         "*_accumulate with a NULL context, accumulator or array: GQ_EINVAL");
  tap_ok(gq_stats(cpu, 2, x, NULL) == GQ_EINVAL && gq_rms_diff(cpu, 2, x, x, NULL) == GQ_EINVAL &&
             gq_dot(cpu, 2, x, NULL, &v) == GQ_EINVAL && gq_stats_stream(NULL, NULL, &t, NULL) == GQ_EINVAL &&
             gq_stats_stream(cpu, NULL, &t, NULL) == GQ_EINVAL && gq_dot_stream(cpu, NULL, NULL, NULL, NULL) == GQ_EINVAL,
         "one-shot and streamed forms with NULL: GQ_EINVAL");
  /* merging an accumulator into itself doubles it */
  gq_stats_accumulate(cpu, &t, 2, x);
  gq_stats_acc_merge(&t, &t);
  gq_stats_finish(&t, GQ_NAN_PROPAGATE, &sr);
  tap_ok(sr.n == 4 && sr.sum == 6.0 && sr.var_population == 0.25 && sr.argmax == 1,
         "a stats accumulator merged into itself: 1, 2, 1, 2 (var %.17g)", sr.var_population);
}

int main(void)
{
  cpu = gq_context_create(GQ_DEVICE_CPU);
  if (!tap_ok(cpu != NULL, "CPU context"))
    return tap_done();
  sizes();
  ill_conditioned();
  empty();
  nan_policies();
  chunks();
  check_overflow(cpu, "cpu");
  check_exact_stats(cpu, "cpu", 10, 0.0);
  check_exact_stats(cpu, "cpu", 1000, 1e7);
  check_exact_stats(cpu, "cpu", 100003, 0.5);
  check_exact_stats(cpu, "cpu", 1000003, 3.0);
  null_arguments();
  double *bad = (double *)NULL;
  tap_ok(gq_sum(cpu, 3, bad, NULL) == GQ_EINVAL, "NULL result: GQ_EINVAL");
  gq_context_free(cpu);
  {
    double xs[3] = {1, 2, 3}, out;
    gq_rms_result r;
    gq_context *c = gq_context_create(GQ_DEVICE_CPU);
    tap_ok(gq_sum_async(c, 3, xs, &out) == GQ_EUNSUP && gq_dot_async(c, 3, xs, xs, &out) == GQ_EUNSUP &&
           gq_rms_diff_async(c, 3, xs, xs, &r) == GQ_EUNSUP, "asynchronous forms on a CPU context: EUNSUP");
    gq_context_free(c);
  }
  return tap_done();
}
