/* packed.c — many one-dimensional grid sums of one expression in one launch
 * (issue 23; packed.h says how a packed problem stays bitwise its single
 * run).  The pack keeps, per problem, the request its rule will make and the
 * sums the launch gave; gq_packed_take answers only that request. */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "packed.h"

typedef struct {
  gq_grid_sum grid; /* the request the rule will make (rules.c's rule_sum) */
  gq_csum sums[GQ_GRID_KEYS];
  int ready;        /* packed, and its sums finite                          */
} packed_problem;

/* A request is known by what decides its sums, not by the integrand object
 * (the program parses each problem again to run it): the expression
 * module's key, the parameter values its kernel reads, the grid. */
struct gq_packed {
  size_t count;
  packed_problem *problem;
  char *key;               /* the module's (gq_integrand_jit_key)           */
  int nparams;
  double *params;          /* problem i's values at params[i nparams]       */
  double ms_each;          /* the launches' device time, shared evenly      */
  gq_grid_info first_info; /* the module's load, told by the first problem  */
  size_t first_ready;
};

/* Would rule_sum ask the grid sum of f over [a, b] with n intervals, and
 * may it come from a pack?  Its request in *g. */
static int packable(const gq_context *ctx, const gq_integrand *f, double a, double b, uint64_t n,
                    gq_precision precision, gq_grid_sum *g)
{
  if (!f || f->id >= 0 || !f->g || n < 2 || n > GQ_TRAPEZOID_MAX_N || !isfinite(a) || !isfinite(b))
    return 0;
  /* on the CPU only a problem whose own run takes one thread: a larger one
   * keeps its whole team (the GPU's limit is its launch's: grid_batch.cu) */
  if (ctx->backend != GQ_BACKEND_CUDA && gq_cpu_grid_parts(n - 1) > 1)
    return 0;
  const double h = (b - a) / (double)n;
  if (!isfinite(h) || h == 0.0)
    return 0;
  *g = (gq_grid_sum){f, precision, a, h, 1, n - 1, ctx->deterministic, NULL};
  return 1;
}

static int all_finite(const gq_csum s[GQ_GRID_KEYS])
{
  double total = 0.0;
  for (int k = 0; k < GQ_GRID_KEYS; k++)
    total += gq_csum_value(s[k]);
  return total - total == 0.0;
}

/* The CPU's pack: the members' sums side by side, one problem a thread.
 * Members are problems of one part (packable), which their single run also
 * sums on one thread, so each sum is the single run's.  A problem whose sum fails is
 * left to its single run (ready 0; the sums' order is the members'). */
static void cpu_sums(const gq_context *ctx, packed_problem *problem, const gq_integrand *const *f, size_t count,
                     size_t members, gq_csum (*sums)[GQ_GRID_KEYS], gq_grid_info *info)
{
  size_t *member = malloc(members * sizeof *member);
  size_t j = 0;
  for (size_t i = 0; member && i < count; i++)
    if (problem[i].ready)
      member[j++] = i;
  /* no progress from the pack's threads: each problem's count would start
   * again at 0, from whichever thread ran it */
  gq_context quiet = *ctx;
  quiet.progress = NULL;
  const double t0 = gq_wall_ms();
#pragma omp parallel for schedule(dynamic, 16) num_threads(gq_cpu_threads()) if (members > 1)
  for (ptrdiff_t m = 0; m < (ptrdiff_t)members; m++) {
    gq_grid_sum g = {0};
    int ok = member != NULL;
    if (ok) {
      g = problem[member[m]].grid;
      g.f = f[member[m]];
    }
    gq_grid_info one;
    if (!ok || gq_cpu_grid_sum(&quiet, &g, sums[m], &one) != GQ_SUCCESS)
      for (int k = 0; k < GQ_GRID_KEYS; k++)
        sums[m][k] = (gq_csum){NAN, 0.0}; /* not finite: left to the single run */
  }
  info->ms = gq_wall_ms() - t0;
  free(member);
}

int gq_packed_prepare(gq_context *ctx, const gq_integrand *const *f, const double *a, const double *b, uint64_t n,
                      gq_precision precision, size_t count, gq_packed **out)
{
  *out = NULL;
  if (ctx->deterministic || ctx->share.ranks > 1 || count < 2)
    return GQ_SUCCESS;
  gq_packed *pk = calloc(1, sizeof *pk);
  packed_problem *problem = pk ? calloc(count, sizeof *problem) : NULL;
  if (!problem) {
    free(pk);
    return GQ_SUCCESS; /* not packing is always correct: the problems run alone */
  }
  pk->count = count;
  pk->problem = problem;
  pk->params = NULL;
  /* the problems that share the first packable one's module and parameter count */
  const char *key = NULL;
  int nparams = 0;
  size_t members = 0;
  for (size_t i = 0; i < count; i++) {
    gq_grid_sum g;
    if (!packable(ctx, f[i], a[i], b[i], n, precision, &g))
      continue;
    const double *values;
    const int np = gq_integrand_gpu_params(f[i], &values);
    if (!key) {
      key = gq_integrand_jit_key(f[i]);
      nparams = np;
      pk->first_ready = i;
    } else if (np != nparams || strcmp(key, gq_integrand_jit_key(f[i])) != 0) {
      continue;
    }
    problem[i].grid = g;
    problem[i].ready = 1;
    members++;
  }
  pk->nparams = nparams;
  pk->key = key ? strdup(key) : NULL;
  /* every problem's values (the pack's, kept to recognise its requests),
   * and the packed members' (the launch's) */
  pk->params = nparams ? malloc(count * (size_t)nparams * sizeof *pk->params) : NULL;
  double *ah = members ? malloc(members * 2 * sizeof *ah) : NULL;
  double *params = members && nparams ? malloc(members * (size_t)nparams * sizeof *params) : NULL;
  gq_csum(*sums)[GQ_GRID_KEYS] = members ? malloc(members * sizeof *sums) : NULL;
  int status = GQ_SUCCESS, packed = 0;
  if (members >= 2 && pk->key && ah && sums && (params || !nparams) && (pk->params || !nparams)) {
    size_t j = 0;
    for (size_t i = 0; i < count; i++) {
      if (!problem[i].ready)
        continue;
      ah[2 * j] = problem[i].grid.a;
      ah[2 * j + 1] = problem[i].grid.h;
      const double *values;
      gq_integrand_gpu_params(f[i], &values);
      if (nparams) {
        memcpy(params + j * (size_t)nparams, values, (size_t)nparams * sizeof *params);
        memcpy(pk->params + i * (size_t)nparams, values, (size_t)nparams * sizeof *params);
      }
      j++;
    }
    gq_grid_info info = {0.0, 0.0, GQ_JIT_NONE};
    if (ctx->backend == GQ_BACKEND_CUDA) {
      gq_grid_batch batch = {problem[pk->first_ready].grid, members, ah, params, nparams};
      status = gq_cuda_grid_sum_batch(ctx->cuda, &batch, sums, &info, &packed);
    } else {
      cpu_sums(ctx, problem, f, count, members, sums, &info);
      packed = 1;
    }
    if (status == GQ_SUCCESS && packed) {
      pk->ms_each = info.ms / (double)members;
      pk->first_info = info;
      j = 0;
      for (size_t i = 0; i < count; i++) {
        if (!problem[i].ready)
          continue;
        memcpy(problem[i].sums, sums[j++], sizeof problem[i].sums);
        problem[i].ready = all_finite(problem[i].sums); /* else its single run reruns it exactly */
      }
    }
  }
  for (size_t i = 0; i < count; i++)
    problem[i].grid.f = NULL; /* the caller's integrands are not kept */
  free(ah);
  free(params);
  free(sums);
  if (status != GQ_SUCCESS || !packed) {
    gq_packed_free(pk);
    return status;
  }
  *out = pk;
  return GQ_SUCCESS;
}

void gq_packed_select(gq_context *ctx, gq_packed *pk, size_t i)
{
  ctx->packed = pk;
  ctx->packed_index = i;
}

void gq_packed_free(gq_packed *pk)
{
  if (pk) {
    free(pk->problem);
    free(pk->key);
    free(pk->params);
  }
  free(pk);
}

int gq_packed_take(gq_context *ctx, const gq_grid_sum *p, gq_csum sums[GQ_GRID_KEYS], gq_grid_info *info)
{
  const gq_packed *pk = ctx->packed;
  if (!pk || ctx->packed_index >= pk->count)
    return 0;
  const packed_problem *q = &pk->problem[ctx->packed_index];
  /* the very request packed, compared field by field (a, h and the
   * parameters bitwise) */
  if (!q->ready || !p->f || p->f->id >= 0 || !p->f->g || p->precision != q->grid.precision ||
      p->first != q->grid.first || p->last != q->grid.last || p->deterministic != q->grid.deterministic ||
      memcmp(&p->a, &q->grid.a, sizeof p->a) != 0 || memcmp(&p->h, &q->grid.h, sizeof p->h) != 0 ||
      strcmp(gq_integrand_jit_key(p->f), pk->key) != 0)
    return 0;
  const double *values;
  if (gq_integrand_gpu_params(p->f, &values) != pk->nparams ||
      (pk->nparams && memcmp(values, pk->params + ctx->packed_index * (size_t)pk->nparams,
                             (size_t)pk->nparams * sizeof *values) != 0))
    return 0;
  memcpy(sums, q->sums, sizeof q->sums);
  if (ctx->packed_index == pk->first_ready) {
    *info = pk->first_info;
    info->ms = pk->ms_each;
  } else {
    /* the module the first one compiled or loaded, found loaded (a CPU pack has none) */
    *info = (gq_grid_info){pk->ms_each, 0.0, pk->first_info.jit == GQ_JIT_NONE ? GQ_JIT_NONE : GQ_JIT_LOADED};
  }
  return 1;
}
