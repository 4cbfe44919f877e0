/* hist.c — the histogram's public API: accumulators (create, merge, reset),
 * the bins as numpy computes them (hist_bin.h), and one pass over a chunk
 * dispatched to a backend (cpu/hist.c, kernels/hist/hist.cu) whose totals are
 * merged into the accumulator. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist_internal.h"

static const char *const method_names[GQ_HIST_NMETHODS] = {"auto", "global", "shared", "match", "ballot", "cluster"};

const char *gq_hist_method_name(gq_hist_method method)
{
  return (unsigned)method < GQ_HIST_NMETHODS ? method_names[method] : NULL;
}

int gq_hist_method_parse(const char *name, gq_hist_method *method)
{
  if (!name || !method)
    return gq_null_arg(__func__, name ? "method" : "name");
  for (int k = 0; k < GQ_HIST_NMETHODS; k++)
    if (strcmp(name, method_names[k]) == 0) {
      *method = (gq_hist_method)k;
      return GQ_SUCCESS;
    }
  return gq_fail(GQ_EINVAL, "unknown histogram method '%s' (auto, global, shared, match, ballot or cluster)", name);
}

static int check_axis(const char *what, uint32_t bins, double lo, double hi)
{
  if (bins == 0)
    return gq_fail(GQ_EINVAL, "histogram: %s: the number of bins must be at least 1", what);
  if (!isfinite(lo) || !isfinite(hi))
    return gq_fail(GQ_EINVAL, "histogram: %s: the range [%g, %g] is not finite", what, lo, hi);
  if (!(lo < hi))
    return gq_fail(GQ_EINVAL, "histogram: %s: the range [%.17g, %.17g] is empty (lo must be below hi)", what, lo, hi);
  if (!isfinite(hi - lo))
    return gq_fail(GQ_EINVAL, "histogram: %s: the range [%g, %g] is wider than the largest double", what, lo, hi);
  if (!isfinite((double)bins / (hi - lo))) /* hist_bin.h's scale; the step would underflow too */
    return gq_fail(GQ_EINVAL, "histogram: %s: the range [%.17g, %.17g] is too narrow for %u bins", what, lo, hi, bins);
  return GQ_SUCCESS;
}

static int make(gq_hist **out, int dims, const uint32_t bins[2], const double lo[2], const double hi[2],
                gq_hist_kind kind)
{
  if (!out)
    return gq_null_arg("gq_hist_create", "h");
  *out = NULL;
  for (int d = 0; d < dims; d++) {
    const int status = check_axis(dims == 1 ? "x" : d == 0 ? "x" : "y", bins[d], lo[d], hi[d]);
    if (status != GQ_SUCCESS)
      return status;
  }
  if ((unsigned)kind > GQ_HIST_SUMS_COMPENSATED)
    return gq_fail(GQ_EINVAL, "histogram: unknown kind %d", (int)kind);
  const uint64_t cells = (uint64_t)bins[0] * (dims == 2 ? bins[1] : 1);
  if (cells > GQ_HIST_MAX_BINS)
    return gq_fail(GQ_EINVAL, "histogram: %llu bins are more than %lu", (unsigned long long)cells,
                   (unsigned long)GQ_HIST_MAX_BINS);
  gq_hist *h = calloc(1, sizeof *h);
  if (!h)
    return gq_fail(GQ_ENOMEM, "histogram: out of memory");
  h->dims = dims;
  for (int d = 0; d < 2; d++) {
    h->bins[d] = d < dims ? bins[d] : 1;
    h->lo[d] = d < dims ? lo[d] : 0.0;
    h->hi[d] = d < dims ? hi[d] : 1.0;
  }
  h->cells = (size_t)cells;
  h->kind = kind;
  h->counts = calloc(h->cells, sizeof *h->counts);
  if (kind != GQ_HIST_COUNTS) {
    h->sums = calloc(h->cells, sizeof *h->sums);
    h->sums_err = calloc(h->cells, sizeof *h->sums_err);
  }
  if (!h->counts || (kind != GQ_HIST_COUNTS && (!h->sums || !h->sums_err))) {
    gq_hist_free(h);
    return gq_fail(GQ_ENOMEM, "histogram: out of memory for %zu bins", (size_t)cells);
  }
  *out = h;
  return GQ_SUCCESS;
}

int gq_hist_create(gq_hist **h, uint32_t bins, double lo, double hi, gq_hist_kind kind)
{
  const uint32_t b[2] = {bins, 1};
  const double l[2] = {lo, 0.0}, u[2] = {hi, 1.0};
  return make(h, 1, b, l, u, kind);
}

int gq_hist2d_create(gq_hist **h, uint32_t kx, double xlo, double xhi, uint32_t ky, double ylo, double yhi)
{
  const uint32_t b[2] = {kx, ky};
  const double l[2] = {xlo, ylo}, u[2] = {xhi, yhi};
  return make(h, 2, b, l, u, GQ_HIST_COUNTS);
}

void gq_hist_free(gq_hist *h)
{
  if (!h)
    return;
  free(h->counts);
  free(h->sums);
  free(h->sums_err);
  free(h);
}

int gq_hist_reset(gq_hist *h)
{
  if (!h)
    return gq_null_arg(__func__, "h");
  memset(h->counts, 0, h->cells * sizeof *h->counts);
  if (h->sums) {
    memset(h->sums, 0, h->cells * sizeof *h->sums);
    memset(h->sums_err, 0, h->cells * sizeof *h->sums_err);
  }
  h->under = h->over = h->nan = h->total = 0;
  h->kernel_ms = 0;
  return GQ_SUCCESS;
}

static int same_shape(const gq_hist *a, const gq_hist *b)
{
  if (a->dims != b->dims || a->kind != b->kind)
    return 0;
  for (int d = 0; d < a->dims; d++)
    if (a->bins[d] != b->bins[d] || a->lo[d] != b->lo[d] || a->hi[d] != b->hi[d])
      return 0;
  return 1;
}

/* Merge totals of keys = cells + 3 entries (the backends' and the
 * accumulators' layout differ only in where under, over and NaN sit). */
static void merge_totals(gq_hist *h, const uint64_t *counts, const double *sums, const double *errs,
                         const uint64_t extra[3])
{
  for (size_t k = 0; k < h->cells; k++) {
    h->counts[k] += counts[k];
    if (h->sums) {
      double err = h->sums_err[k] + (errs ? errs[k] : 0.0);
      h->sums[k] = gq_hist_sum_add(h->sums[k], sums[k], &err);
      h->sums_err[k] = h->sums[k] - h->sums[k] == 0.0 ? err : 0.0; /* an infinite sum carries itself */
    }
  }
  h->under += extra[GQ_HIST_UNDER];
  h->over += extra[GQ_HIST_OVER];
  h->nan += extra[GQ_HIST_NAN];
  h->total += extra[0] + extra[1] + extra[2];
  for (size_t k = 0; k < h->cells; k++)
    h->total += counts[k];
}

int gq_hist_merge(gq_hist *h, const gq_hist *other)
{
  if (!h || !other)
    return gq_null_arg(__func__, h ? "other" : "h");
  if (!same_shape(h, other))
    return gq_fail(GQ_EINVAL, "gq_hist_merge: the histograms differ in bins, range or kind");
  const uint64_t extra[3] = {other->under, other->over, other->nan};
  const uint64_t total = h->total + other->total;
  merge_totals(h, other->counts, other->sums, other->sums_err, extra);
  h->total = total; /* other's total counts what other saw, bins or not */
  h->kernel_ms += other->kernel_ms;
  return GQ_SUCCESS;
}

static gq_hist_axis axis_of(const gq_hist *h, int axis)
{
  return gq_hist_axis_make(h->bins[axis], h->lo[axis], h->hi[axis]);
}

double gq_hist_edge(const gq_hist *h, int axis, uint32_t k)
{
  if (!h || axis < 0 || axis >= h->dims || k > h->bins[axis]) {
    gq_fail(GQ_EINVAL, "gq_hist_edge: %s", !h ? "h is NULL" : "no such axis or edge");
    return NAN;
  }
  const gq_hist_axis a = axis_of(h, axis);
  return gq_hist_axis_edge(&a, k);
}

uint32_t gq_hist_bin(const gq_hist *h, int axis, double x)
{
  if (!h || axis < 0 || axis >= h->dims) {
    gq_fail(GQ_EINVAL, "gq_hist_bin: %s", !h ? "h is NULL" : "no such axis");
    return UINT32_MAX;
  }
  const gq_hist_axis a = axis_of(h, axis);
  return gq_hist_axis_bin(&a, x);
}

gq_hist_method gq_hist_method_for(const gq_context *ctx, const gq_hist *h)
{
  if (!ctx || !h) {
    gq_null_arg(__func__, ctx ? "h" : "ctx");
    return GQ_HIST_AUTO;
  }
  if (ctx->backend != GQ_BACKEND_CUDA)
    return GQ_HIST_AUTO;
  return (gq_hist_method)gq_cuda_hist_method_for(ctx->cuda, (uint32_t)h->cells + GQ_HIST_EXTRA_KEYS, h->kind);
}

int gq_hist_accumulate(gq_context *ctx, gq_hist *h, size_t n, const double *x, const double *y,
                       const double *values, gq_hist_method method)
{
  if (!ctx || !h)
    return gq_null_arg(__func__, ctx ? "h" : "ctx");
  if ((unsigned)method >= GQ_HIST_NMETHODS)
    return gq_fail(GQ_EINVAL, "gq_hist_accumulate: unknown method %d", (int)method);
  if (n == 0)
    return GQ_SUCCESS;
  if (!x || (h->dims == 2 && !y) || (h->kind != GQ_HIST_COUNTS && !values))
    return gq_null_arg(__func__, !x ? "x" : h->dims == 2 && !y ? "y" : "values");
  if (gq_check_span(__func__, "x", x, n, sizeof *x) != GQ_SUCCESS ||
      (y && gq_check_span(__func__, "y", y, n, sizeof *y) != GQ_SUCCESS) ||
      (values && gq_check_span(__func__, "values", values, n, sizeof *values) != GQ_SUCCESS))
    return GQ_EINVAL;
  gq_hist_problem p;
  memset(&p, 0, sizeof p);
  p.dims = h->dims;
  p.ax = axis_of(h, 0);
  p.ay = gq_hist_axis_make(h->bins[1], h->lo[1], h->hi[1]);
  p.keys = (uint32_t)h->cells + GQ_HIST_EXTRA_KEYS;
  p.sum = h->kind;
  p.n = n;
  p.x = x;
  p.y = h->dims == 2 ? y : NULL;
  p.values = h->kind != GQ_HIST_COUNTS ? values : NULL;
  p.method = method;
  const int values_kept = h->kind != GQ_HIST_COUNTS;
  gq_hist_out out;
  memset(&out, 0, sizeof out);
  out.counts = calloc(p.keys, sizeof *out.counts);
  out.sums = values_kept ? calloc(p.keys, sizeof *out.sums) : NULL;
  out.errs = h->kind == GQ_HIST_SUMS_COMPENSATED ? calloc(p.keys, sizeof *out.errs) : NULL;
  int status = GQ_SUCCESS;
  if (!out.counts || (values_kept && !out.sums) || (h->kind == GQ_HIST_SUMS_COMPENSATED && !out.errs))
    status = gq_fail(GQ_ENOMEM, "histogram: out of memory for %u totals", (unsigned)p.keys);
  else
    status = ctx->backend == GQ_BACKEND_CUDA ? gq_cuda_hist(ctx->cuda, &p, &out) : gq_cpu_hist(&p, &out);
  if (status == GQ_SUCCESS) {
    merge_totals(h, out.counts, out.sums, out.errs, out.counts + h->cells);
    h->method = out.method;
    h->kernel_ms += out.ms;
  }
  free(out.counts);
  free(out.sums);
  free(out.errs);
  return status;
}
