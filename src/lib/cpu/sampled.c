/* sampled.c — the CPU backend of gq_integrate_samples: the compensated sum
 * of a stencil's terms (sampled.h: an interval or a Simpson panel per term,
 * its samples read from the neighbouring elements of y and x).
 *
 * Not driver.c's engine: a term needs its neighbours, which that engine's
 * chunked sources (one element per value) do not hand out.  The same
 * determinism, though: the panels are cut into at most MAX_PARTS parts, a
 * function of the count only; each part is summed in index order into its
 * own gq_sum_acc and the parts are merged in part order, so the result has
 * the same bits for every thread count.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../internal.h"
#include "../sampled.h"

enum {
  MAX_PARTS = 256,
  PART_MIN = 1 << 16 /* panels per part at least: fewer are summed faster than a team wakes */
};

static double at(const void *v, int is_float, uint64_t i)
{
  return is_float ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

static double term(const gq_sampled_problem *p, uint64_t k)
{
  const int f = p->is_float;
  if (!p->simpson)
    return gq_trapezoid_term(at(p->x, f, k), at(p->x, f, k + 1), at(p->y, f, k), at(p->y, f, k + 1));
  const uint64_t i = 2 * k;
  const double y0 = at(p->y, f, i), y1 = at(p->y, f, i + 1), y2 = at(p->y, f, i + 2);
  if (!p->x)
    return gq_simpson_term_uniform(y0, y1, y2);
  return gq_simpson_term(at(p->x, f, i), at(p->x, f, i + 1), at(p->x, f, i + 2), y0, y1, y2);
}

/* The fast pass takes every term as finite (TwoSum); the classifying pass
 * counts the non-finite ones and adds the others scaled (reduce_acc.h). */
static void add(gq_sum_acc *acc, double t, int classify)
{
  if (!classify) {
    gq_csum s = {acc->sum, acc->sum_err};
    gq_csum_add(&s, t);
    acc->sum = s.s;
    acc->sum_err = s.c;
    acc->abs_sum += fabs(t);
    acc->n++;
  } else if (isnan(t)) {
    acc->nan_count++;
  } else if (isinf(t)) {
    if (t > 0)
      acc->posinf_count++;
    else
      acc->neginf_count++;
  } else {
    gq_sum_acc_add_scaled(acc, t, 0.0, 0);
  }
}

int gq_cpu_sampled_sum(const gq_sampled_problem *p, gq_sum_acc *out)
{
  const uint64_t want = (p->panels + PART_MIN - 1) / PART_MIN;
  const uint64_t nparts = want < MAX_PARTS ? (want ? want : 1) : MAX_PARTS;
  gq_sum_acc *part = malloc((size_t)nparts * sizeof *part);
  if (!part)
    return gq_fail(GQ_ENOMEM, "cannot allocate %llu partial sums", (unsigned long long)nparts);
  const int threads = gq_cpu_threads();
  const int team = (uint64_t)threads < nparts ? threads : (int)nparts;
#pragma omp parallel for num_threads(team > 1 ? team : 1) if (team > 1) schedule(dynamic)
  for (uint64_t s = 0; s < nparts; s++) {
    const uint64_t lo = s * p->panels / nparts, hi = (s + 1) * p->panels / nparts;
    gq_sum_acc_zero(&part[s]);
    for (uint64_t k = lo; k < hi; k++)
      add(&part[s], term(p, k), p->classify);
  }
  gq_sum_acc_zero(out);
  for (uint64_t s = 0; s < nparts; s++)
    gq_sum_acc_combine(out, &part[s]);
  free(part);
  return GQ_SUCCESS;
}
