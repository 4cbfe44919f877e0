/* cumulative.c — `gpuquad integrate --cumulative`: F(x_i) = the integral of
 * f from a to x_i by the cumulative trapezoid or Simpson rule
 * (gq_cumulative_integral), kept in device memory, copied back a chunk at a
 * time into --out (.npy, raw or text; x_i beside F with --with-x), and a
 * summary: F at a, the middle and b, F(b) against the plain rule's result
 * and GSL's. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cumulative.h"
#include "data_ranks.h" /* under mpirun: the ranks' meeting points */
#include "lib/check/check.h" /* the reference and the verdict (libgpuquad) */
#include "numparse.h"
#include "plots.h"
#include "mpi.h"
#include "vector_out.h"

void cli_cumulative_usage(FILE *out)
{
  fputs("Cumulative integral (--rule=trapezoid, or simpson: scipy's cumulative_simpson):\n"
        "  --cumulative         F(x_i) = integral of f from a to x_i, i = 0..n (F(a) = 0,\n"
        "                       F(b) = the plain rule's result); a summary, and with\n"
        "  --out=FILE           the n + 1 values written (.npy, .txt/.csv, .bin/.f64, or\n"
        "                       --out-format=npy|raw|text; - for standard output)\n"
        "  --with-x             rows of x_i and F(x_i)\n"
        "  --every=K            keep F at every K-th point (and at b)\n",
        out);
}

int cli_cumulative_check(const cli_cumulative *c)
{
  if (!c->cumulative) {
    const char *stray = c->out ? "--out" : c->out_format ? "--out-format" : c->every ? "--every"
                        : c->with_x ? "--with-x" : NULL;
    return stray ? cli_error(EXIT_USAGE, "%s goes with --cumulative", stray) : EXIT_OK;
  }
  char err[256];
  uint64_t every;
  if (c->every && gq_parse_count(c->every, UINT64_MAX / 2, &every, err, sizeof err) != 0) /* >= 1 */
    return cli_error(EXIT_USAGE, "--every=%s: %s", c->every, err);
  if (!c->out && (c->out_format || c->with_x))
    return cli_error(EXIT_USAGE, "%s goes with --out", c->out_format ? "--out-format" : "--with-x");
  vout_format format;
  return c->out ? vout_choose(c->out_format, c->out, &format) : EXIT_OK;
}

/* The values from device memory to the file, CHUNK at a time, with x_i
 * (i = j K, the last n) beside them under --with-x. */
static int write_values(gq_context *ctx, const double *d_out, uint64_t count, uint64_t first, uint64_t mine,
                        double a, double b, uint64_t n, uint64_t every, const cli_cumulative *c)
{
  enum { CHUNK = 1 << 20 };
  vout_format format;
  int rc = vout_choose(c->out_format, c->out, &format);
  vout w;
  memset(&w, 0, sizeof w);
  const int split = cli_mpi_ranks() > 1, columns = c->with_x ? 2 : 1;
  if (!split) {
    if (rc == EXIT_OK)
      rc = vout_open(&w, c->out, format, 0, columns, count);
  } else { /* each rank's values at their rows: rank 0 makes the file before the others open it */
    if (rc == EXIT_OK && cli_mpi_rank() == 0)
      rc = vout_open_part(&w, c->out, format, 0, columns, count, first, 1);
    rc = data_agree(rc);
    if (rc == EXIT_OK && cli_mpi_rank() > 0)
      rc = vout_open_part(&w, c->out, format, 0, columns, count, first, 0);
    rc = data_agree(rc);
  }
  if (rc != EXIT_OK) {
    vout_close(&w);
    return rc;
  }
  double *values = malloc(CHUNK * sizeof *values), *rows = c->with_x ? malloc(2 * CHUNK * sizeof *rows) : NULL;
  if (!values || (c->with_x && !rows))
    rc = cli_error(EXIT_RUNTIME, "out of host memory");
  const double h = (b - a) / (double)n;
  for (uint64_t at = 0; at < mine && rc == EXIT_OK; at += CHUNK) {
    const size_t m = mine - at < CHUNK ? (size_t)(mine - at) : CHUNK;
    if (gq_copy_from(ctx, values, d_out + at, m * sizeof *values) != GQ_SUCCESS) {
      rc = cli_error(EXIT_RUNTIME, "%s", gq_last_error());
      break;
    }
    if (c->with_x)
      for (size_t k = 0; k < m; k++) {
        const uint64_t j = first + at + k; /* the value's index in the whole */
        const uint64_t i = j == count - 1 ? n : j * every;
        rows[2 * k] = i == n ? b : fma((double)i, h, a); /* the grid's points, as the library's */
        rows[2 * k + 1] = values[k];
      }
    rc = vout_write(&w, c->with_x ? rows : values, m);
  }
  free(values);
  free(rows);
  const int closed = vout_close(&w);
  return rc == EXIT_OK ? closed : rc;
}

/* The summary's F at the middle value and at b, from the ranks that hold
 * them under mpirun. */
typedef struct {
  int have_mid, have_last;
  double mid, last;
} summary_values;

static void merge_summary(void *acc, const void *other)
{
  summary_values *a = acc;
  const summary_values *b = other;
  if (b->have_mid) {
    a->have_mid = 1;
    a->mid = b->mid;
  }
  if (b->have_last) {
    a->have_last = 1;
    a->last = b->last;
  }
}

static int middle_and_last(gq_context *ctx, const double *d_out, uint64_t count, uint64_t first, uint64_t mine,
                           double *mid, double *last)
{
  summary_values v = {0, 0, NAN, NAN};
  int status = GQ_SUCCESS;
  if (count / 2 >= first && count / 2 < first + mine) {
    status = gq_copy_from(ctx, &v.mid, d_out + (count / 2 - first), sizeof v.mid);
    v.have_mid = 1;
  }
  if (status == GQ_SUCCESS && count - 1 >= first && count - 1 < first + mine) {
    status = gq_copy_from(ctx, &v.last, d_out + (count - 1 - first), sizeof v.last);
    v.have_last = 1;
  }
  int rc = status == GQ_SUCCESS ? EXIT_OK : cli_error(EXIT_RUNTIME, "%s", gq_last_error());
  if (cli_mpi_ranks() > 1 && cli_mpi_combine(&v, sizeof v, merge_summary, status, NULL) != GQ_SUCCESS && rc == EXIT_OK)
    rc = EXIT_RUNTIME; /* another rank failed: its message is the one shown */
  *mid = v.mid;
  *last = v.last;
  return rc;
}

/* --plot: F at about 2000 of the values, evenly spaced, copied one by one. */
static int plot_values(gq_context *ctx, const gq_integrand *f, const double *d_out, uint64_t count, double a,
                       double b, uint64_t n, uint64_t every, gq_rule rule, const char *path)
{
  enum { POINTS = 2001 };
  static plot_series s;
  plot_series_init(&s);
  const double h = (b - a) / (double)n;
  const uint64_t step = count > POINTS ? (count - 1) / (POINTS - 1) : 1;
  for (uint64_t j = 0; j < count; j = j + step < count - 1 || j == count - 1 ? j + step : count - 1) {
    double F;
    if (gq_copy_from(ctx, &F, d_out + j, sizeof F) != GQ_SUCCESS)
      return cli_error(EXIT_RUNTIME, "%s", gq_last_error());
    const uint64_t i = j == count - 1 ? n : j * every;
    plot_series_add(&s, i == n ? b : fma((double)i, h, a), F);
  }
  char title[512];
  snprintf(title, sizeof title, "F(x) = integral of %s from %g to x (cumulative %s, n = %llu); F(b) = %.10g",
           gq_integrand_formula(f), a, gq_rule_name(rule), (unsigned long long)n, s.last_y);
  return plot_curve(path, title, "x", "F(x)", &s, 0);
}

int cli_cumulative_run(gq_context *ctx, const gq_integrand *f, double a, double b, uint64_t n, gq_rule rule,
                       gq_precision precision, const cli_cumulative *c, int check, int quiet, int json,
                       double t_start_ms)
{
  if (precision != GQ_PRECISION_DOUBLE || json)
    return cli_error(EXIT_USAGE, "--cumulative: %s", json ? "--json is not supported (use --out)"
                                                          : "f is evaluated in double only (drop --precision=float)");
  uint64_t every = 1;
  if (c->every)
    gq_parse_count(c->every, UINT64_MAX / 2, &every, NULL, 0); /* checked by cli_cumulative_check */
  const uint64_t count = gq_cumulative_count(n, every);
  /* under mpirun each rank computes and writes its range of the values */
  uint64_t first = 0, mine = count, first_point, points;
  const int split = cli_mpi_ranks() > 1;
  if (split) {
    vout_format format;
    if (c->plot)
      return cli_error(EXIT_USAGE, "--cumulative --plot needs one process (not mpirun -np %d)", cli_mpi_ranks());
    if (c->out && (vout_choose(c->out_format, c->out, &format) != EXIT_OK || format == VOUT_TEXT))
      return cli_error(EXIT_USAGE, "--cumulative under mpirun writes .npy or raw --out files, each rank its rows "
                       "(text has no fixed row width)");
    gq_cumulative_share(n, every, cli_mpi_rank(), cli_mpi_ranks(), &first, &mine, &first_point, &points);
  }
  double *d_out = NULL;
  int rc = gq_alloc(ctx, (mine ? mine : 1) * sizeof *d_out, (void **)&d_out) != GQ_SUCCESS
               ? cli_error(EXIT_RUNTIME, "%llu values: %s", (unsigned long long)mine, gq_last_error())
               : EXIT_OK;
  if ((rc = data_agree(rc)) != EXIT_OK) {
    gq_free(ctx, d_out);
    return rc;
  }
  double kernel_ms = 0.0, mid = NAN, last = NAN;
  int status = gq_cumulative_integral(ctx, f, a, b, n, rule, d_out, every, &kernel_ms);
  rc = status == GQ_SUCCESS || status == GQ_EDOM ? EXIT_OK : cli_error(cli_exit_status(status), "%s", gq_last_error());
  if (rc == EXIT_OK)
    rc = middle_and_last(ctx, d_out, count, first, mine, &mid, &last);
  if (rc == EXIT_OK && c->out)
    rc = write_values(ctx, d_out, count, first, mine, a, b, n, every, c);
  if (rc == EXIT_OK && c->plot)
    rc = plot_values(ctx, f, d_out, count, a, b, n, every, rule, c->plot);
  gq_free(ctx, d_out);
  if (split) /* a rank whose write failed stops every rank here, not at the next combine */
    rc = data_agree(rc);
  if (rc != EXIT_OK)
    return rc;
  if (status == GQ_EDOM)
    return cli_error(EXIT_RUNTIME, "%s", gq_last_error());

  /* F(b) against the plain rule (the same terms, summed in another order)
   * and, through it, against GSL. */
  gq_rule_result r;
  status = gq_integrate_rule(ctx, f, rule, a, b, n, GQ_PRECISION_DOUBLE, &r);
  if (status != GQ_SUCCESS)
    return cli_error(cli_exit_status(status), "%s", gq_last_error());
  gq_reference ref = {NAN, NAN, NAN, GQ_REFERENCE_EXACT, NAN};
  double tolerance = NAN;
  gq_check_outcome outcome = {GQ_CHECK_PASSED, 0, ""};
  gq_rule_result at_b = r;
  at_b.result = last;
  if (check && gq_check_rule(f, a, b, &at_b, GQ_PRECISION_DOUBLE, &ref, &tolerance, &outcome) != GQ_SUCCESS)
    return cli_error(EXIT_RUNTIME, "reference: %s", gq_last_error());
  FILE *s = c->out && strcmp(c->out, "-") == 0 ? stderr : stdout;
  if (quiet) {
    fprintf(s, "%.17g\n", last);
  } else {
    const uint64_t mid_i = count / 2 == count - 1 ? n : count / 2 * every;
    const double h = (b - a) / (double)n;
    fprintf(s, "cumulative %s = %s on [%.17g, %.17g], n = %llu intervals (%s)\n", gq_integrand_name(f),
            gq_integrand_formula(f), a, b, (unsigned long long)n, gq_rule_name(rule));
    fprintf(s, "  F(a)         0\n");
    fprintf(s, "  F(middle)    %.17g  (x = %.17g)\n", mid, mid_i == n ? b : fma((double)mid_i, h, a));
    fprintf(s, "  F(b)         %.17g\n", last);
    fprintf(s, "  plain rule   %.17g  (difference %.3g)\n", r.result, last - r.result);
    if (check && outcome.verdict != GQ_CHECK_NOT_MADE)
      fprintf(s, "  reference    %.17g  (difference %.3g, tolerance %.3g): %s\n", ref.value, last - ref.value,
              tolerance, outcome.verdict == GQ_CHECK_PASSED ? "ok" : "FAILED");
    if (c->out)
      fprintf(s, "  out          %s (%llu values%s)\n", c->out, (unsigned long long)count,
              c->with_x ? ", rows of x and F" : "");
    fprintf(s, "  backend      %s\n", gq_context_device_name(ctx));
    fprintf(s, "  kernel time  %.4g ms\n", kernel_ms);
    fprintf(s, "  wall time    %.4g ms\n", cli_wall_ms() - t_start_ms);
  }
  if (outcome.verdict != GQ_CHECK_PASSED) {
    fprintf(stderr, "gpuquad: %s\n", outcome.message);
    return EXIT_CHECK;
  }
  return EXIT_OK;
}
