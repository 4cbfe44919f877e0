/* exact.c — deterministic mode (issue 20): the context switch, the exact
 * accumulator's public API, and its finishes, each rounded once from the
 * exact sums (superacc_host.h).  The NaN/Inf policies are the double-double
 * accumulators' own finishes (reduce.c), fed the exact counts, so both
 * modes treat non-finite data identically. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exact.h"
#include "superacc_host.h"

int gq_context_set_deterministic(gq_context *ctx, int on)
{
  if (!ctx)
    return gq_null_arg(__func__, "ctx");
  if (on != 0 && on != 1)
    return gq_fail(GQ_EINVAL, "gq_context_set_deterministic: on must be 0 or 1, not %d", on);
  ctx->deterministic = on;
  return GQ_SUCCESS;
}

int gq_context_deterministic(const gq_context *ctx)
{
  return ctx ? ctx->deterministic : (gq_null_arg(__func__, "ctx"), 0);
}

int gq_exact_acc_create(gq_exact_kind kind, gq_exact_acc **acc)
{
  if (!acc)
    return gq_null_arg(__func__, "acc");
  *acc = NULL;
  if (kind < GQ_EXACT_SUM || kind > GQ_EXACT_STATS)
    return gq_fail(GQ_EINVAL, "gq_exact_acc_create: no kind %d", (int)kind);
  gq_exact_acc *a = malloc(sizeof *a);
  if (!a)
    return gq_fail(GQ_ENOMEM, "cannot allocate an exact accumulator");
  gq_exact_acc_zero(a, (int)kind);
  *acc = a;
  return GQ_SUCCESS;
}

void gq_exact_acc_free(gq_exact_acc *acc) { free(acc); }

static void rebase(struct gq_exact_acc *a, uint64_t base)
{
  uint64_t *idx[5] = {&a->t.first_nan, &a->t.first_posinf, &a->t.first_neginf, &a->t.argmin, &a->t.argmax};
  for (int k = 0; k < 5; k++)
    if (*idx[k] != GQ_NO_INDEX)
      *idx[k] += base;
}

void gq_exact_acc_merge_chunk(struct gq_exact_acc *acc, struct gq_exact_acc *chunk)
{
  rebase(chunk, gq_exact_acc_total(acc));
  gq_exact_acc_combine(acc, chunk);
}

size_t gq_exact_acc_size(void) { return sizeof(gq_exact_acc); }

int gq_exact_acc_merge(gq_exact_acc *acc, const gq_exact_acc *other)
{
  if (!acc || !other)
    return gq_null_arg(__func__, acc ? "other" : "acc");
  if (acc->kind != other->kind)
    return gq_fail(GQ_EINVAL, "gq_exact_acc_merge: accumulators of two kinds (%d, %d)", acc->kind, other->kind);
  gq_exact_acc *b = malloc(sizeof *b);
  if (!b)
    return gq_fail(GQ_ENOMEM, "cannot allocate an exact accumulator");
  *b = *other;
  gq_exact_acc_merge_chunk(acc, b);
  free(b);
  return GQ_SUCCESS;
}

int gq_exact_reduce_run(gq_context *ctx, const gq_array_reduce *p, int magnitudes, struct gq_exact_acc *out)
{
  return ctx->backend == GQ_BACKEND_CUDA ? gq_cuda_exact_reduce(ctx->cuda, p, magnitudes, out)
                                         : gq_cpu_exact_reduce(p, magnitudes, out);
}

/* The reduction of n elements of x (and y) into `into`, which is
 * overwritten: the arguments checked, then one run on ctx's backend. */
static int reduce_into(gq_context *ctx, int kind, int magnitudes, int is_float, size_t n, const void *x,
                       const void *y, struct gq_exact_acc *into)
{
  const int pair = kind == GQ_EXACT_DOT || kind == GQ_EXACT_RMS;
  if (!x || (pair && !y))
    return gq_fail(GQ_EINVAL, "gq_exact_accumulate: NULL %s", x ? "y" : "x");
  const size_t esize = is_float ? sizeof(float) : sizeof(double);
  if (gq_check_span("gq_exact_accumulate", "x", x, n, esize) != GQ_SUCCESS ||
      (pair && gq_check_span("gq_exact_accumulate", "y", y, n, esize) != GQ_SUCCESS))
    return GQ_EINVAL;
  gq_array_reduce p = {(gq_reduce_kind)kind, is_float, 0, n, x, pair ? y : NULL};
  return gq_exact_reduce_run(ctx, &p, magnitudes, into);
}

static int accumulate(gq_context *ctx, gq_exact_acc *acc, int is_float, size_t n, const void *x, const void *y)
{
  if (!ctx || !acc)
    return gq_fail(GQ_EINVAL, "gq_exact_accumulate: NULL %s", ctx ? "accumulator" : "context");
  if (n == 0)
    return GQ_SUCCESS;
  struct gq_exact_acc *chunk = malloc(sizeof *chunk);
  if (!chunk)
    return gq_fail(GQ_ENOMEM, "cannot allocate an exact accumulator");
  const int status = reduce_into(ctx, acc->kind, acc->magnitudes, is_float, n, x, y, chunk);
  if (status == GQ_SUCCESS) {
    gq_exact_acc_merge_chunk(acc, chunk);
    gq_clear_error();
  }
  free(chunk);
  return status;
}

int gq_exact_accumulate(gq_context *ctx, gq_exact_acc *acc, size_t n, const double *x, const double *y)
{
  return accumulate(ctx, acc, 0, n, x, y);
}
int gq_exact_accumulate_f(gq_context *ctx, gq_exact_acc *acc, size_t n, const float *x, const float *y)
{
  return accumulate(ctx, acc, 1, n, x, y);
}

int gq_exact_stream(gq_context *ctx, gq_reader *x, gq_reader *y, gq_exact_acc *acc, gq_stream_info *info)
{
  return gq_exact_stream_observed(ctx, x, y, acc, info, NULL);
}

/* ---- finishes ------------------------------------------------------------ */
/* h with |value| 2^-2h in [1, 4): the scale that keeps squares and their
 * roots inside the double range (0 for a zero value). */
static int half_top(const gq_superacc *a)
{
  const int top = gq_superacc_sign(a) ? gq_superacc_top(a) : 0;
  return top >= 0 ? top / 2 : -((1 - top) / 2);
}

static gq_csum scaled_dd(const gq_superacc *a, int shift)
{
  gq_csum r;
  gq_superacc_to_dd(a, shift, &r.s, &r.c);
  return r;
}

static int bad_kind(const gq_exact_acc *acc, int want, int also, const char *function)
{
  if (acc->kind == want || acc->kind == also)
    return GQ_SUCCESS;
  return gq_fail(GQ_EINVAL, "%s: the accumulator is of kind %d", function, acc->kind);
}

int gq_exact_sum_finish(const gq_exact_acc *acc, gq_nan_policy policy, double *result, double *abs_sum)
{
  if (!acc || !result)
    return gq_fail(GQ_EINVAL, "gq_exact_sum_finish: NULL argument");
  if (bad_kind(acc, GQ_EXACT_SUM, GQ_EXACT_DOT, __func__) != GQ_SUCCESS)
    return GQ_EINVAL;
  gq_sum_acc rounded;
  gq_sum_acc_zero(&rounded);
  rounded.n = acc->t.n;
  rounded.nan_count = acc->t.nan_count;
  rounded.posinf_count = acc->t.posinf_count;
  rounded.neginf_count = acc->t.neginf_count;
  rounded.sum = gq_superacc_round(&acc->s[0], 0); /* the one rounding */
  rounded.abs_sum = acc->magnitudes ? gq_superacc_round(&acc->s[1], 0) : 0.0; /* else never filled */
  if (abs_sum)
    *abs_sum = rounded.abs_sum;
  return gq_sum_finish(&rounded, policy, result);
}

int gq_exact_rms_finish(const gq_exact_acc *acc, gq_nan_policy policy, gq_rms_result *r)
{
  if (!acc || !r)
    return gq_fail(GQ_EINVAL, "gq_exact_rms_finish: NULL argument");
  if (bad_kind(acc, GQ_EXACT_RMS, GQ_EXACT_RMS, __func__) != GQ_SUCCESS)
    return GQ_EINVAL;
  gq_rms_acc counts;
  gq_rms_acc_zero(&counts);
  counts.n = acc->t.n;
  counts.nan_count = acc->t.nan_count;
  counts.inf_count = acc->t.posinf_count;
  counts.max_abs = acc->t.max_abs;
  const int status = gq_rms_finish(&counts, policy, r);
  if (acc->t.n == 0 || (policy != GQ_NAN_OMIT && acc->t.nan_count + acc->t.posinf_count > 0))
    return status; /* the policy's values */
  /* sqrt(S / n) from S 4^-h in [1, 4): the quotient and the root each round
   * once, so rms is within an ulp; the ratio likewise. */
  const int h = half_top(&acc->s[0]);
  const gq_csum ss = scaled_dd(&acc->s[0], 2 * h), q = gq_dd_div(ss, (double)acc->t.n);
  r->rms = ldexp(sqrt(q.s + q.c), h);
  if (gq_superacc_sign(&acc->s[1]) > 0) {
    const int g = half_top(&acc->s[1]);
    const gq_csum ref = scaled_dd(&acc->s[1], 2 * g), ratio = gq_dd_div(ss, ref.s + ref.c);
    r->relative = ldexp(sqrt(ratio.s + ratio.c), h - g);
  }
  return status;
}

/* The moments from the exact sums S1 = sum x, S2 = sum x^2 (n > 0): the
 * mean is S1 / n rounded once; with K that mean, T = S2 - 2 K S1 + n K^2
 * = sum (x - K)^2 and R = S1 - n K are formed exactly, and
 * M2 = T - R^2 / n.  |R| / n <= ulp(K) / 2 and every x differs from the mean
 * by about that much at least, so R^2 / n <= ~T: M2 loses at most a bit or
 * two of the 106 that T and R keep, and the variances (divided once, in
 * double-double) and sd are within an ulp. */
static void exact_moments(const gq_exact_acc *a, gq_stats_result *s)
{
  const double n = (double)a->t.n;
  s->sum = gq_superacc_round(&a->s[0], 0);
  s->mean = gq_superacc_div_round(&a->s[0], a->t.n);
  s->l1 = gq_superacc_round(&a->s[2], 0);
  const int l = half_top(&a->s[1]);
  const gq_csum squares = scaled_dd(&a->s[1], 2 * l);
  s->l2 = ldexp(sqrt(squares.s + squares.c), l);
  gq_superacc t = a->s[1], r = a->s[0];
  const double k = s->mean;
  gq_superacc_add_scaled(&t, &a->s[0], k, 1, 1);
  gq_superacc_add_product_n(&t, k, k, a->t.n, 0);
  gq_superacc_add_product_n(&r, k, 1.0, a->t.n, 1);
  const int h = half_top(&t);
  const gq_csum tt = scaled_dd(&t, 2 * h), rr = scaled_dd(&r, h);
  gq_csum m2 = gq_dd_add(tt, gq_dd_neg(gq_dd_div(gq_dd_mul(rr, rr), n)));
  if (m2.s < 0.0) /* M2 >= 0 exactly; only the last bits of R^2/n can say otherwise */
    m2 = gq_dd_make(0.0, 0.0);
  const gq_csum vp = gq_dd_div(m2, n);
  s->var_population = ldexp(vp.s + vp.c, 2 * h);
  s->sd_population = ldexp(sqrt(vp.s + vp.c), h);
  if (a->t.n > 1) {
    const gq_csum vs = gq_dd_div(m2, n - 1.0);
    s->var_sample = ldexp(vs.s + vs.c, 2 * h);
    s->sd_sample = ldexp(sqrt(vs.s + vs.c), h);
  } else {
    s->var_sample = s->sd_sample = NAN;
  }
}

int gq_exact_stats_finish(const gq_exact_acc *acc, gq_nan_policy policy, gq_stats_result *s)
{
  if (!acc || !s)
    return gq_fail(GQ_EINVAL, "gq_exact_stats_finish: NULL argument");
  if (bad_kind(acc, GQ_EXACT_STATS, GQ_EXACT_STATS, __func__) != GQ_SUCCESS)
    return GQ_EINVAL;
  gq_stats_acc counts; /* counts, extremes and indices: the policy's part */
  gq_stats_acc_zero(&counts);
  counts.n = acc->t.n;
  counts.nan_count = acc->t.nan_count;
  counts.posinf_count = acc->t.posinf_count;
  counts.neginf_count = acc->t.neginf_count;
  counts.first_nan = acc->t.first_nan;
  counts.first_posinf = acc->t.first_posinf;
  counts.first_neginf = acc->t.first_neginf;
  counts.min = acc->t.min;
  counts.max = acc->t.max;
  counts.argmin = acc->t.argmin;
  counts.argmax = acc->t.argmax;
  const int status = gq_stats_finish(&counts, policy, s);
  if (acc->t.n > 0 && (policy == GQ_NAN_OMIT || acc->t.nan_count + acc->t.posinf_count + acc->t.neginf_count == 0))
    exact_moments(acc, s);
  return status;
}

/* ---- the one-shot forms on a deterministic context ------------------------ */
int gq_exact_one_shot(gq_context *ctx, gq_reduce_kind kind, int is_float, size_t n, const void *x, const void *y,
                      void *out)
{
  gq_exact_acc acc; /* on the stack: a one-shot call allocates nothing */
  gq_exact_acc_zero(&acc, (int)kind);
  acc.magnitudes = 0; /* the one-shot sum and dot give no sum |t| */
  int status = GQ_SUCCESS;
  /* no chunk to merge: the one run's accumulator is the result's */
  if (!ctx)
    status = gq_fail(GQ_EINVAL, "gq_exact_accumulate: NULL context");
  else if (n > 0)
    status = reduce_into(ctx, acc.kind, 0, is_float, n, x, y, &acc);
  if (status == GQ_SUCCESS) {
    gq_clear_error();
    if (kind == GQ_REDUCE_RMS)
      status = gq_exact_rms_finish(&acc, GQ_NAN_PROPAGATE, out);
    else if (kind == GQ_REDUCE_STATS)
      status = gq_exact_stats_finish(&acc, GQ_NAN_PROPAGATE, out);
    else
      status = gq_exact_sum_finish(&acc, GQ_NAN_PROPAGATE, out, NULL);
  }
  return status;
}
