/* t_vegas.c — VEGAS+ (gq_mc_vegas) on the CPU, or with "gpu" on CUDA device 0
 * (exit 77 without one): known integrals in 1 to 8 dimensions with an error
 * far below plain Monte Carlo's, the chi^2 of the iterations (consistent,
 * single, exact, and an integrand whose iterations disagree), the sizes
 * chosen, the coverage of the error over many seeds, the GPU against the
 * CPU, and bad options. */
#include "config.h"

#include <math.h>
#include <stdint.h>

#include "tap_context.h"

static gq_integrand *parse(const char *text, int dims)
{
  gq_integrand *f = NULL;
  if (gq_integrand_parse(text, NULL, 0, dims, &f, NULL) != GQ_SUCCESS)
    tap_ok(0, "parse %s: %s", text, gq_last_error());
  return f;
}

static void box(gq_mc_options *o, gq_vegas_options *v, int dims, uint64_t n, uint64_t seed)
{
  gq_mc_options_init(o);
  gq_vegas_options_init(v);
  o->dims = dims;
  o->n = n;
  o->seed = seed;
}

/* exp(-a sum (x_d - 1/2)^2) on [0,1]^D */
static gq_integrand *peak(int dims, double a)
{
  char text[512], term[48];
  snprintf(text, sizeof text, "exp(-%g*((x1-0.5)^2", a);
  for (int d = 2; d <= dims; d++) {
    snprintf(term, sizeof term, "+(x%d-0.5)^2", d);
    strcat(text, term);
  }
  strcat(text, "))");
  return parse(text, dims);
}
static double peak_integral(int dims, double a) { return pow(sqrt(M_PI / a) * erf(sqrt(a) / 2.0), dims); }

static void known_values(gq_context *ctx)
{
  const double a = 50.0;
  for (int dims = 1; dims <= 8; dims++) {
    gq_integrand *f = peak(dims, a);
    gq_mc_options o;
    gq_vegas_options v;
    box(&o, &v, dims, 1u << 19, 1);
    gq_vegas_result r;
    const int st = gq_mc_vegas(ctx, f, &o, &v, &r);
    const double exact = peak_integral(dims, a), err = fabs(r.mc.integral - exact);
    /* plain Monte Carlo's standard error with the same samples, exactly */
    const double plain = sqrt((peak_integral(dims, 2.0 * a) - exact * exact) / (double)o.n);
    tap_ok(st == GQ_SUCCESS && err <= 5.0 * r.mc.integral_se && r.mc.integral_se < plain / 10.0 &&
               r.mc.integral_se > 0 && r.mc.n == o.n / 15 * 15,
           "vegas D=%d peak: %.12g vs %.12g, error %.2g, se %.2g (plain's %.2g), chi2/dof %.2f, %d^%d hypercubes",
           dims, r.mc.integral, exact, err, r.mc.integral_se, plain, r.chi2_dof, r.strata, dims);
    gq_integrand_free(f);
  }
  /* a box that is not the unit cube, a product with a sign change */
  gq_integrand *f = parse("x1^3*cos(x2)", 2);
  gq_mc_options o;
  gq_vegas_options v;
  box(&o, &v, 2, 1u << 18, 5);
  o.a[0] = -1.0, o.b[0] = 2.0, o.a[1] = 0.0, o.b[1] = 3.0;
  gq_vegas_result r;
  const int st = gq_mc_vegas(ctx, f, &o, &v, &r);
  const double exact = (16.0 - 1.0) / 4.0 * sin(3.0);
  tap_ok(st == GQ_SUCCESS && fabs(r.mc.integral - exact) <= 5.0 * r.mc.integral_se && r.mc.volume == 9.0 &&
             fabs(r.mc.mean * 9.0 - r.mc.integral) <= 1e-15 * fabs(r.mc.integral),
         "vegas x^3 cos y on [-1,2]x[0,3]: %.12g vs %.12g (se %.2g)", r.mc.integral, exact, r.mc.integral_se);
  gq_integrand_free(f);
  /* no adaptation at all: alpha = beta = 0 is stratified sampling on a fixed grid */
  f = peak(3, 10.0);
  box(&o, &v, 3, 1u << 16, 2);
  v.alpha = 0.0;
  v.beta = 0.0;
  const int st0 = gq_mc_vegas(ctx, f, &o, &v, &r);
  tap_ok(st0 == GQ_SUCCESS && fabs(r.mc.integral - peak_integral(3, 10.0)) <= 5.0 * r.mc.integral_se,
         "alpha = beta = 0: %.10g vs %.10g (se %.2g)", r.mc.integral, peak_integral(3, 10.0), r.mc.integral_se);
  gq_integrand_free(f);
}

static void chi2(gq_context *ctx)
{
  gq_integrand *f = peak(2, 20.0);
  gq_mc_options o;
  gq_vegas_options v;
  gq_vegas_result r;
  box(&o, &v, 2, 1u << 16, 3);
  v.iterations = 1;
  v.warmup = 2;
  int st = gq_mc_vegas(ctx, f, &o, &v, &r);
  tap_ok(st == GQ_SUCCESS && r.iterations == 1 && r.chi2_dof == 0.0 && r.chi2_q == 1.0,
         "one iteration: chi2/dof 0, tail 1 (%g, %g)", r.chi2_dof, r.chi2_q);
  gq_integrand_free(f);

  f = parse("3.5", 2);
  box(&o, &v, 2, 30000, 0);
  st = gq_mc_vegas(ctx, f, &o, &v, &r);
  /* the grid moves by the rounding of its training sums only */
  tap_ok(st == GQ_SUCCESS && fabs(r.mc.integral - 3.5) <= 1e-12 && r.mc.integral_se <= 1e-9,
         "a constant: exact but for rounding (%.17g +- %g)", r.mc.integral, r.mc.integral_se);
  gq_integrand_free(f);

  /* x^-0.9 has an infinite variance: the iterations' errors are guesses and
   * they disagree; a smooth f's agree.  Out of 10 seeds, at least 2 alarms
   * for the first (5 of 10 seen on the CPU) and at most 1 for the second
   * (a chance of 1e-5 each). */
  gq_integrand *bad = parse("x^-0.9", 1), *good = peak(3, 30.0);
  int alarms_bad = 0, alarms_good = 0, ok = 1;
  for (int seed = 0; seed < 10; seed++) {
    box(&o, &v, 1, 100000, (uint64_t)seed);
    ok &= gq_mc_vegas(ctx, bad, &o, &v, &r) == GQ_SUCCESS && r.chi2_q >= 0.0 && r.chi2_q <= 1.0;
    alarms_bad += r.chi2_q < GQ_VEGAS_CHI2_Q;
    box(&o, &v, 3, 100000, (uint64_t)seed);
    ok &= gq_mc_vegas(ctx, good, &o, &v, &r) == GQ_SUCCESS && r.chi2_dof > 0.0;
    alarms_good += r.chi2_q < GQ_VEGAS_CHI2_Q;
  }
  tap_ok(ok && alarms_bad >= 2 && alarms_good <= 1,
         "chi2 alarms: x^-0.9 in %d of 10 seeds (>= 2), a smooth peak in %d (<= 1)", alarms_bad, alarms_good);
  gq_integrand_free(bad);
  gq_integrand_free(good);
}

static void sizes(gq_context *ctx)
{
  gq_integrand *f = parse("x1+x2+x3", 3);
  gq_mc_options o;
  gq_vegas_options v;
  gq_vegas_result r;
  box(&o, &v, 3, 15 * 1000, 0);
  int st = gq_mc_vegas(ctx, f, &o, &v, &r);
  /* 1000 a pass: bins 1000 / 8 = 125, strata 6 (6^3 = 216 <= 250 < 343) */
  tap_ok(st == GQ_SUCCESS && r.bins == 125 && r.strata == 6 && r.mc.n == 15000,
         "15000 samples in 3-D: 125 bins, 6 strata a pass (%d, %d), n %llu", r.bins, r.strata,
         (unsigned long long)r.mc.n);
  box(&o, &v, 3, UINT64_C(15) << 24, 0);
  o.dims = 16;
  v.iterations = 1;
  v.warmup = 0;
  o.n = UINT64_C(1) << 24;
  st = gq_mc_vegas(ctx, f, &o, &v, &r);
  tap_ok(st == GQ_SUCCESS && r.strata == 2 && fabs(r.mc.integral - 1.5) <= 5.0 * r.mc.integral_se,
         "16 dimensions: 2^16 hypercubes (strata %d), %.10g vs 1.5", r.strata, r.mc.integral);
  gq_integrand_free(f);
}

/* Over 100 seeds the error is within 3 standard errors in about 99.7% of
 * runs for a normal estimate.  More than 6 misses happens by chance with
 * probability 1e-6 at that rate, and 5e-4 at the worst allowed rate
 * (2%): the test fails for errors that are underestimated. */
static void coverage(gq_context *ctx)
{
  gq_integrand *f = peak(4, 100.0);
  const double exact = peak_integral(4, 100.0);
  int misses = 0, runs = 100;
  double worst = 0.0;
  for (int seed = 0; seed < runs; seed++) {
    gq_mc_options o;
    gq_vegas_options v;
    box(&o, &v, 4, 1u << 17, (uint64_t)seed);
    gq_vegas_result r;
    if (gq_mc_vegas(ctx, f, &o, &v, &r) != GQ_SUCCESS) {
      misses = runs;
      break;
    }
    const double z = fabs(r.mc.integral - exact) / r.mc.integral_se;
    misses += z > 3.0;
    worst = fmax(worst, z);
  }
  tap_ok(misses <= 6, "coverage: %d of %d seeds beyond 3 standard errors (at most 6; the worst %.2f)", misses, runs,
         worst);
  gq_integrand_free(f);
}

/* The GPU places the CPU's samples: the same estimate up to f's last bits
 * and the order of the GPU's atomic sums, which may move a sample between
 * hypercubes in a later pass (a small fraction of the error). */
static void same_as_cpu(gq_context *ctx)
{
  gq_context *cpu = gq_context_create(GQ_DEVICE_CPU);
  gq_integrand *f = peak(4, 100.0);
  gq_mc_options o;
  gq_vegas_options v;
  box(&o, &v, 4, 1u << 18, 9);
  gq_vegas_result g, c;
  const int sg = gq_mc_vegas(ctx, f, &o, &v, &g), sc = gq_mc_vegas(cpu, f, &o, &v, &c);
  tap_ok(sg == GQ_SUCCESS && sc == GQ_SUCCESS && fabs(g.mc.integral - c.mc.integral) <= 0.05 * c.mc.integral_se &&
             fabs(g.mc.integral_se - c.mc.integral_se) <= 0.05 * c.mc.integral_se,
         "GPU and CPU agree: %.17g vs %.17g (se %.3g vs %.3g)", g.mc.integral, c.mc.integral, g.mc.integral_se,
         c.mc.integral_se);
  v.iterations = 1;
  v.warmup = 0;
  const int sg1 = gq_mc_vegas(ctx, f, &o, &v, &g), sc1 = gq_mc_vegas(cpu, f, &o, &v, &c);
  tap_ok(sg1 == GQ_SUCCESS && sc1 == GQ_SUCCESS && fabs(g.mc.integral - c.mc.integral) <= 1e-12 * c.mc.integral,
         "the first pass's samples are the CPU's: %.17g vs %.17g", g.mc.integral, c.mc.integral);
  gq_integrand_free(f);
  gq_context_free(cpu);
}

static void bad_options(gq_context *ctx)
{
  gq_integrand *f = parse("x1*x2", 2);
  gq_mc_options o;
  gq_vegas_options v;
  gq_vegas_result r;
  struct {
    const char *what;
    int field;
    double value;
  } cases[] = {
    {"0 iterations", 0, 0},      {"1001 iterations", 0, 1001}, {"-1 warm-up", 1, -1},
    {"1 bin", 2, 1},             {"4097 bins", 2, 4097},       {"alpha -0.1", 3, -0.1},
    {"alpha 2.5", 3, 2.5},       {"alpha NaN", 3, NAN},        {"beta 1.5", 4, 1.5},
    {"beta NaN", 4, NAN},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    box(&o, &v, 2, 100000, 0);
    switch (cases[k].field) {
    case 0: v.iterations = (int)cases[k].value; break;
    case 1: v.warmup = (int)cases[k].value; break;
    case 2: v.bins = (int)cases[k].value; break;
    case 3: v.alpha = cases[k].value; break;
    default: v.beta = cases[k].value; break;
    }
    const int st = gq_mc_vegas(ctx, f, &o, &v, &r);
    tap_ok(st == GQ_EINVAL && isnan(r.mc.integral), "%s: GQ_EINVAL, NaN result", cases[k].what);
  }
  box(&o, &v, 2, 100, 0);
  tap_ok(gq_mc_vegas(ctx, f, &o, &v, &r) == GQ_EINVAL, "100 samples over 15 iterations: GQ_EINVAL");
  box(&o, &v, 2, UINT64_C(1) << 45, 0);
  tap_ok(gq_mc_vegas(ctx, f, &o, &v, &r) == GQ_EINVAL, "2^45 samples: GQ_EINVAL");
  box(&o, &v, 2, 100000, 0);
  o.dist = GQ_MC_NORMAL;
  tap_ok(gq_mc_vegas(ctx, f, &o, &v, &r) == GQ_EINVAL, "the normal distribution: GQ_EINVAL");
  box(&o, &v, 2, 100000, 0);
  o.tol = 1e-3;
  tap_ok(gq_mc_vegas(ctx, f, &o, &v, &r) == GQ_EINVAL, "a tolerance: GQ_EINVAL");
  box(&o, &v, 2, 100000, 0);
  o.a[1] = INFINITY;
  tap_ok(gq_mc_vegas(ctx, f, &o, &v, &r) == GQ_EINVAL, "an infinite limit: GQ_EINVAL");
  box(&o, &v, 1, 100000, 0);
  tap_ok(gq_mc_vegas(ctx, f, &o, &v, &r) == GQ_EINVAL, "f of 2 variables in 1 dimension: GQ_EINVAL");
  box(&o, &v, 2, 100000, 0);
  tap_ok(gq_mc_vegas(NULL, f, &o, &v, &r) == GQ_EINVAL && gq_mc_vegas(ctx, NULL, &o, &v, &r) == GQ_EINVAL &&
             gq_mc_vegas(ctx, f, NULL, &v, &r) == GQ_EINVAL && gq_mc_vegas(ctx, f, &o, NULL, &r) == GQ_EINVAL &&
             gq_mc_vegas(ctx, f, &o, &v, NULL) == GQ_EINVAL && gq_vegas_options_init(NULL) == GQ_EINVAL,
         "NULL arguments: GQ_EINVAL");
  gq_integrand_free(f);
  f = parse("log(x1-0.5)", 1);
  box(&o, &v, 1, 100000, 0);
  tap_ok(gq_mc_vegas(ctx, f, &o, &v, &r) == GQ_EDOM, "log(x - 1/2) on [0, 1] (NaN below 1/2): GQ_EDOM");
  gq_integrand_free(f);
  f = parse("1e300*exp(x)", 1);
  box(&o, &v, 1, 100000, 0);
  o.b[0] = 1e10;
  tap_ok(gq_mc_vegas(ctx, f, &o, &v, &r) == GQ_EDOM, "an integral beyond DBL_MAX: GQ_EDOM");
  gq_integrand_free(f);
}

int main(int argc, char **argv)
{
  int gpu;
  gq_context *ctx = tap_context(argc, argv, &gpu);
  if (!ctx)
    return tap_done();
  known_values(ctx);
  chi2(ctx);
  sizes(ctx);
  coverage(ctx);
  if (gpu)
    same_as_cpu(ctx);
  bad_options(ctx);
  gq_context_free(ctx);
  return tap_done();
}
