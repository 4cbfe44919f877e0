/* mc_sum.c — the CPU backend of gpuquad mc: Philox4x32-10 points (philox.h,
 * the layout every backend shares), the expression's bytecode over chunks of
 * points, shifted sums (mc_moments.h).
 *
 * Reproducible and independent of the number of threads: the batch is cut
 * into a fixed number of segments of whole chunks (a function of the batch
 * only), each segment is summed in sample order by whichever thread takes
 * it, and the segments are merged in order.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "../philox.h"
#include "lib/expr/expr.h"

enum {
  CHUNK = 1024,   /* samples evaluated together (a multiple of 4)        */
  SEGMENTS = 256  /* at most this many partials per batch                 */
};

static const double two_pi = 6.283185307179586476925286766559;

void gq_mc_points(const gq_mc_batch *p, uint64_t first, int count, double *const *x)
{
  const uint64_t q0 = first / 4;
  const int quads = (count + 3) / 4;
  for (int d = 0; d < p->dims; d++) {
    double *xd = x[d];
    for (int j = 0; j < quads; j++) {
      const gq_philox4 r = gq_philox_quad(q0 + (uint64_t)j, (unsigned)d, p->seed);
      double v[4];
      if (p->dist == GQ_MC_NORMAL) {
        /* Box-Muller on the pairs (w0, w1) and (w2, w3) */
        for (int h = 0; h < 4; h += 2) {
          const double rad = sqrt(-2.0 * log(gq_uniform_double(r.v[h])));
          const double theta = two_pi * gq_uniform_double(r.v[h + 1]);
          v[h] = rad * cos(theta);
          v[h + 1] = rad * sin(theta);
        }
      } else {
        for (int l = 0; l < 4; l++)
          v[l] = fma(gq_uniform_double(r.v[l]), p->w[d], p->a[d]);
      }
      for (int l = 0; l < 4 && 4 * j + l < count; l++)
        xd[4 * j + l] = v[l];
    }
  }
}

typedef struct {
  double *x[GQ_MC_MAX_DIMS];
  double *out, *scratch;
  float *out_f, *scratch_f;
} workspace;

static int workspace_open(workspace *ws, const gq_mc_batch *p)
{
  memset(ws, 0, sizeof *ws);
  const size_t regs = gq_expr_block_scratch(p->f->g) + 1;
  int ok = 1;
  for (int d = 0; d < p->dims; d++)
    ok &= (ws->x[d] = malloc(CHUNK * sizeof(double))) != NULL;
  ok &= (ws->out = malloc(CHUNK * sizeof(double))) != NULL;
  if (p->precision == GQ_PRECISION_FLOAT) {
    ok &= (ws->out_f = malloc(CHUNK * sizeof(float))) != NULL;
    ok &= (ws->scratch_f = malloc(regs * sizeof(float))) != NULL;
  } else {
    ok &= (ws->scratch = malloc(regs * sizeof(double))) != NULL;
  }
  return ok ? GQ_SUCCESS : GQ_ENOMEM;
}

static void workspace_close(workspace *ws)
{
  for (int d = 0; d < GQ_MC_MAX_DIMS; d++)
    free(ws->x[d]);
  free(ws->out);
  free(ws->scratch);
  free(ws->out_f);
  free(ws->scratch_f);
}

/* Samples [first, first + count), count <= CHUNK, into m. */
static void sum_chunk(const gq_mc_batch *p, workspace *ws, uint64_t first, int count, gq_mc_moments *m)
{
  gq_mc_points(p, first, count, ws->x);
  const double *vars[GQ_EXPR_MAX_DIMS] = {0};
  for (int d = 0; d < p->dims; d++)
    vars[d] = ws->x[d];
  if (p->precision == GQ_PRECISION_FLOAT) {
    gq_expr_eval_block_f(p->f->g, (size_t)count, vars, ws->out_f, ws->scratch_f);
    for (int k = 0; k < count; k++)
      ws->out[k] = (double)ws->out_f[k];
  } else {
    gq_expr_eval_block(p->f->g, (size_t)count, vars, ws->out, ws->scratch);
  }
  /* groups of four, as the GPU sums a Philox quad before its TwoSum */
  for (int k = 0; k < count; k += 4) {
    double d[4] = {0, 0, 0, 0};
    for (int l = 0; l < 4 && k + l < count; l++)
      d[l] = ws->out[k + l] - p->shift;
    gq_mc_moments_add(m, (d[0] + d[1]) + (d[2] + d[3]),
                      (d[0] * d[0] + d[1] * d[1]) + (d[2] * d[2] + d[3] * d[3]));
  }
}

int gq_cpu_mc_batch(const gq_mc_batch *p, gq_mc_moments *out, gq_grid_info *info)
{
  const uint64_t nchunks = (p->count + CHUNK - 1) / CHUNK;
  const uint64_t nseg = nchunks < SEGMENTS ? nchunks : SEGMENTS;
  gq_mc_moments *partial = calloc((size_t)nseg, sizeof *partial);
  if (!partial)
    return gq_fail(GQ_ENOMEM, "cannot allocate %llu partial sums", (unsigned long long)nseg);
  const double t0 = gq_wall_ms();
  int failed = 0;
#pragma omp parallel num_threads(gq_cpu_threads()) reduction(| : failed)
  {
    workspace ws;
    failed = workspace_open(&ws, p) != GQ_SUCCESS;
#pragma omp for schedule(dynamic)
    for (uint64_t s = 0; s < nseg; s++) {
      if (failed)
        continue;
      gq_mc_moments m = gq_mc_moments_zero();
      const uint64_t c_end = (s + 1) * nchunks / nseg;
      for (uint64_t c = s * nchunks / nseg; c < c_end; c++) {
        const uint64_t left = p->count - c * CHUNK;
        sum_chunk(p, &ws, p->first + c * CHUNK, (int)(left < CHUNK ? left : CHUNK), &m);
      }
      partial[s] = m;
    }
    workspace_close(&ws);
  }
  if (failed) {
    free(partial);
    return gq_fail(GQ_ENOMEM, "cannot allocate the Monte Carlo buffers");
  }
  *out = gq_mc_moments_zero();
  for (uint64_t s = 0; s < nseg; s++)
    gq_mc_moments_merge(out, partial[s]);
  free(partial);
  info->ms = gq_wall_ms() - t0;
  info->compile_ms = 0.0;
  info->jit = GQ_JIT_NONE;
  return GQ_SUCCESS;
}
