/* cubature.c — the reference of an integral over a box (gq_integrate_box's
 * check): in one dimension gq_integrate_reference; in several, the exact
 * products of 1-D references where f separates (separable.c), otherwise
 * libcubature's hcubature on the host.
 *
 * hcubature (Genz-Malik's degree-7 rule on h-adaptive subdivisions) is
 * another algorithm than the product grids it checks, evaluates f in
 * double through the host evaluator (gq_expr_eval_block) and gives an error
 * estimate.  It is asked for a relative error of 1e-10, or 1e-10 of the
 * integral of |f| (computed first, to 1e-6), so that an integral that
 * cancels to 0 (an odd f over a symmetric box) still converges, and
 * stopped after MAX_EVALUATIONS points (2e7: about a second on one core
 * for a short expression, and enough for a smooth f in 6 dimensions).
 * Short of its tolerance it leaves no reference, never a pass.  Infinite
 * axes take rules.c's change of variables (its table), here applied to
 * each coordinate on the host:
 *   [c, inf)    x = c + t/(1-t),        dx = dt/(1-t)^2,                 t in [0, 1]
 *   (-inf, c]   x = c - t/(1-t),        dx = dt/(1-t)^2,                 t in [0, 1]
 *   (-inf, inf) x = t/((1-t)(1+t)),     dx = (1+t^2)/((1-t)(1+t))^2 dt,  t in [-1, 1]
 * (Genz-Malik's points are interior, so t never reaches a pole; a point
 * on one would count 0, as in rules.c). */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CUBATURE
#include <cubature.h>
#endif

#include "../expr/expr.h"
#include "../internal.h"
#include "check.h"

enum { MAX_EVALUATIONS = 20000000 };
#define RELATIVE_TOLERANCE 1e-10
#define L1_RELATIVE_TOLERANCE 1e-6

/* One axis of the box as hcubature sees it: [lo, hi] in t, x = phi(t). */
typedef struct {
  gq_change_kind kind;
  double c;      /* the finite limit of a half-line */
  double lo, hi; /* the t-interval (x itself on a finite axis) */
} axis;

static axis axis_of(double a, double b)
{
  const double lo = fmin(a, b), hi = fmax(a, b);
  if (!isinf(lo) && !isinf(hi))
    return (axis){GQ_CHANGE_NONE, 0.0, lo, hi};
  if (isinf(lo) && isinf(hi))
    return (axis){GQ_CHANGE_LINE, 0.0, -1.0, 1.0};
  return isinf(hi) ? (axis){GQ_CHANGE_UPPER, lo, 0.0, 1.0} : (axis){GQ_CHANGE_LOWER, hi, 0.0, 1.0};
}

/* The volume of the box's t-intervals: the scale of underflow, as the 1-D
 * reference's width (infinite axes: 1 or 2). */
static double box_width(const gq_box *box)
{
  double width = 1.0;
  for (int k = 0; k < box->dims; k++) {
    const axis ax = axis_of(box->a[k], box->b[k]);
    width *= ax.hi - ax.lo;
  }
  return width;
}

#ifdef HAVE_CUBATURE
/* x = phi(t) and *dx = phi'(t); *dx = 0 on a pole of phi. */
static double phi(const axis *ax, double t, double *dx)
{
  const double u = 1.0 - t, v = 1.0 + t;
  *dx = 1.0;
  switch (ax->kind) {
  case GQ_CHANGE_UPPER:
  case GQ_CHANGE_LOWER:
    if (!(u > 0.0))
      return *dx = 0.0;
    *dx = 1.0 / (u * u);
    return ax->kind == GQ_CHANGE_UPPER ? ax->c + t / u : ax->c - t / u;
  case GQ_CHANGE_LINE:
    if (!(u > 0.0 && v > 0.0))
      return *dx = 0.0;
    *dx = (1.0 + t * t) / ((u * v) * (u * v));
    return t / (u * v);
  default:
    return t;
  }
}

typedef struct {
  const gq_expr *e;
  int dims, absolute;
  axis ax[GQ_MAX_DIM];
  double *scratch;
  double x[GQ_MAX_DIM][GQ_EXPR_TILE], jacobian[GQ_EXPR_TILE], value[GQ_EXPR_TILE];
  size_t evaluations;
  int bad;                /* f was not finite at bad_x */
  double bad_x[GQ_MAX_DIM];
} box_call;

/* hcubature's vectorised integrand: f (or |f|) at npt points t, tile by
 * tile through the block evaluator, times the Jacobian of the change. */
static int call_box(unsigned ndim, size_t npt, const double *t, void *param, unsigned fdim, double *fval)
{
  (void)fdim;
  box_call *c = param;
  if (c->bad) {
    /* hcubature leaks its buffers when the integrand stops it: zeros end
     * the run instead (every region's error estimate becomes 0) */
    memset(fval, 0, npt * sizeof *fval);
    return 0;
  }
  const double *vars[GQ_EXPR_MAX_DIMS] = {NULL};
  for (int k = 0; k < c->dims; k++)
    vars[k] = c->x[k];
  for (size_t first = 0; first < npt; first += GQ_EXPR_TILE) {
    const size_t count = npt - first < GQ_EXPR_TILE ? npt - first : GQ_EXPR_TILE;
    for (size_t i = 0; i < count; i++) {
      double jacobian = 1.0, dx;
      for (unsigned k = 0; k < ndim; k++) {
        c->x[k][i] = phi(&c->ax[k], t[(first + i) * ndim + k], &dx);
        jacobian *= dx;
      }
      c->jacobian[i] = jacobian;
    }
    gq_expr_eval_block(c->e, count, vars, c->value, c->scratch);
    for (size_t i = 0; i < count; i++) {
      const double v = c->jacobian[i] == 0.0 ? 0.0 : c->value[i] * c->jacobian[i];
      if (!isfinite(v)) {
        c->bad = 1;
        for (int k = 0; k < c->dims; k++)
          c->bad_x[k] = c->x[k][i];
        memset(fval, 0, npt * sizeof *fval);
        return 0;
      }
      fval[first + i] = c->absolute ? fabs(v) : v;
    }
  }
  c->evaluations += npt;
  return 0;
}

/* hcubature of f (absolute: |f|) over the box's t-intervals; GQ_SUCCESS
 * when it reached its tolerance, GQ_EDOM (with *value, *abserr) when not. */
static int run(box_call *c, int absolute, double abs_tolerance, double rel_tolerance, double *value,
               double *abserr)
{
  double lo[GQ_MAX_DIM], hi[GQ_MAX_DIM];
  for (int k = 0; k < c->dims; k++)
    lo[k] = c->ax[k].lo, hi[k] = c->ax[k].hi;
  c->absolute = absolute;
  c->evaluations = 0;
  const int failed = hcubature_v(1, call_box, c, (unsigned)c->dims, lo, hi, MAX_EVALUATIONS, abs_tolerance,
                                 rel_tolerance, ERROR_INDIVIDUAL, value, abserr);
  if (c->bad) {
    char at[GQ_MAX_DIM * 26 + 2];
    int len = 0;
    for (int k = 0; k < c->dims; k++)
      len += snprintf(at + len, sizeof at - (size_t)len, "%s%.17g", k ? ", " : "", c->bad_x[k]);
    return gq_fail(GQ_EDOM, "no reference: f is not finite at (%s), a point hcubature evaluated", at);
  }
  if (failed)
    return gq_fail(GQ_ENOMEM, "hcubature could not allocate its regions");
  if (!(isfinite(*value) && isfinite(*abserr) && *abserr <= fmax(abs_tolerance, rel_tolerance * fabs(*value))))
    return gq_fail(GQ_EDOM, "no reference: hcubature reached only %.17g +/- %.3g for the integral of %s "
                            "(asked for %g relative) in %zu evaluations",
                   *value, *abserr, absolute ? "|f|" : "f", rel_tolerance, c->evaluations);
  return GQ_SUCCESS;
}

int gq_hcubature_reference(const gq_integrand *f, const gq_box *box, gq_reference *ref)
{
  box_call *c = calloc(1, sizeof *c);
  if (c)
    c->scratch = malloc(gq_expr_block_scratch(f->expr) * sizeof *c->scratch + sizeof(double));
  if (!c || !c->scratch) {
    if (c)
      free(c->scratch);
    free(c);
    return gq_fail(GQ_ENOMEM, "cannot allocate hcubature's evaluation buffers");
  }
  c->e = f->expr;
  c->dims = box->dims;
  for (int k = 0; k < box->dims; k++)
    c->ax[k] = axis_of(box->a[k], box->b[k]);
  ref->method = GQ_REFERENCE_HCUBATURE;
  double l1err, value, abserr;
  int status = run(c, 1, 0.0, L1_RELATIVE_TOLERANCE, &ref->l1norm, &l1err);
  if (status == GQ_SUCCESS) {
    status = run(c, 0, RELATIVE_TOLERANCE * ref->l1norm, RELATIVE_TOLERANCE, &value, &abserr);
    double sign = 1.0; /* reversed limits negate their axis */
    for (int k = 0; k < box->dims; k++)
      sign = box->b[k] < box->a[k] ? -sign : sign;
    ref->value = sign * value;
    ref->abserr = abserr;
    ref->l1norm = fmax(ref->l1norm, fabs(value));
  }
  free(c->scratch);
  free(c);
  return status;
}
#else
int gq_hcubature_reference(const gq_integrand *f, const gq_box *box, gq_reference *ref)
{
  (void)f, (void)box;
  ref->method = GQ_REFERENCE_HCUBATURE;
  return gq_fail(GQ_EDOM, "no reference: built without libcubature (f does not separate into one-variable "
                          "factors, and only hcubature could integrate it)");
}
#endif

int gq_integrate_reference_box(const gq_integrand *f, const gq_box *box, gq_reference *ref)
{
  if (!f || !box || !ref)
    return gq_null_arg(__func__, !f ? "f" : !box ? "box" : "ref");
  ref->value = ref->abserr = ref->l1norm = ref->width = NAN;
  ref->method = GQ_REFERENCE_SEPARABLE;
  if (box->dims < 1 || box->dims > GQ_MAX_DIM)
    return gq_fail(GQ_EINVAL, "a box has 1 to %d dimensions, not %d", GQ_MAX_DIM, box->dims);
  if (box->dims == 1)
    return gq_integrate_reference(f, box->a[0], box->b[0], ref);
  const int used = f->id >= 0 ? 1 : gq_expr_dims_used(f->expr);
  if (used > box->dims)
    return gq_fail(GQ_EINVAL, "the integrand uses x%d, beyond the box's %d dimensions", used, box->dims);
  for (int k = 0; k < box->dims; k++) {
    const double a = box->a[k], b = box->b[k];
    if (isnan(a) || isnan(b))
      return gq_fail(GQ_EINVAL, "the limits of x%d must be numbers (a = %g, b = %g)", k + 1, a, b);
    if (isinf(a) && a == b)
      return gq_fail(GQ_EINVAL, "the interval [%g, %g] of x%d is empty", a, b, k + 1);
    if (!isfinite(b - a) && !isinf(a) && !isinf(b))
      return gq_fail(GQ_EINVAL, "b - a overflows a double along x%d (a = %g, b = %g)", k + 1, a, b);
  }
  ref->width = box_width(box);
  if (!isfinite(ref->width))
    return gq_fail(GQ_EINVAL, "the box's volume overflows a double");
  int separable;
  int status = gq_separable_reference(f, box, ref, &separable);
  if (separable)
    return status == GQ_SUCCESS ? (gq_clear_error(), GQ_SUCCESS) : status;
  status = gq_hcubature_reference(f, box, ref);
  if (status == GQ_SUCCESS)
    gq_clear_error();
  return status;
}
