/* t_exact_integrals.c — deterministic 1-D rules, product boxes
 * (Newton-Cotes, Gauss-Legendre) and Monte Carlo (issue 20): on a
 * deterministic context the grid sums, the boxes' weighted sums and the
 * moments' sums are exact, so a rule's result, coarse result and error
 * estimate, and Monte Carlo's mean and sd, have the same bits for every
 * launch grid a test can force (gq_cuda_exact_force_shape's blocks,
 * gq_mc_options.blocks: 1, 7, 13, 1000 and the resident grid), for built-in
 * and expression integrands, double and float, and agree with the fast path
 * to its accuracy.  Run with "gpu" on the device (tests/exact_integrals.gpu),
 * it also checks that the CPU gives the GPU's bits wherever f uses only
 * correctly rounded operations (+ - * / sqrt; the GPU's deterministic
 * kernels are compiled without FMA contraction, built-ins and expressions
 * alike): both sum the same terms exactly.  On the CPU it checks the results against the fast path's
 * (thread counts and ranks: tests/determ_cli.sh, tests/mpi_determ.sh). */
#include "config.h"

#include <math.h>

#include "../src/lib/exact.h" /* gq_cuda_exact_force_shape */
#include "tap_context.h"

typedef struct {
  const char *what;
  const gq_integrand *f;
  gq_rule rule;
  double a, b;
  uint64_t n;
  gq_precision precision;
  int rounded; /* f's terms are the same on CPU and GPU */
} problem;

static int same(const gq_rule_result *x, const gq_rule_result *y)
{
  return memcmp(&x->result, &y->result, sizeof x->result) == 0 &&
         memcmp(&x->coarse, &y->coarse, sizeof x->coarse) == 0 &&
         memcmp(&x->abserr, &y->abserr, sizeof x->abserr) == 0;
}

static int run(gq_context *ctx, const problem *p, gq_rule_result *out)
{
  return gq_integrate_rule(ctx, p->f, p->rule, p->a, p->b, p->n, p->precision, out);
}

int main(int argc, char **argv)
{
  int gpu = 0;
  gq_context *ctx = tap_context(argc, argv, &gpu);
  if (!ctx)
    return tap_done();
  /* on the device: a deterministic CPU context to compare bits with */
  gq_context *cpu = gpu ? gq_context_create(GQ_DEVICE_CPU) : NULL;
  if (gpu)
    tap_ok(cpu && gq_context_set_deterministic(cpu, 1) == GQ_SUCCESS, "a deterministic CPU context beside it");
  gq_integrand *expr = NULL, *ragged = NULL, *smooth = NULL;
  tap_ok(gq_integrand_parse("x*x*x - 3*x + 1/(1+x*x) + sqrt(x + 2)", NULL, 0, 1, &expr, NULL) == GQ_SUCCESS,
         "parse the expression");
  /* terms of every size and both signs: a sum that rounds differently in
   * every order */
  tap_ok(gq_integrand_parse("(x*1e7 - floor(x*1e7) - 0.5)*exp(40*x)", NULL, 0, 1, &ragged, NULL) == GQ_SUCCESS,
         "parse the ragged expression");
  tap_ok(gq_integrand_parse("x*x - 3*x + 1/(1+x*x)", NULL, 0, 1, &smooth, NULL) == GQ_SUCCESS,
         "parse the expression for normal samples");
  const problem problems[] = {
    {"circle, trapezoid", gq_integrand_builtin("circle"), GQ_RULE_TRAPEZOID, 0.0, 1.0, 3000001, GQ_PRECISION_DOUBLE, 1},
    {"gauss, simpson", gq_integrand_builtin("gauss"), GQ_RULE_SIMPSON, -3.0, 3.0, 2000002, GQ_PRECISION_DOUBLE, 0},
    {"gauss, boole, float", gq_integrand_builtin("gauss"), GQ_RULE_BOOLE, -3.0, 3.0, 400000, GQ_PRECISION_FLOAT, 0},
    {"expression, trapezoid", expr, GQ_RULE_TRAPEZOID, -1.0, 2.0, 1000003, GQ_PRECISION_DOUBLE, 1},
    {"ragged expression, boole", ragged, GQ_RULE_BOOLE, 0.0, 1.0, 4000000, GQ_PRECISION_DOUBLE, 0},
  };
  const unsigned blocks[] = {1, 7, 13, 1000};
  for (size_t i = 0; i < sizeof problems / sizeof problems[0]; i++) {
    const problem *p = &problems[i];
    if (!p->f)
      continue;
    gq_rule_result fast, first, r;
    gq_context_set_deterministic(ctx, 0);
    const int sf = run(ctx, p, &fast);
    gq_context_set_deterministic(ctx, 1);
    const int s0 = run(ctx, p, &first);
    const double tol = p->precision == GQ_PRECISION_FLOAT ? 1e-6 : 1e-13;
    tap_ok(sf == GQ_SUCCESS && s0 == GQ_SUCCESS && isfinite(first.result) &&
               fabs(first.result - fast.result) <= tol * fabs(fast.result),
           "%s: deterministic %.17g, fast %.17g", p->what, first.result, fast.result);
    if (!gpu)
      continue;
    if (p->rounded && cpu)
      tap_ok(run(cpu, p, &r) == GQ_SUCCESS && same(&r, &first), "%s: the CPU's bits (%.17g)", p->what, r.result);
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
      gq_cuda_exact_force_shape(blocks[k], 0);
      const int s = run(ctx, p, &r);
      tap_ok(s == GQ_SUCCESS && same(&r, &first), "%s: %u blocks give the same bits (%.17g)", p->what, blocks[k],
             r.result);
    }
    gq_cuda_exact_force_shape(0, 0);
    tap_ok(run(ctx, p, &r) == GQ_SUCCESS && same(&r, &first), "%s: the same bits again", p->what);
  }
  /* Boxes: a 3-D product grid (Newton-Cotes, Gauss-Legendre) and 1-D
   * Gauss-Legendre, both weighted sums exact */
  gq_integrand *box3 = NULL;
  tap_ok(gq_integrand_parse("x*y*y - z/(1+x*x) + sqrt(z + 1)", NULL, 0, 3, &box3, NULL) == GQ_SUCCESS,
         "parse the 3-D expression");
  const struct {
    const char *what;
    const gq_integrand *f;
    gq_rule_spec spec;
    gq_box box;
  } boxes[] = {
    {"3-D box, simpson", box3, {GQ_RULE_SIMPSON, 0}, {3, {0, -1, 0}, {1, 2, 3}, {200, 150, 100}}},
    {"3-D box, gauss-legendre", box3, {GQ_RULE_GAUSS_LEGENDRE, 8}, {3, {0, -1, 0}, {1, 2, 3}, {20, 30, 10}}},
    {"1-D gauss-legendre, circle", gq_integrand_builtin("circle"), {GQ_RULE_GAUSS_LEGENDRE, 0},
     {1, {0}, {1}, {100000}}},
  };
  for (size_t i = 0; i < sizeof boxes / sizeof boxes[0]; i++) {
    if (!boxes[i].f)
      continue;
    gq_rule_result fast, first, r;
    gq_context_set_deterministic(ctx, 0);
    const int sf = gq_integrate_box(ctx, boxes[i].f, boxes[i].spec, &boxes[i].box, GQ_PRECISION_DOUBLE, &fast);
    gq_context_set_deterministic(ctx, 1);
    const int s0 = gq_integrate_box(ctx, boxes[i].f, boxes[i].spec, &boxes[i].box, GQ_PRECISION_DOUBLE, &first);
    tap_ok(sf == GQ_SUCCESS && s0 == GQ_SUCCESS && isfinite(first.result) &&
               fabs(first.result - fast.result) <= 1e-13 * fabs(fast.result),
           "%s: deterministic %.17g, fast %.17g", boxes[i].what, first.result, fast.result);
    if (!gpu)
      continue;
    if (cpu) /* every box integrand is an expression of + - * / sqrt */
      tap_ok(gq_integrate_box(cpu, boxes[i].f, boxes[i].spec, &boxes[i].box, GQ_PRECISION_DOUBLE, &r) ==
                     GQ_SUCCESS &&
                 same(&r, &first),
             "%s: the CPU's bits (%.17g)", boxes[i].what, r.result);
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
      gq_cuda_exact_force_shape(blocks[k], 0);
      const int s = gq_integrate_box(ctx, boxes[i].f, boxes[i].spec, &boxes[i].box, GQ_PRECISION_DOUBLE, &r);
      tap_ok(s == GQ_SUCCESS && same(&r, &first), "%s: %u blocks give the same bits (%.17g)", boxes[i].what,
             blocks[k], r.result);
    }
    gq_cuda_exact_force_shape(0, 0);
  }
  gq_integrand_free(box3);

  /* Monte Carlo: the moments' sums exact, the same bits for every grid */
  const struct {
    const char *what;
    const gq_integrand *f;
    int dims;
    gq_mc_dist dist;
    gq_precision precision;
  } mcs[] = {
    {"mc circle, uniform", gq_integrand_builtin("circle"), 1, GQ_MC_UNIFORM, GQ_PRECISION_DOUBLE},
    {"mc expression, normal, float", smooth, 1, GQ_MC_NORMAL, GQ_PRECISION_FLOAT},
  };
  for (size_t i = 0; i < sizeof mcs / sizeof mcs[0]; i++) {
    if (!mcs[i].f)
      continue;
    gq_mc_options opt;
    gq_mc_options_init(&opt);
    opt.dims = mcs[i].dims;
    opt.dist = mcs[i].dist;
    opt.precision = mcs[i].precision;
    opt.n = 3000001;
    opt.seed = 7;
    gq_mc_result fast, first, r;
    gq_context_set_deterministic(ctx, 0);
    const int sf = gq_mc_mean(ctx, mcs[i].f, &opt, &fast);
    gq_context_set_deterministic(ctx, 1);
    const int s0 = gq_mc_mean(ctx, mcs[i].f, &opt, &first);
    /* In float the two paths' terms (f and its deviation from the shift,
     * formed by differently compiled kernels) may differ by an ulp of float
     * (2^-24) each, so their moments by up to that (H200, 2026-11-24: 3.7e-12
     * relative on this mean); in double they agree to 1e-12. */
    const double rel = mcs[i].precision == GQ_PRECISION_FLOAT ? 0x1p-23 : 1e-12;
    tap_ok(sf == GQ_SUCCESS && s0 == GQ_SUCCESS && isfinite(first.mean) &&
               fabs(first.mean - fast.mean) <= rel * fabs(fast.mean) &&
               fabs(first.sd - fast.sd) <= fmax(rel, 1e-9) * fast.sd,
           "%s: deterministic mean %.17g sd %.17g, fast %.17g %.17g", mcs[i].what, first.mean, first.sd, fast.mean,
           fast.sd);
    if (!gpu)
      continue;
    if (cpu && mcs[i].precision == GQ_PRECISION_DOUBLE && mcs[i].dist == GQ_MC_UNIFORM) /* Box-Muller: sin, cos, log */
      tap_ok(gq_mc_mean(cpu, mcs[i].f, &opt, &r) == GQ_SUCCESS && memcmp(&r.mean, &first.mean, sizeof r.mean) == 0 &&
                 memcmp(&r.sd, &first.sd, sizeof r.sd) == 0,
             "%s: the CPU's bits (%.17g, sd %.17g)", mcs[i].what, r.mean, r.sd);
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
      opt.blocks = blocks[k];
      const int s = gq_mc_mean(ctx, mcs[i].f, &opt, &r);
      tap_ok(s == GQ_SUCCESS && memcmp(&r.mean, &first.mean, sizeof r.mean) == 0 &&
                 memcmp(&r.sd, &first.sd, sizeof r.sd) == 0,
             "%s: %u blocks give the same bits (%.17g, sd %.17g)", mcs[i].what, blocks[k], r.mean, r.sd);
    }
  }
  gq_integrand_free(expr);
  gq_integrand_free(ragged);
  gq_integrand_free(smooth);
  gq_context_free(cpu);
  gq_context_free(ctx);
  return tap_done();
}
