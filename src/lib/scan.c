/* scan.c — prefix sums and cumulative integrals: the public entry points,
 * their argument checks, and the dispatch to a backend (cpu/scan.c,
 * kernels/scan/scan.cu). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "scan_internal.h"

static size_t type_size(gq_scan_type type) { return type == GQ_SCAN_F32 ? sizeof(float) : 8; }

int gq_scan(gq_context *ctx, gq_scan_type type, int exclusive, gq_scan_method method, size_t n, const void *x,
            void *y, gq_scan_carry *carry)
{
  if (!ctx)
    return gq_null_arg(__func__, "ctx");
  if (type != GQ_SCAN_F64 && type != GQ_SCAN_F32 && type != GQ_SCAN_I64)
    return gq_fail(GQ_EINVAL, "gq_scan: unknown type %d", (int)type);
  if (method != GQ_SCAN_LOOKBACK && method != GQ_SCAN_THREE_PHASE && method != GQ_SCAN_CUB)
    return gq_fail(GQ_EINVAL, "gq_scan: unknown method %d", (int)method);
  if (n == 0)
    return GQ_SUCCESS;
  if (!x)
    return gq_null_arg(__func__, "x");
  if (!y)
    return gq_null_arg(__func__, "y");
  int status = gq_check_span(__func__, "x", x, n, type_size(type));
  if (status == GQ_SUCCESS)
    status = gq_check_span(__func__, "y", y, n, type_size(type));
  if (status != GQ_SUCCESS)
    return status;
  gq_scan_carry zero = {0.0, 0.0, 0};
  const gq_scan_call p = {type, exclusive != 0, method, n, x, y};
  gq_clear_error();
  if (ctx->backend == GQ_BACKEND_CPU)
    return method == GQ_SCAN_CUB ? gq_fail(GQ_EUNSUP, "gq_scan: the CUB method needs a CUDA context")
                                 : gq_cpu_scan(&p, carry ? carry : &zero);
#ifdef HAVE_CUDA
  return gq_cuda_scan(ctx->cuda, &p, carry ? carry : &zero);
#else
  return gq_fail(GQ_ENODEV, "gq_scan: built without CUDA");
#endif
}

int gq_scan_carry_merge(gq_scan_carry *carry, const gq_scan_carry *later)
{
  if (!carry || !later)
    return gq_null_arg(__func__, carry ? "later" : "carry");
  gq_csum acc = {carry->sum, carry->err};
  gq_csum_merge(&acc, (gq_csum){later->sum, later->err});
  carry->sum = acc.s;
  carry->err = acc.c;
  carry->isum = (int64_t)((uint64_t)carry->isum + (uint64_t)later->isum);
  return GQ_SUCCESS;
}

uint64_t gq_cumulative_count(uint64_t n, uint64_t every)
{
  if (every == 0)
    return 0;
  return n / every + 1 + (n % every != 0);
}

int gq_cumulative_integral(gq_context *ctx, const gq_integrand *f, double a, double b, uint64_t n,
                           gq_rule rule, double *out, uint64_t every, double *kernel_ms)
{
  if (kernel_ms)
    *kernel_ms = 0.0;
  if (!ctx)
    return gq_null_arg(__func__, "ctx");
  if (!f)
    return gq_null_arg(__func__, "f");
  if (!out)
    return gq_null_arg(__func__, "out");
  if (rule == GQ_RULE_BOOLE || rule == GQ_RULE_GAUSS_LEGENDRE)
    return gq_fail(GQ_EUNSUP, "cumulative integrals: the trapezoid or Simpson rule (a cumulative %s is not built)",
                   gq_rule_name(rule));
  if (rule != GQ_RULE_TRAPEZOID && rule != GQ_RULE_SIMPSON)
    return gq_fail(GQ_EINVAL, "unknown rule %d", (int)rule);
  if (!isfinite(a) || !isfinite(b))
    return gq_fail(GQ_EINVAL, "cumulative integrals need finite limits (a = %g, b = %g)", a, b);
  if (n < 1 || n > GQ_TRAPEZOID_MAX_N)
    return gq_fail(GQ_EINVAL, "the number of intervals must be between 1 and 2^53");
  if (every == 0)
    return gq_fail(GQ_EINVAL, "every must be at least 1");
  if (gq_integrand_dims(f) > 1)
    return gq_fail(GQ_EINVAL, "cumulative integrals are of f(x): the integrand uses %d variables",
                   gq_integrand_dims(f));
  const double h = (b - a) / (double)n;
  if (!isfinite(h))
    return gq_fail(GQ_EINVAL, "b - a overflows a double (a = %g, b = %g)", a, b);
  /* a share computes its range of the values (gq_cumulative_share) */
  const int shared = ctx->share.ranks > 1;
  uint64_t count = gq_cumulative_count(n, every), first_value = 0, first_point = 0, points = n + 1;
  if (shared)
    gq_cumulative_share(n, every, ctx->share.rank, ctx->share.ranks, &first_value, &count, &first_point, &points);
  int status = count ? gq_check_span(__func__, "out", out, count, sizeof(double)) : GQ_SUCCESS;
  if (status != GQ_SUCCESS)
    return status;
  gq_clear_error();
  /* Simpson's parabolas need three points: one interval is the trapezoid's
   * (as scipy's cumulative_simpson falls back to it). */
  gq_cumulative_call p = {f, a, b, h, n, every, out, rule == GQ_RULE_SIMPSON && n >= 2, first_point, points, NULL,
                          NULL};
  gq_grid_info info = {0.0, 0.0, GQ_JIT_NONE};
  if (shared && ctx->backend == GQ_BACKEND_CPU) {
    status = gq_shared_cumulative(ctx, &p, &info);
  } else if (ctx->backend == GQ_BACKEND_CPU) {
    status = gq_cpu_cumulative(&p, &info);
  } else {
#ifdef HAVE_CUDA
    /* The GPU compiles one kernel per expression: a built-in runs as the
     * expression of its formula (as Monte Carlo runs it). */
    gq_integrand *parsed = NULL;
    if (gq_integrand_is_builtin(f)) {
      status = gq_integrand_parse(gq_integrand_formula(f), NULL, 0, 1, &parsed, NULL);
      if (status != GQ_SUCCESS)
        return gq_fail(status, "cannot compile the built-in %s: %s", gq_integrand_name(f), gq_last_error());
      p.f = parsed;
    }
    status = shared ? gq_shared_cumulative(ctx, &p, &info) : gq_cuda_cumulative(ctx->cuda, &p, &info);
    gq_integrand_free(parsed);
#else
    status = gq_fail(GQ_ENODEV, "gq_cumulative_integral: built without CUDA");
#endif
  }
  if (kernel_ms)
    *kernel_ms = info.ms;
  if (status != GQ_SUCCESS || shared) /* a share's F(b): gq_shared_cumulative's */
    return status;
  double last = 0.0;
  status = gq_copy_from(ctx, &last, out + (count - 1), sizeof last);
  if (status != GQ_SUCCESS)
    return status;
  if (!isfinite(last))
    return gq_fail(GQ_EDOM, "the cumulative integral is not finite (F(b) = %g): f is not finite on the grid", last);
  return GQ_SUCCESS;
}
