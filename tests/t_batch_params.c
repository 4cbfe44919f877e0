/* t_batch_params.c — parameters as run-time values (issue 23): an
 * expression parsed with symbolic parameters reads them from gq_params[]
 * in its CUDA source, keeps their values, and gives every value of the
 * parameters one JIT key (one NVRTC compilation per expression); where its
 * power-of-two scale differs from the baked expression's, the baked one is
 * compiled instead.  With CUDA configured, NVRTC compiles the modules (it
 * needs no GPU). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/lib/expr/expr.h"
#include "../src/lib/internal.h"
#include "../src/lib/packed.h"
#include "../src/lib/scan_internal.h"
#include "tap.h"

static gq_integrand *parse(const char *text, const char *p0, const char *p1, int dims)
{
  const char *defs[2] = {p0, p1};
  gq_integrand *f = NULL;
  const int status = gq_integrand_parse(text, defs, p1 ? 2 : p0 ? 1 : 0, dims, &f, NULL);
  tap_ok(status == GQ_SUCCESS, "parse %s with %s%s%s", text, p0 ? p0 : "no parameter", p1 ? " " : "",
         p1 ? p1 : "");
  return f;
}

int main(void)
{
  /* the expression layer: parameters become gq_params[j], values kept */
  const char *defs[] = {"k=3", "c=0.25"};
  gq_expr_params params = {defs, 2};
  gq_expr *e = NULL;
  tap_ok(gq_expr_parse_symbolic("sin(k*x)/(c+x)", &params, 1, &e, NULL) == GQ_SUCCESS, "symbolic parse");
  char *src = NULL;
  tap_ok(gq_expr_emit_cuda_params(e, "g", 0, &src) == GQ_SUCCESS, "emit with parameters");
  tap_ok(src && strstr(src, "gq_params[0]") && strstr(src, "gq_params[1]"), "the source reads gq_params[0] and [1]");
  tap_ok(src && !strstr(src, "0.25") && !strstr(src, "3.0"), "no value is baked into the source");
  free(src);
  tap_ok(gq_expr_emit_cuda_params(e, "g", 1, &src) == GQ_SUCCESS && strstr(src, "((float)gq_params[0])"),
         "float: the parameter rounded to float once");
  free(src);
  const double *values = NULL;
  tap_ok(gq_expr_param_values(e, &values) == 2 && values[0] == 3.0 && values[1] == 0.25, "values kept: 3, 0.25");
  gq_expr_free(e);
  tap_ok(gq_expr_parse("x", NULL, 1, &e, NULL) == GQ_SUCCESS && gq_expr_emit_cuda_params(e, "g", 0, &src) == GQ_EINVAL,
         "an expression without parameters has no parametrised source");
  gq_expr_free(e);

  /* integrands: one key for every value */
  gq_integrand *k3 = parse("sin(k*x)/(1+x)", "k=3", NULL, 1), *k4 = parse("sin(k*x)/(1+x)", "k=4", NULL, 1),
               *plain = parse("sin(3*x)/(1+x)", NULL, NULL, 1);
  if (k3 && k4 && plain) {
    tap_ok(strcmp(gq_integrand_jit_key(k3), gq_integrand_jit_key(k4)) == 0, "k=3 and k=4 share the key %s",
           gq_integrand_jit_key(k3));
    tap_ok(strcmp(gq_integrand_jit_key(k3), gq_integrand_jit_key(plain)) != 0, "a baked expression has another key");
    tap_ok(strcmp(gq_integrand_formula(k3), gq_integrand_formula(plain)) == 0, "the formula shows the value: %s",
           gq_integrand_formula(k3));
    tap_ok(gq_integrand_gpu_params(k4, &values) == 1 && values[0] == 4.0, "k=4: the module reads 4");
    tap_ok(gq_integrand_gpu_params(plain, &values) == 0, "no parameter: nothing to read");
  }
  /* 2*k*x with k = 2 bakes to 4*x (scale 4); the symbolic form has scale 1 */
  gq_integrand *scaled = parse("2*k*x", "k=2", NULL, 1), *three = parse("2*k*x", "k=3", NULL, 1);
  if (scaled && three) {
    tap_ok(gq_integrand_gpu_params(scaled, &values) == 0, "a scale the symbolic form lacks: baked (k=2)");
    tap_ok(strcmp(gq_integrand_jit_key(scaled), gq_integrand_jit_key(three)) != 0, "  ...under its own key");
  }
  /* the same scale split off both forms: 4*sin(k*x) */
  gq_integrand *four = parse("4*sin(k*x)", "k=5", NULL, 1);
  if (four)
    tap_ok(gq_integrand_gpu_params(four, &values) == 1 && values[0] == 5.0, "4*sin(k*x): the shared module");
  /* Monte Carlo in 3 dimensions: the parameters come after x1..x3 */
  gq_integrand *mc = parse("exp(-a*(x1^2+x2^2+x3^2))+b", "a=0.5", "b=1", 3);

#ifdef HAVE_CUDA
  const gq_integrand *compiled[] = {k3, four};
  for (size_t i = 0; i < 2; i++)
    for (int p = 0; p < 2 && compiled[i]; p++) {
      size_t size = 0;
      const int st = gq_jit_compile_only(compiled[i], p, 90, &size);
      tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_90 %s, parameters as values: %s (%zu-byte cubin)%s%s",
             p ? "float" : "double", gq_integrand_jit_key(compiled[i]), size, st ? ": " : "",
             st ? gq_last_error() : "");
    }
  for (int p = 0; p < 2 && k3; p++) /* the batch module: each block's parameters in shared memory */
    for (int small = 0; small < 2; small++) {
      size_t size = 0;
      const int st = gq_jit_batch_compile_only(k3, p, small, 90, &size);
      tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_90 batch module, %s, %s shape (%zu-byte cubin)%s%s",
             p ? "float" : "double", small ? "small" : "large", size, st ? ": " : "", st ? gq_last_error() : "");
    }
  if (k3) { /* --cumulative with a parameter */
    size_t size = 0;
    const int st = gq_jit_cumulative_compile_only(k3, 90, &size);
    tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_90 cumulative, parameters as values (%zu-byte cubin)%s%s",
           size, st ? ": " : "", st ? gq_last_error() : "");
  }
  if (mc) {
    size_t size = 0;
    const int st = gq_jit_mc_compile_only(mc, 3, 0, 0, 90, &size);
    tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_90 mc, parameters as values (%zu-byte cubin)%s%s", size,
           st ? ": " : "", st ? gq_last_error() : "");
    size = 0;
    const int pst = gq_jit_product_compile_only(mc, 0, 3, 4, 90, &size);
    tap_ok(pst == GQ_SUCCESS && size > 1000, "NVRTC sm_90 product, parameters as values (%zu-byte cubin)%s%s",
           size, pst ? ": " : "", pst ? gq_last_error() : "");
  }
#endif
  /* the library's batch call: each result bitwise the single call's; a
   * failing problem has its status and the others still run */
  gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
  const char *names[] = {"k", "c"};
  const double sets[] = {1, 0.25, 2, 0.5, 3, 0.75, 4, 0.5 + 0x1p-40};
  const double pi = 3.14159265358979323846;
  gq_box box = {.dims = 1, .a = {0.0}, .b = {pi}, .n = {1000}};
  gq_rule_spec spec = {GQ_RULE_SIMPSON, 0};
  gq_rule_result results[4], alone;
  int statuses[4] = {-1, -1, -1, -1};
  tap_ok(gq_integrate_box_batch(ctx, "sin(k*x)/(c+x)", names, 2, sets, 4, spec, &box, GQ_PRECISION_DOUBLE, results,
                                statuses) == GQ_SUCCESS, "batch of 4: success");
  for (int i = 0; i < 4; i++) {
    char d0[64], d1[64];
    snprintf(d0, sizeof d0, "k=%.17g", sets[2 * i]);
    snprintf(d1, sizeof d1, "c=%.17g", sets[2 * i + 1]);
    gq_integrand *f = parse("sin(k*x)/(c+x)", d0, d1, 1);
    if (f && gq_integrate_box(ctx, f, spec, &box, GQ_PRECISION_DOUBLE, &alone) == GQ_SUCCESS)
      tap_ok(statuses[i] == GQ_SUCCESS && memcmp(&alone.result, &results[i].result, sizeof alone.result) == 0 &&
             memcmp(&alone.abserr, &results[i].abserr, sizeof alone.abserr) == 0,
             "problem %d is the single call's to the bit (%.17g)", i, results[i].result);
    gq_integrand_free(f);
  }
  /* 1/(x-c) with c on the grid point x_500 = fma(500, h, 0) is not finite there */
  for (int i = 0; i < 3; i++)
    statuses[i] = -1;
  const double pole_sets[3] = {-1.0, fma(500.0, pi / 1000.0, 0.0), 4.0};
  const int st = gq_integrate_box_batch(ctx, "1/(x-c)", names + 1, 1, pole_sets, 3, spec, &box, GQ_PRECISION_DOUBLE,
                                        results, statuses);
  tap_ok(st == GQ_EDOM && statuses[0] == GQ_SUCCESS && statuses[1] == GQ_EDOM && statuses[2] == GQ_SUCCESS,
         "a pole on the grid: GQ_EDOM for it alone (%d %d %d), '%s'", statuses[0], statuses[1], statuses[2],
         gq_last_error());
  tap_ok(strstr(gq_last_error(), "problem 1") != NULL, "  ...the message names the problem");
  /* the expression is parsed once and rebound to each set: a value that no
   * definition can carry fails as its own parse fails, the others run */
  const double nan_sets[3] = {1.0, NAN, 3.0};
  for (int i = 0; i < 3; i++)
    statuses[i] = -1;
  const int nan_st = gq_integrate_box_batch(ctx, "k*x", names, 1, nan_sets, 3, spec, &box, GQ_PRECISION_DOUBLE,
                                            results, statuses);
  tap_ok(nan_st == GQ_EINVAL && statuses[0] == GQ_SUCCESS && statuses[1] == GQ_EINVAL && statuses[2] == GQ_SUCCESS &&
             strstr(gq_last_error(), "problem 1"),
         "k = NaN: GQ_EINVAL for it alone (%d %d %d), '%s'", statuses[0], statuses[1], statuses[2], gq_last_error());
  tap_ok(fabs(results[2].result - 1.5 * pi * pi) < 1e-12,
         "  ...k = 3 after it: %.17g", results[2].result);
  tap_ok(gq_integrate_box_batch(ctx, "x", NULL, 1, sets, 1, spec, &box, GQ_PRECISION_DOUBLE, results, statuses) ==
             GQ_EINVAL, "NULL names: GQ_EINVAL");
  const char *bad[] = {"k=1"};
  tap_ok(gq_integrate_box_batch(ctx, "k*x", bad, 1, sets, 1, spec, &box, GQ_PRECISION_DOUBLE, results, statuses) ==
             GQ_EINVAL, "a name holding '=': GQ_EINVAL");
  tap_ok(gq_integrate_box_batch(ctx, "x", NULL, 0, NULL, 0, spec, &box, GQ_PRECISION_DOUBLE, NULL, NULL) ==
             GQ_SUCCESS, "count 0: nothing to do");
  gq_context_free(ctx);

  gq_integrand *all[] = {k3, k4, plain, scaled, three, four, mc};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    gq_integrand_free(all[i]);
  return tap_done();
}
