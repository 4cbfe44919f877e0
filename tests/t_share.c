/* t_share.c — a context's share of the work (gq_context_set_share) without
 * MPI: K ranks simulated in one process on CPU contexts.  Ranks 1..K-1 run
 * first and their combine step records each partial; rank 0 runs last and
 * its combine merges the recorded partials in rank order, as mpirun's ranks
 * would each do.  (Valid where the sequence of combines does not depend on
 * their results: finite integrands, Monte Carlo without a tolerance.)
 * Checked: rank 0's results against one process's (the same terms, merged in
 * another order: within 4 ulp), a failure reported by the combine, the
 * arguments of gq_context_set_share, gq_share_range's partition, and
 * gq_generate_range against slices of gq_generate (poisoned buffers). */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "../src/lib/poison.h"
#include "tap.h"

enum { MAX_RANKS = 8, MAX_CALLS = 16, MAX_BYTES = 256 };

typedef struct {
  int rank, ranks, calls, fail;
  unsigned char partial[MAX_CALLS][MAX_RANKS][MAX_BYTES];
} simulation;

static int simulated_combine(void *partial, size_t bytes, gq_merge_fn *merge, int status, void *user)
{
  simulation *s = user;
  const int call = s->calls++;
  if (call >= MAX_CALLS || bytes > MAX_BYTES)
    return GQ_EINVAL;
  if (s->rank != 0) {
    memcpy(s->partial[call][s->rank], partial, bytes);
    return status;
  }
  for (int r = 1; r < s->ranks; r++)
    merge(partial, s->partial[call][r]);
  return s->fail ? s->fail : status;
}

typedef int problem_fn(gq_context *ctx, gq_rule_result *rule, gq_mc_result *mc);

/* The problem on K simulated ranks: rank 0's status and results. */
static int on_ranks(problem_fn *problem, int ranks, int fail, gq_rule_result *rule, gq_mc_result *mc)
{
  static simulation s;
  s.ranks = ranks;
  s.fail = fail;
  int status = GQ_SUCCESS;
  for (int r = ranks - 1; r >= 0; r--) {
    gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
    s.rank = r;
    s.calls = 0;
    const gq_share share = {r, ranks, simulated_combine, &s};
    gq_context_set_share(ctx, &share);
    status = problem(ctx, rule, mc);
    gq_context_free(ctx);
  }
  return status;
}

static int close_to(double a, double b) { return fabs(a - b) <= 4 * DBL_EPSILON * fabs(b) && b != 0.0; }

static int trapezoid(gq_context *ctx, gq_rule_result *rule, gq_mc_result *mc)
{
  (void)mc;
  return gq_integrate_rule(ctx, gq_integrand_builtin("circle"), GQ_RULE_TRAPEZOID, 0.0, 1.0, 1000003,
                           GQ_PRECISION_DOUBLE, rule);
}

static gq_integrand *box_f, *plane_f; /* of x1, x2, x3; of x1, x2 */
static int box_simpson(gq_context *ctx, gq_rule_result *rule, gq_mc_result *mc)
{
  (void)mc;
  const gq_box box = {3, {0, 0, 0}, {1, 2, 1}, {40, 30, 26}};
  return gq_integrate_box(ctx, box_f, (gq_rule_spec){GQ_RULE_SIMPSON, 0}, &box, GQ_PRECISION_DOUBLE, rule);
}

static int box_gauss(gq_context *ctx, gq_rule_result *rule, gq_mc_result *mc)
{
  (void)mc;
  const gq_box box = {2, {0, -1}, {1, 2}, {9, 7}};
  return gq_integrate_box(ctx, plane_f, (gq_rule_spec){GQ_RULE_GAUSS_LEGENDRE, 5}, &box, GQ_PRECISION_DOUBLE,
                          rule);
}

static int monte_carlo(gq_context *ctx, gq_rule_result *rule, gq_mc_result *mc)
{
  (void)rule;
  gq_mc_options o;
  gq_mc_options_init(&o);
  o.dims = 2;
  o.n = 40000003; /* three CPU batches: three combines */
  o.seed = 11;
  return gq_mc_mean(ctx, plane_f, &o, mc);
}

static void rules_on_ranks(const char *name, problem_fn *problem)
{
  gq_rule_result one, split;
  gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
  const int st1 = problem(ctx, &one, NULL);
  gq_context_free(ctx);
  for (int k = 1; k <= 5; k += 2) {
    const int st = on_ranks(problem, k, 0, &split, NULL);
    tap_ok(st == GQ_SUCCESS && st1 == GQ_SUCCESS && close_to(split.result, one.result) &&
               close_to(split.coarse, one.coarse) && split.points == one.points,
           "%s on %d ranks: %.17g, one process %.17g", name, k, split.result, one.result);
  }
}

static void share_ranges(void)
{
  static const uint64_t ns[] = {0, 1, 5, 7, 1000, 1001};
  static const uint64_t units[] = {1, 4, 7};
  static const int ranks[] = {1, 2, 3, 5, 16};
  int ok = 1;
  for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
    for (size_t b = 0; b < sizeof units / sizeof *units; b++)
      for (size_t c = 0; c < sizeof ranks / sizeof *ranks; c++) {
        uint64_t next = 0, smallest = UINT64_MAX, largest = 0;
        for (int r = 0; r < ranks[c]; r++) {
          uint64_t first, count;
          gq_share_range(ns[a], units[b], r, ranks[c], &first, &count);
          ok &= first == next && (first % units[b] == 0 || first == ns[a]);
          next = first + count;
          smallest = count < smallest ? count : smallest;
          largest = count > largest ? count : largest;
        }
        /* a unit more on the first ranks, a partial unit on the last */
        ok &= next == ns[a] && largest - smallest < 2 * units[b];
        if (!ok) {
          diag("n = %llu, unit %llu, %d ranks", (unsigned long long)ns[a], (unsigned long long)units[b], ranks[c]);
          ok = 0;
        }
      }
  tap_ok(ok, "gq_share_range: contiguous, in rank order, on unit boundaries, the whole, balanced");
}

static void generate_ranges(void)
{
  enum { N = 1003 };
  static const gq_gen_kind kinds[] = {GQ_GEN_UNIFORM, GQ_GEN_NORMAL, GQ_GEN_LINSPACE};
  gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
  double whole[N], part[N + 2];
  float whole_f[N], part_f[N + 2];
  const uint64_t poison = GQ_POISON;
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    int ok = gq_generate(ctx, kinds[k], N, 5, whole) == GQ_SUCCESS &&
             gq_generate_f(ctx, kinds[k], N, 5, whole_f) == GQ_SUCCESS;
    for (int ranks = 1; ranks <= 7; ranks += 2)
      for (int r = 0; r < ranks; r++) {
        uint64_t first, count;
        gq_share_range(N, 4, r, ranks, &first, &count);
        for (size_t i = 0; i < N + 2; i++) {
          memcpy(&part[i], &poison, sizeof poison);
          memcpy(&part_f[i], &poison, sizeof part_f[i]);
        }
        ok &= gq_generate_range(ctx, kinds[k], N, first, count, 5, part) == GQ_SUCCESS;
        ok &= gq_generate_range_f(ctx, kinds[k], N, first, count, 5, part_f) == GQ_SUCCESS;
        ok &= memcmp(part, whole + first, count * sizeof *part) == 0;
        ok &= memcmp(part_f, whole_f + first, count * sizeof *part_f) == 0;
        ok &= memcmp(&part[count], &poison, sizeof poison) == 0; /* nothing past the range */
      }
    tap_ok(ok, "gq_generate_range kind %d: every share of 1, 3, 5, 7 ranks is its slice of gq_generate", (int)kinds[k]);
  }
  tap_ok(gq_generate_range(ctx, GQ_GEN_UNIFORM, N, 2, 4, 5, part) == GQ_EINVAL, "a first that is no multiple of 4: GQ_EINVAL");
  tap_ok(gq_generate_range(ctx, GQ_GEN_UNIFORM, N, 1000, 4, 5, part) == GQ_EINVAL, "a range beyond n: GQ_EINVAL");
  tap_ok(gq_generate_range(ctx, GQ_GEN_UNIFORM, N, N, 0, 5, part) == GQ_SUCCESS, "an empty range at n: nothing to do");
  gq_context_free(ctx);
}

int main(void)
{
  share_ranges();
  generate_ranges();

  if (gq_integrand_parse("exp(-x1*x2)*(1+x3)+cos(x1-x2)", NULL, 0, 3, &box_f, NULL) != GQ_SUCCESS ||
      gq_integrand_parse("exp(-x1*x2)+cos(x1-x2)", NULL, 0, 2, &plane_f, NULL) != GQ_SUCCESS) {
    tap_ok(0, "parse: %s", gq_last_error());
    return tap_done();
  }
  rules_on_ranks("trapezoid of circle, n = 1000003", trapezoid);
  rules_on_ranks("simpson over a 3-D box (split along x3's points)", box_simpson);
  rules_on_ranks("gauss-legendre:5 over a 2-D box (split along x2's panels)", box_gauss);

  gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
  gq_mc_result one, split;
  gq_rule_result unused;
  const int st1 = monte_carlo(ctx, &unused, &one);
  gq_context_free(ctx);
  for (int k = 2; k <= 5; k += 3) {
    const int st = on_ranks(monte_carlo, k, 0, &unused, &split);
    tap_ok(st == GQ_SUCCESS && st1 == GQ_SUCCESS && split.n == one.n && close_to(split.mean, one.mean) &&
               close_to(split.sd, one.sd),
           "mc on %d ranks: mean %.17g sd %.17g, one process %.17g %.17g", k, split.mean, split.sd, one.mean,
           one.sd);
  }

  gq_rule_result r;
  const int st = on_ranks(trapezoid, 3, GQ_ECUDA, &r, NULL);
  tap_ok(st == GQ_ECUDA && strstr(gq_last_error(), "another rank failed") != NULL,
         "a failure on another rank: its status, and \"%s\"", gq_last_error());

  ctx = gq_context_create(GQ_DEVICE_CPU);
  static simulation s;
  tap_ok(gq_context_set_share(ctx, &(gq_share){2, 2, simulated_combine, &s}) == GQ_EINVAL, "rank 2 of 2: GQ_EINVAL");
  tap_ok(gq_context_set_share(ctx, &(gq_share){0, 2, NULL, &s}) == GQ_EINVAL, "no combine: GQ_EINVAL");
  tap_ok(gq_context_set_share(NULL, NULL) == GQ_EINVAL, "no context: GQ_EINVAL");
  tap_ok(gq_context_set_share(ctx, NULL) == GQ_SUCCESS && trapezoid(ctx, &r, NULL) == GQ_SUCCESS,
         "NULL: the whole again");
  gq_context_free(ctx);
  gq_integrand_free(box_f);
  gq_integrand_free(plane_f);
  return tap_done();
}
