/* adaptive.c — the check of adaptive cubature (gq_integrate_adaptive)
 * against the box references (gq_integrate_reference_box: exact or GSL per
 * factor where f separates, else libcubature's hcubature), in up to
 * GQ_MAX_DIM dimensions: a box of more has no reference, and the check is
 * not made.  The result passes when it is within GQ_CHECK_SAFETY times its
 * own error estimate of the reference, plus the reference's error and the
 * rounding of both (8 eps of the integral of |f|): the error estimate is
 * what is checked, as well as the value. */
#include "config.h"

#include <math.h>

#include "../internal.h"
#include "check.h"

int gq_check_adaptive(const gq_integrand *f, const gq_adaptive_options *o, const gq_adaptive_result *r,
                      gq_reference *ref, double *tolerance, gq_check_outcome *out)
{
  *tolerance = NAN;
  int status;
  if (o->dims > GQ_MAX_DIM) {
    status = gq_fail(GQ_EDOM, "no reference for a box of %d dimensions (the box references go to %d)", o->dims,
                     GQ_MAX_DIM);
  } else {
    gq_box box = {o->dims, {0}, {0}, {0}};
    for (int d = 0; d < o->dims; d++) {
      box.a[d] = o->a[d];
      box.b[d] = o->b[d];
      box.n[d] = 1;
    }
    status = gq_integrate_reference_box(f, &box, ref);
  }
  if (status == GQ_ENOMEM || status == GQ_ECUDA)
    return status;
  const int has_reference = status == GQ_SUCCESS;
  if (has_reference) {
    const double rounding = 8.0 * 0x1p-53 * fmax(fabs(ref->value), isfinite(ref->l1norm) ? ref->l1norm : 0.0);
    *tolerance = GQ_CHECK_SAFETY * r->abserr + ref->abserr + rounding;
    const double diff = fabs(r->estimate - ref->value);
    status = diff <= *tolerance ? GQ_SUCCESS
                                : gq_fail(GQ_ECHECK, "|estimate - reference| = %.3g is more than %.3g (%g times the "
                                          "error estimate %.3g, plus the reference's %.3g)", diff, *tolerance,
                                          GQ_CHECK_SAFETY, r->abserr, ref->abserr);
  }
  gq_check_conclude(out, has_reference, status, *tolerance);
  return GQ_SUCCESS;
}
