/* verdict.c — how a comparison with a reference becomes a verdict: one
 * rule for every check (check.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "../internal.h"
#include "check.h"

/* Without a reference, or with a measure (tolerance, z-score) that is not
 * finite, nothing vouches for the result either way: not made, which is no
 * pass. */
void gq_check_conclude(gq_check_outcome *out, int has_reference, int status, double measure)
{
  out->has_reference = has_reference;
  out->verdict = status == GQ_SUCCESS                  ? GQ_CHECK_PASSED
                 : has_reference && isfinite(measure) ? GQ_CHECK_FAILED
                                                      : GQ_CHECK_NOT_MADE;
  out->message[0] = '\0';
  if (out->verdict != GQ_CHECK_PASSED)
    snprintf(out->message, sizeof out->message, "%s%s",
             out->verdict == GQ_CHECK_FAILED ? "check failed: " : "check could not be made: ", gq_last_error());
}

const char *gq_check_name(gq_check_verdict verdict)
{
  return verdict == GQ_CHECK_PASSED ? "passed" : verdict == GQ_CHECK_FAILED ? "failed" : "not made";
}
