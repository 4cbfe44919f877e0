/* bench_adaptive.c — time to accuracy of adaptive cubature
 * (gq_integrate_adaptive, issue 16) on Genz's six families (bench/genz.h)
 * at d = 3, 5, 8 and relative tolerances 1e-3 .. 1e-9, against
 * libcubature's hcubature on one core of the host in the same run (where
 * configure found it).  Per cell: the wall time of the whole call (passes,
 * copies, host decisions; the median of --repeat runs after one warm-up
 * that compiles the kernel; beside it the evaluations' own time, CUDA
 * events summed over the passes), the evaluations, whether the tolerance was
 * reached, and whether the reported error covers the true one (the exact
 * value is genz_exact's).  Parameters after the anchors: Gaussian
 * exp(-sum 9 (x_i - 0.4)^2), product peak prod 1/(1/25 + (x_i - 0.4)^2).
 *
 *   bench_adaptive [--device=cuda|cpu] [--dims=3,5,8] [--tols=1e-3,1e-6,1e-9]
 *                  [--families=0,1,2,3,4,5] [--repeat=5] [--max-evals=1e9] [--max-regions=N]
 *                  [--peer-max-evals=2e7] [--no-peer]
 * prints one row per cell, then a summary. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/gpuquad.h"
#include "genz.h"
#ifdef HAVE_CUBATURE
#include <cubature.h>
#endif

static double now_ms(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* "a,b,c" -> up to max doubles */
static int parse_list(const char *text, double *v, int max)
{
  int n = 0;
  char *end;
  while (n < max && *text) {
    v[n++] = strtod(text, &end);
    if (end == text)
      return -1;
    text = *end == ',' ? end + 1 : end;
  }
  return n;
}

/* The anchors' parameters (c_i = scale (1 + i/8) grows slowly with i).  The
 * kink and the jump sit off every first-pass cut (multiples of 1/m), where a
 * rule would see them only as smooth pieces. */
static genz_problem problem(genz_family k, int D)
{
  static const double scale[GENZ_FAMILIES] = {1.0, 5.0, 1.0, 3.0, 3.0, 1.0};
  const int off_grid = k == GENZ_C0 || k == GENZ_DISCONTINUOUS;
  genz_problem p = {k, D, scale[k], off_grid ? 0.37 : 0.4, off_grid ? 0.011 : 0.0};
  return p;
}

typedef struct {
  double ms, kernel_ms, estimate, error; /* wall; the device's (CUDA events) or the CPU's evaluation time */
  unsigned long long evals, passes;
  int reached, honest;
} cell;

#ifdef HAVE_CUBATURE
typedef struct {
  const genz_problem *p;
  unsigned long long calls;
} peer_data;

static int peer_f(unsigned ndim, const double *x, void *data, unsigned fdim, double *fval)
{
  (void)ndim;
  (void)fdim;
  peer_data *d = data;
  d->calls++;
  fval[0] = genz_eval(d->p, x);
  return 0;
}

static cell peer(const genz_problem *p, double tol, size_t max_evals)
{
  double lo[8] = {0}, hi[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  peer_data d = {p, 0};
  cell c = {0};
  const double t0 = now_ms();
  hcubature(1, peer_f, &d, (unsigned)p->D, lo, hi, max_evals, 0.0, tol, ERROR_INDIVIDUAL, &c.estimate, &c.error);
  c.ms = now_ms() - t0;
  c.evals = d.calls;
  c.reached = c.error <= tol * fabs(c.estimate);
  c.honest = fabs(c.estimate - genz_exact(p)) <= c.error;
  return c;
}
#endif

static cell ours(gq_context *ctx, const genz_problem *p, double tol, uint64_t max_evals, uint64_t max_regions,
                 int repeat)
{
  cell c = {0};
  char text[4096];
  genz_text(p, text, sizeof text);
  gq_integrand *f = NULL;
  if (gq_integrand_parse(text, NULL, 0, p->D, &f, NULL) != GQ_SUCCESS) {
    fprintf(stderr, "bench_adaptive: %s: %s\n", text, gq_last_error());
    c.ms = NAN;
    return c;
  }
  gq_adaptive_options o;
  gq_adaptive_options_init(&o);
  o.dims = p->D;
  o.epsrel = tol;
  o.max_evals = max_evals;
  if (max_regions)
    o.max_regions = max_regions;
  gq_adaptive_result r;
  double t0 = now_ms();
  int status = gq_integrate_adaptive(ctx, f, &o, &r); /* warm-up: the kernel compiled or loaded */
  const double first_ms = now_ms() - t0;
  double ms[32], kms[32];
  int runs = 0;
  /* a cell that takes seconds is timed once more, not `repeat` times */
  const int want = first_ms > 2000.0 ? 1 : repeat;
  for (; status == GQ_SUCCESS && runs < want && runs < 32; runs++) {
    t0 = now_ms();
    status = gq_integrate_adaptive(ctx, f, &o, &r);
    ms[runs] = now_ms() - t0;
    kms[runs] = r.kernel_ms;
  }
  gq_integrand_free(f);
  if (status != GQ_SUCCESS) {
    fprintf(stderr, "bench_adaptive: %s: %s\n", genz_name[p->k], gq_last_error());
    c.ms = NAN;
    return c;
  }
  qsort(ms, (size_t)runs, sizeof ms[0], cmp_double);
  qsort(kms, (size_t)runs, sizeof kms[0], cmp_double);
  c.ms = ms[runs / 2];
  c.kernel_ms = kms[runs / 2];
  c.estimate = r.estimate;
  c.error = r.abserr;
  c.evals = r.evaluations;
  c.passes = r.passes;
  c.reached = r.reached;
  c.honest = fabs(r.estimate - genz_exact(p)) <= r.abserr;
  return c;
}

int main(int argc, char **argv)
{
  double dims[8] = {3, 5, 8}, tols[16] = {1e-3, 1e-6, 1e-9}, fams[8] = {0, 1, 2, 3, 4, 5};
  int ndims = 3, ntols = 3, nfams = 6, repeat = 5, use_peer = 1, device = GQ_DEVICE_AUTO;
  double max_evals = 1e9, peer_max = 2e7, max_regions = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--dims=", 7) == 0)
      ndims = parse_list(a + 7, dims, 8);
    else if (strncmp(a, "--tols=", 7) == 0)
      ntols = parse_list(a + 7, tols, 16);
    else if (strncmp(a, "--families=", 11) == 0)
      nfams = parse_list(a + 11, fams, 8);
    else if (strncmp(a, "--repeat=", 9) == 0)
      repeat = atoi(a + 9);
    else if (strncmp(a, "--max-evals=", 12) == 0)
      max_evals = strtod(a + 12, NULL);
    else if (strncmp(a, "--max-regions=", 14) == 0)
      max_regions = strtod(a + 14, NULL);
    else if (strncmp(a, "--peer-max-evals=", 17) == 0)
      peer_max = strtod(a + 17, NULL);
    else if (strcmp(a, "--no-peer") == 0)
      use_peer = 0;
    else if (strcmp(a, "--device=cpu") == 0)
      device = GQ_DEVICE_CPU;
    else if (strcmp(a, "--device=cuda") == 0)
      device = 0;
    else {
      fprintf(stderr, "bench_adaptive: unknown argument '%s' (see the comment at the top of bench_adaptive.c)\n", a);
      return 2;
    }
  }
  if (ndims < 1 || ntols < 1 || nfams < 1 || repeat < 1 || repeat > 32) {
    fprintf(stderr, "bench_adaptive: bad --dims, --tols, --families or --repeat\n");
    return 2;
  }
#ifndef HAVE_CUBATURE
  use_peer = 0;
#endif
  gq_context *ctx = gq_context_create(device);
  if (!ctx) {
    fprintf(stderr, "bench_adaptive: %s\n", gq_last_error());
    return 3;
  }
  printf("# gpuquad adaptive on %s; peer: %s\n", gq_context_device_name(ctx),
         use_peer ? "libcubature hcubature, one host core" : "none");
  printf("%-14s %2s %6s | %10s %10s %12s %6s %5s %6s | %10s %12s %5s %6s | %8s\n", "family", "d", "rtol", "gq ms",
         "kernel ms", "gq evals", "passes", "reach", "honest", "hc ms", "hc evals", "reach", "honest", "speedup");
  int cells = 0, honest = 0, reached = 0, failed = 0;
  for (int fi = 0; fi < nfams; fi++)
    for (int di = 0; di < ndims; di++)
      for (int ti = 0; ti < ntols; ti++) {
        const genz_problem p = problem((genz_family)(int)fams[fi], (int)dims[di]);
        const cell g = ours(ctx, &p, tols[ti], (uint64_t)max_evals, (uint64_t)max_regions, repeat);
        if (isnan(g.ms)) {
          failed++;
          continue;
        }
        cells++;
        honest += g.honest;
        reached += g.reached;
        printf("%-14s %2d %6.0e | %10.3f %10.3f %12llu %6llu %5s %6s |", genz_name[p.k], p.D, tols[ti], g.ms,
               g.kernel_ms, g.evals, g.passes, g.reached ? "yes" : "NO", g.honest ? "yes" : "NO");
#ifdef HAVE_CUBATURE
        if (use_peer) {
          const cell h = peer(&p, tols[ti], (size_t)peer_max);
          printf(" %10.3f %12llu %5s %6s | %8.3g\n", h.ms, h.evals, h.reached ? "yes" : "NO", h.honest ? "yes" : "NO",
                 h.ms / g.ms);
        } else
#endif
          printf(" %10s %12s %5s %6s | %8s\n", "-", "-", "-", "-", "-");
        fflush(stdout);
      }
  printf("# %d cells: tolerance reached in %d, reported error >= true error in %d (%.0f%%)%s\n", cells, reached,
         honest, cells ? 100.0 * honest / cells : 0.0, failed ? "; some cells FAILED (stderr)" : "");
  gq_context_free(ctx);
  return failed ? 1 : 0;
}
