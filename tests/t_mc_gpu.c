/* t_mc_gpu.c — gpuquad mc on the GPU: the device Philox equals cuRAND's
 * device API bit for bit; fused results statistically consistent with the
 * CPU backend and with known values; bit-identical across runs; equal across
 * grid sizes up to the order of the sums; float evaluation; the normal
 * distribution, the same points as the CPU's; a NaN reported.
 * Exits 77 without a GPU. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../src/gpuquad.h"
#include "tap.h"

#ifdef HAVE_CUDA /* tests/mc_curand_kernels.cu */
long long gq_test_philox_vs_curand(unsigned long long seed, unsigned long long q0, unsigned long long quads, int dims);
#else
static long long gq_test_philox_vs_curand(unsigned long long s, unsigned long long q, unsigned long long n, int d)
{
  (void)s; (void)q; (void)n; (void)d;
  return -1; /* never reached: no device without CUDA */
}
#endif

static int run(gq_context *ctx, const char *text, const gq_mc_options *o, gq_mc_result *r)
{
  gq_integrand *f = NULL;
  int st = gq_integrand_parse(text, NULL, 0, o->dims, &f, NULL);
  if (st == GQ_SUCCESS)
    st = gq_mc_mean(ctx, f, o, r);
  if (st != GQ_SUCCESS)
    printf("# %s: %s\n", text, gq_last_error());
  gq_integrand_free(f);
  return st;
}

static void box(gq_mc_options *o, int dims, double a, double b, uint64_t n, uint64_t seed)
{
  gq_mc_options_init(o);
  o->dims = dims;
  for (int d = 0; d < dims; d++) {
    o->a[d] = a;
    o->b[d] = b;
  }
  o->n = n;
  o->seed = seed;
}

/* two independent estimates of the same mean agree within 5 combined se */
static double zdiff(const gq_mc_result *x, const gq_mc_result *y)
{
  return (x->mean - y->mean) / sqrt(x->se * x->se + y->se * y->se);
}

int main(void)
{
  if (gq_cuda_device_count() == 0) {
    printf("1..0 # SKIP no CUDA device\n");
    return 77;
  }
  char dir[] = "/tmp/gpuquad-mc-XXXXXX";
  if (!mkdtemp(dir))
    return 99;
  setenv("GPUQUAD_CACHE_DIR", dir, 1);
  gq_context *gpu = gq_context_create(0), *cpu = gq_context_create(GQ_DEVICE_CPU);

  const unsigned long long seeds[] = {0, 1, 0x123456789abcdefull, ~0ull};
  for (int k = 0; k < 4; k++) {
    const long long bad = gq_test_philox_vs_curand(seeds[k], k == 3 ? (1ull << 40) - 1000 : 0, 100000, 16);
    tap_ok(bad == 0, "Philox equals curand_init(seed, d, 4q) + curand4, seed %llx: %lld of 1.6e6 differ", seeds[k],
           bad);
  }

  const double pi = 3.14159265358979323846;
  const struct { const char *f; int dims; double a, b, exact; } cases[] = {
    {"sqrt(1-x^2)", 1, 0, 1, pi / 4},
    {"exp(-(x1^2+x2^2))", 2, -3, 3, pi * erf(3.0) * erf(3.0) / 36},
    {"x1*x2*x3*x4*x5", 5, 0, 2, 1.0},
    {"x1+x2+x3+x4+x5+x6+x7+x8+x9+x10+x11+x12+x13+x14+x15+x16", 16, 0, 1, 8.0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int p = 0; p < 2; p++) {
      gq_mc_options o;
      gq_mc_result g, c;
      box(&o, cases[i].dims, cases[i].a, cases[i].b, 1000003, 11);
      o.precision = (gq_precision)p;
      const int gs = run(gpu, cases[i].f, &o, &g);
      run(cpu, cases[i].f, &o, &c);
      const double zg = (g.mean - cases[i].exact) / g.se;
      tap_ok(gs == GQ_SUCCESS && fabs(zg) < 4 && fabs(zdiff(&g, &c)) < 5,
             "%dD %s %s: GPU %.8g (z vs exact %.2f), CPU %.8g, same samples so close: |diff| %.2g se", cases[i].dims,
             cases[i].f, p ? "float" : "double", g.mean, zg, c.mean, fabs(g.mean - c.mean) / g.se);
      /* the CPU draws the same points: in double the estimates nearly coincide */
      if (p == 0)
        tap_ok(fabs(g.mean - c.mean) < 1e-6 * g.se + 1e-12 && fabs(g.sd / c.sd - 1) < 1e-9,
               "%dD double: GPU and CPU draw the same points (means differ by %.2g)", cases[i].dims,
               g.mean - c.mean);
    }

  /* reproducible: bit-identical across runs; across grid sizes up to rounding */
  gq_mc_options o;
  gq_mc_result r1, r2, r3;
  box(&o, 3, -1, 1, 50000017, 77);
  run(gpu, "x1*exp(x2)+cos(x3)", &o, &r1);
  run(gpu, "x1*exp(x2)+cos(x3)", &o, &r2);
  tap_ok(r1.mean == r2.mean && r1.sd == r2.sd, "fused: the same bits in two runs (%.17g)", r1.mean);
  const unsigned grids[] = {1, 7, 1000};
  for (int k = 0; k < 3; k++) {
    o.blocks = grids[k];
    run(gpu, "x1*exp(x2)+cos(x3)", &o, &r3);
    tap_ok(fabs(r3.mean - r1.mean) <= 1e-13 * fabs(r1.mean) && fabs(r3.sd - r1.sd) <= 1e-12 * r1.sd,
           "fused with %u blocks: the same samples, sums in another order (%.3g relative)", grids[k],
           (r3.mean - r1.mean) / r1.mean);
  }
  o.blocks = 0;

  /* normal: the CPU draws the same points (gq_box_muller of philox.h, equal
   * up to the last ulps of sin and cos), so in double the means coincide to
   * far below a standard error; E(x1^2 + x1 x2) = 1 */
  for (int p = 0; p < 2; p++) {
    gq_mc_result c;
    box(&o, 2, 0, 1, 2000003, 5);
    o.dist = GQ_MC_NORMAL;
    o.precision = (gq_precision)p;
    const int gs = run(gpu, "x1^2 + x1*x2", &o, &r1);
    run(cpu, "x1^2 + x1*x2", &o, &c);
    const double z = (r1.mean - 1.0) / r1.se;
    tap_ok(gs == GQ_SUCCESS && fabs(z) < 4 &&
               (p ? fabs(zdiff(&r1, &c)) < 5 : fabs(r1.mean - c.mean) < 1e-6 * r1.se + 1e-12),
           "normal %s: GPU %.9g (z vs 1: %.2f), CPU %.9g: the same points (|diff| %.2g se)", p ? "float" : "double",
           r1.mean, z, c.mean, fabs(r1.mean - c.mean) / r1.se);
  }

  /* n not a multiple of 4, n = 2, and a long run with --tol */
  box(&o, 1, 0, 1, 2, 3);
  run(gpu, "x", &o, &r1);
  run(cpu, "x", &o, &r2);
  tap_ok(fabs(r1.mean - r2.mean) < 1e-15 && r1.n == 2, "n = 2: GPU %.17g, CPU %.17g", r1.mean, r2.mean);
  box(&o, 1, 0, 1, 1ull << 40, 3);
  o.tol = 1e-5;
  const int ts = run(gpu, "x", &o, &r1);
  tap_ok(ts == GQ_SUCCESS && r1.stopped_by_tol && r1.se < 1e-5 && fabs(r1.mean - 0.5) < 5e-5,
         "--tol 1e-5: stopped at n = %llu, mean %.7f", (unsigned long long)r1.n, r1.mean);
  box(&o, 1, -1, 1, 1000, 3);
  tap_ok(run(gpu, "1/(x-x)", &o, &r1) == GQ_EDOM, "f NaN: GQ_EDOM");

  gq_context_free(gpu);
  gq_context_free(cpu);
  return tap_done();
}
