/* t_progress.c — the context's progress callback (gpuquad.h's "progress") on
 * the CPU backend, or the GPU with "gpu": for grid rules, product boxes,
 * Monte Carlo, VEGAS, adaptive cubature and streams, every call comes from
 * the calling thread with done monotone and within a nonzero total, the
 * last has done == total, the unit is the work's; the results are bitwise
 * those of a context without a callback; NULL context is GQ_EINVAL. */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "tap_context.h"

typedef struct {
  pthread_t caller;
  int calls, other_thread, backwards, beyond, unit_changed;
  uint64_t done, total;
  char unit[32];
} record;

static void on_progress(uint64_t done, uint64_t total, const char *unit, void *user)
{
  record *r = user;
  if (!pthread_equal(pthread_self(), r->caller))
    r->other_thread++;
  if (r->calls > 0 && done < r->done)
    r->backwards++;
  if (total > 0 && done > total)
    r->beyond++;
  if (r->calls > 0 && strcmp(unit, r->unit) != 0)
    r->unit_changed++;
  snprintf(r->unit, sizeof r->unit, "%s", unit);
  r->done = done;
  r->total = total;
  r->calls++;
}

static void start(gq_context *ctx, record *r)
{
  memset(r, 0, sizeof *r);
  r->caller = pthread_self();
  gq_context_set_progress(ctx, on_progress, r);
}

/* Calls made as the contract says; at least `least` of them (-1: none is
 * fine too). */
static void verify(const char *what, const record *r, const char *unit, int least)
{
  if (least < 0 && r->calls == 0) { /* a grid on a GPU: one launch, nothing between */
    tap_ok(1, "%s: no call (one launch)", what);
    return;
  }
  least = least < 0 ? 1 : least;
  tap_ok(r->calls >= least && r->other_thread == 0 && r->backwards == 0 && r->beyond == 0 && r->unit_changed == 0 &&
             r->done == r->total && r->total > 0 && strcmp(r->unit, unit) == 0,
         "%s: %d calls (at least %d) in '%s', last %llu of %llu; other thread %d, backwards %d, beyond %d", what,
         r->calls, least, r->unit, (unsigned long long)r->done, (unsigned long long)r->total, r->other_thread,
         r->backwards, r->beyond);
}

static int same_bits(double x, double y) { return memcmp(&x, &y, sizeof x) == 0; }

int main(int argc, char **argv)
{
  int gpu;
  gq_context *ctx = tap_context(argc, argv, &gpu);
  if (!ctx)
    return tap_done();
  tap_ok(gq_context_set_progress(NULL, on_progress, NULL) == GQ_EINVAL, "a NULL context is GQ_EINVAL");
  record r;
  gq_integrand *f1 = NULL, *f3 = NULL;
  gq_integrand_parse("sin(x) * exp(-x)", NULL, 0, 1, &f1, NULL);
  gq_integrand_parse("exp(-x1*x1 - x2*x2 - x3*x3)", NULL, 0, 3, &f3, NULL);
  if (!tap_ok(f1 && f3, "the integrands parse"))
    return tap_done();

  /* a 1-D grid: parts of the CPU loop, the end once */
  gq_rule_result plain, watched;
  gq_integrate_rule(ctx, f1, GQ_RULE_SIMPSON, 0.0, 3.0, 6000000, GQ_PRECISION_DOUBLE, &plain);
  start(ctx, &r);
  gq_integrate_rule(ctx, f1, GQ_RULE_SIMPSON, 0.0, 3.0, 6000000, GQ_PRECISION_DOUBLE, &watched);
  gq_context_set_progress(ctx, NULL, NULL);
  verify("simpson, n = 6e6", &r, "points", gpu ? -1 : 1);
  tap_ok(r.total == 5999999 || gpu, "  total: the 5999999 interior points (got %llu)", (unsigned long long)r.total);
  tap_ok(same_bits(plain.result, watched.result) && same_bits(plain.abserr, watched.abserr),
         "  bitwise the same result: %.17g, %.17g", plain.result, watched.result);

  /* a product box */
  gq_box box = {.dims = 3, .a = {-1, -1, -1}, .b = {1, 1, 1}, .n = {25, 25, 25}};
  const gq_rule_spec spec = {GQ_RULE_GAUSS_LEGENDRE, 0};
  gq_integrate_box(ctx, f3, spec, &box, GQ_PRECISION_DOUBLE, &plain);
  start(ctx, &r);
  gq_integrate_box(ctx, f3, spec, &box, GQ_PRECISION_DOUBLE, &watched);
  gq_context_set_progress(ctx, NULL, NULL);
  verify("gauss-legendre box", &r, "points", gpu ? -1 : 1);
  tap_ok(same_bits(plain.result, watched.result), "  bitwise the same result: %.17g", watched.result);

  /* plain Monte Carlo: batches of samples */
  gq_mc_options mo;
  gq_mc_options_init(&mo);
  mo.dims = 3;
  for (int d = 0; d < 3; d++)
    mo.a[d] = -1.0, mo.b[d] = 1.0;
  mo.n = 20000000;
  mo.seed = 9;
  gq_mc_result m0, m1;
  gq_mc_mean(ctx, f3, &mo, &m0);
  start(ctx, &r);
  gq_mc_mean(ctx, f3, &mo, &m1);
  gq_context_set_progress(ctx, NULL, NULL);
  verify("mc, n = 2e7", &r, "samples", 1);
  tap_ok(r.total == mo.n, "  total: the 2e7 samples (got %llu)", (unsigned long long)r.total);
  tap_ok(same_bits(m0.integral, m1.integral) && same_bits(m0.integral_se, m1.integral_se),
         "  bitwise the same estimate: %.17g +/- %.3g", m1.integral, m1.integral_se);

  /* mc stopped by its tolerance: the end lowers the total to what was drawn */
  mo.tol = 1e-3;
  start(ctx, &r);
  gq_mc_mean(ctx, f3, &mo, &m1);
  gq_context_set_progress(ctx, NULL, NULL);
  verify("mc stopped by --tol", &r, "samples", 2);
  tap_ok(m1.stopped_by_tol && r.total == m1.n && m1.n < mo.n, "  the last call's total is the %llu samples drawn",
         (unsigned long long)m1.n);
  mo.tol = 0.0;

  /* VEGAS: one call per iteration */
  gq_vegas_options vo;
  gq_vegas_options_init(&vo);
  mo.n = 2000000;
  gq_vegas_result v0, v1;
  gq_mc_vegas(ctx, f3, &mo, &vo, &v0);
  start(ctx, &r);
  gq_mc_vegas(ctx, f3, &mo, &vo, &v1);
  gq_context_set_progress(ctx, NULL, NULL);
  verify("vegas", &r, "iterations", vo.warmup + vo.iterations);
  tap_ok(r.calls == vo.warmup + vo.iterations && r.total == (uint64_t)r.calls, "  %d calls, one per iteration",
         r.calls);
  if (gq_context_backend(ctx) == GQ_BACKEND_CUDA) {
    /* VEGAS on a GPU fills its grid's histograms with atomic adds: two runs
     * differ in the last bits whether or not progress is told (the README;
     * --deterministic refuses VEGAS), so the two agree within their errors */
    const double se = hypot(v0.mc.integral_se, v1.mc.integral_se);
    tap_ok(fabs(v0.mc.integral - v1.mc.integral) <= 5.0 * se && se > 0.0,
           "  the same estimate within 5 standard errors (GPU atomics): %.17g, %.17g (se %.3g)", v0.mc.integral,
           v1.mc.integral, se);
  } else {
    tap_ok(same_bits(v0.mc.integral, v1.mc.integral), "  bitwise the same estimate: %.17g", v1.mc.integral);
  }

  /* adaptive cubature: the total unknown until it stops */
  gq_adaptive_options ao;
  gq_adaptive_options_init(&ao);
  ao.dims = 3;
  for (int d = 0; d < 3; d++)
    ao.a[d] = -1.0, ao.b[d] = 1.0;
  ao.epsrel = 1e-9;
  gq_adaptive_result a0, a1;
  gq_integrate_adaptive(ctx, f3, &ao, &a0);
  start(ctx, &r);
  gq_integrate_adaptive(ctx, f3, &ao, &a1);
  gq_context_set_progress(ctx, NULL, NULL);
  verify("adaptive", &r, "evaluations", 2);
  tap_ok(r.total == a1.evaluations && (uint64_t)r.calls == a1.passes + 1,
         "  a call per pass (%llu) and the end, at the %llu evaluations", (unsigned long long)a1.passes,
         (unsigned long long)a1.evaluations);
  tap_ok(same_bits(a0.estimate, a1.estimate), "  bitwise the same estimate: %.17g", a1.estimate);

  /* a stream of doubles from memory (length known), three chunks of the
   * backend's: 3e6 on the CPU, 2e7 on a GPU (8 Mi doubles a chunk) */
  const size_t N = gq_context_backend(ctx) == GQ_BACKEND_CUDA ? 20000000 : 3000000;
  char what[64];
  snprintf(what, sizeof what, "stream of %zu doubles", N);
  double *data = malloc(N * sizeof *data);
  for (size_t i = 0; data && i < N; i++)
    data[i] = 1.0 / (double)(i + 1);
  const gq_reader_opts raw = {.format = GQ_FORMAT_RAW, .raw_dtype = GQ_DTYPE_F64};
  gq_reader *in = NULL;
  char msg[256];
  gq_sum_acc s0, s1;
  gq_sum_acc_init(&s0);
  gq_sum_acc_init(&s1);
  if (data && gq_reader_open_mem(data, N * sizeof *data, "memory", &raw, &in, msg, sizeof msg) == GQ_SUCCESS)
    gq_sum_stream(ctx, in, &s0, NULL);
  gq_reader_close(in);
  in = NULL;
  start(ctx, &r);
  if (data && gq_reader_open_mem(data, N * sizeof *data, "memory", &raw, &in, msg, sizeof msg) == GQ_SUCCESS)
    gq_sum_stream(ctx, in, &s1, NULL);
  gq_reader_close(in);
  gq_context_set_progress(ctx, NULL, NULL);
  verify(what, &r, "bytes", 2);
  tap_ok(r.total == N * sizeof(double), "  total: the %zu bytes (got %llu)", N * sizeof(double),
         (unsigned long long)r.total);
  double t0 = NAN, t1 = NAN;
  gq_sum_finish(&s0, GQ_NAN_PROPAGATE, &t0);
  gq_sum_finish(&s1, GQ_NAN_PROPAGATE, &t1);
  tap_ok(same_bits(t0, t1) && t1 > 15.0, "  bitwise the same sum: %.17g", t1);

  /* text: the length is not known in advance, the total only at the end */
  const char text[] = "1\n2\n3.5\n";
  const gq_reader_opts as_text = {.format = GQ_FORMAT_TEXT};
  start(ctx, &r);
  uint64_t first_total = UINT64_MAX;
  if (gq_reader_open_mem(text, sizeof text - 1, "text", &as_text, &in, msg, sizeof msg) != GQ_SUCCESS)
    diag("text reader: %s", msg);
  else {
    gq_sum_acc_init(&s1);
    if (gq_sum_stream(ctx, in, &s1, NULL) != GQ_SUCCESS)
      diag("text stream: %s", gq_last_error());
    first_total = r.calls > 1 ? 0 : r.total;
  }
  gq_reader_close(in);
  gq_context_set_progress(ctx, NULL, NULL);
  verify("stream of text", &r, "bytes", 2);
  tap_ok(first_total == 0 && r.total == 3 * sizeof(double), "  total 0 while unknown, then the %llu bytes read",
         (unsigned long long)r.total);

  /* unset: no call */
  start(ctx, &r);
  gq_context_set_progress(ctx, NULL, NULL);
  gq_integrate_rule(ctx, f1, GQ_RULE_SIMPSON, 0.0, 3.0, 6000000, GQ_PRECISION_DOUBLE, &watched);
  tap_ok(r.calls == 0, "unset again: no call (%d)", r.calls);

  free(data);
  gq_integrand_free(f1);
  gq_integrand_free(f3);
  gq_context_free(ctx);
  return tap_done();
}
