/* t_exact.c — deterministic mode (issue 20): correct rounding on data whose
 * exact results the test knows by construction (cancellation across
 * 2^-1074 .. 2^1023, ties, sticky bits, subnormal and overflowing sums), the
 * same bits for every thread count (1, 2, 3, 7), chunking, merge order and
 * path (one-shot, accumulate, stream), and the NaN policies as the
 * double-double accumulators apply them.  Given 'gpu', the arrays live on
 * the device and every result must equal the CPU context's bit for bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "tap.h"
#include "tap_context.h"
#include "lib/exact.h" /* gq_cuda_exact_force_shape: the launch shapes a test may force */

static gq_context *ctx, *cpu; /* the context under test; the CPU's */
static int on_gpu;

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* x (and y) copied into the context's memory. */
static void *place(const double *h, size_t n)
{
  void *d = NULL;
  if (gq_alloc(ctx, n * sizeof *h + 8, &d) != GQ_SUCCESS || gq_copy_to(ctx, d, h, n * sizeof *h) != GQ_SUCCESS)
    return NULL;
  return d;
}

/* The deterministic one-shot sum or dot of host data on ctx. */
static double det_sum(size_t n, const double *x, const double *y)
{
  double *dx = place(x, n), *dy = y ? place(y, n) : NULL, r = -1.0;
  if (!dx || (y && !dy) || (y ? gq_dot(ctx, n, dx, dy, &r) : gq_sum(ctx, n, dx, &r)) != GQ_SUCCESS)
    diag("sum failed: %s", gq_last_error());
  gq_free(ctx, dx);
  gq_free(ctx, dy);
  return r;
}

static gq_stats_result det_stats(size_t n, const double *x)
{
  double *dx = place(x, n);
  gq_stats_result s;
  memset(&s, 0, sizeof s);
  if (!dx || gq_stats(ctx, n, dx, &s) != GQ_SUCCESS)
    diag("stats failed: %s", gq_last_error());
  gq_free(ctx, dx);
  return s;
}

static uint64_t rng = 88172645463325252u;
static uint64_t next(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static void shuffle(double *x, size_t n)
{
  for (size_t i = n - 1; i > 0; i--) {
    const size_t j = next() % (i + 1);
    const double t = x[i];
    x[i] = x[j];
    x[j] = t;
  }
}

/* n values: pairs v, -v of magnitudes 2^-1074 .. 2^1023, plus target: the
 * exact sum is target. */
static size_t cancelling(double *x, size_t pairs, double target)
{
  size_t n = 0;
  for (size_t k = 0; k < pairs; k++) {
    const int e = (int)(next() % 2098) - 1074;
    const double v = ldexp((double)(next() >> 11) / 0x1p53 + 0.5, e > 1022 ? 1022 : e);
    x[n++] = v;
    x[n++] = -v;
  }
  x[n++] = target;
  shuffle(x, n);
  return n;
}

static void test_rounding(void)
{
  const double ulp1 = 0x1p-52;
  struct {
    const char *what;
    double x[4];
    size_t n;
    double want;
  } cases[] = {
      {"1 + 2^-53 is a tie: to even, 1", {1.0, 0x1p-53}, 2, 1.0},
      {"(1 + 2^-52) + 2^-53 is a tie: to even, 1 + 2^-51", {1.0 + ulp1, 0x1p-53}, 2, 1.0 + 2 * ulp1},
      {"1 + 2^-53 + 2^-1074: the sticky bit rounds up", {1.0, 0x1p-53, 0x1p-1074}, 3, 1.0 + ulp1},
      {"1 + 2^-53 - 2^-1074: below the tie, 1", {1.0, 0x1p-53, -0x1p-1074}, 3, 1.0},
      {"2^1023 + 2^1023 - 2^1023: the partial overflows, the sum does not", {0x1p1023, 0x1p1023, -0x1p1023}, 3,
       0x1p1023},
      {"DBL_MAX + 2^970 rounds to Inf", {0x1.fffffffffffffp1023, 0x1p970}, 2, INFINITY},
      {"DBL_MAX + 2^969 - 2^-1074 stays DBL_MAX", {0x1.fffffffffffffp1023, 0x1p969, -0x1p-1074}, 3,
       0x1.fffffffffffffp1023},
      {"subnormals: 3 2^-1074 - 2^-1073 = 2^-1074", {3 * 0x1p-1074, -0x1p-1073}, 2, 0x1p-1074},
      {"-0.5 - 2^-54 + 2^-54 = -0.5", {-0.5, -0x1p-54, 0x1p-54}, 3, -0.5},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const double got = det_sum(cases[c].n, cases[c].x, NULL);
    tap_ok(same(got, cases[c].want), "sum: %s (%a, want %a)", cases[c].what, got, cases[c].want);
  }
  /* (1 + 2^-52)(1 - 2^-52) - 1 = -2^-104: the product's low half counts */
  const double a[2] = {1.0 + ulp1, -1.0}, b[2] = {1.0 - ulp1, 1.0};
  tap_ok(same(det_sum(2, a, b), -0x1p-104), "dot: (1+u)(1-u) - 1 = -2^-104 exactly");
  /* products of subnormals (2^-2148) and near DBL_MAX^2 (2^2046) */
  const double c[3] = {0x1p-1074, 0x1p1023, -0x1p1023}, d[3] = {0x1p-1074, 0x1p1023, 0x1p1023};
  tap_ok(same(det_sum(3, c, d), 0.0), "dot: 2^-2148 + 2^2046 - 2^2046 = 2^-2148, which rounds to 0");
  const double e[3] = {0x1p-537, 0x1p-537, 0x1p-1074}, f[3] = {0x1p-537, 0x1p-537, 0.5};
  tap_ok(same(det_sum(3, e, f), 0x1p-1073), "dot: 2 2^-1074 + 2^-1075 = 1.5 2^-1073: a tie, to even 2^-1073");
  static double big[4001];
  for (int trial = 0; trial < 4; trial++) {
    const double target = trial == 0 ? 0x1p-1074 : trial == 1 ? -3.0 : trial == 2 ? 0x1.8p1000 : 0.0;
    const size_t n = cancelling(big, 2000, target);
    tap_ok(same(det_sum(n, big, NULL), target), "sum: 2000 pairs +-v over 2^-1074..2^1023 cancel to %a", target);
    if (trial == 1) {
      const gq_stats_result s = det_stats(n, big);
      tap_ok(same(s.sum, target) && same(s.mean, target / (double)n),
             "stats: sum %a exact, mean %a correctly rounded (want %a)", s.sum, s.mean, target / (double)n);
    }
  }
}

/* Integer data d_i 2^s + c: the variance is var(d) 4^s exactly. */
static void test_moments(void)
{
  static double x[1000];
  const size_t n = 1000;
  const int scales[3] = {-1070, -10, 1000};
  for (int k = 0; k < 3; k++) {
    const int s = scales[k];
    const double c = s == -10 ? 0x1.8p40 : 0.0;
    __int128 sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++) {
      const int64_t d = (int64_t)(next() % 2000001) - 1000000;
      sum += d;
      sq += (__int128)d * d;
      x[i] = c + ldexp((double)d, s);
    }
    /* M2 = sq - sum^2 / n: n M2 is an integer */
    const __int128 nm2 = (__int128)n * sq - sum * sum;
    const long double vp = (long double)nm2 / ((long double)n * n);
    const long double vs = (long double)nm2 / ((long double)n * (n - 1));
    const double want_vs = (double)ldexpl(vs, 2 * s), want_sd = (double)ldexpl(sqrtl(vs), s);
    const double want_mean = (double)(c + ldexpl((long double)sum / n, s));
    const gq_stats_result r = det_stats(n, x);
    const double ulp_sd = nextafter(want_sd, INFINITY) - want_sd;
    tap_ok(fabs(r.sd_sample - want_sd) <= ulp_sd, "stats d 2^%d%s: sd %a within 1 ulp of %a", s, c ? " + c" : "",
           r.sd_sample, want_sd);
    if (isfinite(want_vs)) {
      const double want_vp = (double)ldexpl(vp, 2 * s);
      const double ulp_v = nextafter(want_vs, INFINITY) - want_vs, ulp_p = nextafter(want_vp, INFINITY) - want_vp;
      tap_ok(fabs(r.var_sample - want_vs) <= ulp_v && fabs(r.var_population - want_vp) <= ulp_p,
             "  variances %a, %a within 1 ulp of %a, %a", r.var_sample, r.var_population, want_vs, want_vp);
    } else {
      tap_ok(isinf(r.var_sample) && isinf(r.var_population), "  the variance overflows: inf");
    }
    const double half_ulp = 0.5 * (nextafter(fabs(want_mean), INFINITY) - fabs(want_mean));
    tap_ok(fabs(r.mean - want_mean) <= half_ulp, "  mean %a within half an ulp of %a (long double)", r.mean,
           want_mean);
  }
  /* all equal: variance 0; one value: the sample variance undefined */
  double eq[5] = {0.1, 0.1, 0.1, 0.1, 0.1};
  const gq_stats_result r = det_stats(5, eq);
  tap_ok(r.var_sample == 0.0 && r.sd_population == 0.0 && same(r.mean, 0.1) && r.argmin == 0 && r.argmax == 0,
         "stats of five 0.1: variance 0, mean 0.1, first indices 0");
  const gq_stats_result one = det_stats(1, eq);
  tap_ok(isnan(one.var_sample) && one.var_population == 0.0 && same(one.sum, 0.1), "stats of one value");
}

/* The same bits for every thread count, chunking and path. */
static void test_partitions(void)
{
  enum { N = 300007 };
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  for (size_t i = 0; i < N; i++) {
    x[i] = ldexp((double)(int64_t)next(), (int)(next() % 200) - 250);
    y[i] = i % 1000 == 7 ? 1e300 : ldexp((double)(int64_t)next(), -63);
  }
  x[1234] = 1e308;
  x[99999] = -1e308;
  double first[3];
  gq_stats_result sfirst;
  gq_rms_result rfirst;
  int ok = 1;
  const int threads[4] = {1, 2, 3, 7};
  for (int t = 0; t < 4; t++) {
#ifdef _OPENMP
    omp_set_num_threads(threads[t]);
#endif
    gq_context *c = gq_context_create(on_gpu ? 0 : GQ_DEVICE_CPU);
    gq_context_set_deterministic(c, 1);
    gq_context *keep = ctx;
    ctx = c;
    const double v[3] = {det_sum(N, x, NULL), det_sum(N, x, y), det_sum(N, y, x)};
    const gq_stats_result s = det_stats(N, x);
    double *dx = place(x, N), *dy = place(y, N);
    gq_rms_result r;
    gq_rms_diff(ctx, N, dx, dy, &r);
    gq_free(ctx, dx);
    gq_free(ctx, dy);
    ctx = keep;
    gq_context_free(c);
    if (t == 0) {
      memcpy(first, v, sizeof v);
      sfirst = s;
      rfirst = r;
      continue;
    }
    ok &= memcmp(first, v, sizeof v) == 0 && memcmp(&sfirst, &s, sizeof s) == 0 && memcmp(&rfirst, &r, sizeof r) == 0;
  }
#ifdef _OPENMP
  omp_set_num_threads(threads[2]);
#endif
  tap_ok(ok, "sum, dot, rms, stats: the same bits on 1, 2, 3 and 7 threads");
  tap_ok(same(first[1], first[2]), "dot(x, y) and dot(y, x): the same bits");

  /* chunkings and merge orders through the exact accumulator */
  const size_t chunks[5] = {1, 7, 1000, 65537, N};
  double *dx = place(x, N);
  for (int c = 0; c < 5; c++) {
    gq_exact_acc *a, *b;
    gq_exact_acc_create(GQ_EXACT_STATS, &a);
    gq_exact_acc_create(GQ_EXACT_STATS, &b);
    /* the first half into a, chunk by chunk; the second into b; then merge */
    const size_t half = N / 2 + (size_t)c;
    for (size_t at = 0; at < half; at += chunks[c]) {
      const size_t m = half - at < chunks[c] ? half - at : chunks[c];
      if (chunks[c] > 1 || at < 3000) /* size 1: a sample of the chunks, the rest at once */
        gq_exact_accumulate(ctx, a, m, dx + at, NULL);
      else {
        gq_exact_accumulate(ctx, a, half - at, dx + at, NULL);
        break;
      }
    }
    gq_exact_accumulate(ctx, b, N - half, dx + half, NULL);
    gq_exact_acc_merge(a, b);
    gq_stats_result s;
    gq_exact_stats_finish(a, GQ_NAN_PROPAGATE, &s);
    tap_ok(memcmp(&s, &sfirst, sizeof s) == 0, "stats in chunks of %zu, halves merged: the one-shot's bits",
           chunks[c]);
    gq_exact_acc_free(a);
    gq_exact_acc_free(b);
  }
  gq_free(ctx, dx);
  /* a stream (the reader's chunks) */
  gq_reader *r;
  char msg[256];
  gq_reader_opts opts;
  memset(&opts, 0, sizeof opts);
  opts.format = GQ_FORMAT_RAW;
  opts.raw_dtype = GQ_DTYPE_F64;
  gq_exact_acc *a;
  gq_exact_acc_create(GQ_EXACT_STATS, &a);
  int status = gq_reader_open_mem(x, N * sizeof *x, "x", &opts, &r, msg, sizeof msg);
  if (status == GQ_SUCCESS)
    status = gq_exact_stream(ctx, r, NULL, a, NULL);
  gq_reader_close(r);
  gq_stats_result s;
  gq_exact_stats_finish(a, GQ_NAN_PROPAGATE, &s);
  tap_ok(status == GQ_SUCCESS && memcmp(&s, &sfirst, sizeof s) == 0, "stats streamed: the one-shot's bits");
  gq_exact_acc_free(a);
  if (on_gpu) { /* CPU against GPU, and the GPU's launch shapes */
    gq_context *keep = ctx;
    ctx = cpu;
    const double v[3] = {det_sum(N, x, NULL), det_sum(N, x, y), det_sum(N, y, x)};
    const gq_stats_result cs = det_stats(N, x);
    ctx = keep;
    tap_ok(memcmp(v, first, sizeof v) == 0 && memcmp(&cs, &sfirst, sizeof cs) == 0,
           "the CPU's sum, dot and stats: the GPU's bits");
    const unsigned shapes[5][2] = {{1, 32}, {7, 64}, {13, 128}, {1000, 256}, {3, 1}};
    for (int k = 0; k < 5; k++) {
      gq_cuda_exact_force_shape(shapes[k][0], shapes[k][1]);
      const double w[3] = {det_sum(N, x, NULL), det_sum(N, x, y), det_sum(N, y, x)};
      const gq_stats_result gs = det_stats(N, x);
      tap_ok(memcmp(w, first, sizeof w) == 0 && memcmp(&gs, &sfirst, sizeof gs) == 0,
             "%u blocks of %u threads: the same bits", shapes[k][0], shapes[k][1]);
    }
    gq_cuda_exact_force_shape(0, 0);
  }
  free(x);
  free(y);
}

/* Non-finite values and repeated extremes spread over many blocks (and,
 * at a size one block takes, in the block that exports its own words): the
 * context's tallies — counts, first indices, extremes and their first
 * occurrences — and sums are the CPU context's for stats, dot and rms, at
 * the default launch shape and at forced ones, including a grid larger
 * than the context's buffer first held (it grows) and one of single-thread
 * blocks (several launches per reduction); a reduction after each checks
 * that the last one left the device's words zeroed. */
/* An index of the 250013-element layout below, scaled to n elements. */
static size_t scaled(size_t i, size_t n) { return (size_t)((double)i * (double)(n - 2) / 250013.0); }

static void test_tallies_at(size_t N)
{
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  for (size_t i = 0; i < N; i++) {
    x[i] = sin(0.001 * (double)i) * 4.0;
    y[i] = cos(0.003 * (double)i) + 0.25;
  }
  const size_t nan_at[4] = {77777, 5, 200000, 131072}, pinf_at[3] = {190001, 9999, 250000};
  const size_t ninf_at[2] = {123456, 33}, min_at[3] = {240000, 1001, 60000}, max_at[3] = {3, 170000, 88888};
  for (int k = 0; k < 4; k++)
    x[scaled(nan_at[k], N)] = NAN;
  for (int k = 0; k < 3; k++) {
    x[scaled(pinf_at[k], N)] = INFINITY;
    x[scaled(min_at[k], N)] = -7.5;
    x[scaled(max_at[k], N)] = 9.25;
    y[scaled(min_at[k], N) + 1] = NAN;
  }
  for (int k = 0; k < 2; k++)
    x[scaled(ninf_at[k], N)] = -INFINITY;
  const gq_exact_kind kinds[3] = {GQ_EXACT_STATS, GQ_EXACT_DOT, GQ_EXACT_RMS};
  const unsigned shapes[4][2] = {{0, 0}, {5000, 64}, {2, 1}, {0, 0}};
  for (int kd = 0; kd < 3; kd++) {
    const int pair = kinds[kd] != GQ_EXACT_STATS;
    gq_exact_acc *want = NULL;
    gq_context *keep = ctx;
    ctx = cpu;
    double *hx = place(x, N), *hy = pair ? place(y, N) : NULL;
    gq_exact_acc_create(kinds[kd], &want);
    gq_exact_accumulate(cpu, want, N, hx, hy);
    gq_free(cpu, hx);
    gq_free(cpu, hy);
    ctx = keep;
    double *dx = place(x, N), *dy = pair ? place(y, N) : NULL;
    for (int k = 0; k < 4; k++) {
      gq_cuda_exact_force_shape(shapes[k][0], shapes[k][1]);
      gq_exact_acc *got = NULL;
      gq_exact_acc_create(kinds[kd], &got);
      const int status = gq_exact_accumulate(ctx, got, N, dx, dy);
      int sums_same = 1;
      for (int c = 0; c < 3; c++) {
        gq_superacc a = got->s[c], b = want->s[c];
        gq_superacc_normalize(&a);
        gq_superacc_normalize(&b);
        sums_same &= memcmp(a.word, b.word, sizeof a.word) == 0;
      }
      tap_ok(status == GQ_SUCCESS && memcmp(&got->t, &want->t, sizeof got->t) == 0 && sums_same,
             "kind %d, %u blocks of %u threads (0: the default): the CPU's tally (n %llu, NaN %llu@%llu, "
             "min@%llu, max@%llu) and sums",
             (int)kinds[kd], shapes[k][0], shapes[k][1], (unsigned long long)got->t.n,
             (unsigned long long)got->t.nan_count, (unsigned long long)got->t.first_nan,
             (unsigned long long)got->t.argmin, (unsigned long long)got->t.argmax);
      gq_exact_acc_free(got);
    }
    gq_cuda_exact_force_shape(0, 0);
    gq_free(ctx, dx);
    gq_free(ctx, dy);
    gq_exact_acc_free(want);
  }
  free(x);
  free(y);
}

/* The accumulator's sums of x (and y) on c: sum t and sum |t|, or stats. */
static void acc_sums(gq_context *c, gq_exact_kind kind, size_t n, const double *x, const double *y, double out[2],
                     gq_stats_result *st)
{
  gq_context *keep = ctx;
  ctx = c;
  double *dx = place(x, n), *dy = y ? place(y, n) : NULL;
  gq_exact_acc *a = NULL;
  out[0] = out[1] = -1.0;
  if (!dx || (y && !dy) || gq_exact_acc_create(kind, &a) != GQ_SUCCESS ||
      gq_exact_accumulate(c, a, n, dx, dy) != GQ_SUCCESS)
    diag("accumulate failed: %s", gq_last_error());
  else if (kind == GQ_EXACT_STATS)
    gq_exact_stats_finish(a, GQ_NAN_PROPAGATE, st);
  else
    gq_exact_sum_finish(a, GQ_NAN_PROPAGATE, &out[0], &out[1]);
  gq_exact_acc_free(a);
  gq_free(c, dx);
  gq_free(c, dy);
  ctx = keep;
}

/* sum |t| beside sum t (the accumulator's magnitudes; the GPU sums the
 * terms of each sign apart and forms both from those two): on integers
 * times a power of two, both equal the correct rounding of the exact sums
 * (__int128 sums, converted once); on every exponent and both signs, with
 * terms too large for the expansions, products that underflow and zeros of
 * both signs, the context's bits are the CPU context's, for sum, dot and
 * stats. */
static void test_magnitudes(void)
{
  enum { N = 200003 };
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  __int128 s = 0, sa = 0, d = 0, da = 0;
  for (size_t i = 0; i < N; i++) {
    const int64_t m = (int64_t)(next() >> 11) - ((int64_t)1 << 52), k = (int64_t)(next() >> 44) - (1 << 19);
    x[i] = ldexp((double)m, -40);
    y[i] = ldexp((double)k, -30);
    s += m;
    sa += m < 0 ? -m : m;
    d += (__int128)m * k;
    da += (__int128)(m < 0 ? -m : m) * (k < 0 ? -k : k);
  }
  const double want[4] = {ldexp((double)s, -40), ldexp((double)sa, -40), ldexp((double)d, -70),
                          ldexp((double)da, -70)};
  double got[4];
  gq_stats_result st;
  acc_sums(ctx, GQ_EXACT_SUM, N, x, NULL, got, &st);
  acc_sums(ctx, GQ_EXACT_DOT, N, x, y, got + 2, &st);
  tap_ok(same(got[0], want[0]) && same(got[1], want[1]), "integers: sum %.17g and sum |x| %.17g correctly rounded",
         got[0], got[1]);
  tap_ok(same(got[2], want[2]) && same(got[3], want[3]), "integers: dot %.17g and sum |xy| %.17g correctly rounded",
         got[2], got[3]);
  for (size_t i = 0; i < N; i++) {
    const int e = (int)(next() % 2060) - 1074; /* to 2^985: the sums stay finite */
    const double sign = next() & 1 ? -1.0 : 1.0;
    x[i] = sign * ldexp((double)(next() >> 11) / 0x1p53 + 0.5, e);
    y[i] = (next() & 1 ? -1.0 : 1.0) * ldexp((double)(next() >> 11) / 0x1p53 + 0.5, (int)(next() % 80) - 60);
  }
  x[5] = 0.0;
  x[6] = -0.0;
  y[7] = -0.0;
  x[8] = 0x1p985; /* the words' path: above the expansions' limit */
  x[9] = -0x1.8p984;
  x[10] = 0x1p-1074;
  y[10] = -0x1p-60; /* a product below every double */
  double g[4], c[4], unused[2];
  gq_stats_result gs, cs;
  acc_sums(ctx, GQ_EXACT_SUM, N, x, NULL, g, &gs);
  acc_sums(ctx, GQ_EXACT_DOT, N, x, y, g + 2, &gs);
  acc_sums(ctx, GQ_EXACT_STATS, N, x, NULL, unused, &gs);
  acc_sums(cpu, GQ_EXACT_SUM, N, x, NULL, c, &cs);
  acc_sums(cpu, GQ_EXACT_DOT, N, x, y, c + 2, &cs);
  acc_sums(cpu, GQ_EXACT_STATS, N, x, NULL, unused, &cs);
  tap_ok(memcmp(g, c, sizeof g) == 0 && g[1] > 0x1p985 && g[3] > 0.0,
         "every exponent: sum %.17g, sum |x| %.17g, dot %.17g, sum |xy| %.17g: the CPU's bits", g[0], g[1], g[2],
         g[3]);
  tap_ok(memcmp(&gs, &cs, sizeof gs) == 0 && gs.l1 == g[1], "every exponent: stats (mean %.17g, l1 %.17g): the CPU's bits",
         gs.mean, gs.l1);
  free(x);
  free(y);
}

/* NaN and Inf: the policies of the double-double finishes, the same counts
 * and indices. */
static void test_nonfinite(void)
{
  const double x[7] = {1.0, NAN, -INFINITY, 2.0, INFINITY, NAN, -3.0};
  const double y[7] = {INFINITY, 1.0, 2.0, 0.0, 1.0, 1.0, 2.0};
  gq_context *plain = gq_context_create(GQ_DEVICE_CPU);
  const gq_nan_policy policies[3] = {GQ_NAN_PROPAGATE, GQ_NAN_OMIT, GQ_NAN_ERROR};
  for (int p = 0; p < 3; p++) {
    for (size_t n = 1; n <= 7; n += 3) {
      gq_exact_acc *e;
      gq_exact_acc_create(GQ_EXACT_STATS, &e);
      double *dx = place(x, n);
      gq_exact_accumulate(ctx, e, n, dx, NULL);
      gq_free(ctx, dx);
      gq_stats_acc d;
      gq_stats_acc_init(&d);
      gq_stats_accumulate(plain, &d, n, x);
      gq_stats_result se, sd;
      const int re = gq_exact_stats_finish(e, policies[p], &se), rd = gq_stats_finish(&d, policies[p], &sd);
      tap_ok(re == rd && se.n == sd.n && se.nan_count == sd.nan_count && se.inf_count == sd.inf_count &&
                 (same(se.sum, sd.sum) || (isnan(se.sum) && isnan(sd.sum))) && se.argmin == sd.argmin &&
                 se.argmax == sd.argmax && (same(se.min, sd.min) || (isnan(se.min) && isnan(sd.min))),
             "stats of %zu with NaN/Inf, policy %d: as the double-double finish (sum %g, min %g@%llu)", n,
             (int)policies[p], se.sum, se.min, (unsigned long long)se.argmin);
      gq_exact_acc_free(e);
      gq_exact_acc *s;
      gq_exact_acc_create(GQ_EXACT_DOT, &s);
      double *px = place(x, n), *py = place(y, n);
      gq_exact_accumulate(ctx, s, n, px, py);
      gq_free(ctx, px);
      gq_free(ctx, py);
      gq_sum_acc ds;
      gq_sum_acc_init(&ds);
      gq_dot_accumulate(plain, &ds, n, x, y);
      double ve, vd;
      const int se2 = gq_exact_sum_finish(s, policies[p], &ve, NULL), sd2 = gq_sum_finish(&ds, policies[p], &vd);
      tap_ok(se2 == sd2 && (same(ve, vd) || (isnan(ve) && isnan(vd))), "dot of %zu with NaN/Inf, policy %d: %g", n,
             (int)policies[p], ve);
      gq_exact_acc_free(s);
    }
  }
  gq_context_free(plain);
}

static void test_api(void)
{
  gq_sum_acc acc;
  gq_sum_acc_init(&acc);
  double one = 1.0;
  double *d = place(&one, 1);
  double v;
  tap_ok(gq_sum_accumulate(ctx, &acc, 1, d) == GQ_SUCCESS && gq_sum_finish(&acc, GQ_NAN_OMIT, &v) == GQ_SUCCESS &&
             v == 1.0,
         "the double-double accumulators work on a deterministic context");
  gq_free(ctx, d);
  gq_exact_acc *a = NULL;
  tap_ok(gq_exact_acc_create((gq_exact_kind)9, &a) == GQ_EINVAL && !a, "an unknown kind is GQ_EINVAL");
  gq_exact_acc_create(GQ_EXACT_SUM, &a);
  gq_exact_acc *b;
  gq_exact_acc_create(GQ_EXACT_STATS, &b);
  tap_ok(gq_exact_acc_merge(a, b) == GQ_EINVAL, "merging two kinds is GQ_EINVAL");
  gq_stats_result s;
  tap_ok(gq_exact_stats_finish(a, GQ_NAN_OMIT, &s) == GQ_EINVAL, "a sum finished as stats is GQ_EINVAL");
  tap_ok(gq_exact_accumulate(ctx, a, 1, NULL, NULL) == GQ_EINVAL, "a NULL x is GQ_EINVAL");
  tap_ok(gq_context_set_deterministic(ctx, 2) == GQ_EINVAL && gq_context_deterministic(ctx) == 1,
         "set_deterministic(2) is GQ_EINVAL and changes nothing");
  double v2;
  gq_rms_result rr;
  tap_ok(gq_exact_acc_create(GQ_EXACT_SUM, NULL) == GQ_EINVAL && gq_exact_acc_merge(NULL, b) == GQ_EINVAL &&
             gq_exact_acc_merge(a, NULL) == GQ_EINVAL && gq_exact_accumulate(NULL, a, 1, &v2, NULL) == GQ_EINVAL &&
             gq_exact_accumulate(ctx, NULL, 1, &v2, NULL) == GQ_EINVAL &&
             gq_exact_stream(ctx, NULL, NULL, a, NULL) == GQ_EINVAL && gq_exact_stream(ctx, NULL, NULL, NULL, NULL) ==
             GQ_EINVAL && gq_exact_sum_finish(NULL, GQ_NAN_OMIT, &v2, NULL) == GQ_EINVAL &&
             gq_exact_sum_finish(a, GQ_NAN_OMIT, NULL, NULL) == GQ_EINVAL &&
             gq_exact_rms_finish(a, GQ_NAN_OMIT, &rr) == GQ_EINVAL && gq_exact_rms_finish(NULL, GQ_NAN_OMIT, &rr) ==
             GQ_EINVAL && gq_exact_stats_finish(b, GQ_NAN_OMIT, NULL) == GQ_EINVAL &&
             gq_context_set_deterministic(NULL, 1) == GQ_EINVAL && gq_context_deterministic(NULL) == 0,
         "NULL arguments and the wrong kind are GQ_EINVAL, never a crash");
  tap_ok(gq_exact_sum_finish(a, (gq_nan_policy)7, &v2, NULL) == GQ_EINVAL, "an unknown NaN policy is GQ_EINVAL");
  gq_exact_acc_free(a);
  gq_exact_acc_free(b);
  gq_exact_acc_free(NULL);
}

int main(int argc, char **argv)
{
  ctx = tap_context(argc, argv, &on_gpu);
  if (!ctx)
    return tap_done();
  tap_ok(gq_context_deterministic(ctx) == 0 && gq_context_set_deterministic(ctx, 1) == GQ_SUCCESS &&
             gq_context_deterministic(ctx) == 1,
         "deterministic: off by default, on when set");
  cpu = gq_context_create(GQ_DEVICE_CPU);
  gq_context_set_deterministic(cpu, 1);
  test_rounding();
  test_moments();
  test_partitions();
  test_tallies_at(250013);
  test_tallies_at(3001);
  test_magnitudes();
  test_nonfinite();
  test_api();
  gq_context_free(cpu);
  gq_context_free(ctx);
  return tap_done();
}
