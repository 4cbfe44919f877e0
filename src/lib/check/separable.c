/* separable.c — the box integral of an integrand that separates: a sum of
 * terms coef * f_1(x1) * ... * f_D(xD) (gq_expr_separate; a built-in, a
 * function of x1 alone, is one such term) integrates to
 *   sum over terms of coef * I_1 * ... * I_D,  I_k the 1-D integral of f_k
 * over [a_k, b_k], each from gq_integrate_reference (an antiderivative or
 * GSL's qags/qagi/qagiu/qagil at 1e-13; the factor 1 is b_k - a_k).
 *
 * Error bound: a product of D values I_k known within e_k is within
 *   sum_k e_k prod_{j != k} (|I_j| + e_j)
 * of the true product (telescoping, exact for any sizes), plus the
 * rounding of the products and of the sum of terms (a few ulp of the sum of
 * their magnitudes).  The integral of |f| is bounded by the triangle
 * inequality, sum over terms of |coef| * prod_k (integral of |f_k|): exact for
 * one term, an upper bound for several; the check uses it as the scale of
 * rounding, which a bound can only widen by the cancellation between terms
 * (x1 + x2^3: every term's own rounding is of that size anyway). */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#include "../expr/expr.h"
#include "../internal.h"
#include "check.h"

/* The integral of the factor text (NULL: 1) over axis k of the box. */
static int factor_integral(const gq_integrand *builtin, const char *text, int k, const gq_box *box,
                           gq_reference *r)
{
  const double a = box->a[k], b = box->b[k];
  if (!builtin && !text) {
    if (isinf(a) || isinf(b))
      return gq_fail(GQ_EDOM, "no reference: a term of f does not depend on x%d, and x%d runs over an "
                              "infinite interval: its integral diverges", k + 1, k + 1);
    r->value = b - a;
    r->abserr = 0.5 * DBL_EPSILON * fabs(r->value); /* the rounding of b - a */
    r->l1norm = fabs(r->value);
    return GQ_SUCCESS;
  }
  gq_integrand *own = NULL;
  if (!builtin) {
    gq_parse_error err;
    const int status = gq_integrand_parse(text, NULL, 0, 1, &own, &err);
    if (status != GQ_SUCCESS)
      return status == GQ_ENOMEM ? status
                                 : gq_fail(GQ_EDOM, "no reference: the factor %s of f reads back as no "
                                                    "integrand (%s)", text, err.message);
  }
  const int status = gq_integrate_reference(builtin ? builtin : own, a, b, r);
  gq_integrand_free(own);
  if (status == GQ_EDOM) {
    char why[384];
    snprintf(why, sizeof why, "%s", gq_last_error());
    return gq_fail(GQ_EDOM, "%s (the factor %s of f, in x%d)", why, builtin ? builtin->formula : text, k + 1);
  }
  return status;
}

/* Adds coef * prod_k factor_k over the box to the sums. */
static int add_term(const gq_integrand *builtin, double coef, char *const *factor, const gq_box *box,
                    double *value, double *abserr, double *magnitude, double *l1norm)
{
  gq_reference r[GQ_MAX_DIM];
  for (int k = 0; k < box->dims; k++) {
    const int status = factor_integral(k == 0 ? builtin : NULL, factor ? factor[k] : NULL, k, box, &r[k]);
    if (status != GQ_SUCCESS)
      return status;
  }
  double product = coef, bound = 0.0, l1 = fabs(coef);
  for (int k = 0; k < box->dims; k++) {
    double others = 1.0; /* prod over j != k of (|I_j| + e_j) */
    for (int j = 0; j < box->dims; j++)
      if (j != k)
        others *= fabs(r[j].value) + r[j].abserr;
    bound += r[k].abserr * others;
    product *= r[k].value;
    l1 *= r[k].l1norm;
  }
  *value += product;
  *abserr += fabs(coef) * bound + 2.0 * box->dims * DBL_EPSILON * fabs(product);
  *magnitude += fabs(product);
  *l1norm += l1;
  return GQ_SUCCESS;
}

int gq_separable_reference(const gq_integrand *f, const gq_box *box, gq_reference *ref, int *separable)
{
  gq_expr_term *terms = NULL;
  int count = 1, status = GQ_SUCCESS;
  *separable = 1;
  if (f->id < 0) {
    status = gq_expr_separate(f->expr, &terms, &count);
    if (status == GQ_EDOM) {
      *separable = 0;
      return GQ_SUCCESS;
    }
    if (status != GQ_SUCCESS)
      return gq_fail(status, "cannot separate the integrand %s into one-variable factors", f->canonical);
  }
  double value = 0.0, abserr = 0.0, magnitude = 0.0, l1norm = 0.0;
  for (int i = 0; i < count && status == GQ_SUCCESS; i++) {
    if (terms && terms[i].coef == 0.0)
      continue; /* 0 over any box, an infinite one too */
    status = terms ? add_term(NULL, terms[i].coef, terms[i].factor, box, &value, &abserr, &magnitude, &l1norm)
                   : add_term(f, 1.0, NULL, box, &value, &abserr, &magnitude, &l1norm);
  }
  gq_expr_terms_free(terms, count);
  ref->method = GQ_REFERENCE_SEPARABLE;
  if (status != GQ_SUCCESS)
    return status; /* a factor without a reference leaves none for the sum */
  ref->value = value;
  ref->abserr = abserr + count * DBL_EPSILON * magnitude;
  ref->l1norm = fmax(l1norm, fabs(value));
  if (!(isfinite(ref->value) && isfinite(ref->abserr)))
    return gq_fail(GQ_EDOM, "no reference: the product of the factors' integrals overflows (%g +/- %g)",
                   ref->value, ref->abserr);
  return GQ_SUCCESS;
}
