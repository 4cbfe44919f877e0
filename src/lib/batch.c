/* batch.c — many integrals of one expression, one per parameter set
 * (gq_integrate_box_batch).  Each problem is the single call: the
 * expression parsed at its values (a microsecond on the host), then
 * gq_integrate_box on the shared context, where a GPU finds the expression's
 * module already loaded and writes the values into it (jit_load_integrand). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define BATCH_MAX_PARAMS 64
/* "name=" + the shortest decimal of a double (at most 24 characters) */
#define BATCH_DEF_SIZE 96

int gq_integrate_box_batch(gq_context *ctx, const char *text, const char *const *names, size_t nparams,
                           const double *values, size_t count, gq_rule_spec spec, const gq_box *box,
                           gq_precision precision, gq_rule_result *results, int *statuses)
{
  if (!ctx || !text || !box || (count && (!results || !statuses)) || (nparams && (!names || (count && !values))))
    return gq_fail(GQ_EINVAL, "gq_integrate_box_batch: NULL argument");
  if (nparams > BATCH_MAX_PARAMS)
    return gq_fail(GQ_EINVAL, "gq_integrate_box_batch: %zu parameters (at most %d)", nparams, BATCH_MAX_PARAMS);
  if (count && (!gq_span_fits(results, count, sizeof *results) || !gq_span_fits(statuses, count, sizeof *statuses) ||
                (nparams && count > SIZE_MAX / nparams)))
    return gq_fail(GQ_EINVAL, "gq_integrate_box_batch: count is more than an array can hold");
  for (size_t j = 0; j < nparams; j++)
    if (!names[j] || strlen(names[j]) + 32 > BATCH_DEF_SIZE || strchr(names[j], '='))
      return gq_fail(GQ_EINVAL, "gq_integrate_box_batch: parameter name %zu is NULL, too long or holds '='", j);
  char text_of[BATCH_MAX_PARAMS][BATCH_DEF_SIZE];
  const char *defs[BATCH_MAX_PARAMS];
  int first = GQ_SUCCESS;
  char why[256] = "";
  for (size_t i = 0; i < count; i++) {
    for (size_t j = 0; j < nparams; j++) {
      snprintf(text_of[j], sizeof text_of[j], "%s=%.17g", names[j], values[i * nparams + j]);
      defs[j] = text_of[j];
    }
    gq_integrand *f = NULL;
    int status = gq_integrand_parse(text, defs, nparams, box->dims, &f, NULL);
    if (status == GQ_SUCCESS)
      status = gq_integrate_box(ctx, f, spec, box, precision, &results[i]);
    gq_integrand_free(f);
    statuses[i] = status;
    if (status != GQ_SUCCESS && first == GQ_SUCCESS) {
      first = status;
      snprintf(why, sizeof why, "%s", gq_last_error());
      if (first != GQ_SUCCESS && !why[0])
        snprintf(why, sizeof why, "%s", gq_strerror(first));
      snprintf(why + strlen(why), sizeof why - strlen(why), " (problem %zu)", i);
    }
  }
  return first == GQ_SUCCESS ? GQ_SUCCESS : gq_fail(first, "%s", why);
}
