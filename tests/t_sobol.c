/* t_sobol.c — Owen-scrambled Sobol points (gq_mc_sobol, sobol.h) on the CPU,
 * or with "gpu" on CUDA device 0 (exit 77 without one): the direction table
 * against Joe and Kuo's rows, the first unscrambled points against their
 * published values, walking the sequence by one xor a point, the net
 * property that scrambling keeps, known integrals in 1 to 8 dimensions, the
 * rounding of n, the coverage of the Student-t interval over many seeds, the
 * GPU's points against the CPU's, and bad options. */
#include "config.h"

#include <math.h>
#include <stdint.h>

#include "../src/lib/sobol.h"
#include "tap_context.h"

/* Joe-Kuo new-joe-kuo-6.21201, dimensions 2..16: s, a, m_1..m_s. */
static const int joe_kuo[15][8] = {
  {1, 0, 1},          {2, 1, 1, 3},        {3, 1, 1, 3, 1},       {3, 2, 1, 1, 1},        {4, 1, 1, 1, 3, 3},
  {4, 4, 1, 3, 5, 13}, {5, 2, 1, 1, 5, 5, 17}, {5, 4, 1, 1, 5, 5, 5}, {5, 7, 1, 1, 7, 11, 19},
  {5, 11, 1, 1, 5, 1, 1}, {5, 13, 1, 1, 1, 3, 11}, {5, 14, 1, 3, 5, 5, 31}, {6, 1, 1, 3, 3, 9, 7, 49},
  {6, 13, 1, 1, 1, 15, 21, 21}, {6, 16, 1, 3, 1, 13, 27, 49},
};

static void direction_table(void)
{
  int bad = 0;
  for (int k = 0; k < GQ_SOBOL_BITS; k++)
    bad += gq_sobol_directions[0][k] != 1u << (31 - k);
  for (int d = 1; d < GQ_SOBOL_DIMS; d++) {
    const int s = joe_kuo[d - 1][0], a = joe_kuo[d - 1][1];
    uint64_t m[GQ_SOBOL_BITS];
    for (int k = 0; k < s; k++)
      m[k] = (uint64_t)joe_kuo[d - 1][2 + k];
    for (int k = s; k < GQ_SOBOL_BITS; k++) {
      m[k] = m[k - s] ^ (m[k - s] << s);
      for (int j = 1; j < s; j++)
        if ((a >> (s - 1 - j)) & 1)
          m[k] ^= m[k - j] << j;
    }
    for (int k = 0; k < GQ_SOBOL_BITS; k++)
      bad += gq_sobol_directions[d][k] != (uint32_t)(m[k] << (31 - k));
  }
  tap_ok(bad == 0, "the direction numbers of all 16 dimensions follow from Joe and Kuo's rows (%d differ)", bad);
}

/* Joe and Kuo's first eight points (Gray-code order), dimensions 1..3. */
static void first_points(void)
{
  static const double want[8][3] = {{0, 0, 0},           {0.5, 0.5, 0.5},       {0.75, 0.25, 0.25},
                                    {0.25, 0.75, 0.75},  {0.375, 0.375, 0.625}, {0.875, 0.875, 0.125},
                                    {0.625, 0.125, 0.875}, {0.125, 0.625, 0.375}};
  int bad = 0;
  for (int i = 0; i < 8; i++)
    for (int d = 0; d < 3; d++)
      bad += ldexp((double)gq_sobol_word((uint64_t)i, d), -32) != want[i][d];
  tap_ok(bad == 0, "the first 8 unscrambled points in 3 dimensions are the published ones (%d differ)", bad);
}

/* Walking the sequence by one xor a point gives the points computed from
 * their indices, from 0 and from an index near 2^32. */
static void walk(void)
{
  int bad = 0;
  const uint64_t starts[] = {0, 12345, (UINT64_C(1) << 32) - 4096};
  for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++)
    for (int d = 0; d < GQ_SOBOL_DIMS; d++) {
      unsigned int word = gq_sobol_word(starts[s], d);
      for (uint64_t i = starts[s] + 1; i < starts[s] + 4096; i++) {
        word = gq_sobol_next(word, i, d);
        bad += word != gq_sobol_word(i, d);
      }
    }
  tap_ok(bad == 0, "one xor a step walks the sequence as the direct formula gives it (%d differ)", bad);
}

/* Owen scrambling keeps the net: 2^m points, each dimension's 2^m equal
 * intervals hold one point each, and each 2-D projection of dimensions
 * (1, 2) has one point per 2^(m/2) x 2^(m/2) square (t = 0 for that pair). */
static void scrambled_net(void)
{
  enum { M = 10, N = 1 << M, SIDE = 1 << (M / 2) };
  static int per_interval[GQ_SOBOL_DIMS][N], per_square[SIDE][SIDE];
  int bad = 0, bad_square = 0;
  for (int i = 0; i < N; i++) {
    unsigned int u[2];
    for (int d = 0; d < GQ_SOBOL_DIMS; d++) {
      const unsigned int w = gq_sobol_scramble(gq_sobol_word((uint64_t)i, d), gq_sobol_seed(7, 3, d));
      per_interval[d][w >> (32 - M)]++;
      if (d < 2)
        u[d] = w >> (32 - M / 2);
    }
    per_square[u[0]][u[1]]++;
  }
  for (int d = 0; d < GQ_SOBOL_DIMS; d++)
    for (int k = 0; k < N; k++)
      bad += per_interval[d][k] != 1;
  for (int a = 0; a < SIDE; a++)
    for (int b = 0; b < SIDE; b++)
      bad_square += per_square[a][b] != 1;
  tap_ok(bad == 0 && bad_square == 0,
         "scrambled, 2^10 points still fill each dimension's 2^10 intervals (%d not once) and the first two "
         "dimensions' 2^5 x 2^5 squares (%d not once)",
         bad, bad_square);
  tap_ok(gq_sobol_seed(7, 3, 0) != gq_sobol_seed(7, 4, 0) && gq_sobol_seed(7, 3, 0) != gq_sobol_seed(8, 3, 0),
         "the scramblings' seeds differ by scrambling and by run seed");
}

static gq_integrand *parse(const char *text, int dims)
{
  gq_integrand *f = NULL;
  if (gq_integrand_parse(text, NULL, 0, dims, &f, NULL) != GQ_SUCCESS)
    tap_ok(0, "parse %s: %s", text, gq_last_error());
  return f;
}

static void box(gq_mc_options *o, int dims, uint64_t n, uint64_t seed)
{
  gq_mc_options_init(o);
  o->dims = dims;
  o->n = n;
  o->seed = seed;
}

/* cos(x1 + ... + xD) on [0,1]^D: Re(((e^i - 1) / i)^D) = (2 sin 1/2)^D cos(D/2). */
static double cos_sum(int dims) { return pow(2.0 * sin(0.5), dims) * cos(dims / 2.0); }

static void known_values(gq_context *ctx)
{
  for (int dims = 1; dims <= 8; dims++) {
    char text[256] = "cos(x1", term[16];
    for (int d = 2; d <= dims; d++) {
      snprintf(term, sizeof term, "+x%d", d);
      strcat(text, term);
    }
    strcat(text, ")");
    gq_integrand *f = parse(text, dims);
    gq_mc_options o;
    box(&o, dims, 1u << 18, 1);
    gq_mc_result r;
    const int st = gq_mc_sobol(ctx, f, &o, GQ_SOBOL_SCRAMBLINGS, &r);
    const double exact = cos_sum(dims), err = fabs(r.integral - exact);
    /* 6 standard errors (Student t, 15 dof: a chance of 2e-5), and an error
     * far below plain Monte Carlo's sd / sqrt(n) ~ 1e-3 */
    tap_ok(st == GQ_SUCCESS && err <= 6.0 * r.integral_se + 1e-13 && r.integral_se < 2e-4 && r.integral_se > 0,
           "sobol D=%d cos(sum): %.15g vs %.15g, error %.2g, se %.2g", dims, r.integral, exact, err, r.integral_se);
    gq_integrand_free(f);
  }
  /* a product on a box that is not the unit cube: exp(x1) x2^2 on [1,2] x [-1,3] */
  gq_integrand *f = parse("exp(x1)*x2^2", 2);
  gq_mc_options o;
  box(&o, 2, 1u << 16, 3);
  o.a[0] = 1.0, o.b[0] = 2.0, o.a[1] = -1.0, o.b[1] = 3.0;
  gq_mc_result r;
  const int st = gq_mc_sobol(ctx, f, &o, 8, &r);
  const double exact = (exp(2.0) - exp(1.0)) * (27.0 + 1.0) / 3.0;
  tap_ok(st == GQ_SUCCESS && fabs(r.integral - exact) <= 6.0 * r.integral_se && r.volume == 4.0 &&
             r.ci_low < r.mean && r.mean < r.ci_high,
         "sobol exp(x1) x2^2 on [1,2]x[-1,3]: %.15g vs %.15g (se %.2g), volume %g", r.integral, exact, r.integral_se,
         r.volume);
  gq_integrand_free(f);
}

static void rounding(gq_context *ctx)
{
  gq_integrand *f = parse("x1*x2", 2);
  gq_mc_options o;
  box(&o, 2, 1000, 0);
  gq_mc_result r;
  int st = gq_mc_sobol(ctx, f, &o, 16, &r);
  tap_ok(st == GQ_SUCCESS && r.n == 1024, "n = 1000 with 16 scramblings: 16 x 64 points (n = %llu)",
         (unsigned long long)r.n);
  o.n = 4096;
  st = gq_mc_sobol(ctx, f, &o, 16, &r);
  tap_ok(st == GQ_SUCCESS && r.n == 4096, "n = 4096 with 16 scramblings: kept (n = %llu)", (unsigned long long)r.n);
  /* the interval is Student's: t(15, 0.975) = 2.1314 standard errors */
  tap_ok(fabs((r.ci_high - r.mean) / r.se - 2.131449545559323) < 1e-9, "the 95%% interval is mean +- t(15) se (%.10g)",
         (r.ci_high - r.mean) / r.se);
  gq_integrand_free(f);
}

/* Over 200 seeds the error is within 3 standard errors in about 99.1% of
 * runs (Student t, 15 dof).  More than 12 misses (6%) happens by chance
 * with probability below 1e-6 (binomial, p = 0.009): the test fails only for
 * an error estimate that is too small. */
static void coverage(gq_context *ctx)
{
  gq_integrand *f = parse("exp(-(x1-0.3)^2*9)*(1+x2*x3)", 3);
  const double one = sqrt(M_PI) / 6.0 * (erf(2.1) + erf(0.9)); /* int exp(-9 (x - 0.3)^2) dx on [0, 1] */
  const double exact = one * 1.25;
  int misses = 0, runs = 200;
  for (int seed = 0; seed < runs; seed++) {
    gq_mc_options o;
    box(&o, 3, 1u << 12, (uint64_t)seed);
    gq_mc_result r;
    if (gq_mc_sobol(ctx, f, &o, GQ_SOBOL_SCRAMBLINGS, &r) != GQ_SUCCESS) {
      misses = runs;
      break;
    }
    misses += fabs(r.integral - exact) > 3.0 * r.integral_se;
  }
  tap_ok(misses <= 12, "coverage: %d of %d seeds beyond 3 standard errors (expected about 2; at most 12)", misses,
         runs);
  gq_integrand_free(f);
}

/* The GPU draws the CPU's points: the same result up to f's last bits. */
static void same_as_cpu(gq_context *ctx)
{
  gq_context *cpu = gq_context_create(GQ_DEVICE_CPU);
  gq_integrand *f = parse("sin(x1)*exp(x2)+x3^2*x4", 4);
  gq_mc_options o;
  box(&o, 4, 1u << 16, 42);
  gq_mc_result g, c;
  const int sg = gq_mc_sobol(ctx, f, &o, 4, &g), sc = gq_mc_sobol(cpu, f, &o, 4, &c);
  tap_ok(sg == GQ_SUCCESS && sc == GQ_SUCCESS && fabs(g.integral - c.integral) <= 1e-13 * fabs(c.integral) &&
             fabs(g.integral_se - c.integral_se) <= 1e-6 * c.integral_se,
         "GPU and CPU agree: %.17g vs %.17g (se %.3g vs %.3g)", g.integral, c.integral, g.integral_se, c.integral_se);
  gq_integrand_free(f);
  gq_context_free(cpu);
}

static void bad_options(gq_context *ctx)
{
  gq_integrand *f = parse("x*x", 1);
  gq_mc_options o;
  gq_mc_result r;
  box(&o, 1, 1024, 0);
  tap_ok(gq_mc_sobol(ctx, f, &o, 1, &r) == GQ_EINVAL && isnan(r.integral), "one scrambling: GQ_EINVAL, NaN result");
  tap_ok(gq_mc_sobol(ctx, f, &o, GQ_SOBOL_MAX_SCRAMBLINGS + 1, &r) == GQ_EINVAL, "too many scramblings: GQ_EINVAL");
  o.dist = GQ_MC_NORMAL;
  tap_ok(gq_mc_sobol(ctx, f, &o, 4, &r) == GQ_EINVAL, "the normal distribution: GQ_EINVAL");
  box(&o, 1, 1024, 0);
  o.tol = 1e-3;
  tap_ok(gq_mc_sobol(ctx, f, &o, 4, &r) == GQ_EINVAL, "a tolerance: GQ_EINVAL");
  box(&o, 1, UINT64_C(1) << 40, 0);
  tap_ok(gq_mc_sobol(ctx, f, &o, 4, &r) == GQ_EINVAL, "2^38 points a scrambling: GQ_EINVAL");
  box(&o, 1, 1024, 0);
  o.b[0] = NAN;
  tap_ok(gq_mc_sobol(ctx, f, &o, 4, &r) == GQ_EINVAL, "a NaN limit: GQ_EINVAL");
  box(&o, 1, 1024, 0);
  tap_ok(gq_mc_sobol(NULL, f, &o, 4, &r) == GQ_EINVAL && gq_mc_sobol(ctx, NULL, &o, 4, &r) == GQ_EINVAL &&
             gq_mc_sobol(ctx, f, NULL, 4, &r) == GQ_EINVAL && gq_mc_sobol(ctx, f, &o, 4, NULL) == GQ_EINVAL,
         "NULL arguments: GQ_EINVAL");
  gq_integrand_free(f);
  gq_integrand *h = parse("sqrt(x1-2)", 1);
  box(&o, 1, 1024, 0);
  tap_ok(gq_mc_sobol(ctx, h, &o, 4, &r) == GQ_EDOM, "sqrt(x - 2) on [0, 1] (NaN everywhere): GQ_EDOM");
  gq_integrand_free(h);
}

int main(int argc, char **argv)
{
  int gpu;
  gq_context *ctx = tap_context(argc, argv, &gpu);
  if (!ctx)
    return tap_done();
  if (!gpu) {
    direction_table();
    first_points();
    walk();
    scrambled_net();
  }
  known_values(ctx);
  rounding(ctx);
  coverage(ctx);
  if (gpu)
    same_as_cpu(ctx);
  bad_options(ctx);
  gq_context_free(ctx);
  return tap_done();
}
