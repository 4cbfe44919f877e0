/* reduce.c — the data reductions' public API: accumulators, the two passes
 * (fast, then classifying when a NaN or Inf shows), the NaN/Inf policies and
 * the one-shot forms.  The backends (cpu/driver.c, kernels/) compute
 * one chunk's accumulator; everything here is backend-independent. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "internal.h"
#include "exact.h"

/* The accumulator API takes the caller's structs: NULL is GQ_EINVAL, never a
 * crash. */
int gq_sum_acc_init(gq_sum_acc *acc)
{
  if (!acc)
    return gq_null_arg(__func__, "acc");
  gq_sum_acc_zero(acc);
  return GQ_SUCCESS;
}
int gq_rms_acc_init(gq_rms_acc *acc)
{
  if (!acc)
    return gq_null_arg(__func__, "acc");
  gq_rms_acc_zero(acc);
  return GQ_SUCCESS;
}
int gq_stats_acc_init(gq_stats_acc *acc)
{
  if (!acc)
    return gq_null_arg(__func__, "acc");
  gq_stats_acc_zero(acc);
  return GQ_SUCCESS;
}
int gq_sum_acc_merge(gq_sum_acc *acc, const gq_sum_acc *other)
{
  if (!acc || !other)
    return gq_null_arg(__func__, acc ? "other" : "acc");
  gq_sum_acc_combine(acc, other);
  return GQ_SUCCESS;
}
int gq_rms_acc_merge(gq_rms_acc *acc, const gq_rms_acc *other)
{
  if (!acc || !other)
    return gq_null_arg(__func__, acc ? "other" : "acc");
  gq_rms_acc_combine(acc, other);
  return GQ_SUCCESS;
}

int gq_stats_acc_merge(gq_stats_acc *acc, const gq_stats_acc *other)
{
  if (!acc || !other)
    return gq_null_arg(__func__, acc ? "other" : "acc");
  gq_stats_acc b = *other;
  gq_stats_acc_rebase(&b, gq_stats_acc_total(acc));
  gq_stats_acc_combine(acc, &b);
  return GQ_SUCCESS;
}

void gq_reduce_acc_merge_chunk(gq_reduce_kind kind, gq_reduce_acc *acc, gq_reduce_acc *chunk)
{
  switch (kind) {
  case GQ_REDUCE_SUM:
  case GQ_REDUCE_DOT:
    gq_sum_acc_combine(&acc->sum, &chunk->sum);
    break;
  case GQ_REDUCE_RMS:
    gq_rms_acc_combine(&acc->rms, &chunk->rms);
    break;
  case GQ_REDUCE_STATS:
    gq_stats_acc_rebase(&chunk->stats, gq_stats_acc_total(&acc->stats));
    gq_stats_acc_combine(&acc->stats, &chunk->stats);
    break;
  }
}

/* Must the pass be redone classifying?  When it met a term that is not
 * finite or overflowed, one of the accumulator's sums is NaN or infinite;
 * the classifying pass counts the non-finite terms and scales the finite
 * ones.  It also scales up data so small (below 2^-399) that their squares
 * underflow: the sd, the L2 norm and the rms of such data fit in a double. */
int gq_reduce_acc_needs_classify(gq_reduce_kind kind, const gq_reduce_acc *a)
{
  const double tiny = 0x1p-399;
  switch (kind) {
  case GQ_REDUCE_RMS:
    return !gq_rms_acc_finite(&a->rms) || (a->rms.max_abs > 0.0 && a->rms.max_abs < tiny) ||
           (a->rms.n > 0 && a->rms.sq_ref + a->rms.sq_ref_err < tiny * tiny);
  case GQ_REDUCE_STATS: {
    const double linf = fmax(fabs(a->stats.min), fabs(a->stats.max));
    return !gq_stats_acc_finite(&a->stats) || (a->stats.n > 0 && linf > 0.0 && linf < tiny);
  }
  default:
    return !gq_sum_acc_finite(&a->sum);
  }
}

int gq_array_reduce_run(gq_context *ctx, const gq_array_reduce *p, gq_reduce_acc *out, double *ms)
{
  if (!ctx || !p || !out || (p->n > 0 && (!p->x || ((p->kind == GQ_REDUCE_DOT || p->kind == GQ_REDUCE_RMS) && !p->y))))
    return gq_fail(GQ_EINVAL, "data reduction: NULL argument");
  const size_t esize = p->is_float ? sizeof(float) : sizeof(double);
  if (gq_check_span("data reduction", "x", p->x, p->n, esize) != GQ_SUCCESS ||
      (p->y && gq_check_span("data reduction", "y", p->y, p->n, esize) != GQ_SUCCESS))
    return GQ_EINVAL;
  gq_array_reduce q = *p;
  q.classify = 0;
  /* Timing only when asked: the CUDA backend's untimed path skips the events
   * and the copy (latency of the one-shot calls). */
  double t = 0.0, t2 = 0.0;
  int status = ctx->backend == GQ_BACKEND_CUDA ? gq_cuda_array_reduce(ctx->cuda, &q, out, ms ? &t : NULL)
                                               : gq_cpu_array_reduce(&q, out, &t);
  if (status == GQ_SUCCESS && gq_reduce_acc_needs_classify(q.kind, out)) {
    q.classify = 1;
    status = ctx->backend == GQ_BACKEND_CUDA ? gq_cuda_array_reduce(ctx->cuda, &q, out, ms ? &t2 : NULL)
                                             : gq_cpu_array_reduce(&q, out, &t2);
  }
  if (ms)
    *ms = t + t2;
  return status;
}

static int accumulate(gq_context *ctx, gq_reduce_kind kind, int is_float, size_t n, const void *x,
                      const void *y, gq_reduce_acc *acc)
{
  if (!ctx || !acc)
    return gq_fail(GQ_EINVAL, "data reduction: NULL %s", ctx ? "accumulator" : "context");
  if (n == 0)
    return GQ_SUCCESS;
  gq_array_reduce p = {kind, is_float, 0, n, x, y};
  gq_reduce_acc chunk;
  const int status = gq_array_reduce_run(ctx, &p, &chunk, NULL);
  if (status != GQ_SUCCESS)
    return status;
  gq_reduce_acc_merge_chunk(kind, acc, &chunk);
  gq_clear_error();
  return GQ_SUCCESS;
}

/* Each accumulator type is a member of gq_reduce_acc, at offset 0. */
#define GQ_ACC_ARG ((gq_reduce_acc *)(void *)(acc))
int gq_sum_accumulate(gq_context *ctx, gq_sum_acc *acc, size_t n, const double *x)
{
  return accumulate(ctx, GQ_REDUCE_SUM, 0, n, x, NULL, GQ_ACC_ARG);
}
int gq_sum_accumulate_f(gq_context *ctx, gq_sum_acc *acc, size_t n, const float *x)
{
  return accumulate(ctx, GQ_REDUCE_SUM, 1, n, x, NULL, GQ_ACC_ARG);
}
int gq_dot_accumulate(gq_context *ctx, gq_sum_acc *acc, size_t n, const double *x, const double *y)
{
  return accumulate(ctx, GQ_REDUCE_DOT, 0, n, x, y, GQ_ACC_ARG);
}
int gq_dot_accumulate_f(gq_context *ctx, gq_sum_acc *acc, size_t n, const float *x, const float *y)
{
  return accumulate(ctx, GQ_REDUCE_DOT, 1, n, x, y, GQ_ACC_ARG);
}
int gq_rms_accumulate(gq_context *ctx, gq_rms_acc *acc, size_t n, const double *a, const double *b)
{
  return accumulate(ctx, GQ_REDUCE_RMS, 0, n, a, b, GQ_ACC_ARG);
}
int gq_rms_accumulate_f(gq_context *ctx, gq_rms_acc *acc, size_t n, const float *a, const float *b)
{
  return accumulate(ctx, GQ_REDUCE_RMS, 1, n, a, b, GQ_ACC_ARG);
}
int gq_stats_accumulate(gq_context *ctx, gq_stats_acc *acc, size_t n, const double *x)
{
  return accumulate(ctx, GQ_REDUCE_STATS, 0, n, x, NULL, GQ_ACC_ARG);
}
int gq_stats_accumulate_f(gq_context *ctx, gq_stats_acc *acc, size_t n, const float *x)
{
  return accumulate(ctx, GQ_REDUCE_STATS, 1, n, x, NULL, GQ_ACC_ARG);
}
#undef GQ_ACC_ARG

/* ---- policies ----------------------------------------------------------- */
static int bad_policy(gq_nan_policy policy)
{
  return policy != GQ_NAN_PROPAGATE && policy != GQ_NAN_OMIT && policy != GQ_NAN_ERROR;
}

static int policy_error(gq_nan_policy policy, uint64_t nan_count, uint64_t inf_count, const char *what)
{
  if (policy != GQ_NAN_ERROR || nan_count + inf_count == 0)
    return GQ_SUCCESS;
  return gq_fail(GQ_EDOM, "%llu NaN and %llu infinite %s (the NaN policy is 'error')",
                 (unsigned long long)nan_count, (unsigned long long)inf_count, what);
}

/* The IEEE sum of terms that include these non-finite ones. */
static double propagated(uint64_t nan_count, uint64_t posinf, uint64_t neginf)
{
  if (nan_count > 0 || (posinf > 0 && neginf > 0))
    return NAN;
  return posinf > 0 ? INFINITY : -INFINITY;
}

int gq_sum_finish(const gq_sum_acc *acc, gq_nan_policy policy, double *result)
{
  if (!acc || !result)
    return gq_fail(GQ_EINVAL, "gq_sum_finish: NULL argument");
  if (bad_policy(policy))
    return gq_fail(GQ_EINVAL, "gq_sum_finish: no NaN policy %d", (int)policy);
  const uint64_t bad = acc->nan_count + acc->posinf_count + acc->neginf_count;
  *result = gq_sum_acc_value(acc);
  if (bad > 0 && policy != GQ_NAN_OMIT)
    *result = propagated(acc->nan_count, acc->posinf_count, acc->neginf_count);
  return policy_error(policy, acc->nan_count, acc->posinf_count + acc->neginf_count, "terms");
}

int gq_rms_finish(const gq_rms_acc *acc, gq_nan_policy policy, gq_rms_result *r)
{
  if (!acc || !r)
    return gq_fail(GQ_EINVAL, "gq_rms_finish: NULL argument");
  if (bad_policy(policy))
    return gq_fail(GQ_EINVAL, "gq_rms_finish: no NaN policy %d", (int)policy);
  const double ss = acc->sq_diff + acc->sq_diff_err;
  r->n = acc->n;
  r->nan_count = acc->nan_count;
  r->inf_count = acc->inf_count;
  gq_rms_values(ss, acc->sq_ref + acc->sq_ref_err, acc->n, &r->rms, &r->relative);
  r->rms = ldexp(r->rms, gq_scale_exp_(acc->scale)); /* the ratio needs no scale */
  r->max_abs = acc->max_abs;
  if (policy != GQ_NAN_OMIT && acc->nan_count + acc->inf_count > 0) {
    const double v = acc->nan_count > 0 ? NAN : INFINITY;
    r->rms = r->max_abs = v;
    r->relative = NAN;
  }
  return policy_error(policy, acc->nan_count, acc->inf_count, "pairs");
}

/* Every statistic from the double-double moments (reduce_acc.h), divided
 * once and rounded once, then scaled by 2^scale (4^scale for variances):
 * the mean and the variances are within an ulp of exact, and a value beyond
 * DBL_MAX (a sum, a variance) is +-Inf while the others (the mean, the sd)
 * are still given. */
static void stats_moments(const gq_stats_acc *a, gq_stats_result *s)
{
  const int e = gq_scale_exp_(a->scale);
  const double n = (double)a->n;
  const gq_csum s1 = gq_dd_make(a->s1, a->s1_err), s2 = gq_dd_make(a->s2, a->s2_err);
  const gq_csum k = gq_dd_make(a->shift, 0.0);
  const gq_csum mean = gq_dd_add(k, gq_dd_div(s1, n));
  const gq_csum sum = gq_dd_add(gq_dd_mul(gq_dd_make(n, 0.0), k), s1);
  gq_csum m2 = gq_dd_add(s2, gq_dd_neg(gq_dd_div(gq_dd_mul(s1, s1), n)));
  if (m2.s < 0.0) /* rounding of the last bits: M2 is never negative */
    m2 = gq_dd_make(0.0, 0.0);
  const double mean_scaled = mean.s + mean.c, m2_scaled = m2.s + m2.c;
  s->sum = ldexp(sum.s + sum.c, e);
  s->mean = ldexp(mean_scaled, e);
  const gq_csum vp = gq_dd_div(m2, n);
  s->var_population = ldexp(vp.s + vp.c, 2 * e);
  s->sd_population = ldexp(sqrt(vp.s + vp.c), e);
  if (a->n > 1) {
    const gq_csum vs = gq_dd_div(m2, n - 1.0);
    s->var_sample = ldexp(vs.s + vs.c, 2 * e);
    s->sd_sample = ldexp(sqrt(vs.s + vs.c), e);
  } else {
    s->var_sample = s->sd_sample = NAN; /* undefined for one value */
  }
  s->l1 = ldexp(a->abs_sum + a->abs_err, e);
  s->l2 = ldexp(sqrt(m2_scaled + n * mean_scaled * mean_scaled), e); /* sum x^2, both terms >= 0 */
}

int gq_stats_finish(const gq_stats_acc *a, gq_nan_policy policy, gq_stats_result *s)
{
  if (!a || !s)
    return gq_fail(GQ_EINVAL, "gq_stats_finish: NULL argument");
  if (bad_policy(policy))
    return gq_fail(GQ_EINVAL, "gq_stats_finish: no NaN policy %d", (int)policy);
  s->total = gq_stats_acc_total(a);
  s->n = a->n;
  s->nan_count = a->nan_count;
  s->inf_count = a->posinf_count + a->neginf_count;
  if (a->n > 0) {
    stats_moments(a, s);
  } else {
    s->sum = s->l1 = s->l2 = 0.0;
    s->mean = s->var_population = s->var_sample = s->sd_population = s->sd_sample = NAN;
  }
  s->min = a->n > 0 ? a->min : NAN;
  s->max = a->n > 0 ? a->max : NAN;
  s->argmin = a->n > 0 ? a->argmin : GQ_NO_INDEX;
  s->argmax = a->n > 0 ? a->argmax : GQ_NO_INDEX;
  s->linf = a->n > 0 ? fmax(fabs(a->min), fabs(a->max)) : 0.0;
  if (policy != GQ_NAN_OMIT && s->nan_count + s->inf_count > 0) {
    s->n = s->total;
    s->sum = s->mean = propagated(a->nan_count, a->posinf_count, a->neginf_count);
    s->var_population = s->var_sample = s->sd_population = s->sd_sample = NAN;
    s->l1 = s->l2 = s->linf = a->nan_count > 0 ? NAN : INFINITY;
    if (a->nan_count > 0) {
      s->min = s->max = NAN;
      s->argmin = s->argmax = a->first_nan;
    } else {
      if (a->neginf_count > 0) {
        s->min = -INFINITY;
        s->argmin = a->first_neginf;
      }
      if (a->posinf_count > 0) {
        s->max = INFINITY;
        s->argmax = a->first_posinf;
      }
      if (a->n == 0 && a->neginf_count == 0) { /* only +Inf: it is also the min */
        s->min = INFINITY;
        s->argmin = a->first_posinf;
      }
      if (a->n == 0 && a->posinf_count == 0) {
        s->max = -INFINITY;
        s->argmax = a->first_neginf;
      }
    }
  }
  return policy_error(policy, a->nan_count, s->inf_count, "values");
}

/* ---- one-shot forms ------------------------------------------------------ */
/* On a CUDA context the one-shot sum, dot and rms are finished on the device
 * (a lite accumulator, no classifying: the least latency).  1 when *status
 * is final (out holds the result if it is GQ_SUCCESS), 0 when the full path
 * must run: an argument it checks, or a NaN or Inf (or an overflow) that
 * only the classifying pass can sort out. */
static int finished_on_device(gq_context *ctx, gq_reduce_kind kind, int is_float, size_t n, const void *x,
                              const void *y, void *out, int *status)
{
  const size_t esize = is_float ? sizeof(float) : sizeof(double);
  if (!ctx || ctx->backend != GQ_BACKEND_CUDA || n == 0 || !x || (kind != GQ_REDUCE_SUM && !y) ||
      !gq_span_fits(x, n, esize) || (y && !gq_span_fits(y, n, esize)))
    return 0;
  gq_array_reduce p = {kind, is_float, 0, n, x, y};
  *status = gq_cuda_array_finish(ctx->cuda, &p, out);
  if (*status != GQ_SUCCESS)
    return 1;
  if (kind == GQ_REDUCE_RMS) {
    /* the lite rms does not scale: overflow, or squares near underflow
     * (differences, or ||a|| = rms sqrt(n) / relative, below 2^-399), go to
     * the full accumulator */
    const gq_rms_result *r = out;
    const double tiny = 0x1p-399;
    if (!isfinite(r->rms) || !isfinite(r->max_abs) || isnan(r->relative) || (r->max_abs > 0.0 && r->max_abs < tiny) ||
        (r->relative > 0.0 && r->rms * sqrt((double)n) / r->relative < tiny))
      return 0;
  } else if (!isfinite(*(const double *)out)) {
    return 0;
  }
  gq_clear_error();
  return 1;
}

static int one_sum(gq_context *ctx, gq_reduce_kind kind, int is_float, size_t n, const void *x,
                   const void *y, double *result)
{
  if (!result)
    return gq_fail(GQ_EINVAL, "data reduction: NULL result");
  *result = NAN;
  double v;
  int status;
  if (ctx && ctx->deterministic) {
    status = gq_exact_one_shot(ctx, kind, is_float, n, x, y, &v);
    if (status == GQ_SUCCESS)
      *result = v;
    return status;
  }
  if (finished_on_device(ctx, kind, is_float, n, x, y, &v, &status)) {
    if (status == GQ_SUCCESS)
      *result = v;
    return status;
  }
  gq_reduce_acc acc;
  gq_sum_acc_zero(&acc.sum);
  status = accumulate(ctx, kind, is_float, n, x, y, &acc);
  return status != GQ_SUCCESS ? status : gq_sum_finish(&acc.sum, GQ_NAN_PROPAGATE, result);
}

int gq_sum(gq_context *ctx, size_t n, const double *x, double *result)
{
  return one_sum(ctx, GQ_REDUCE_SUM, 0, n, x, NULL, result);
}
int gq_sum_f(gq_context *ctx, size_t n, const float *x, double *result)
{
  return one_sum(ctx, GQ_REDUCE_SUM, 1, n, x, NULL, result);
}
int gq_dot(gq_context *ctx, size_t n, const double *x, const double *y, double *result)
{
  return one_sum(ctx, GQ_REDUCE_DOT, 0, n, x, y, result);
}
int gq_dot_f(gq_context *ctx, size_t n, const float *x, const float *y, double *result)
{
  return one_sum(ctx, GQ_REDUCE_DOT, 1, n, x, y, result);
}

static int one_rms(gq_context *ctx, int is_float, size_t n, const void *x, const void *y, gq_rms_result *r)
{
  if (!r)
    return gq_fail(GQ_EINVAL, "gq_rms_diff: NULL result");
  gq_reduce_acc acc;
  gq_rms_acc_zero(&acc.rms);
  gq_rms_finish(&acc.rms, GQ_NAN_PROPAGATE, r); /* defined values on failure */
  gq_rms_result finished;
  int status;
  if (ctx && ctx->deterministic) {
    status = gq_exact_one_shot(ctx, GQ_REDUCE_RMS, is_float, n, x, y, &finished);
    if (status == GQ_SUCCESS)
      *r = finished;
    return status;
  }
  if (finished_on_device(ctx, GQ_REDUCE_RMS, is_float, n, x, y, &finished, &status)) {
    if (status == GQ_SUCCESS)
      *r = finished;
    return status;
  }
  status = accumulate(ctx, GQ_REDUCE_RMS, is_float, n, x, y, &acc);
  return status != GQ_SUCCESS ? status : gq_rms_finish(&acc.rms, GQ_NAN_PROPAGATE, r);
}
int gq_rms_diff(gq_context *ctx, size_t n, const double *x, const double *y, gq_rms_result *r)
{
  return one_rms(ctx, 0, n, x, y, r);
}
int gq_rms_diff_f(gq_context *ctx, size_t n, const float *x, const float *y, gq_rms_result *r)
{
  return one_rms(ctx, 1, n, x, y, r);
}

static int one_stats(gq_context *ctx, int is_float, size_t n, const void *x, gq_stats_result *s)
{
  if (!s)
    return gq_fail(GQ_EINVAL, "gq_stats: NULL result");
  gq_reduce_acc acc;
  gq_stats_acc_zero(&acc.stats);
  gq_stats_finish(&acc.stats, GQ_NAN_PROPAGATE, s);
  if (ctx && ctx->deterministic) {
    gq_stats_result exact;
    const int status = gq_exact_one_shot(ctx, GQ_REDUCE_STATS, is_float, n, x, NULL, &exact);
    if (status == GQ_SUCCESS)
      *s = exact;
    return status;
  }
  const int status = accumulate(ctx, GQ_REDUCE_STATS, is_float, n, x, NULL, &acc);
  return status != GQ_SUCCESS ? status : gq_stats_finish(&acc.stats, GQ_NAN_PROPAGATE, s);
}
int gq_stats(gq_context *ctx, size_t n, const double *x, gq_stats_result *s)
{
  return one_stats(ctx, 0, n, x, s);
}
int gq_stats_f(gq_context *ctx, size_t n, const float *x, gq_stats_result *s)
{
  return one_stats(ctx, 1, n, x, s);
}

/* ---- asynchronous forms (CUDA contexts only) ------------------------------ */
/* n = 0: the one-shot form's result for no elements (0 for a sum or a dot;
 * rms NaN, max_abs 0, relative NaN), written on the context's stream in
 * place of a reduction, so that it still arrives in stream order. */
static int async_identity(gq_context *ctx, gq_reduce_kind kind, void *d_result)
{
  if (kind == GQ_REDUCE_RMS) {
    gq_rms_acc none;
    gq_rms_acc_zero(&none);
    gq_rms_result r;
    gq_rms_finish(&none, GQ_NAN_PROPAGATE, &r);
    return gq_cuda_write_identity(ctx->cuda, d_result, &r, sizeof r);
  }
  const double zero = 0.0;
  return gq_cuda_write_identity(ctx->cuda, d_result, &zero, sizeof zero);
}

static int run_async(gq_context *ctx, gq_reduce_kind kind, size_t n, const void *x, const void *y, void *d_result)
{
  /* As for the one-shot forms, the inputs of an empty reduction may be NULL. */
  if (!ctx || !d_result || (n > 0 && (!x || (kind != GQ_REDUCE_SUM && !y))))
    return gq_fail(GQ_EINVAL, "asynchronous reduction: NULL argument");
  if (ctx->backend != GQ_BACKEND_CUDA)
    return gq_fail(GQ_EUNSUP, "the asynchronous reductions need a CUDA context");
  if (n == 0)
    return async_identity(ctx, kind, d_result);
  if (gq_check_span("asynchronous reduction", "x", x, n, sizeof(double)) != GQ_SUCCESS ||
      (y && gq_check_span("asynchronous reduction", "y", y, n, sizeof(double)) != GQ_SUCCESS))
    return GQ_EINVAL;
  gq_array_reduce p = {kind, 0, 0, n, x, y};
  return gq_cuda_array_async(ctx->cuda, &p, d_result);
}

int gq_sum_async(gq_context *ctx, size_t n, const double *x, double *d_result)
{
  return run_async(ctx, GQ_REDUCE_SUM, n, x, NULL, d_result);
}

int gq_dot_async(gq_context *ctx, size_t n, const double *x, const double *y, double *d_result)
{
  return run_async(ctx, GQ_REDUCE_DOT, n, x, y, d_result);
}

int gq_rms_diff_async(gq_context *ctx, size_t n, const double *x, const double *y, gq_rms_result *d_result)
{
  return run_async(ctx, GQ_REDUCE_RMS, n, x, y, d_result);
}
