/* cpu/exact.c — the deterministic reductions on the CPU: the array is cut
 * into fixed parts, each thread adds its parts' elements into its own exact
 * accumulator (exact_acc.h), and the threads' accumulators are merged.
 * Every merge is exact, so neither the thread count nor which thread took
 * which part changes a bit of the result. */
#include "config.h"

#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../exact.h"

enum { PART = 1 << 14 }; /* elements per scheduling unit */

static double element(const void *v, int is_float, size_t i)
{
  return is_float ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

static void add_range(struct gq_exact_acc *a, const gq_array_reduce *p, size_t first, size_t end)
{
  switch (p->kind) {
  case GQ_REDUCE_SUM:
    for (size_t i = first; i < end; i++)
      gq_exact_add_sum(a, element(p->x, p->is_float, i), i);
    break;
  case GQ_REDUCE_DOT:
    for (size_t i = first; i < end; i++)
      gq_exact_add_dot(a, element(p->x, p->is_float, i), element(p->y, p->is_float, i), i);
    break;
  case GQ_REDUCE_RMS:
    for (size_t i = first; i < end; i++)
      gq_exact_add_rms(a, element(p->x, p->is_float, i), element(p->y, p->is_float, i));
    break;
  case GQ_REDUCE_STATS:
    for (size_t i = first; i < end; i++)
      gq_exact_add_stats(a, element(p->x, p->is_float, i), i);
    break;
  }
}

int gq_cpu_exact_reduce(const gq_array_reduce *p, int magnitudes, struct gq_exact_acc *out)
{
  gq_exact_acc_zero(out, (int)p->kind);
  out->magnitudes = magnitudes;
  const size_t parts = (p->n + PART - 1) / PART;
  int team = gq_cpu_threads();
  if ((size_t)team > parts)
    team = parts > 0 ? (int)parts : 1;
  struct gq_exact_acc *mine = malloc((size_t)team * sizeof *mine);
  if (!mine)
    return gq_fail(GQ_ENOMEM, "cannot allocate %d exact accumulators", team);
  for (int t = 0; t < team; t++) {
    gq_exact_acc_zero(&mine[t], (int)p->kind);
    mine[t].magnitudes = magnitudes;
  }
#pragma omp parallel for num_threads(team) if (team > 1) schedule(dynamic)
  for (size_t part = 0; part < parts; part++) {
#ifdef _OPENMP
    struct gq_exact_acc *a = &mine[omp_get_thread_num()];
#else
    struct gq_exact_acc *a = &mine[0];
#endif
    const size_t first = part * PART, end = first + PART < p->n ? first + PART : p->n;
    add_range(a, p, first, end);
  }
  for (int t = 0; t < team; t++)
    gq_exact_acc_combine(out, &mine[t]);
  free(mine);
  return GQ_SUCCESS;
}
