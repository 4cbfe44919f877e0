/* samples.c — gq_integrate_samples: the integral of sampled data as scipy's
 * trapezoid and simpson compute it, on either backend.
 *
 *   trapezoid, spacing dx   dx (sum y - (y_0 + y_{n-1})/2): the plain
 *                           compensated sum of y (GQ_REDUCE_SUM, reduce.c)
 *                           with the two ends taken off in its accumulator
 *   trapezoid, abscissae x  the sum of the intervals' terms (a stencil:
 *                           cpu/sampled.c, kernels/samples.cu)
 *   simpson                 the sum of the panels' terms (times dx/3 for a
 *                           spacing), and for an even n Cartwright's
 *                           correction of the last interval, on the host from
 *                           the last three samples (sampled.h)
 *
 * A sum that is not finite is rerun classifying; then the inputs are asked
 * why (the statistics' first NaN and Inf: x not finite is bad input, y not
 * finite a failed computation naming the first such index; both finite, a
 * term overflowed).
 *
 * Under a share (gq_context_set_share) a rank holds the samples of a range
 * of the panels (gq_samples_share) and sums their terms; the trapezoid's
 * ends are taken off by the ranks that hold them, Cartwright's interval is
 * the last rank's; the partial sums and that interval are combined in rank
 * order, and so is the search for the first sample that is not finite.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "internal.h"
#include "sampled.h"

/* A rank's part: panels [p0, p0 + panels) of the whole's, held as samples
 * [first, first + count); whether they include the first sample and the
 * last (the whole's ends, and for Simpson on an even n the last interval's
 * three samples).  Without a share, everything. */
typedef struct {
  uint64_t p0, panels, first, count;
  int holds_first, holds_last;
} samples_part;

static samples_part part_of(uint64_t n, int simpson, int rank, int ranks)
{
  const uint64_t whole = simpson ? (n - 1) / 2 : n - 1;
  samples_part s = {0, whole, 0, n, 1, 1};
  if (ranks <= 1)
    return s;
  if (whole == 0) { /* Simpson on two samples: rank 0's trapezoid */
    if (rank > 0)
      s.count = s.holds_first = s.holds_last = 0;
    return s;
  }
  gq_share_range(whole, 1, rank, ranks, &s.p0, &s.panels);
  if (s.panels == 0) {
    s.count = s.holds_first = s.holds_last = 0;
    return s;
  }
  s.holds_first = s.p0 == 0;
  s.holds_last = s.p0 + s.panels == whole;
  s.first = simpson ? 2 * s.p0 : s.p0;
  const uint64_t end = simpson && s.holds_last && n % 2 == 0 ? n : (simpson ? 2 : 1) * (s.p0 + s.panels) + 1;
  s.count = end - s.first;
  return s;
}

void gq_samples_share(uint64_t n, gq_rule rule, int rank, int ranks, uint64_t *first, uint64_t *count)
{
  *first = *count = 0;
  if (n < 2 || ranks < 1 || rank < 0 || rank >= ranks)
    return;
  const samples_part s = part_of(n, rule == GQ_RULE_SIMPSON, rank, ranks);
  *first = s.first;
  *count = s.count;
}

/* The group's status after a step, with partial merged over the ranks (a
 * context without a share: status). */
static int combine(gq_context *ctx, void *partial, size_t bytes, gq_merge_fn *merge, int status)
{
  if (ctx->share.ranks <= 1)
    return status;
  const int group = ctx->share.combine(partial, bytes, merge, status, ctx->share.user);
  if (group != GQ_SUCCESS && status == GQ_SUCCESS)
    return gq_fail(group, "another rank failed (%s)", gq_strerror(group));
  return group;
}

/* The stencil's sum, fast pass then classifying if it is not finite. */
static int stencil_sum(gq_context *ctx, gq_sampled_problem *p, gq_sum_acc *acc)
{
  for (p->classify = 0;; p->classify = 1) {
    const int status = ctx->backend == GQ_BACKEND_CUDA ? gq_cuda_sampled_sum(ctx->cuda, p, acc)
                                                       : gq_cpu_sampled_sum(p, acc);
    if (status != GQ_SUCCESS || p->classify || gq_sum_acc_finite(acc))
      return status;
  }
}

/* Elements [first, first + count) of v (the context's memory), widened. */
static int fetch(gq_context *ctx, const void *v, int is_float, size_t first, int count, double *out)
{
  const size_t esize = is_float ? sizeof(float) : sizeof(double);
  unsigned char buf[3 * sizeof(double)];
  const int status = gq_copy_from(ctx, buf, (const unsigned char *)v + first * esize, (size_t)count * esize);
  for (int k = 0; k < count && status == GQ_SUCCESS; k++) {
    if (is_float) {
      float f;
      memcpy(&f, buf + k * esize, sizeof f);
      out[k] = f;
    } else {
      memcpy(&out[k], buf + k * esize, sizeof out[k]);
    }
  }
  return status;
}

/* Where the first sample that is not finite is (GQ_NO_INDEX: none), and
 * which kind (0 NaN, 1 Inf, 2 -Inf), of x and of y; merged over the ranks
 * as the smaller index. */
typedef struct {
  uint64_t first[2];
  int kind[2];
} nonfinite;

static void merge_nonfinite(void *acc, const void *other)
{
  nonfinite *a = acc;
  const nonfinite *b = other;
  for (int v = 0; v < 2; v++)
    if (b->first[v] < a->first[v]) {
      a->first[v] = b->first[v];
      a->kind[v] = b->kind[v];
    }
}

/* The first index of v that is NaN or infinite (GQ_NO_INDEX: none), and
 * which kind it is. */
static int first_nonfinite(gq_context *ctx, const void *v, int is_float, size_t n, uint64_t *first, int *kind)
{
  gq_stats_acc s;
  gq_stats_acc_zero(&s);
  const int status = is_float ? gq_stats_accumulate_f(ctx, &s, n, v) : gq_stats_accumulate(ctx, &s, n, v);
  *first = GQ_NO_INDEX;
  if (status != GQ_SUCCESS)
    return status;
  const uint64_t indices[3] = {s.first_nan, s.first_posinf, s.first_neginf};
  for (int k = 0; k < 3; k++)
    if (indices[k] < *first) {
      *first = indices[k];
      *kind = k;
    }
  return GQ_SUCCESS;
}

/* Why the integral is not finite (every rank of a share asks its part). */
static int diagnose(gq_context *ctx, const void *y, const void *x, const samples_part *part, int is_float,
                    gq_samples_result *out)
{
  static const char *const names[3] = {"NaN", "Inf", "-Inf"};
  nonfinite found = {{GQ_NO_INDEX, GQ_NO_INDEX}, {0, 0}};
  int status = x && part->count ? first_nonfinite(ctx, x, is_float, part->count, &found.first[0], &found.kind[0])
                                : GQ_SUCCESS;
  if (status == GQ_SUCCESS && part->count)
    status = first_nonfinite(ctx, y, is_float, part->count, &found.first[1], &found.kind[1]);
  for (int v = 0; v < 2; v++) /* the whole's indices */
    if (found.first[v] != GQ_NO_INDEX)
      found.first[v] += part->first;
  status = combine(ctx, &found, sizeof found, merge_nonfinite, status);
  if (status != GQ_SUCCESS)
    return status;
  if (found.first[0] != GQ_NO_INDEX)
    return gq_fail(GQ_EINVAL, "x[%llu] is %s: the abscissae must be finite", (unsigned long long)found.first[0],
                   names[found.kind[0]]);
  if (found.first[1] != GQ_NO_INDEX) {
    out->first_bad = found.first[1];
    return gq_fail(GQ_EDOM, "y[%llu] is %s: the integral is %g", (unsigned long long)found.first[1],
                   names[found.kind[1]], out->value);
  }
  if (isnan(out->value))
    return gq_fail(GQ_EDOM, "terms overflowed with both signs (finite samples near DBL_MAX): the integral is NaN");
  return GQ_SUCCESS; /* an overflow: +-inf, as scipy's */
}

/* A rank's terms, and the last interval (simpson, even n: the last rank's;
 * 0 elsewhere, so that adding the ranks' gives it exactly). */
typedef struct {
  gq_sum_acc acc;
  double last;
} samples_sum;

static void merge_sum_last(void *acc, const void *other)
{
  samples_sum *a = acc;
  const samples_sum *b = other;
  gq_sum_acc_merge(&a->acc, &b->acc);
  a->last += b->last;
}

/* Take t off the accumulator (a term like the others: scaled when it must). */
static void take_off(gq_sum_acc *acc, double t)
{
  if (isfinite(t))
    gq_sum_acc_add_scaled(acc, -t, 0.0, 0);
}

int gq_integrate_samples(gq_context *ctx, const void *y, const void *x, size_t n, double dx, gq_rule rule,
                         int is_float, gq_samples_result *out)
{
  if (!out)
    return gq_null_arg(__func__, "out");
  out->value = out->abs_sum = NAN;
  out->n = n;
  out->first_bad = GQ_NO_INDEX;
  if (!ctx || (!y && ctx->share.ranks <= 1))
    return gq_null_arg(__func__, ctx ? "y" : "ctx");
  if (rule != GQ_RULE_TRAPEZOID && rule != GQ_RULE_SIMPSON)
    return gq_fail(GQ_EINVAL, "%s: sampled data take the trapezoid or Simpson's rule, not %s", __func__,
                   gq_rule_name(rule));
  if (n < 2)
    return gq_fail(GQ_EINVAL, "%s: %zu sample%s: at least 2 are needed (scipy gives 0 for fewer)", __func__, n,
                   n == 1 ? "" : "s");
  if (!x && !isfinite(dx))
    return gq_fail(GQ_EINVAL, "%s: the spacing dx = %g is not finite", __func__, dx);
  const int simpson = rule == GQ_RULE_SIMPSON;
  const samples_part part = part_of(n, simpson, ctx->share.rank, ctx->share.ranks);
  const size_t esize = is_float ? sizeof(float) : sizeof(double), held = (size_t)part.count;
  /* a rank's own arguments: refused at the combine, which every rank reaches */
  int status = GQ_SUCCESS;
  if (!y && held > 0)
    status = gq_null_arg(__func__, "y");
  else if (held > 0 && (gq_check_span(__func__, "y", y, held, esize) != GQ_SUCCESS ||
                        (x && gq_check_span(__func__, "x", x, held, esize) != GQ_SUCCESS)))
    status = GQ_EINVAL;
  else if ((uintptr_t)y % esize || (uintptr_t)x % esize)
    status = gq_fail(GQ_EINVAL, "%s: y and x must be aligned to their element size", __func__);

  /* this rank's terms (all of them without a share), and the last interval */
  samples_sum sum;
  gq_sum_acc_zero(&sum.acc);
  sum.last = 0.0;
  if (status != GQ_SUCCESS || held == 0) {
    /* nothing to sum: on to the combine */
  } else if (!simpson && !x) {
    /* the panels' first samples, and the last sample where it is held */
    const gq_array_reduce p = {GQ_REDUCE_SUM, is_float, 0, (size_t)part.panels + (size_t)part.holds_last, y, NULL};
    gq_reduce_acc r;
    double ends[2];
    status = gq_array_reduce_run(ctx, &p, &r, NULL);
    if (status == GQ_SUCCESS)
      status = fetch(ctx, y, is_float, 0, 1, &ends[0]);
    if (status == GQ_SUCCESS)
      status = fetch(ctx, y, is_float, held - 1, 1, &ends[1]);
    if (status == GQ_SUCCESS) {
      sum.acc = r.sum;
      if (part.holds_first)
        take_off(&sum.acc, ends[0] / 2.0);
      if (part.holds_last)
        take_off(&sum.acc, ends[1] / 2.0);
    }
  } else {
    gq_sampled_problem p = {simpson, is_float, 0, (size_t)part.panels, y, x};
    if (simpson && n % 2 == 0 && part.holds_last) {
      /* the last three samples (two for n = 2) and their spacings */
      const int k = n == 2 ? 2 : 3;
      double ys[3], xs[3];
      status = fetch(ctx, y, is_float, held - (size_t)k, k, ys);
      if (status == GQ_SUCCESS && x)
        status = fetch(ctx, x, is_float, held - (size_t)k, k, xs);
      if (status == GQ_SUCCESS && k == 2) /* scipy: 0.5 last_dx (y[-1] + y[-2]) */
        sum.last = 0.5 * (x ? xs[1] - xs[0] : dx) * (ys[1] + ys[0]);
      else if (status == GQ_SUCCESS)
        sum.last = gq_simpson_last_interval(x ? xs[1] - xs[0] : dx, x ? xs[2] - xs[1] : dx, ys[0], ys[1], ys[2]);
    }
    if (status == GQ_SUCCESS && p.panels > 0)
      status = stencil_sum(ctx, &p, &sum.acc);
  }
  status = combine(ctx, &sum, sizeof sum, merge_sum_last, status);
  if (status != GQ_SUCCESS)
    return status;
  const gq_sum_acc acc = sum.acc;
  const double last = sum.last;
  /* a spacing's factor: dx, or dx/3 for simpson (scipy's result *= dx / 3.0) */
  const double factor = x ? 1.0 : simpson ? dx / 3.0 : dx;
  /* The factor goes in before the scale (2^scale): an integral that fits a
   * double is given even when sum y does not (scipy's (y0 + y1) would be
   * inf); non-finite terms propagate as IEEE arithmetic would. */
  double propagated;
  gq_sum_finish(&acc, GQ_NAN_PROPAGATE, &propagated);
  const int e = gq_scale_exp_(acc.scale);
  const uint64_t bad = acc.nan_count + acc.posinf_count + acc.neginf_count;
  out->value = (bad ? factor * propagated : ldexp(factor * (acc.sum + acc.sum_err), e)) + last;
  out->abs_sum = ldexp(fabs(factor) * acc.abs_sum, e) + fabs(last);
  if (!isfinite(out->value))
    return diagnose(ctx, y, x, &part, is_float, out);
  gq_clear_error();
  return GQ_SUCCESS;
}
