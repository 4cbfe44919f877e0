/* t_empty.c — n = 0 gives the identity on every data-reduction entry point:
 * one-shot, accumulate, streamed (empty inputs) and, on a CUDA context,
 * asynchronous (in stream order).  Inputs are NULL wherever the API allows
 * it for n = 0.  With the argument "gpu" it runs on CUDA device 0 (exit 77
 * without one), else on the CPU backend. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpuquad.h"
#include "tap.h"
#include "tap_context.h"

#define POISON(v) memset(&(v), 0xA5, sizeof(v))

static gq_context *ctx;
static int open_fds[8], open_count; /* the readers do not close descriptors */
static const char *where;

static int rms_is_identity(const gq_rms_result *r)
{
  return r->n == 0 && r->nan_count == 0 && r->inf_count == 0 && isnan(r->rms) && r->max_abs == 0.0 &&
         isnan(r->relative);
}

static int stats_is_identity(const gq_stats_result *s)
{
  return s->total == 0 && s->n == 0 && s->nan_count == 0 && s->inf_count == 0 && s->sum == 0.0 && isnan(s->mean) &&
         isnan(s->var_sample) && isnan(s->var_population) && isnan(s->sd_sample) && isnan(s->sd_population) &&
         isnan(s->min) && isnan(s->max) && s->argmin == GQ_NO_INDEX && s->argmax == GQ_NO_INDEX && s->l1 == 0.0 &&
         s->l2 == 0.0 && s->linf == 0.0;
}

static void one_shot(void)
{
  double v;
  POISON(v);
  tap_ok(gq_sum(ctx, 0, NULL, &v) == GQ_SUCCESS && v == 0.0, "%s: gq_sum n = 0 is 0", where);
  POISON(v);
  tap_ok(gq_sum_f(ctx, 0, NULL, &v) == GQ_SUCCESS && v == 0.0, "%s: gq_sum_f n = 0 is 0", where);
  POISON(v);
  tap_ok(gq_dot(ctx, 0, NULL, NULL, &v) == GQ_SUCCESS && v == 0.0, "%s: gq_dot n = 0 is 0", where);
  POISON(v);
  tap_ok(gq_dot_f(ctx, 0, NULL, NULL, &v) == GQ_SUCCESS && v == 0.0, "%s: gq_dot_f n = 0 is 0", where);
  gq_rms_result r;
  POISON(r);
  tap_ok(gq_rms_diff(ctx, 0, NULL, NULL, &r) == GQ_SUCCESS && rms_is_identity(&r),
         "%s: gq_rms_diff n = 0: n 0, rms NaN, max_abs 0, relative NaN", where);
  POISON(r);
  tap_ok(gq_rms_diff_f(ctx, 0, NULL, NULL, &r) == GQ_SUCCESS && rms_is_identity(&r), "%s: gq_rms_diff_f n = 0", where);
  gq_stats_result s;
  POISON(s);
  tap_ok(gq_stats(ctx, 0, NULL, &s) == GQ_SUCCESS && stats_is_identity(&s),
         "%s: gq_stats n = 0: count 0, sum and norms 0, mean/variances/min/max NaN, no index", where);
  POISON(s);
  tap_ok(gq_stats_f(ctx, 0, NULL, &s) == GQ_SUCCESS && stats_is_identity(&s), "%s: gq_stats_f n = 0", where);
  /* a NULL context or result is still an error with n = 0 */
  tap_ok(gq_sum(NULL, 0, NULL, &v) == GQ_EINVAL && gq_stats(ctx, 0, NULL, NULL) == GQ_EINVAL,
         "%s: n = 0 with a NULL context or result is EINVAL", where);
}

/* Accumulators that already hold data, left bit for bit as they were. */
static void accumulate(void)
{
  /* the data in the context's memory: device memory on a CUDA context */
  const double hx[] = {1.5, -2.0, 7.25};
  const float hxf[] = {1.5f, -2.0f, 7.25f};
  double *x = NULL;
  float *xf = NULL;
  if (gq_alloc(ctx, sizeof hx, (void **)&x) != GQ_SUCCESS || gq_alloc(ctx, sizeof hxf, (void **)&xf) != GQ_SUCCESS ||
      gq_copy_to(ctx, x, hx, sizeof hx) != GQ_SUCCESS || gq_copy_to(ctx, xf, hxf, sizeof hxf) != GQ_SUCCESS) {
    tap_ok(0, "%s: the accumulators' data in the context's memory (%s)", where, gq_last_error());
    return;
  }
  gq_sum_acc sum, sum_before;
  gq_rms_acc rms, rms_before;
  gq_stats_acc st, st_before;
  gq_sum_acc_init(&sum);
  gq_rms_acc_init(&rms);
  gq_stats_acc_init(&st);
  gq_sum_accumulate(ctx, &sum, 3, x);
  gq_rms_accumulate(ctx, &rms, 3, x, x + 0);
  gq_stats_accumulate(ctx, &st, 3, x);
  sum_before = sum;
  rms_before = rms;
  st_before = st;
  tap_ok(gq_sum_accumulate(ctx, &sum, 0, NULL) == GQ_SUCCESS && gq_sum_accumulate_f(ctx, &sum, 0, NULL) == GQ_SUCCESS &&
             gq_dot_accumulate(ctx, &sum, 0, NULL, NULL) == GQ_SUCCESS &&
             gq_dot_accumulate_f(ctx, &sum, 0, NULL, NULL) == GQ_SUCCESS &&
             memcmp(&sum, &sum_before, sizeof sum) == 0,
         "%s: sum and dot accumulate n = 0 leave the accumulator unchanged", where);
  tap_ok(gq_rms_accumulate(ctx, &rms, 0, NULL, NULL) == GQ_SUCCESS &&
             gq_rms_accumulate_f(ctx, &rms, 0, NULL, NULL) == GQ_SUCCESS && memcmp(&rms, &rms_before, sizeof rms) == 0,
         "%s: rms accumulate n = 0 leaves the accumulator unchanged", where);
  tap_ok(gq_stats_accumulate(ctx, &st, 0, NULL) == GQ_SUCCESS && gq_stats_accumulate_f(ctx, &st, 0, NULL) == GQ_SUCCESS &&
             memcmp(&st, &st_before, sizeof st) == 0,
         "%s: stats accumulate n = 0 leaves the accumulator unchanged", where);
  /* and what follows an empty call counts on from the data before it */
  gq_stats_accumulate_f(ctx, &st, 3, xf);
  gq_stats_result s;
  gq_stats_finish(&st, GQ_NAN_PROPAGATE, &s);
  tap_ok(s.n == 6 && s.sum == 13.5 && s.argmin == 1 && s.argmax == 2,
         "%s: stats after an empty call: n %llu, sum %g, argmin %llu, argmax %llu", where, (unsigned long long)s.n,
         s.sum, (unsigned long long)s.argmin, (unsigned long long)s.argmax);
  /* a fresh accumulator finished after only empty calls is the identity */
  gq_stats_acc fresh;
  gq_stats_acc_init(&fresh);
  gq_stats_accumulate(ctx, &fresh, 0, NULL);
  gq_stats_finish(&fresh, GQ_NAN_OMIT, &s);
  tap_ok(stats_is_identity(&s), "%s: a stats accumulator that saw only n = 0 finishes as the identity", where);
  gq_free(ctx, x);
  gq_free(ctx, xf);
}

/* An empty raw input: from memory (its length known, 0: no backend runs)
 * or from a pipe that is already closed (its length unknown until read: the
 * backend reads it and finds nothing).  An empty text
 * input is an error of its own ("no numbers"), not an empty reduction. */
static gq_reader *empty_reader(int piped, const char *name)
{
  static const char nothing[1];
  const gq_reader_opts opts = {.format = GQ_FORMAT_RAW, .raw_dtype = GQ_DTYPE_F64};
  gq_reader *r = NULL;
  char msg[256] = "";
  int fds[2];
  if (!piped)
    gq_reader_open_mem(nothing, 0, name, &opts, &r, msg, sizeof msg);
  else if (pipe(fds) == 0) {
    close(fds[1]);
    gq_reader_open_fd(fds[0], name, &opts, &r, msg, sizeof msg);
    if (r)
      open_fds[open_count++] = fds[0];
    else
      close(fds[0]);
  }
  if (!r)
    diag("%s: %s", name, msg);
  return r;
}

static void streamed(void)
{
  for (int k = 0; k < 2; k++) {
    const char *fmt = k == 0 ? "raw (length 0)" : "piped raw (length unknown)";
    gq_reader *x = empty_reader(k, "x"), *y = empty_reader(k, "y");
    gq_stream_info info;
    gq_sum_acc sum;
    gq_sum_acc_init(&sum);
    double v = NAN;
    int ok = gq_sum_stream(ctx, x, &sum, &info) == GQ_SUCCESS && info.elements == 0 &&
             gq_sum_finish(&sum, GQ_NAN_PROPAGATE, &v) == GQ_SUCCESS && v == 0.0;
    tap_ok(ok, "%s: gq_sum_stream of an empty %s input is 0 (%s)", where, fmt, ok ? "" : gq_last_error());
    gq_reader_close(x);
    x = empty_reader(k, "x");
    gq_sum_acc_init(&sum);
    v = NAN;
    ok = gq_dot_stream(ctx, x, y, &sum, &info) == GQ_SUCCESS && info.elements == 0 &&
         gq_sum_finish(&sum, GQ_NAN_PROPAGATE, &v) == GQ_SUCCESS && v == 0.0;
    tap_ok(ok, "%s: gq_dot_stream of empty %s inputs is 0 (%s)", where, fmt, ok ? "" : gq_last_error());
    gq_reader_close(x);
    gq_reader_close(y);
    x = empty_reader(k, "x");
    y = empty_reader(k, "y");
    gq_rms_acc rms;
    gq_rms_acc_init(&rms);
    gq_rms_result r;
    POISON(r);
    ok = gq_rms_stream(ctx, x, y, &rms, &info) == GQ_SUCCESS && info.elements == 0 &&
         gq_rms_finish(&rms, GQ_NAN_PROPAGATE, &r) == GQ_SUCCESS && rms_is_identity(&r);
    tap_ok(ok, "%s: gq_rms_stream of empty %s inputs is the identity (%s)", where, fmt, ok ? "" : gq_last_error());
    gq_reader_close(x);
    gq_reader_close(y);
    x = empty_reader(k, "x");
    gq_stats_acc st;
    gq_stats_acc_init(&st);
    gq_stats_result s;
    POISON(s);
    ok = gq_stats_stream(ctx, x, &st, &info) == GQ_SUCCESS && info.elements == 0 &&
         gq_stats_finish(&st, GQ_NAN_PROPAGATE, &s) == GQ_SUCCESS && stats_is_identity(&s);
    tap_ok(ok, "%s: gq_stats_stream of an empty %s input is the identity (%s)", where, fmt, ok ? "" : gq_last_error());
    gq_reader_close(x);
  }
  while (open_count > 0)
    close(open_fds[--open_count]);
}

/* CPU contexts: the asynchronous forms are unsupported whatever n is. */
static void async_cpu(void)
{
  double d;
  gq_rms_result r;
  tap_ok(gq_sum_async(ctx, 0, NULL, &d) == GQ_EUNSUP && gq_dot_async(ctx, 0, NULL, NULL, &d) == GQ_EUNSUP &&
             gq_rms_diff_async(ctx, 0, NULL, NULL, &r) == GQ_EUNSUP,
         "%s: asynchronous forms with n = 0 on a CPU context: EUNSUP", where);
  tap_ok(gq_sum_async(ctx, 0, NULL, NULL) == GQ_EINVAL && gq_sum_async(NULL, 0, NULL, &d) == GQ_EINVAL,
         "%s: asynchronous forms with n = 0 and a NULL context or result: EINVAL", where);
}

/* CUDA contexts: the identity lands in stream order.  A reduction of n
 * elements and an empty one into the same result, in both orders: the
 * second one enqueued is what the result holds. */
static void async_gpu(void)
{
  const size_t n = ((size_t)1 << 22) + 5; /* long enough to still run when the next call is enqueued */
  double *x, *y, *d_out, out[2], sync_sum;
  gq_rms_result *d_rms, r, sync_rms;
  gq_alloc(ctx, n * sizeof *x, (void **)&x);
  gq_alloc(ctx, n * sizeof *y, (void **)&y);
  gq_alloc(ctx, 2 * sizeof *d_out, (void **)&d_out);
  gq_alloc(ctx, sizeof *d_rms, (void **)&d_rms);
  gq_generate(ctx, GQ_GEN_NORMAL, n, 3, x);
  gq_generate(ctx, GQ_GEN_UNIFORM, n, 4, y);
  gq_sum(ctx, n, x, &sync_sum);
  gq_rms_diff(ctx, n, x, y, &sync_rms);

  POISON(out);
  gq_copy_to(ctx, d_out, out, sizeof out);
  int s1 = gq_sum_async(ctx, n, x, d_out), s2 = gq_sum_async(ctx, 0, NULL, d_out);
  int s3 = gq_dot_async(ctx, n, x, y, d_out + 1), s4 = gq_dot_async(ctx, 0, NULL, NULL, d_out + 1);
  gq_copy_from(ctx, out, d_out, sizeof out);
  tap_ok(s1 == GQ_SUCCESS && s2 == GQ_SUCCESS && s3 == GQ_SUCCESS && s4 == GQ_SUCCESS && out[0] == 0.0 &&
             out[1] == 0.0,
         "%s: sum and dot of n, then of 0, into one result: 0 and 0 (%g, %g)", where, out[0], out[1]);
  s1 = gq_sum_async(ctx, 0, NULL, d_out);
  s2 = gq_sum_async(ctx, n, x, d_out);
  gq_copy_from(ctx, out, d_out, sizeof out[0]);
  tap_ok(s1 == GQ_SUCCESS && s2 == GQ_SUCCESS && out[0] == sync_sum,
         "%s: sum of 0, then of n, into one result: %.17g = gq_sum %.17g", where, out[0], sync_sum);

  POISON(r);
  gq_copy_to(ctx, d_rms, &r, sizeof r);
  s1 = gq_rms_diff_async(ctx, n, x, y, d_rms);
  s2 = gq_rms_diff_async(ctx, 0, NULL, NULL, d_rms);
  POISON(r);
  gq_copy_from(ctx, &r, d_rms, sizeof r);
  tap_ok(s1 == GQ_SUCCESS && s2 == GQ_SUCCESS && rms_is_identity(&r),
         "%s: rms of n, then of 0, into one result: n %llu, rms %g, max_abs %g, relative %g", where,
         (unsigned long long)r.n, r.rms, r.max_abs, r.relative);
  s1 = gq_rms_diff_async(ctx, 0, NULL, NULL, d_rms);
  s2 = gq_rms_diff_async(ctx, n, x, y, d_rms);
  gq_copy_from(ctx, &r, d_rms, sizeof r);
  tap_ok(s1 == GQ_SUCCESS && s2 == GQ_SUCCESS && r.n == n && r.rms == sync_rms.rms,
         "%s: rms of 0, then of n, into one result: rms %.17g = gq_rms_diff %.17g", where, r.rms, sync_rms.rms);
  tap_ok(gq_sum_async(ctx, 0, NULL, NULL) == GQ_EINVAL, "%s: n = 0 with a NULL result is EINVAL", where);
  gq_free(ctx, x);
  gq_free(ctx, y);
  gq_free(ctx, d_out);
  gq_free(ctx, d_rms);
}

int main(int argc, char **argv)
{
  int gpu;
  ctx = tap_context(argc, argv, &gpu);
  where = gpu ? "gpu" : "cpu";
  if (!ctx)
    return tap_done();
  one_shot();
  accumulate();
  streamed();
  gpu ? async_gpu() : async_cpu();
  gq_context_free(ctx);
  return tap_done();
}
