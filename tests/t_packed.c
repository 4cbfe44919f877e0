/* t_packed.c — many small integrals in one launch (issue 23, packed.h):
 * every packed problem's result is bitwise the single call's — each rule,
 * both precisions, tiny and medium grids, the largest grid that packs and
 * the first that does not, limits that differ per problem, a pole on the
 * grid (its error as the single run's) — and a pack answers only the
 * request it computed.  On the CPU (no argument) the pack is the sums of
 * problems below 64 Ki points side by side on the threads; with "gpu" it is
 * one launch on CUDA device 0 (exit 77 without one: tests/packed.gpu). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/lib/packed.h"
#include "../src/lib/poison.h"
#include "tap_context.h"

static const double PI = 3.14159265358979323846;

static gq_integrand *parse_k(const char *text, double k, double c)
{
  char d0[64], d1[64];
  snprintf(d0, sizeof d0, "k=%.17g", k);
  snprintf(d1, sizeof d1, "c=%.17g", c);
  const char *defs[2] = {d0, d1};
  gq_integrand *f = NULL;
  return gq_integrand_parse(text, defs, 2, 1, &f, NULL) == GQ_SUCCESS ? f : NULL;
}

static void poison(gq_rule_result *r, size_t count)
{
  const unsigned long long bits = GQ_POISON;
  for (size_t i = 0; i < count; i++) {
    memcpy(&r[i].result, &bits, sizeof bits);
    memcpy(&r[i].abserr, &bits, sizeof bits);
    memcpy(&r[i].coarse, &bits, sizeof bits);
  }
}

static int same(const gq_rule_result *x, const gq_rule_result *y)
{
  return memcmp(&x->result, &y->result, sizeof x->result) == 0 &&
         memcmp(&x->abserr, &y->abserr, sizeof x->abserr) == 0 &&
         memcmp(&x->coarse, &y->coarse, sizeof x->coarse) == 0 && x->nonfinite_count == y->nonfinite_count;
}

/* count problems of text (k = 1 + i, c = 0.25 + i / 8) through the pack
 * directly, each against its single call; returns whether it packed. */
static int packed_against_single(gq_context *ctx, const char *text, gq_rule rule, gq_precision precision,
                                 uint64_t n, size_t count, int vary_limits, double c1)
{
  gq_integrand **f = calloc(count, sizeof *f);
  double *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b);
  gq_rule_result *got = malloc(count * sizeof *got), alone;
  int *st = malloc(count * sizeof *st);
  if (!f || !a || !b || !got || !st) {
    tap_ok(0, "out of memory");
    exit(99);
  }
  for (size_t i = 0; i < count; i++) {
    f[i] = parse_k(text, 1.0 + (double)i, i == 1 && !isnan(c1) ? c1 : 0.25 + (double)i / 8.0);
    a[i] = vary_limits ? -0.125 * (double)(i % 7) : 0.0;
    b[i] = vary_limits ? PI + 0.5 * (double)(i % 5) : PI;
  }
  gq_packed *pk = NULL;
  const int prepared = gq_packed_prepare(ctx, (const gq_integrand *const *)f, a, b, n, precision, count, &pk);
  poison(got, count);
  size_t equal = 0, first_bad = count;
  for (size_t i = 0; i < count; i++) {
    gq_box box = {1, {a[i]}, {b[i]}, {n}};
    const gq_rule_spec spec = {rule, 0};
    gq_packed_select(ctx, pk, i);
    st[i] = gq_integrate_box(ctx, f[i], spec, &box, precision, &got[i]);
    gq_packed_select(ctx, NULL, 0);
    const int s1 = gq_integrate_box(ctx, f[i], spec, &box, precision, &alone);
    if (s1 == st[i] && same(&alone, &got[i]))
      equal++;
    else if (first_bad == count)
      first_bad = i;
  }
  tap_ok(prepared == GQ_SUCCESS && equal == count, "%s %s %s n=%llu, %zu problems%s: %s, %zu of %zu bitwise the single call's%s",
         text, gq_rule_name(rule), precision == GQ_PRECISION_FLOAT ? "float" : "double", (unsigned long long)n, count,
         vary_limits ? " (limits per problem)" : "", pk ? "packed" : "alone", equal, count,
         first_bad < count ? " (see below)" : "");
  if (first_bad < count)
    printf("# problem %zu: %.17g (status %d) against %.17g\n", first_bad, got[first_bad].result, st[first_bad],
           alone.result);
  const int packed = pk != NULL;
  if (pk && count > 1) {
    /* a pack answers only its own request: problem 1 run while problem 0 is selected */
    gq_box box = {1, {a[1]}, {b[1]}, {n}};
    const gq_rule_spec spec = {rule, 0};
    gq_rule_result wrong;
    gq_packed_select(ctx, pk, 0);
    const int s = gq_integrate_box(ctx, f[1], spec, &box, precision, &wrong);
    gq_packed_select(ctx, NULL, 0);
    tap_ok(s == st[1] && same(&wrong, &got[1]), "  ...problem 1 under problem 0's selection is still problem 1's");
  }
  gq_packed_free(pk);
  for (size_t i = 0; i < count; i++)
    gq_integrand_free(f[i]);
  free(f), free(a), free(b), free(got), free(st);
  return packed;
}

int main(int argc, char **argv)
{
  int gpu;
  gq_context *ctx = tap_context(argc, argv, &gpu);
  if (!ctx)
    return tap_done();
  const char *F = "sin(k*x)/(c+x)";
  static const gq_rule rules[] = {GQ_RULE_TRAPEZOID, GQ_RULE_SIMPSON, GQ_RULE_BOOLE};
  for (int r = 0; r < 3; r++)
    for (int p = 0; p < 2; p++) {
      const gq_precision precision = p ? GQ_PRECISION_FLOAT : GQ_PRECISION_DOUBLE;
      const int small = packed_against_single(ctx, F, rules[r], precision, 1000, 64, 0, NAN);
      const int medium = packed_against_single(ctx, F, rules[r], precision, 100000, 16, r == 1, NAN);
      /* the CPU packs only problems its single run gives one thread (below
       * 64 Ki points): 10^5 points keep their team there */
      tap_ok(small && medium == gpu, "  ...%s", gpu ? "both packed" : "10^3 packed, 10^5 run alone with its team");
    }
  /* one block per tile up to one tile per multiprocessor: that grid packs,
   * one more tile does not (the single launch's grid could then differ) */
  const int sms = gq_context_threads(ctx);
  if (gpu) {
    /* the tiles of policy.cuh's Grid (512 x 16), and of GridRot (512 x 32)
     * where the expression's sines rotate (grid_rot_source.cuh: double only) */
    const struct {
      const char *f;
      gq_precision p;
      uint64_t tile;
    } shapes[] = {{"k/(c + x*x)", GQ_PRECISION_DOUBLE, 512 * 16},
                  {F, GQ_PRECISION_FLOAT, 512 * 16},
                  {F, GQ_PRECISION_DOUBLE, 512 * 32}};
    for (int i = 0; i < 3; i++) {
      const uint64_t largest = (uint64_t)sms * shapes[i].tile + 1; /* n - 1 interior points */
      tap_ok(packed_against_single(ctx, shapes[i].f, GQ_RULE_TRAPEZOID, shapes[i].p, largest, 3, 0, NAN),
             "  ...%s %s: %d tiles (as many as multiprocessors) packed", shapes[i].f,
             shapes[i].p ? "float" : "double", sms);
      tap_ok(!packed_against_single(ctx, shapes[i].f, GQ_RULE_TRAPEZOID, shapes[i].p, largest + 4, 3, 0, NAN),
             "  ...%s %s: %d tiles left to run alone", shapes[i].f, shapes[i].p ? "float" : "double", sms + 1);
    }
  }
  /* many tiny problems: more blocks than one chunk's grid dimension could name in y */
  packed_against_single(ctx, "exp(-k*x*x/1000)+c", GQ_RULE_SIMPSON, GQ_PRECISION_DOUBLE, 100, 70000, 0, NAN);
  /* problem 1 with a pole on the grid point x_500 = fma(500, h, 0) of [0, pi]
   * with n = 1000: its error as its single run's, the others packed */
  packed_against_single(ctx, "k/(x-c)", GQ_RULE_TRAPEZOID, GQ_PRECISION_DOUBLE, 1000, 4, 0, fma(500.0, PI / 1000.0, 0.0));

  /* the library's batch call: each result the single call's */
  const char *names[] = {"k", "c"};
  enum { COUNT = 300 };
  double sets[2 * COUNT];
  for (int i = 0; i < COUNT; i++) {
    sets[2 * i] = 1.0 + i;
    sets[2 * i + 1] = 0.5 + i / 64.0;
  }
  gq_box box = {.dims = 1, .a = {0.0}, .b = {PI}, .n = {4000}};
  const gq_rule_spec spec = {GQ_RULE_BOOLE, 0};
  static gq_rule_result results[COUNT];
  static int statuses[COUNT];
  poison(results, COUNT);
  const int st = gq_integrate_box_batch(ctx, F, names, 2, sets, COUNT, spec, &box, GQ_PRECISION_DOUBLE, results,
                                        statuses);
  int equal = 0;
  double ms = 0.0;
  for (int i = 0; i < COUNT; i++) {
    gq_integrand *f = parse_k(F, sets[2 * i], sets[2 * i + 1]);
    gq_rule_result alone;
    if (f && gq_integrate_box(ctx, f, spec, &box, GQ_PRECISION_DOUBLE, &alone) == statuses[i] &&
        same(&alone, &results[i]))
      equal++;
    ms += results[i].kernel_ms;
    gq_integrand_free(f);
  }
  tap_ok(st == GQ_SUCCESS && equal == COUNT, "gq_integrate_box_batch, %d problems: %d bitwise the single calls'",
         COUNT, equal);
  tap_ok(ms > 0.0 && isfinite(ms), "  ...their device time adds up to %.3f ms", ms);
  gq_context_free(ctx);
  return tap_done();
}
