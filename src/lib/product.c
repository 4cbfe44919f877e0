/* product.c — a rule over a box (gq_integrate_box): product grids in 1 to
 * GQ_MAX_DIM dimensions, for the Newton-Cotes rules and Gauss-Legendre.
 *
 * A product rule is the tensor product of one rule per axis: point
 * (i_1, ..., i_D) carries the weight w_1(i_1) ... w_D(i_D) and the rule's
 * value is c_1 ... c_D times the weighted sum of f, c_d the axis' scale
 * (h/2, h/3, 2h/45 or H/2).  Its error estimate comes from a lower-order
 * rule on the same points, the product of each axis' lower rule:
 *   trapezoid  T(2h) on the even points (n odd: T(2h) up to x_{n-1}, then
 *              T(h) on the last interval), estimate |T(h) - T(2h)|/3
 *   simpson    S(2h) (n % 4 == 0, estimate /15) or T(2h) (estimate /4)
 *   boole      S(2h), estimate /16
 *   gauss-legendre:K  the interpolatory rule on K - 1 of the K nodes
 *              (gauss.h): degree K - 2 against the rule's 2K - 1, so
 *              |G - L| bounds the error of L and, for the far more accurate
 *              G, is a pessimistic estimate; abserr is that difference
 * As in one dimension (rules.c), the Newton-Cotes estimates divide the
 * difference by 2^q - 1 for the rule compared with, and difference itself
 * is the bound the check uses.  Every axis' error adds to the product's;
 * halving every h shrinks each by 2^q, so the one-dimensional factors hold.
 *
 * The weights kept in the tables are small integers and halves for
 * Newton-Cotes (their products are exact) and the Gauss-Legendre weights on
 * [-1, 1]; the scales are applied once, to the compensated sums.  One
 * dimension with a Newton-Cotes rule is rules.c's grid (its index classes
 * reach 2^53 points); everything else is a product grid: a Newton-Cotes axis
 * holds its n + 1 points in a table (at most GQ_PRODUCT_MAX_TABLE), a
 * Gauss-Legendre axis only its K nodes, whatever the number of panels.
 *
 * Every integrand goes to the backends as an expression (a built-in as its
 * formula): the GPU compiles one kernel per expression, dimensions and kind
 * of axis.  An infinite limit maps its axis by rules.c's change of
 * variables; in several dimensions g is 0 at a pole of phi (the guard),
 * which is its limit where f decays faster than 1/|x|^2 along that axis —
 * Gauss-Legendre never evaluates there. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "gauss.h"
#include "internal.h"

/* Points per Newton-Cotes axis in a product grid (a table of 4 doubles per
 * point, 512 MiB at most, on the host and the device). */
#define GQ_PRODUCT_MAX_TABLE (UINT64_C(1) << 24)

typedef struct {
  double scale_hi, scale_lo; /* the axis' factors of the two sums         */
  double divisor;            /* the Richardson divisor of the difference  */
  const char *formula;
  double *table;             /* K entries of 4 doubles (internal.h)       */
} axis_rule;

/* The Newton-Cotes weights (units of the scale) of point i of n: the
 * rule's (hi) and the lower rule's. */
static void nc_weights(gq_rule rule, uint64_t i, uint64_t n, double *hi, double *lo)
{
  const int end = i == 0 || i == n;
  switch (rule) {
  case GQ_RULE_TRAPEZOID: /* h/2 (1, 2, ..., 2, 1) */
    *hi = end ? 1.0 : 2.0;
    if (n % 2 == 0)
      *lo = end ? 2.0 : (i % 2 ? 0.0 : 4.0);
    else /* T(2h) over [x_0, x_{n-1}], T(h) over the last interval */
      *lo = i == 0 ? 2.0 : i == n ? 1.0 : i == n - 1 ? 3.0 : (i % 2 ? 0.0 : 4.0);
    break;
  case GQ_RULE_SIMPSON: /* h/3 (1, 4, 2, 4, ..., 4, 1) */
    *hi = end ? 1.0 : (i % 2 ? 4.0 : 2.0);
    if (n % 4 == 0) /* S(2h) = 2h/3 (1, 0, 4, 0, 2, ...) */
      *lo = end ? 2.0 : (i % 2 ? 0.0 : (i % 4 ? 8.0 : 4.0));
    else /* T(2h) = h (1, 0, 2, ..., 0, 1) */
      *lo = end ? 3.0 : (i % 2 ? 0.0 : 6.0);
    break;
  default: /* boole: 2h/45 (7, 32, 12, 32, 14, ...); S(2h) = 2h/3 (...) = 2h/45 15 (...) */
    *hi = end ? 7.0 : (i % 2 ? 32.0 : (i % 4 ? 12.0 : 14.0));
    *lo = end ? 15.0 : (i % 2 ? 0.0 : (i % 4 ? 60.0 : 30.0));
    break;
  }
}

/* The table and factors of one axis: [a, b] (finite) in n intervals or
 * panels. */
/* Runs (product_source.cuh): the GPU takes 4 points of axis 1 per item, the
 * lanes of a warp side by side and the 4 points a warp apart, so axis 1's
 * table is padded to a multiple of GQ_PRODUCT_RUN_SPAN = 32 x 4 points
 * (weight 0, the last point again; the CPU walks the same padded grid).
 * Only where that adds at most an eighth: a short axis stays as it is. */
#define GQ_PRODUCT_RUN_SPAN 128

static uint64_t run_padded(uint64_t K) { return (K + GQ_PRODUCT_RUN_SPAN - 1) / GQ_PRODUCT_RUN_SPAN * GQ_PRODUCT_RUN_SPAN; }
static int runs_pay(uint64_t K) { return K <= GQ_PRODUCT_MAX_TABLE && 8 * run_padded(K) <= 9 * K; }

static int pad_axis(gq_product_sum *p, axis_rule *ax)
{
  const size_t K = p->K[0], padded = (size_t)run_padded(K);
  if (padded == K)
    return GQ_SUCCESS;
  double *t = realloc(ax->table, 4 * padded * sizeof(double));
  if (!t)
    return gq_fail(GQ_ENOMEM, "cannot allocate the points of axis 1");
  for (size_t k = K; k < padded; k++) {
    double *e = t + 4 * k;
    e[0] = e[1] = e[3] = 0.0;
    e[2] = t[4 * (K - 1) + 2];
  }
  ax->table = t;
  p->K[0] = (uint32_t)padded;
  return GQ_SUCCESS;
}

/* A Gauss-Legendre axis 1 as a plain table of its K P points (as the
 * backends would compute them from the panels), when it fits. */
static int expand_axis(gq_product_sum *p, axis_rule *ax)
{
  const size_t K = p->K[0], P = p->P[0], m = K * P;
  double *t = malloc(4 * m * sizeof(double));
  if (!t)
    return gq_fail(GQ_ENOMEM, "cannot allocate the points of axis 1");
  for (size_t q = 0; q < P; q++)
    for (size_t k = 0; k < K; k++) {
      double *e = t + 4 * (q * K + k);
      const double *node = ax->table + 4 * k;
      e[0] = node[0];
      e[1] = node[1];
      e[2] = fma((double)q, p->H[0], node[2]);
      e[3] = 0.0;
    }
  free(ax->table);
  ax->table = t;
  p->K[0] = (uint32_t)m;
  p->P[0] = 1;
  p->H[0] = 0.0;
  p->panels &= ~1u;
  return GQ_SUCCESS;
}

static int build_axis(gq_rule_spec spec, double a, double b, uint64_t n, gq_product_sum *p, int d, axis_rule *ax)
{
  if (spec.rule == GQ_RULE_GAUSS_LEGENDRE) {
    const int K = spec.nodes;
    if (n > UINT32_MAX)
      return gq_fail(GQ_EINVAL, "axis %d: %llu panels (at most %u per axis)", d + 1, (unsigned long long)n,
                     (unsigned)UINT32_MAX);
    double x[GQ_GL_MAX_NODES], w[GQ_GL_MAX_NODES], wl[GQ_GL_MAX_NODES];
    int status = gq_gauss_legendre(K, x, w, wl);
    if (status != GQ_SUCCESS)
      return status;
    if (!(ax->table = malloc(4 * (size_t)K * sizeof(double))))
      return gq_fail(GQ_ENOMEM, "cannot allocate the nodes of axis %d", d + 1);
    const double H = (b - a) / (double)n;
    for (int k = 0; k < K; k++) {
      double *e = ax->table + 4 * k;
      e[0] = w[k];
      e[1] = wl[k];
      /* node k of panel 0: a + H (1 + x_k) / 2, rounded once */
      e[2] = (double)((long double)a + (long double)H * (1.0L + (long double)x[k]) / 2.0L);
      e[3] = 0.0;
    }
    p->K[d] = (uint32_t)K;
    p->P[d] = (uint32_t)n;
    p->H[d] = H;
    ax->scale_hi = ax->scale_lo = H / 2.0;
    ax->divisor = 1.0;
    ax->formula = "|G - L|";
    return GQ_SUCCESS;
  }
  if (n + 1 > GQ_PRODUCT_MAX_TABLE)
    return gq_fail(GQ_EINVAL, "axis %d: %llu intervals; a product grid holds at most %llu per axis", d + 1,
                   (unsigned long long)n, (unsigned long long)(GQ_PRODUCT_MAX_TABLE - 1));
  if (n < 2)
    return gq_fail(GQ_EINVAL, "axis %d: n = 1; in several dimensions every axis needs n >= 2 (the error "
                   "estimate's coarser rule)", d + 1);
  const size_t K = (size_t)n + 1;
  if (!(ax->table = malloc(4 * K * sizeof(double))))
    return gq_fail(GQ_ENOMEM, "cannot allocate the %llu points of axis %d", (unsigned long long)K, d + 1);
  const double h = (b - a) / (double)n;
  for (uint64_t i = 0; i <= n; i++) {
    double *e = ax->table + 4 * i;
    nc_weights(spec.rule, i, n, &e[0], &e[1]);
    e[2] = i == n ? b : fma((double)i, h, a);
    e[3] = 0.0;
  }
  p->K[d] = (uint32_t)K;
  p->P[d] = 1;
  p->H[d] = 0.0;
  switch (spec.rule) {
  case GQ_RULE_TRAPEZOID:
    ax->scale_hi = ax->scale_lo = h / 2.0;
    ax->divisor = 3.0;
    ax->formula = "|T(h) - T(2h)|/3";
    break;
  case GQ_RULE_SIMPSON:
    ax->scale_hi = ax->scale_lo = h / 3.0;
    ax->divisor = n % 4 == 0 ? 15.0 : 4.0;
    ax->formula = n % 4 == 0 ? "|S(h) - S(2h)|/15" : "|S(h) - T(2h)|/4";
    break;
  default:
    ax->scale_hi = ax->scale_lo = 2.0 * h / 45.0;
    ax->divisor = 16.0;
    ax->formula = "|B(h) - S(2h)|/16";
    break;
  }
  return GQ_SUCCESS;
}

/* The coordinates of flat index i (as the backends walk it). */
static void point_of(const gq_product_sum *p, uint64_t i, double *x)
{
  for (int d = 0; d < p->dims; d++) {
    const uint32_t k = (uint32_t)(i % p->K[d]);
    i /= p->K[d];
    double v = p->table[d][4 * (size_t)k + 2];
    if (p->panels & (1u << d)) {
      v = fma((double)(i % p->P[d]), p->H[d], v);
      i /= p->P[d];
    }
    x[d] = v;
  }
}

/* The change of variables of an infinite axis (rules.c's table): internal.h. */
int gq_box_change_of(double a, double b, int d, gq_axis_change *c, char texts[3][96])
{
  const double lo = fmin(a, b), hi = fmax(a, b);
  const int v = d + 1;
  c->sign = a > b ? -1.0 : 1.0;
  if (isinf(lo) && isinf(hi)) {
    snprintf(texts[0], 96, "x%d/((1-x%d)*(1+x%d))", v, v, v);
    snprintf(texts[1], 96, "(1+x%d^2)/((1-x%d)*(1+x%d))^2", v, v, v);
    snprintf(texts[2], 96, "abs(x%d)<1", v);
    c->t0 = -1.0;
  } else {
    const double cfin = isinf(hi) ? lo : hi;
    snprintf(texts[0], 96, "%.17g%sx%d/(1-x%d)", cfin, isinf(hi) ? "+" : "-", v, v);
    snprintf(texts[1], 96, "1/(1-x%d)^2", v);
    snprintf(texts[2], 96, "x%d<1", v);
    c->t0 = 0.0;
  }
  c->t1 = 1.0;
  c->phi = texts[0];
  c->dphi = texts[1];
  c->guard = texts[2];
  return GQ_SUCCESS;
}

static void blank(gq_rule_result *out, const gq_context *ctx, gq_rule_spec spec, const gq_box *box)
{
  memset(out, 0, sizeof *out);
  out->result = out->coarse = out->abserr = out->difference = out->nonfinite_x = NAN;
  out->n = box ? box->n[0] : 0;
  out->backend = ctx->backend;
  out->rule = spec.rule;
  out->error_formula = out->change = "";
  out->dims = box ? box->dims : 0;
  out->nodes = spec.rule == GQ_RULE_GAUSS_LEGENDRE ? spec.nodes : 0;
}

/* The product grid of spec over box, every limit finite (after the
 * changes of variables): g is an expression in `dims` variables. */
static int product_rule(gq_context *ctx, const gq_integrand *g, gq_rule_spec spec, const gq_box *box,
                        gq_precision precision, gq_rule_result *out)
{
  gq_product_sum p = {g, precision, box->dims, 0, {0}, {0}, {0}, {NULL}, 1, ctx->deterministic, NULL};
  axis_rule ax[GQ_MAX_DIM] = {{0}};
  if (spec.rule == GQ_RULE_GAUSS_LEGENDRE)
    p.panels = (1u << box->dims) - 1u;
  int status = GQ_SUCCESS;
  double points = 1.0;
  for (int d = 0; d < box->dims && status == GQ_SUCCESS; d++) {
    status = build_axis(spec, box->a[d], box->b[d], box->n[d], &p, d, &ax[d]);
    if (status != GQ_SUCCESS)
      break;
    const double m = (double)p.K[d] * (double)p.P[d];
    points *= m;
  }
  /* axis 1 as a plain table padded for runs, where that costs little */
  if (status == GQ_SUCCESS && runs_pay((uint64_t)p.K[0] * p.P[0])) {
    if (p.panels & 1u)
      status = expand_axis(&p, &ax[0]);
    if (status == GQ_SUCCESS)
      status = pad_axis(&p, &ax[0]);
  }
  double padded = 1.0;
  for (int d = 0; d < box->dims; d++) {
    p.table[d] = ax[d].table;
    padded *= (double)p.K[d] * (double)p.P[d];
  }
  out->points = points;
  if (status == GQ_SUCCESS && points > 9007199254740992.0) /* 2^53 */
    status = gq_fail(GQ_EINVAL, "the grid has %.4g points; at most 2^53 (about 9.0e15)", points);
  if (status == GQ_SUCCESS && padded > 9007199254740992.0)
    status = gq_fail(GQ_EINVAL, "the grid has %.4g points; at most 2^53 (about 9.0e15)", padded);
  if (status == GQ_SUCCESS) {
    p.n = (uint64_t)padded;
    gq_csum sums[2];
    gq_grid_info info = {0.0, 0.0, GQ_JIT_NONE};
    status = gq_shared_product_sum(ctx, &p, sums, &info);
    out->kernel_ms = info.ms;
    out->compile_ms = info.compile_ms;
    out->jit = info.jit;
    if (status == GQ_SUCCESS) {
      /* the scales, one rounding each, onto the compensated sums */
      long double shi = g->scale, slo = g->scale;
      for (int d = 0; d < box->dims; d++) {
        shi *= ax[d].scale_hi;
        slo *= ax[d].scale_lo;
      }
      out->result = (double)(shi * ((long double)sums[0].s + (long double)sums[0].c));
      out->coarse = (double)(slo * ((long double)sums[1].s + (long double)sums[1].c));
      out->difference = fabs(out->result - out->coarse);
      /* the axes' divisors agree for one rule unless Simpson mixes n % 4:
       * the smallest factor is the safe one */
      double divisor = ax[0].divisor;
      const char *formula = ax[0].formula;
      for (int d = 1; d < box->dims; d++)
        if (ax[d].divisor < divisor) {
          divisor = ax[d].divisor;
          formula = ax[d].formula;
        }
      out->abserr = out->difference / divisor;
      out->error_formula = formula;
      if (!isfinite(out->result)) {
        uint64_t count = 0, first = 0;
        status = gq_shared_product_nonfinite(ctx, &p, &count, &first);
        if (status == GQ_SUCCESS && count == 0)
          status = gq_fail(GQ_EDOM, "the integral overflows a double (f is finite at every point but the "
                           "rule gives %g)", out->result);
        else if (status == GQ_SUCCESS) {
          double x[GQ_MAX_DIM];
          point_of(&p, first, x);
          out->nonfinite_count = count;
          out->nonfinite_x = x[0];
          char where[GQ_MAX_DIM * 26 + 8] = "";
          size_t at = 0;
          for (int d = 0; d < box->dims; d++)
            at += (size_t)snprintf(where + at, sizeof where - at, "%s%.17g", d ? ", " : "", x[d]);
          status = gq_fail(GQ_EDOM, "f is not finite at %llu of the %.17g points; the first is (%s)%s",
                           (unsigned long long)count, points, where,
                           spec.rule == GQ_RULE_GAUSS_LEGENDRE ? ""
                                                               : " (Newton-Cotes rules evaluate the "
                                                                 "faces of the box: move a limit off a "
                                                                 "singularity, or use gauss-legendre)");
        }
      }
    }
  }
  for (int d = 0; d < GQ_MAX_DIM; d++)
    free(ax[d].table);
  return status;
}

int gq_integrate_box(gq_context *ctx, const gq_integrand *f, gq_rule_spec spec, const gq_box *box,
                     gq_precision precision, gq_rule_result *out)
{
  if (!ctx || !f || !box || !out)
    return gq_fail(GQ_EINVAL, "gq_integrate_box: NULL argument");
  if (spec.rule == GQ_RULE_GAUSS_LEGENDRE && spec.nodes == 0)
    spec.nodes = gq_rule_default_nodes();
  blank(out, ctx, spec, box);
  if (!gq_rule_name(spec.rule))
    return gq_fail(GQ_EINVAL, "unknown rule %d", (int)spec.rule);
  if (spec.rule == GQ_RULE_GAUSS_LEGENDRE && (spec.nodes < GQ_GL_MIN_NODES || spec.nodes > GQ_GL_MAX_NODES))
    return gq_fail(GQ_EINVAL, "gauss-legendre needs %d to %d nodes per panel (got %d)", GQ_GL_MIN_NODES,
                   GQ_GL_MAX_NODES, spec.nodes);
  if (box->dims < 1 || box->dims > GQ_MAX_DIM)
    return gq_fail(GQ_EINVAL, "a box has 1 to %d dimensions (got %d)", GQ_MAX_DIM, box->dims);
  if (precision != GQ_PRECISION_DOUBLE && precision != GQ_PRECISION_FLOAT)
    return gq_fail(GQ_EINVAL, "unknown precision %d", (int)precision);
  const int used = f->id >= 0 ? 1 : gq_expr_dims_used(f->expr);
  if (used > box->dims)
    return gq_fail(GQ_EINVAL, "the integrand uses x%d but the box has %d dimension%s", used, box->dims,
                   box->dims == 1 ? "" : "s");
  if (box->dims == 1 && spec.rule != GQ_RULE_GAUSS_LEGENDRE) {
    const int status = gq_rule_line(ctx, f, spec.rule, box->a[0], box->b[0], box->n[0], precision, out);
    out->dims = 1;
    out->nodes = 0;
    out->points = (double)box->n[0] + 1.0;
    return status;
  }
  int infinite = 0;
  for (int d = 0; d < box->dims; d++) {
    if (isnan(box->a[d]) || isnan(box->b[d]))
      return gq_fail(GQ_EINVAL, "axis %d: the limits must be numbers (a = %g, b = %g)", d + 1, box->a[d],
                     box->b[d]);
    if (box->n[d] < 1 || box->n[d] > GQ_TRAPEZOID_MAX_N)
      return gq_fail(GQ_EINVAL, "axis %d: n must be between 1 and 2^53", d + 1);
    if (spec.rule != GQ_RULE_GAUSS_LEGENDRE) {
      const int status = gq_rule_check_n(spec.rule, box->n[d]);
      if (status != GQ_SUCCESS)
        return box->dims == 1 ? status : gq_fail(status, "axis %d: %s", d + 1, gq_last_error());
    }
    if (isinf(box->a[d]) || isinf(box->b[d])) {
      if (box->a[d] == box->b[d])
        return gq_fail(GQ_EINVAL, "axis %d: the interval [%g, %g] is empty: no change of variables maps "
                       "it onto a finite one (give a finite limit)", d + 1, box->a[d], box->b[d]);
      infinite = 1;
    } else if (!isfinite(box->b[d] - box->a[d])) {
      return gq_fail(GQ_EINVAL, "axis %d: b - a overflows a double (a = %g, b = %g)", d + 1, box->a[d],
                     box->b[d]);
    }
  }

  /* g: the expression the backends sum, over a finite box */
  gq_box fin = *box;
  gq_integrand *g = NULL;
  double sign = 1.0;
  int status = GQ_SUCCESS;
  if (infinite) {
    char texts[GQ_MAX_DIM][3][96];
    const char *phi[GQ_MAX_DIM] = {NULL}, *dphi[GQ_MAX_DIM] = {NULL}, *guard[GQ_MAX_DIM] = {NULL};
    for (int d = 0; d < box->dims; d++)
      if (isinf(box->a[d]) || isinf(box->b[d])) {
        gq_axis_change c;
        gq_box_change_of(box->a[d], box->b[d], d, &c, texts[d]);
        phi[d] = c.phi;
        dphi[d] = c.dphi;
        guard[d] = c.guard;
        fin.a[d] = c.t0;
        fin.b[d] = c.t1;
        sign *= c.sign;
      }
    status = gq_integrand_changed_axes(f, box->dims, phi, dphi, guard, &g);
    out->change = "x = c + t/(1-t), c - t/(1-t) or t/(1-t^2) on each infinite axis";
  } else if (f->id >= 0) {
    gq_parse_error err;
    status = gq_integrand_parse(f->formula, NULL, 0, box->dims, &g, &err);
  }
  if (status != GQ_SUCCESS)
    return status;
  const char *change = out->change;
  status = product_rule(ctx, g ? g : f, spec, &fin, precision, out);
  out->change = change;
  gq_integrand_free(g);
  out->result *= sign;
  out->coarse *= sign;
  if (status == GQ_SUCCESS)
    gq_clear_error();
  return status;
}
