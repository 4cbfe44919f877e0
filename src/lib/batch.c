/* batch.c — many integrals of one expression, one per parameter set
 * (gq_integrate_box_batch).  Each problem is the single call: the
 * expression at its values (parsed once, then rebound to each problem's
 * values: internal.h, gq_integrand_instantiate), then gq_integrate_box on
 * the shared context.  Problems are taken in chunks:
 * on a GPU the grid sums of a chunk's small one-dimensional problems are
 * computed first in one packed launch (packed.h), which each problem's
 * call then finds instead of launching its own; every other problem
 * launches alone, finding the expression's module already loaded. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "packed.h"

#define BATCH_MAX_PARAMS 64
/* "name=" + the shortest decimal of a double (at most 24 characters) */
#define BATCH_DEF_SIZE 96
/* problems parsed, packed and run together: a chunk's integrands in memory */
#define BATCH_CHUNK 65536

typedef struct {
  gq_integrand **f;
  int *parsed; /* gq_integrand_parse's status */
  double *a, *b;
} chunk_state;

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
  const size_t most = count < BATCH_CHUNK ? count : BATCH_CHUNK;
  chunk_state c = {calloc(most, sizeof *c.f), calloc(most, sizeof *c.parsed), malloc(most * sizeof *c.a),
                   malloc(most * sizeof *c.b)};
  if (count && (!c.f || !c.parsed || !c.a || !c.b)) {
    free(c.f), free(c.parsed), free(c.a), free(c.b);
    return gq_fail(GQ_ENOMEM, "gq_integrate_box_batch: cannot allocate a chunk of %zu problems", most);
  }
  /* packed: one dimension, a Newton-Cotes rule (gq_rule_line's problems) */
  const int line = box->dims == 1 && spec.rule != GQ_RULE_GAUSS_LEGENDRE;
  char text_of[BATCH_MAX_PARAMS][BATCH_DEF_SIZE];
  const char *defs[BATCH_MAX_PARAMS];
  int first = GQ_SUCCESS;
  char why[256] = "";
  gq_integrand_template *t = NULL; /* the text parsed once, at problem 0's values */
  for (size_t start = 0; start < count; start += most) {
    const size_t here = count - start < most ? count - start : most;
    for (size_t i = 0; i < here; i++) {
      const double *v = nparams ? &values[(start + i) * nparams] : NULL;
      c.f[i] = NULL;
      c.parsed[i] = GQ_SUCCESS;
      if (!t || gq_integrand_instantiate(t, v, &c.f[i], NULL) != GQ_SUCCESS) {
        /* the parse itself, with its own message where it fails */
        for (size_t j = 0; j < nparams; j++) {
          snprintf(text_of[j], sizeof text_of[j], "%s=%.17g", names[j], v[j]);
          defs[j] = text_of[j];
        }
        if (start + i == 0 && count > 1)
          gq_integrand_template_parse(text, defs, nparams, box->dims, &t, NULL);
        c.parsed[i] = gq_integrand_parse(text, defs, nparams, box->dims, &c.f[i], NULL);
      }
      c.a[i] = box->a[0];
      c.b[i] = box->b[0];
    }
    /* A packed launch that failed (device memory for the chunk, say) packs
     * nothing: each problem then runs alone and reports its own outcome. */
    gq_packed *pk = NULL;
    if (line && gq_packed_prepare(ctx, (const gq_integrand *const *)c.f, c.a, c.b, box->n[0], precision, here,
                                  &pk) != GQ_SUCCESS)
      pk = NULL;
    for (size_t i = 0; i < here; i++) {
      if (c.parsed[i] == GQ_SUCCESS) {
        gq_packed_select(ctx, pk, i);
        statuses[start + i] = gq_integrate_box(ctx, c.f[i], spec, box, precision, &results[start + i]);
      } else {
        statuses[start + i] = c.parsed[i];
      }
      gq_integrand_free(c.f[i]);
      c.f[i] = NULL;
      if (statuses[start + i] != GQ_SUCCESS && first == GQ_SUCCESS) {
        first = statuses[start + i];
        snprintf(why, sizeof why, "%s", gq_last_error());
        if (!why[0])
          snprintf(why, sizeof why, "%s", gq_strerror(first));
        snprintf(why + strlen(why), sizeof why - strlen(why), " (problem %zu)", start + i);
      }
    }
    gq_packed_select(ctx, NULL, 0);
    gq_packed_free(pk);
  }
  gq_integrand_template_free(t);
  free(c.f), free(c.parsed), free(c.a), free(c.b);
  return first == GQ_SUCCESS ? GQ_SUCCESS : gq_fail(first, "%s", why);
}
