/* t_mc_cpu.c — gpuquad mc on the CPU backend: Philox4x32-10 known answers;
 * known integrals in 1, 2, 5 and 10 dimensions within 4 standard errors;
 * coverage of the 95% interval over 200 seeds within binomial limits; the
 * standard error shrinking as 1/sqrt(n); reproducibility per seed and across
 * thread counts; moments of the normal distribution; bad input. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../src/gpuquad.h"
#include "../src/lib/philox.h"
#include "tap.h"

static gq_integrand *parse(const char *text, int dims)
{
  gq_integrand *f = NULL;
  if (gq_integrand_parse(text, NULL, 0, dims, &f, NULL) != GQ_SUCCESS)
    printf("# cannot parse %s: %s\n", text, gq_last_error());
  return f;
}

static int run(gq_context *ctx, const char *text, gq_mc_options *o, gq_mc_result *r)
{
  gq_integrand *f = parse(text, o->dims);
  const int st = f ? gq_mc_mean(ctx, f, o, r) : GQ_EPARSE;
  gq_integrand_free(f);
  return st;
}

static void box(gq_mc_options *o, int dims, double a, double b, uint64_t n, uint64_t seed)
{
  gq_mc_options_init(o);
  o->dims = dims;
  for (int d = 0; d < dims && d < GQ_MC_MAX_DIMS; d++) {
    o->a[d] = a;
    o->b[d] = b;
  }
  o->n = n;
  o->seed = seed;
}

static void known_answers(void)
{
  /* Random123's kat_vectors, the three philox4x32 10 lines */
  const unsigned in[3][6] = {
    {0, 0, 0, 0, 0, 0},
    {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
    {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u},
  };
  const unsigned want[3][4] = {
    {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
    {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu},
    {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u},
  };
  for (int k = 0; k < 3; k++) {
    const gq_philox4 r = gq_philox4x32_10(in[k][0], in[k][1], in[k][2], in[k][3], in[k][4], in[k][5]);
    tap_ok(memcmp(r.v, want[k], sizeof want[k]) == 0, "Philox4x32-10 known answer %d: %08x %08x %08x %08x", k,
           r.v[0], r.v[1], r.v[2], r.v[3]);
  }
  tap_ok(gq_uniform_double(0) > 0.0 && gq_uniform_double(0xffffffffu) < 1.0, "uniform doubles lie in (0, 1)");
}

static void known_integrals(gq_context *cpu)
{
  const double pi = 3.14159265358979323846;
  const struct { const char *f; int dims; double a, b, exact; } cases[] = {
    {"sqrt(1-x^2)", 1, 0, 1, pi / 4},
    {"exp(-(x1^2+x2^2))", 2, -3, 3, pi * erf(3.0) * erf(3.0)},
    {"x1*x2*x3*x4*x5", 5, 0, 2, 32.0},                       /* (2^2/2)^5 */
    {"cos(x1+x2+x3+x4+x5+x6+x7+x8+x9+x10)", 10, 0, 1, 0.0},  /* Re((e^i - 1)/i)^10 */
    {"4*sqrt(1-x^2)", 1, 0, 1, pi},                           /* scale split: exact */
  };
  /* Re(((e^i - 1)/i)^10) = Re((sin 1 + i (1 - cos 1))^10) */
  double re = 1, im = 0;
  for (int k = 0; k < 10; k++) {
    const double nr = re * sin(1.0) - im * (1 - cos(1.0)), ni = re * (1 - cos(1.0)) + im * sin(1.0);
    re = nr;
    im = ni;
  }
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const double exact = i == 3 ? re : cases[i].exact;
    for (uint64_t seed = 1; seed <= 3; seed++) {
      gq_mc_options o;
      gq_mc_result r;
      box(&o, cases[i].dims, cases[i].a, cases[i].b, 400000, seed);
      const int st = run(cpu, cases[i].f, &o, &r);
      const double z = (r.integral - exact) / r.integral_se;
      tap_ok(st == GQ_SUCCESS && fabs(z) < 4.0, "%dD %s, seed %llu: %.8g vs %.8g, z = %.2f", cases[i].dims, cases[i].f,
             (unsigned long long)seed, r.integral, exact, z);
    }
  }
}

/* Over 200 seeds, how often the 95% interval holds the true mean: binomial
 * (200, 0.95); the test accepts the central 99.9% of that distribution. */
static void coverage(gq_context *cpu)
{
  enum { SEEDS = 200 };
  int inside = 0;
  for (uint64_t seed = 100; seed < 100 + SEEDS; seed++) {
    gq_mc_options o;
    gq_mc_result r;
    box(&o, 2, 0, 1, 20000, seed);
    run(cpu, "x1*x2^2", &o, &r); /* E = 1/2 * 1/3 */
    inside += r.ci_low <= 1.0 / 6 && 1.0 / 6 <= r.ci_high;
  }
  /* binomial quantiles from the exact distribution */
  double cdf = 0, lo = -1, hi = -1;
  for (int k = 0; k <= SEEDS; k++) {
    const double logp = lgamma(SEEDS + 1.0) - lgamma(k + 1.0) - lgamma(SEEDS - k + 1.0) + k * log(0.95) +
                        (SEEDS - k) * log(0.05);
    cdf += exp(logp);
    if (lo < 0 && cdf > 0.0005)
      lo = k;
    if (hi < 0 && cdf >= 0.9995)
      hi = k;
  }
  tap_ok(inside >= lo && inside <= hi, "95%% interval holds the mean for %d of %d seeds (limits %g..%g)", inside,
         SEEDS, lo, hi);
}

static void rate(gq_context *cpu)
{
  /* se * sqrt(n) estimates sd, which is fixed: within 3% from 1e4 to 1e6 */
  double first = 0;
  const uint64_t ns[] = {10000, 100000, 1000000};
  for (size_t k = 0; k < 3; k++) {
    gq_mc_options o;
    gq_mc_result r;
    box(&o, 3, 0, 1, ns[k], 9);
    run(cpu, "exp(x1)*x2+x3", &o, &r);
    const double scaled = r.se * sqrt((double)ns[k]);
    if (k == 0)
      first = scaled;
    tap_ok(fabs(scaled / first - 1) < 0.03, "n = %llu: se * sqrt(n) = %.5f (n = 1e4: %.5f)", (unsigned long long)ns[k],
           scaled, first);
  }
}

static void reproducible(gq_context *cpu)
{
  gq_mc_options o;
  gq_mc_result r1, r2, r3;
  box(&o, 4, -1, 2, 300001, 42);
  run(cpu, "x1*x2 + sin(x3) - x4^2", &o, &r1);
  run(cpu, "x1*x2 + sin(x3) - x4^2", &o, &r2);
  tap_ok(r1.mean == r2.mean && r1.sd == r2.sd, "same seed: the same bits (%.17g)", r1.mean);
#ifdef _OPENMP
  const int threads = omp_get_max_threads();
  omp_set_num_threads(threads == 1 ? 3 : 1);
  run(cpu, "x1*x2 + sin(x3) - x4^2", &o, &r3);
  omp_set_num_threads(threads);
  tap_ok(r1.mean == r3.mean && r1.sd == r3.sd, "independent of the thread count (%d vs %d threads)", threads,
         threads == 1 ? 3 : 1);
#else
  r3 = r1;
  tap_ok(1, "# SKIP no OpenMP");
#endif
  o.seed = 43;
  run(cpu, "x1*x2 + sin(x3) - x4^2", &o, &r3);
  tap_ok(r1.mean != r3.mean, "another seed: another estimate");
  tap_ok(r1.n == 300001 && r1.seed == 42, "n and seed reported");
}

static void normal(gq_context *cpu)
{
  const struct { const char *f; double mean; } m[] = {{"x", 0}, {"x^2", 1}, {"x^4", 3}, {"x1*x2", 0}, {"x2^2", 1}};
  for (size_t k = 0; k < 5; k++) {
    gq_mc_options o;
    gq_mc_result r;
    gq_mc_options_init(&o);
    o.dims = 2;
    o.dist = GQ_MC_NORMAL;
    o.n = 500000;
    o.seed = 5;
    run(cpu, m[k].f, &o, &r);
    tap_ok(fabs(r.mean - m[k].mean) < 4 * r.se && r.volume == 1.0, "normal: E %s = %.5f +/- %.5f (exact %g)", m[k].f,
           r.mean, r.se, m[k].mean);
  }
}

static void bad_input(gq_context *cpu)
{
  gq_mc_options o;
  gq_mc_result r;
  box(&o, 0, 0, 1, 1000, 1);
  tap_ok(gq_mc_mean(cpu, gq_integrand_builtin("circle"), &o, &r) == GQ_EINVAL, "dims 0: GQ_EINVAL");
  box(&o, 17, 0, 1, 1000, 1);
  tap_ok(gq_mc_mean(cpu, gq_integrand_builtin("circle"), &o, &r) == GQ_EINVAL, "dims 17: GQ_EINVAL");
  box(&o, 2, 0, 1, 1000, 1);
  o.a[1] = 2;
  tap_ok(run(cpu, "x1+x2", &o, &r) == GQ_EINVAL, "a > b in dimension 2: GQ_EINVAL");
  box(&o, 1, 0, 1, 1, 1);
  tap_ok(run(cpu, "x", &o, &r) == GQ_EINVAL, "n = 1 (no variance): GQ_EINVAL");
  box(&o, 1, 0, INFINITY, 1000, 1);
  tap_ok(run(cpu, "x", &o, &r) == GQ_EINVAL, "infinite limit: GQ_EINVAL");
  box(&o, 1, -1, 1, 1000, 1);
  tap_ok(run(cpu, "1/(x-x)", &o, &r) == GQ_EDOM && isnan(r.mean), "f NaN everywhere: GQ_EDOM, mean NaN");
  gq_integrand *f = parse("x1+x3", 3);
  box(&o, 2, 0, 1, 1000, 1);
  tap_ok(f && gq_mc_mean(cpu, f, &o, &r) == GQ_EINVAL, "f uses x3 but dims = 2: GQ_EINVAL");
  gq_integrand_free(f);
  box(&o, 1, 0, 1, 1000, 1);
  const int st = gq_mc_mean(cpu, gq_integrand_builtin("circle"), &o, &r);
  tap_ok(st == GQ_SUCCESS && fabs(r.mean - 3.14159) < 0.2, "a built-in runs as its formula: %.4f", r.mean);
}

static void check_and_tol(gq_context *cpu)
{
  gq_mc_options o;
  gq_mc_result r;
  gq_mc_reference ref;
  double z;
  box(&o, 2, -3, 3, 200000, 3);
  gq_integrand *f = parse("exp(-(x1^2+x2^2))", 2);
  gq_mc_mean(cpu, f, &o, &r);
  int st = gq_mc_reference_gsl(f, &o, &ref);
  int ok = st == GQ_SUCCESS && ref.method == GQ_MC_REFERENCE_VEGAS && gq_mc_check(&r, &ref, &z) == GQ_SUCCESS;
  tap_ok(ok, "VEGAS agrees: %.6g vs %.6g +/- %.2g, z = %.2f", r.integral, ref.value, ref.se, z);
  r.integral += 10 * r.integral_se + 10 * ref.se;
  st = gq_mc_check(&r, &ref, &z);
  tap_ok(st == GQ_ECHECK, "a shifted estimate fails the check: z = %.1f", z);
  gq_integrand_free(f);
  box(&o, 1, 0, 1, 100000000, 3);
  o.tol = 1e-3;
  st = run(cpu, "x", &o, &r);
  tap_ok(st == GQ_SUCCESS && r.stopped_by_tol && r.se < 1e-3 && r.n < 1000000,
         "--tol 1e-3 stops at n = %llu with se %.2g", (unsigned long long)r.n, r.se);
}

/* Issue 13: what the check can and cannot vouch for. */
static int reference_of(const char *text, const gq_mc_options *o, gq_mc_reference *ref)
{
  gq_integrand *f = parse(text, o->dims);
  const int st = f ? gq_mc_reference_gsl(f, o, ref) : GQ_EPARSE;
  gq_integrand_free(f);
  return st;
}

static void trust(gq_context *cpu)
{
  gq_mc_options o;
  gq_mc_result r;
  gq_mc_reference ref;
  double z = 0;
  /* zero variance: se = 0, and the reference differs in its last bits */
  const char *constant[] = {"1", "x*0+2", "if(x<2,1,0)", "2^-1074*x", "0", "1e300", "-1e200*(x*0+1)"};
  for (size_t i = 0; i < sizeof constant / sizeof constant[0]; i++) {
    box(&o, 1, 0, 1, 1000, 1);
    const int st = run(cpu, constant[i], &o, &r);
    const int rs = reference_of(constant[i], &o, &ref);
    const int cs = gq_mc_check(&r, &ref, &z);
    tap_ok(st == GQ_SUCCESS && rs == GQ_SUCCESS && cs == GQ_SUCCESS && isfinite(z) && fabs(z) < 1,
           "%s: se %g, %.17g vs %.17g, z = %g", constant[i], r.se, r.integral, ref.value, z);
  }
  /* ... but a zero-variance sample of a function that is not constant fails */
  box(&o, 1, 0, 1, 1000, 1);
  run(cpu, "if(x<1e-4,1,0)", &o, &r);
  reference_of("if(x<1e-4,1,0)", &o, &ref);
  const int missed = gq_mc_check(&r, &ref, &z);
  tap_ok(r.se == 0 && missed == GQ_ECHECK, "a rare event missed by every sample fails (z = %g)", z);

  /* one dimension: no mean, or no variance, is no check */
  const struct {
    const char *text;
    int normal;
    const char *why;
  } no_check[] = {
    {"1/(x-0.5)", 0, "no mean"},         {"tan(pi*x)", 0, "no mean"},   {"1/abs(x-0.3)", 0, "no mean"},
    {"x^-0.6", 0, "infinite"},          {"1/sqrt(abs(x-0.5))", 0, "infinite"}, {"1/x", 1, "no mean"},
    {"abs(x)^-0.7", 1, "infinite"},
  };
  for (size_t i = 0; i < sizeof no_check / sizeof no_check[0]; i++) {
    box(&o, 1, 0, 1, 1000, 1);
    o.dist = no_check[i].normal ? GQ_MC_NORMAL : GQ_MC_UNIFORM;
    const int rs = reference_of(no_check[i].text, &o, &ref);
    tap_ok(rs == GQ_EDOM && strstr(gq_last_error(), no_check[i].why), "%s (%s): no reference (%s)",
           no_check[i].text, no_check[i].normal ? "normal" : "uniform", gq_last_error());
  }
  const char *fine[] = {"x^-0.4", "log(x)", "1/sqrt(abs(x-0.5))^0.9", "exp(-x)*sin(30*x)"};
  for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
    box(&o, 1, 0, 1, 100000, 1);
    const int st = run(cpu, fine[i], &o, &r);
    const int rs = reference_of(fine[i], &o, &ref);
    const int cs = gq_mc_check(&r, &ref, &z);
    tap_ok(st == GQ_SUCCESS && rs == GQ_SUCCESS && cs == GQ_SUCCESS, "%s has a mean and a variance: z = %.2f",
           fine[i], z);
  }
  /* the same verdict on its own, for a check against an exact value */
  gq_integrand *g = parse("x^-0.6", 1);
  box(&o, 1, 0, 1, 1000, 1);
  const int heavy = gq_mc_moments_exist(g, &o);
  tap_ok(heavy == GQ_EDOM && strstr(gq_last_error(), "infinite"), "gq_mc_moments_exist(x^-0.6): GQ_EDOM (%s)",
         gq_last_error());
  tap_ok(gq_mc_moments_exist(NULL, &o) == GQ_EINVAL && gq_mc_moments_exist(g, NULL) == GQ_EINVAL,
         "gq_mc_moments_exist with NULL: GQ_EINVAL");
  gq_integrand_free(g);
  g = parse("x1*x2", 2);
  box(&o, 2, 0, 1, 1000, 1);
  tap_ok(gq_mc_moments_exist(g, &o) == GQ_SUCCESS, "gq_mc_moments_exist(x1 x2): GQ_SUCCESS");
  gq_integrand_free(g);

  /* f of x1 alone in a larger box: the one-dimensional verdict */
  box(&o, 3, 0, 1, 1000, 1);
  int rs = reference_of("1/(x1-0.5)", &o, &ref);
  tap_ok(rs == GQ_EDOM && strstr(gq_last_error(), "no mean"), "1/(x1-0.5) in 3 dimensions: no mean (%s)",
         gq_last_error());
  rs = reference_of("x1^-0.4+0*x1", &o, &ref);
  tap_ok(rs == GQ_SUCCESS, "x1^-0.4 in 3 dimensions: a reference (%.6g)", ref.value);
  box(&o, 2, 0, 1, 1000, 1);
  rs = reference_of("1/((x1-0.5)^2+(x2-0.5)^2)", &o, &ref);
  tap_ok(rs == GQ_EDOM && strstr(gq_last_error(), "chi^2"), "2D without a mean: VEGAS's runs disagree (%s)",
         gq_last_error());
  o.dist = GQ_MC_NORMAL;
  rs = reference_of("1/(x1^2+x2^2)", &o, &ref);
  tap_ok(rs == GQ_EDOM && strstr(gq_last_error(), "chi^2"), "2D normal without a mean: the batches disagree (%s)",
         gq_last_error());
  rs = reference_of("x1^2*x2^2", &o, &ref);
  tap_ok(rs == GQ_SUCCESS && fabs(ref.value - 1) < 5 * ref.se, "2D normal E x1^2 x2^2 = 1: %.5f +/- %.2g, chi^2 %.2f",
         ref.value, ref.se, ref.chisq);

  /* the box volume: scaled, an overflow is an error */
  box(&o, 2, -1e300, 1e300, 1000, 1);
  int st = run(cpu, "1", &o, &r);
  tap_ok(st == GQ_EDOM && strstr(gq_last_error(), "overflows"), "volume 4e600 times 1: GQ_EDOM (%s)",
         gq_last_error());
  st = run(cpu, "1e-300", &o, &r);
  tap_ok(st == GQ_SUCCESS && fabs(r.integral - 4e300) <= 4e300 * 4e-16 && isinf(r.volume),
         "volume 4e600 times 1e-300: %.17g", r.integral);
  rs = reference_of("1e-300", &o, &ref);
  int cs = gq_mc_check(&r, &ref, &z);
  tap_ok(rs == GQ_SUCCESS && fabs(ref.value - 4e300) <= 4e300 * 1e-10 && cs == GQ_SUCCESS,
         "... and its reference %.17g, z = %g", ref.value, z);
  box(&o, 16, 0, 1e300, 1000, 1);
  tap_ok(run(cpu, "1", &o, &r) == GQ_EDOM, "16 widths of 1e300: GQ_EDOM");
  box(&o, 3, -1e308, 1e308, 1000, 1);
  st = run(cpu, "1", &o, &r);
  tap_ok(st == GQ_EINVAL && strstr(gq_last_error(), "b - a overflows"), "b - a overflows: GQ_EINVAL (%s)",
         gq_last_error());
  box(&o, 1, 0, 1, 1000, 1);
  /* f^2 overflows but the sd fits: the same samples of 2^-540 f, rescaled */
  st = run(cpu, "1e200*x", &o, &r);
  gq_mc_result small;
  const int ss = run(cpu, "x", &o, &small);
  tap_ok(st == GQ_SUCCESS && ss == GQ_SUCCESS && fabs(r.sd / 1e200 - small.sd) <= 1e-15 * small.sd &&
             fabs(r.mean / 1e200 - small.mean) <= 1e-15 * small.mean,
         "f^2 overflows: 1e200 x has sd %.17g = 1e200 * %.17g", r.sd, small.sd);
  /* the sum itself overflows (1e308 (x - 0.5)): likewise */
  st = run(cpu, "1e308*(x-0.5)", &o, &r);
  tap_ok(st == GQ_SUCCESS && fabs(r.sd / 1e308 - small.sd) <= 1e-15 * small.sd,
         "the sum of f overflows: 1e308 (x - 0.5) has sd %.17g", r.sd);
  /* a sample that is not finite stays an error after the rescaling */
  st = run(cpu, "log(x-0.5)", &o, &r);
  tap_ok(st == GQ_EDOM && strstr(gq_last_error(), "not finite"), "log(x - 0.5): GQ_EDOM (%s)", gq_last_error());

  /* --tol: reached, or said */
  box(&o, 1, 0, 1, 1000000, 1);
  o.tol = 1e-4;
  st = run(cpu, "x^2", &o, &r);
  tap_ok(st == GQ_SUCCESS && !r.stopped_by_tol && r.se > 1e-4 && r.n == 1000000,
         "tol 1e-4 within 1e6 samples: not reached, se %.2g", r.se);
  o.n = UINT64_C(1) << 26;
  st = run(cpu, "x^2", &o, &r);
  tap_ok(st == GQ_SUCCESS && r.stopped_by_tol && r.se < 1e-4, "tol 1e-4 within 2^26: reached at %llu, se %.2g",
         (unsigned long long)r.n, r.se);
  o.n = 1000;
  o.tol = 0.5;
  st = run(cpu, "x", &o, &r);
  tap_ok(st == GQ_SUCCESS && r.stopped_by_tol && r.n == 1000, "tol reached in the last batch counts as reached");

  /* NULL */
  tap_ok(gq_mc_options_init(NULL) == GQ_EINVAL, "gq_mc_options_init(NULL): GQ_EINVAL");
  tap_ok(gq_mc_check(NULL, &ref, &z) == GQ_EINVAL && gq_mc_check(&r, NULL, NULL) == GQ_EINVAL,
         "gq_mc_check with NULL: GQ_EINVAL");
  gq_integrand *f = parse("x", 1);
  tap_ok(gq_mc_reference_gsl(NULL, &o, &ref) == GQ_EINVAL && gq_mc_reference_gsl(f, NULL, &ref) == GQ_EINVAL &&
         gq_mc_reference_gsl(f, &o, NULL) == GQ_EINVAL, "gq_mc_reference_gsl with NULL: GQ_EINVAL");
  tap_ok(gq_mc_mean(NULL, f, &o, &r) == GQ_EINVAL && gq_mc_mean(cpu, NULL, &o, &r) == GQ_EINVAL &&
         gq_mc_mean(cpu, f, NULL, &r) == GQ_EINVAL && gq_mc_mean(cpu, f, &o, NULL) == GQ_EINVAL,
         "gq_mc_mean with NULL: GQ_EINVAL");
  gq_integrand_free(f);
  r.integral = NAN;
  ref.value = 1;
  ref.se = 0;
  tap_ok(gq_mc_check(&r, &ref, &z) == GQ_ECHECK, "a NaN estimate is no pass");
}

/* gq_uniform_double builds (w + 1/2) 2^-32 from bits: the same number as the
 * conversion, exactly, over every exponent of w. */
static void uniform_from_bits(void)
{
  int ok = 1;
  const unsigned int cases[] = {0u, 1u, 2u, 3u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ok &= gq_uniform_double(cases[i]) == ((double)cases[i] + 0.5) * 0x1p-32;
  unsigned int w = 12345;
  for (int i = 0; i < 1000000; i++) {
    w = w * 1664525u + 1013904223u;
    ok &= gq_uniform_double(w) == ((double)w + 0.5) * 0x1p-32;
  }
  tap_ok(ok && gq_uniform_double(0) > 0 && gq_uniform_double(0xffffffffu) < 1,
         "uniform doubles from bits are (w + 1/2) 2^-32 exactly, inside (0, 1)");
}

int main(void)
{
  uniform_from_bits();
  gq_context *cpu = gq_context_create(GQ_DEVICE_CPU);
  known_answers();
  known_integrals(cpu);
  coverage(cpu);
  rate(cpu);
  reproducible(cpu);
  normal(cpu);
  bad_input(cpu);
  check_and_tol(cpu);
  trust(cpu);
  gq_context_free(cpu);
  return tap_done();
}
