/* adaptive.c — adaptive cubature's regions on the CPU (OpenMP): every
 * region of a batch independently, its rule's points (adaptive_rule.h)
 * laid out as D coordinate arrays for the bytecode evaluator, then the two
 * rules, the error and the split axis, as kernels/adaptive/regions.cuh does
 * on the GPU.  A region's result depends on that region alone, so the
 * thread count changes nothing. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "../adaptive_internal.h"
#include "../adaptive_rule.h"
#include "../expr/expr.h"

/* Per thread: the rule on [-1, 1]^D (its offsets u and weights, made once),
 * the points of one region and f there. */
typedef struct {
  double *u[GQ_ADAPT_MAX_DIM], *x[GQ_ADAPT_MAX_DIM]; /* GQ_GM_MAX_POINTS each */
  double *y, *scratch;
  double w7[GQ_GM_MAX_POINTS], w5[GQ_GM_MAX_POINTS]; /* per point (1-D: Kronrod, Gauss) */
  double w3a[GQ_GM_MAX_POINTS], w3b[GQ_GM_MAX_POINTS]; /* the degree-3 rules, D >= 2 */
  int slot[GQ_GM_MAX_POINTS];
} workspace;

static void workspace_close(workspace *w)
{
  for (int d = 0; d < GQ_ADAPT_MAX_DIM; d++) {
    free(w->u[d]);
    free(w->x[d]);
  }
  free(w->y);
  free(w->scratch);
  free(w);
}

/* The workspace, with the rule's offsets and weights. */
static workspace *workspace_open(const gq_adaptive_batch *b)
{
  workspace *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  const int D = b->dims, P = gq_adapt_points(D);
  int ok = 1;
  for (int d = 0; d < D; d++) {
    ok &= (w->u[d] = malloc((size_t)P * sizeof(double))) != NULL;
    ok &= (w->x[d] = malloc((size_t)P * sizeof(double))) != NULL;
  }
  const size_t scratch = gq_expr_block_scratch(b->g->g);
  ok &= (w->y = malloc((size_t)P * sizeof(double))) != NULL;
  ok &= (w->scratch = malloc((scratch ? scratch : 1) * sizeof(double))) != NULL;
  if (!ok) {
    workspace_close(w);
    return NULL;
  }
  if (D == 1) {
    for (int p = 0; p < P; p++)
      gq_gk15_point(p, &w->u[0][p], &w->w7[p], &w->w5[p]);
    return w;
  }
  double w7[5], w5[5], w3a[5], w3b[5], u[GQ_ADAPT_MAX_DIM];
  gq_gm_weights(D, w7, w5);
  gq_gm_low_weights(D, w3a, w3b);
  for (int p = 0; p < P; p++) {
    const int cls = gq_gm_point(D, p, u, &w->slot[p]);
    w->w7[p] = w7[cls];
    w->w5[p] = w5[cls];
    w->w3a[p] = w3a[cls];
    w->w3b[p] = w3b[cls];
    for (int d = 0; d < D; d++)
      w->u[d][p] = u[d];
  }
  return w;
}

/* Region r: points, f, the sums of adaptive_rule.h. */
static void region(const gq_adaptive_batch *b, workspace *w, size_t r)
{
  const int D = b->dims, P = gq_adapt_points(D);
  const double *c = b->centre + r * (size_t)D, *h = b->half + r * (size_t)D;
  for (int d = 0; d < D; d++)
    for (int p = 0; p < P; p++)
      w->x[d][p] = c[d] + h[d] * w->u[d][p];
  gq_expr_eval_block(b->g->g, (size_t)P, (const double *const *)w->x, w->y, w->scratch);
  if (D == 1) {
    double resk = 0.0, resg = 0.0, resabs = 0.0;
    for (int p = 0; p < P; p++) {
      resk += w->w7[p] * w->y[p];
      resg += w->w5[p] * w->y[p];
      resabs += w->w7[p] * fabs(w->y[p]);
    }
    const double mean = resk / 2.0;
    double resasc = 0.0;
    for (int p = 0; p < P; p++)
      resasc += w->w7[p] * fabs(w->y[p] - mean);
    const double hw = h[0];
    b->estimate[r] = resk * hw;
    b->error[r] = gq_gk15_error(resk * hw, resg * hw, resabs * hw, resasc * hw);
    b->axis[r] = 0;
    return;
  }
  double r7 = 0.0, r5 = 0.0, r3a = 0.0, r3b = 0.0, rabs = 0.0, axis_f[4 * GQ_ADAPT_MAX_DIM];
  for (int p = 0; p < P; p++) {
    r7 += w->w7[p] * w->y[p];
    r5 += w->w5[p] * w->y[p];
    r3a += w->w3a[p] * w->y[p];
    r3b += w->w3b[p] * w->y[p];
    rabs += fabs(w->w7[p]) * fabs(w->y[p]);
    if (w->slot[p] >= 0)
      axis_f[w->slot[p]] = w->y[p];
  }
  double volume = 1.0;
  for (int d = 0; d < D; d++)
    volume *= 2.0 * h[d];
  b->estimate[r] = r7 * volume;
  b->error[r] = gq_gm_error(r7 * volume, r5 * volume, r3a * volume, r3b * volume, w->y[0] * volume,
                                rabs * volume);
  int best = 0;
  double best_d = gq_gm_fourth_difference(axis_f, w->y[0]);
  for (int d = 1; d < D; d++) {
    const double diff = gq_gm_fourth_difference(axis_f + 4 * d, w->y[0]);
    if (gq_gm_axis_better(diff, h[d], best_d, h[best])) {
      best = d;
      best_d = diff;
    }
  }
  b->axis[r] = (unsigned char)best;
}

int gq_cpu_adaptive_evaluate(const gq_adaptive_batch *b, double *ms)
{
  if (!b->g->g)
    return gq_fail(GQ_EINVAL, "the integrand has no expression to evaluate");
  const double t0 = gq_wall_ms();
  const int threads = gq_cpu_threads();
  const int team = (size_t)threads < b->n ? threads : (int)b->n;
  int failed = 0;
#pragma omp parallel num_threads(team > 1 ? team : 1) if (team > 1) reduction(| : failed)
  {
    workspace *w = workspace_open(b);
    failed = w == NULL;
#pragma omp for schedule(dynamic, 64)
    for (size_t r = 0; r < b->n; r++)
      if (!failed)
        region(b, w, r);
    if (w)
      workspace_close(w);
  }
  if (failed)
    return gq_fail(GQ_ENOMEM, "cannot allocate the CPU backend's region buffers");
  *ms = gq_wall_ms() - t0;
  return GQ_SUCCESS;
}
