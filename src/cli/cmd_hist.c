/* cmd_hist.c — `gpuquad hist DATA --bins=K --range=LO:HI`: counts per bin
 * (numpy.histogram's bins), under/over/NaN apart; --values=V per-bin count,
 * sum and mean (scipy.stats.binned_statistic); two inputs and --bins=KX,KY
 * a 2-D histogram (numpy.histogram2d).  Inputs as `gpuquad stats` reads them
 * or generated on the device; --check against GSL's gsl_histogram.  Under
 * mpirun each rank counts its share of the elements (data_ranks.h) and the
 * ranks' histograms merge in rank order: the counts are the same for every
 * number of ranks, the binned sums within --check's bound. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data_ranks.h"
#include "hist_plot.h"
#include "mpi.h"
#include "plot.h"
#include "numparse.h"
#include "progress.h"
#include "vectors.h" /* the data options, and the library's reader */

void usage_hist(FILE *out)
{
  fputs("Usage: gpuquad hist DATA --bins=K [--range=LO:HI] [OPTION]...\n"
        "       gpuquad hist X Y --bins=KX,KY [--range=XLO:XHI,YLO:YHI] [OPTION]...\n"
        "       gpuquad hist --gen=KIND --n=N --bins=K [OPTION]...\n"
        "       gpuquad hist --f=EXPR [--a=A --b=B --n=N] --bins=K [OPTION]...\n"
        "A histogram of K equal bins on [LO, HI] as numpy.histogram makes it: bin k is\n"
        "[e_k, e_k+1) with the edges of numpy.linspace(LO, HI, K + 1), the last bin\n"
        "closed (HI counts in bin K - 1); values on an edge land where numpy puts them.\n"
        "Values below LO (-inf too), above HI (+inf) and NaN are counted apart.  Two\n"
        "inputs (or --gen with two bin counts) give numpy.histogram2d's cells.\n"
        "\n"
        "Histogram:\n"
        "  --bins=K             bins (KX,KY: a 2-D histogram of X and Y)\n"
        "  --range=LO:HI        the range (XLO:XHI,YLO:YHI in 2-D; default: the data's\n"
        "                       finite min and max, widened by 0.5 both ways when equal)\n"
        "  --values=V           also sum the values of file V per bin: count, sum, mean\n"
        "  --sum=S              plain (default: double atomics) or compensated (TwoSum by\n"
        "                       atomicCAS, its error kept per bin)\n"
        "  --method=M           GPU method: auto (default), global, shared, match, ballot,\n"
        "                       cluster (gpuquad(1) describes them)\n"
        "Data (paths, A.npz:NAME for an array of an archive, or - for standard input):\n"
        "  --format=F           npy, npz, raw or text (default: by extension, else sniffed)\n"
        "  --dtype=D            raw data (and - with --dtype is raw): f64 (default), f32,\n"
        "                       f16, int8..int64, uint8..uint64 or bool (numpy's names too)\n"
        "  --offset=BYTES       raw data: bytes to skip first\n"
        "  --col=K              text: take column K (1-based), or the column a header line\n"
        "                       names K (--col=pressure); empty and NA cells are NaN\n"
        "  --header, --no-header  text: the first row is (is not) a header line (default:\n"
        "                       a first row of names, no numbers, is one)\n"
        "  --gen=KIND           no files: generate uniform, normal or linspace data on\n"
        "                       the device (with --n=N, --seed=S; Y with seed S + 1)\n"
        "  --n=N, --seed=S      length and seed (default 1) for --gen\n"
        "  --f=EXPR             no files: the values of an expression in x (or a built-in)\n"
        "                       at the N + 1 points a + i (b - a)/N of integrate's grid,\n"
        "                       evaluated on the host (--a, --b default 0, 1; --n 1e6)\n"
        "  --a=A, --b=B         the grid's ends for --f\n"
        "Run and output:\n"
        "  --device=DEV         auto (default), cuda, cuda:N, cpu\n",
        out);
  cli_usage_deterministic(out);
  cli_usage_progress(out);
  fputs("  --check, --no-check  compare with GSL's gsl_histogram on the host; exit 1 if a\n"
        "                       count differs or a sum is beyond its bound\n"
        "  --csv                one row per bin (and under, over, nan) instead of the table\n"
        "  --json               one JSON object instead of the table\n"
        "  --quiet              print only the counts, one a line (2-D: row-major)\n"
        "  --plot=FILE          also draw it into FILE.png or FILE.svg with gnuplot (found on\n"
        "                       PATH at run time; without it, exit 2)\n"
        "  --help               this help\n"
        "\n"
        "Exit status: 0 ok, 1 check failed, 2 bad input, 3 computation failed.\n",
        out);
}

typedef struct {
  const char *bins, *range, *values, *sum, *method, *plot, *f, *a, *b, *format, *dtype, *offset, *col, *gen, *n, *seed, *device;
  int check, csv, json, quiet, help;
  int header; /* gq_header */
} hist_options;

/* The data: host copies (files, or generated data copied back for --check)
 * and the context's copies the histogram reads. */
typedef struct {
  const char *names[3]; /* x, y, values                           */
  int inputs;           /* 1 or 2 (x, y)                          */
  size_t n;             /* this rank's elements                   */
  uint64_t whole;       /* every rank's                           */
  double *host[3];
  double *dev[3];
  const char *format;
  uint64_t inexact; /* int64/uint64 values that rounded on widening */
} hist_data;

static int parse_bins(const char *text, int *dims, uint32_t bins[2])
{
  char err[256], copy[128];
  if (strlen(text) >= sizeof copy)
    return cli_error(EXIT_USAGE, "--bins=%s: expected K or KX,KY", text);
  strcpy(copy, text);
  char *comma = strchr(copy, ',');
  *dims = comma ? 2 : 1;
  if (comma)
    *comma = '\0';
  const char *parts[2] = {copy, comma ? comma + 1 : NULL};
  for (int d = 0; d < *dims; d++) {
    uint64_t k;
    if (gq_parse_count(parts[d], GQ_HIST_MAX_BINS, &k, err, sizeof err) != 0)
      return cli_error(EXIT_USAGE, "--bins=%s: %s", text, err);
    bins[d] = (uint32_t)k;
  }
  if (*dims == 2 && (uint64_t)bins[0] * bins[1] > GQ_HIST_MAX_BINS)
    return cli_error(EXIT_USAGE, "--bins=%s: more than %lu cells", text, (unsigned long)GQ_HIST_MAX_BINS);
  return EXIT_OK;
}

/* LO:HI (per axis, comma-separated), each a finite real with LO < HI. */
static int parse_range(const char *text, int dims, double lo[2], double hi[2])
{
  char err[256], copy[256];
  if (strlen(text) >= sizeof copy)
    return cli_error(EXIT_USAGE, "--range=%s: expected LO:HI", text);
  strcpy(copy, text);
  char *axes[2] = {copy, strchr(copy, ',')};
  if (axes[1])
    *axes[1]++ = '\0';
  if ((axes[1] != NULL) != (dims == 2))
    return cli_error(EXIT_USAGE, "--range=%s: expected %s", text, dims == 2 ? "XLO:XHI,YLO:YHI for two --bins" : "LO:HI");
  for (int d = 0; d < dims; d++) {
    char *colon = strchr(axes[d], ':');
    if (!colon)
      return cli_error(EXIT_USAGE, "--range=%s: expected LO:HI", text);
    *colon = '\0';
    if (gq_parse_real(axes[d], &lo[d], err, sizeof err) != 0 || gq_parse_real(colon + 1, &hi[d], err, sizeof err) != 0)
      return cli_error(EXIT_USAGE, "--range=%s: %s", text, err);
    if (!(lo[d] < hi[d]))
      return cli_error(EXIT_USAGE, "--range=%s: LO must be below HI", text);
    if (!isfinite(hi[d] - lo[d]))
      return cli_error(EXIT_USAGE, "--range=%s: HI - LO is beyond the double range", text);
  }
  return EXIT_OK;
}

static void free_data(gq_context *ctx, hist_data *d)
{
  for (int k = 0; k < 3; k++) {
    free(d->host[k]);
    if (ctx)
      gq_free(ctx, d->dev[k]);
  }
}

/* Elements read at a time, the progress reported after each (8 MB of f64). */
#define HIST_CHUNK ((size_t)1 << 20)

/* The rest of r (length elements, or -1 where not known) as a malloc'd
 * double array (f32 widened), HIST_CHUNK elements at a time: *bytes grows by
 * each chunk's and is reported of total (0 where not known in advance). */
static int read_input(gq_reader *r, int64_t length, double **data, size_t *n, uint64_t *bytes, uint64_t total)
{
  char msg[512];
  const int f32 = gq_reader_dtype(r) == GQ_DTYPE_F32;
  if (length >= 0 && (uint64_t)length >= SIZE_MAX / sizeof(double))
    return cli_error(EXIT_RUNTIME, "%s: %lld elements do not fit in memory", gq_reader_name(r), (long long)length);
  /* a known length has room for one more element, whose read finds the end */
  size_t cap = length >= 0 ? (size_t)length + 1 : HIST_CHUNK, count = 0;
  double *all = malloc(cap * sizeof *all);
  float *narrow = f32 ? malloc(HIST_CHUNK * sizeof *narrow) : NULL;
  int rc = all && (narrow || !f32) ? EXIT_OK : cli_error(EXIT_RUNTIME, "%s: out of host memory", gq_reader_name(r));
  while (rc == EXIT_OK) {
    if (count == cap) {
      double *bigger = cap <= SIZE_MAX / 2 / sizeof *all ? realloc(all, 2 * cap * sizeof *all) : NULL;
      if (!bigger) {
        rc = cli_error(EXIT_RUNTIME, "%s: out of host memory after %zu numbers", gq_reader_name(r), count);
        break;
      }
      all = bigger;
      cap *= 2;
    }
    const size_t want = cap - count < HIST_CHUNK ? cap - count : HIST_CHUNK;
    size_t got = 0;
    const int status = gq_reader_read(r, f32 ? (void *)narrow : (void *)(all + count), want, &got, msg, sizeof msg);
    if (status != GQ_SUCCESS) {
      rc = cli_error(status == GQ_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", msg);
      break;
    }
    if (got == 0)
      break;
    for (size_t i = 0; f32 && i < got; i++)
      all[count + i] = narrow[i];
    count += got;
    *bytes += got * (f32 ? sizeof(float) : sizeof(double));
    if (!total || *bytes < total)
      cli_progress_report(*bytes, total, "bytes", NULL);
  }
  free(narrow);
  if (rc != EXIT_OK) {
    free(all);
    return rc;
  }
  *data = all;
  *n = count;
  return EXIT_OK;
}

/* Under mpirun: input k (opened) cut to this rank's share of the elements
 * of the first input, the header parsed by every rank (gq_reader_slice:
 * text, whose length is not known before it is read, cannot be divided). */
static int slice_input(gq_reader *r[3], int k, hist_data *d)
{
  char msg[512];
  const int64_t length = gq_reader_length(r[k]);
  if (k > 0 && length >= 0 && (uint64_t)length != d->whole)
    return cli_error(EXIT_USAGE, "%s has %llu numbers and %s %lld: they must have one per element", d->names[0],
                     (unsigned long long)d->whole, d->names[k], (long long)length);
  if (k == 0)
    d->whole = length > 0 ? (uint64_t)length : 0;
  uint64_t first, count;
  data_share(d->whole, 1, &first, &count);
  const int status = gq_reader_slice(r[k], first, count, msg, sizeof msg);
  if (status != GQ_SUCCESS)
    return cli_error(status == GQ_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", msg);
  d->n = (size_t)count;
  return EXIT_OK;
}

/* The inputs, all opened first so that the progress counts the bytes of
 * them all, as dot's stream does: of their sum where every length is known
 * (under mpirun, of this rank's shares). */
static int read_files(const hist_options *o, hist_data *d)
{
  char msg[512];
  gq_reader_opts ropts;
  int rc = vec_reader_fields(o->format, o->dtype, o->offset, o->col, o->header, &ropts);
  if (rc != EXIT_OK)
    return rc;
  int stdin_uses = 0;
  for (int k = 0; k < 3; k++)
    stdin_uses += d->names[k] && strcmp(d->names[k], "-") == 0;
  if (stdin_uses > 1)
    return cli_error(EXIT_USAGE, "only one input can be standard input");
  d->format = "file";
  gq_reader *r[3] = {NULL, NULL, NULL};
  uint64_t total = 0, bytes = 0;
  int known = 1;
  for (int k = 0; k < 3 && rc == EXIT_OK; k++) {
    if (!d->names[k])
      continue;
    if (cli_mpi_ranks() > 1 && (rc = data_divisible(d->names[k])) != EXIT_OK)
      break;
    const int status = gq_reader_open(d->names[k], &ropts, &r[k], msg, sizeof msg);
    if (status != GQ_SUCCESS)
      rc = cli_error(status == GQ_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", msg);
    else if (cli_mpi_ranks() > 1)
      rc = slice_input(r, k, d);
    if (rc != EXIT_OK || !r[k])
      break;
    const int64_t length = cli_mpi_ranks() > 1 ? (int64_t)d->n : gq_reader_length(r[k]);
    if (length < 0)
      known = 0;
    else
      total += (uint64_t)length * gq_dtype_size(gq_reader_dtype(r[k]));
  }
  if (!known)
    total = 0;
  cli_progress_attach(NULL);
  for (int k = 0; k < 3 && rc == EXIT_OK; k++) {
    if (!r[k])
      continue;
    size_t n = 0;
    rc = read_input(r[k], cli_mpi_ranks() > 1 ? (int64_t)d->n : gq_reader_length(r[k]), &d->host[k], &n, &bytes,
                    total);
    if (rc != EXIT_OK)
      break;
    d->inexact += vec_inexact_note(r[k]); /* under mpirun: of this rank's share */
    if (cli_mpi_ranks() == 1)
      d->whole = n;
    if (d->whole == 0)
      rc = cli_error(EXIT_USAGE, "%s: is empty (no numbers to count)", strcmp(d->names[k], "-") ? d->names[k] : "<stdin>");
    else if (k > 0 && n != d->n)
      rc = cli_error(EXIT_USAGE, "%s has %zu numbers and %s %zu: they must have one per element", d->names[0], d->n,
                     d->names[k], n);
    d->n = n;
  }
  if (rc == EXIT_OK) /* the task ends, its size known now */
    cli_progress_report(bytes, bytes, "bytes", NULL);
  for (int k = 0; k < 3; k++)
    gq_reader_close(r[k]);
  return rc;
}

/* --f: f(x_i) at x_i = fma(i, h, a), i = 0..n, x_n = b (gq_integrate_rule's
 * grid), evaluated on the host in double, as the expression's host
 * evaluator gives them; under mpirun this rank's range of the i. */
static int evaluate_grid(const hist_options *o, hist_data *d)
{
  char err[256];
  gq_integrand *f = NULL;
  gq_parse_error perr;
  if (gq_integrand_parse(o->f, NULL, 0, 1, &f, &perr) != GQ_SUCCESS)
    return cli_parse_error(o->f, NULL, &perr);
  double a, b;
  gq_integrand_limits(f, &a, &b);
  uint64_t n = 1000000;
  int rc = EXIT_OK;
  if (o->a && gq_parse_real(o->a, &a, err, sizeof err) != 0)
    rc = cli_error(EXIT_USAGE, "--a=%s: %s", o->a, err);
  else if (o->b && gq_parse_real(o->b, &b, err, sizeof err) != 0)
    rc = cli_error(EXIT_USAGE, "--b=%s: %s", o->b, err);
  else if (o->n && gq_parse_count(o->n, UINT64_C(1) << 30, &n, err, sizeof err) != 0)
    rc = cli_error(EXIT_USAGE, "--n=%s: %s", o->n, err);
  else if (!isfinite(b - a))
    rc = cli_error(EXIT_USAGE, "--a, --b: b - a is beyond the double range");
  uint64_t first = 0, count = 0;
  data_share(n + 1, 1, &first, &count);
  /* one more than the share: an empty share's malloc(0) may be NULL */
  if (rc == EXIT_OK && !(d->host[0] = malloc(((size_t)count + 1) * sizeof(double))))
    rc = cli_error(EXIT_RUNTIME, "out of host memory for %llu values", (unsigned long long)count);
  if (rc == EXIT_OK) {
    const double h = (b - a) / (double)n;
    for (uint64_t i = first; i < first + count; i++)
      d->host[0][i - first] = i == n ? gq_integrand_eval(f, b) : gq_integrand_eval(f, fma((double)i, h, a));
    d->n = (size_t)count;
    d->whole = n + 1;
    d->names[0] = o->f;
    d->format = "expression";
  }
  gq_integrand_free(f);
  return rc;
}

/* Files into the context's memory; generated data made there (and copied
 * back only for --check). */
static int place_data(gq_context *ctx, const hist_options *o, hist_data *d)
{
  char err[256];
  if (o->gen) {
    gq_gen_kind kind;
    if (strcmp(o->gen, "uniform") == 0) kind = GQ_GEN_UNIFORM;
    else if (strcmp(o->gen, "normal") == 0) kind = GQ_GEN_NORMAL;
    else if (strcmp(o->gen, "linspace") == 0) kind = GQ_GEN_LINSPACE;
    else return cli_error(EXIT_USAGE, "--gen=%s: expected uniform, normal or linspace", o->gen);
    uint64_t n, seed = 1;
    if (gq_parse_count(o->n ? o->n : "1e6", UINT64_C(1) << 40, &n, err, sizeof err) != 0)
      return cli_error(EXIT_USAGE, "--n=%s: %s", o->n, err);
    if (o->seed && gq_parse_whole(o->seed, 0, UINT64_MAX, &seed, err, sizeof err) != 0)
      return cli_error(EXIT_USAGE, "--seed=%s: %s", o->seed, err);
    uint64_t first, count;
    data_share(n, 4, &first, &count); /* whole Philox quads: each element the one a single process makes */
    d->n = (size_t)count;
    d->whole = n;
    d->format = "generated";
    for (int k = 0; k < d->inputs; k++) {
      d->names[k] = o->gen;
      int status = d->n ? gq_alloc(ctx, d->n * sizeof(double), (void **)&d->dev[k]) : GQ_SUCCESS;
      if (status == GQ_SUCCESS && d->n)
        status = gq_generate_range(ctx, kind, n, first, count, seed + (uint64_t)k, d->dev[k]);
      if (status == GQ_SUCCESS && o->check) {
        d->host[k] = malloc(d->n * sizeof(double));
        status = d->host[k] ? gq_copy_from(ctx, d->host[k], d->dev[k], d->n * sizeof(double)) : GQ_ENOMEM;
      }
      if (status != GQ_SUCCESS)
        return cli_error(cli_exit_status(status), "%s", *gq_last_error() ? gq_last_error() : "out of host memory");
    }
    return EXIT_OK;
  }
  for (int k = 0; k < 3; k++) {
    if (!d->host[k] || d->n == 0)
      continue;
    int status = gq_alloc(ctx, d->n * sizeof(double), (void **)&d->dev[k]);
    if (status == GQ_SUCCESS)
      status = gq_copy_to(ctx, d->dev[k], d->host[k], d->n * sizeof(double));
    if (status != GQ_SUCCESS)
      return cli_error(cli_exit_status(status), "%s", gq_last_error());
  }
  return EXIT_OK;
}

static void merge_stats(void *acc, const void *other) { gq_stats_acc_merge(acc, other); }

/* numpy's default range: the finite min and max (by the statistics
 * reduction, where the data are; under mpirun of every rank's share,
 * merged: the same for every number of ranks), widened by 0.5 when they are
 * equal. */
static int data_range(gq_context *ctx, const hist_data *d, int axis, double *lo, double *hi)
{
  gq_stats_acc acc;
  gq_stats_result s;
  gq_stats_acc_init(&acc);
  int status = d->n ? gq_stats_accumulate(ctx, &acc, d->n, d->dev[axis]) : GQ_SUCCESS;
  status = cli_mpi_combine(&acc, sizeof acc, merge_stats, status, NULL);
  if (status == GQ_SUCCESS)
    status = gq_stats_finish(&acc, GQ_NAN_OMIT, &s);
  if (status != GQ_SUCCESS)
    return cli_error(cli_exit_status(status), "%s", gq_last_error());
  if (s.n == 0)
    return cli_error(EXIT_USAGE, "%s: no finite values to take the range from; give --range=LO:HI", d->names[axis]);
  *lo = s.min;
  *hi = s.max;
  if (*lo == *hi) {
    *lo -= 0.5;
    *hi += 0.5;
  }
  if (!isfinite(*hi - *lo))
    return cli_error(EXIT_USAGE, "%s: the data's range [%g, %g] is wider than a double; give --range=LO:HI",
                     d->names[axis], *lo, *hi);
  return EXIT_OK;
}

static void json_array(json_writer *w, const char *key, size_t n, const uint64_t *counts, const double *a,
                       const double *b)
{
  fprintf(w->out, "%s\"%s\": [", w->fields++ ? ", " : "", key);
  for (size_t k = 0; k < n; k++) {
    const double v = counts ? (double)counts[k] : a[k] + (b ? b[k] : 0.0);
    if (counts)
      fprintf(w->out, "%s%llu", k ? ", " : "", (unsigned long long)counts[k]);
    else if (isfinite(v))
      fprintf(w->out, "%s%.17g", k ? ", " : "", v);
    else
      fprintf(w->out, "%snull", k ? ", " : "");
  }
  fputc(']', w->out);
}

static double bin_sum(const gq_hist *h, size_t k) { return h->sums[k] + h->sums_err[k]; }

static void print_table(const gq_hist *h)
{
  if (h->dims == 1) {
    printf("  %8s  %-50s %12s%s\n", "bin", "interval", "count", h->sums ? "  sum                      mean" : "");
    for (uint32_t k = 0; k < h->bins[0]; k++) {
      char interval[96];
      snprintf(interval, sizeof interval, "[%.17g, %.17g%s", gq_hist_edge(h, 0, k), gq_hist_edge(h, 0, k + 1),
               k + 1 == h->bins[0] ? "]" : ")");
      printf("  %8u  %-50s %12llu", k, interval, (unsigned long long)h->counts[k]);
      if (h->sums)
        printf("  %-24.17g %.17g", bin_sum(h, k), h->counts[k] ? bin_sum(h, k) / (double)h->counts[k] : NAN);
      putchar('\n');
    }
  } else {
    printf("  %6s %6s  %-24s %-24s %12s\n", "x bin", "y bin", "x from", "y from", "count");
    for (uint32_t i = 0; i < h->bins[0]; i++)
      for (uint32_t j = 0; j < h->bins[1]; j++)
        printf("  %6u %6u  %-24.17g %-24.17g %12llu\n", i, j, gq_hist_edge(h, 0, i), gq_hist_edge(h, 1, j),
               (unsigned long long)h->counts[(size_t)i * h->bins[1] + j]);
  }
  printf("  under        %llu  (below the range)\n", (unsigned long long)h->under);
  printf("  over         %llu  (above the range)\n", (unsigned long long)h->over);
  printf("  nan          %llu\n", (unsigned long long)h->nan);
}

static void print_csv(const gq_hist *h)
{
  if (h->dims == 1) {
    printf("bin,from,to,count%s\n", h->sums ? ",sum,mean" : "");
    for (uint32_t k = 0; k < h->bins[0]; k++) {
      printf("%u,%.17g,%.17g,%llu", k, gq_hist_edge(h, 0, k), gq_hist_edge(h, 0, k + 1),
             (unsigned long long)h->counts[k]);
      if (h->sums)
        printf(",%.17g,%.17g", bin_sum(h, k), h->counts[k] ? bin_sum(h, k) / (double)h->counts[k] : NAN);
      putchar('\n');
    }
  } else {
    printf("xbin,ybin,xfrom,xto,yfrom,yto,count\n");
    for (uint32_t i = 0; i < h->bins[0]; i++)
      for (uint32_t j = 0; j < h->bins[1]; j++)
        printf("%u,%u,%.17g,%.17g,%.17g,%.17g,%llu\n", i, j, gq_hist_edge(h, 0, i), gq_hist_edge(h, 0, i + 1),
               gq_hist_edge(h, 1, j), gq_hist_edge(h, 1, j + 1), (unsigned long long)h->counts[(size_t)i * h->bins[1] + j]);
  }
  printf("under,,,%llu\nover,,,%llu\nnan,,,%llu\n", (unsigned long long)h->under, (unsigned long long)h->over,
         (unsigned long long)h->nan);
}

static void print_json(const gq_hist *h, const hist_data *d, gq_context *ctx, int check, int passed, double worst,
                       double wall_ms)
{
  json_writer w;
  json_begin(&w, stdout);
  json_string(&w, "command", "hist");
  json_string(&w, "input", d->names[0]);
  if (h->dims == 2)
    json_string(&w, "input_y", d->names[1]);
  if (h->sums)
    json_string(&w, "values", d->names[2]);
  json_string(&w, "format", d->format);
  if (d->inexact)
    json_uint(&w, "inexact", d->inexact);
  json_uint(&w, "n", h->total);
  json_uint(&w, "dims", (uint64_t)h->dims);
  /* per axis, as integrate's limits: a number in 1-D, an array [x, y] in 2-D */
  if (h->dims == 2) {
    char bins[32];
    snprintf(bins, sizeof bins, "[%u, %u]", h->bins[0], h->bins[1]);
    json_raw(&w, "bins", bins);
  } else {
    json_uint(&w, "bins", h->bins[0]);
  }
  cli_json_limits(&w, "lo", h->dims, h->lo);
  cli_json_limits(&w, "hi", h->dims, h->hi);
  json_array(&w, "counts", h->cells, h->counts, NULL, NULL);
  if (h->sums) {
    json_array(&w, "sums", h->cells, NULL, h->sums, h->sums_err);
    json_string(&w, "sum", h->kind == GQ_HIST_SUMS_COMPENSATED ? "compensated" : "plain");
  }
  json_uint(&w, "under", h->under);
  json_uint(&w, "over", h->over);
  json_uint(&w, "nan", h->nan);
  json_string(&w, "method", gq_context_backend(ctx) == GQ_BACKEND_CUDA ? gq_hist_method_name(h->method) : "cpu");
  json_string(&w, "check", check ? (passed ? "passed" : "failed") : "skipped");
  if (check && h->sums)
    json_number(&w, "check_worst_sum_ratio", worst);
  json_string(&w, "backend", gq_context_backend(ctx) == GQ_BACKEND_CUDA ? "cuda" : "cpu");
  json_string(&w, "device", gq_context_device_name(ctx));
  json_number(&w, "kernel_ms", h->kernel_ms);
  json_number(&w, "wall_ms", wall_ms);
  json_end(&w);
}

static int run(gq_context *ctx, const hist_options *o, hist_data *d, int dims, const uint32_t bins[2],
               gq_hist_method method, double t0)
{
  int rc = data_agree(place_data(ctx, o, d));
  if (rc != EXIT_OK)
    return rc;
  double lo[2], hi[2];
  if (o->range)
    rc = parse_range(o->range, dims, lo, hi);
  for (int axis = 0; axis < dims && rc == EXIT_OK && !o->range; axis++)
    rc = data_range(ctx, d, axis, &lo[axis], &hi[axis]);
  if (rc != EXIT_OK)
    return rc;
  gq_hist_kind kind = GQ_HIST_COUNTS;
  if (o->values)
    kind = o->sum && strcmp(o->sum, "compensated") == 0 ? GQ_HIST_SUMS_COMPENSATED : GQ_HIST_SUMS;
  gq_hist *h = NULL, *ref = NULL, *abs_ref = NULL;
  int status = dims == 2 ? gq_hist2d_create(&h, bins[0], lo[0], hi[0], bins[1], lo[1], hi[1])
                         : gq_hist_create(&h, bins[0], lo[0], hi[0], kind);
  if (status != GQ_SUCCESS)
    return cli_error(cli_exit_status(status), "%s", gq_last_error());
  status = data_hist_combine(h, gq_hist_accumulate(ctx, h, d->n, d->dev[0], d->dev[1], d->dev[2], method));
  if (status != GQ_SUCCESS) {
    gq_hist_free(h);
    return cli_error(cli_exit_status(status), "%s", gq_last_error());
  }
  int passed = 1;
  double worst = 0;
  char why[512] = "";
  if (o->check) {
    status = gq_hist_reference(h, d->n, d->host[0], d->host[1], d->host[2], &ref, &abs_ref);
    if (status == GQ_SUCCESS)
      status = gq_hist_check(h, ref, abs_ref, &worst);
    passed = status == GQ_SUCCESS;
    if (!passed)
      snprintf(why, sizeof why, "%s", gq_last_error());
  }
  const int cuda = gq_context_backend(ctx) == GQ_BACKEND_CUDA;
  if (o->json)
    print_json(h, d, ctx, o->check, passed, worst, cli_wall_ms() - t0);
  else if (o->csv)
    print_csv(h);
  else if (o->quiet)
    for (size_t k = 0; k < h->cells; k++)
      printf("%llu\n", (unsigned long long)h->counts[k]);
  else {
    if (dims == 1)
      printf("hist %s: n = %llu, %u bins on [%.17g, %.17g] (%s)\n", d->names[0], (unsigned long long)h->total,
             h->bins[0], h->lo[0], h->hi[0], d->format);
    else
      printf("hist %s %s: n = %llu, %u x %u cells on [%.17g, %.17g] x [%.17g, %.17g] (%s)\n", d->names[0],
             d->names[1], (unsigned long long)h->total, h->bins[0], h->bins[1], h->lo[0], h->hi[0], h->lo[1],
             h->hi[1], d->format);
    print_table(h);
    if (o->check)
      printf("  check        GSL gsl_histogram%s, same data: %s%s\n", dims == 2 ? "2d" : "",
             passed ? "counts equal" : "FAILED", passed && h->sums ? ", sums within bound" : "");
    if (cuda)
      printf("  backend      cuda: %s, method %s\n", gq_context_device_name(ctx), gq_hist_method_name(h->method));
    else
      printf("  backend      %s\n", gq_context_device_name(ctx));
    printf("  time         %.4g ms (histogram), %.4g ms wall\n", h->kernel_ms, cli_wall_ms() - t0);
  }
  const int plotted = o->plot ? hist_plot(h, o->plot) : EXIT_OK;
  gq_hist_free(h);
  gq_hist_free(ref);
  gq_hist_free(abs_ref);
  if (plotted != EXIT_OK)
    return plotted;
  if (!passed)
    return cli_error(EXIT_CHECK, "%s", why);
  return EXIT_OK;
}

int cmd_hist(int argc, char **argv, int first, double t0)
{
  hist_options o;
  memset(&o, 0, sizeof o);
  const cli_option opts[] = {
    {"bins", OPT_VALUE, &o.bins, NULL, 0},     {"range", OPT_VALUE, &o.range, NULL, 0},
    {"values", OPT_VALUE, &o.values, NULL, 0}, {"sum", OPT_VALUE, &o.sum, NULL, 0},
    {"method", OPT_VALUE, &o.method, NULL, 0}, {"format", OPT_VALUE, &o.format, NULL, 0},
    {"dtype", OPT_VALUE, &o.dtype, NULL, 0},   {"offset", OPT_VALUE, &o.offset, NULL, 0},
    {"col", OPT_VALUE, &o.col, NULL, 0},       {"gen", OPT_VALUE, &o.gen, NULL, 0},
    {"n", OPT_VALUE, &o.n, NULL, 0},           {"seed", OPT_VALUE, &o.seed, NULL, 0},
    {"device", OPT_VALUE, &o.device, NULL, 0}, {"check", OPT_FLAG, NULL, &o.check, 1}, CLI_OPT_DETERMINISTIC, CLI_OPT_PROGRESS,
    {"no-check", OPT_FLAG, NULL, &o.check, 0}, {"csv", OPT_FLAG, NULL, &o.csv, 1},
    {"json", OPT_FLAG, NULL, &o.json, 1},      {"help", OPT_FLAG, NULL, &o.help, 1},
    {"quiet", OPT_FLAG, NULL, &o.quiet, 1},
    {"plot", OPT_VALUE, &o.plot, NULL, 0},     {"f", OPT_VALUE, &o.f, NULL, 0},
    {"a", OPT_VALUE, &o.a, NULL, 0},           {"b", OPT_VALUE, &o.b, NULL, 0},
    {"header", OPT_FLAG, NULL, &o.header, GQ_HEADER_YES}, {"no-header", OPT_FLAG, NULL, &o.header, GQ_HEADER_NO},
  };
  const char *paths[2];
  int npaths;
  char err[256];
  const int parse_rc = cli_parse(argc, argv, first, opts, sizeof opts / sizeof opts[0], paths, 2, &npaths, err, sizeof err);
  if (parse_rc != 0)
    return parse_rc < 0 ? cli_error(EXIT_USAGE, "%s", err) : EXIT_OK;
  if (o.help) {
    usage_hist(stdout);
    return EXIT_OK;
  }
  if (!o.bins)
    return cli_error(EXIT_USAGE, "--bins=K is required (see 'gpuquad help hist')");
  int dims = 1;
  uint32_t bins[2] = {1, 1};
  int rc = parse_bins(o.bins, &dims, bins);
  if (rc != EXIT_OK)
    return rc;
  if (o.csv + o.json + o.quiet > 1)
    return cli_error(EXIT_USAGE, "--json, --csv and --quiet are three outputs: take one");
  if (o.sum && strcmp(o.sum, "plain") != 0 && strcmp(o.sum, "compensated") != 0)
    return cli_error(EXIT_USAGE, "--sum=%s: expected plain or compensated", o.sum);
  if (o.sum && !o.values)
    return cli_error(EXIT_USAGE, "--sum goes with --values");
  if (o.values && dims == 2)
    return cli_error(EXIT_USAGE, "--values: binned sums are one-dimensional (one --bins)");
  gq_hist_method method = GQ_HIST_AUTO;
  if (o.method && gq_hist_method_parse(o.method, &method) != GQ_SUCCESS)
    return cli_error(EXIT_USAGE, "--method=%s: expected auto, global, shared, match, ballot or cluster", o.method);
  if (o.plot && (rc = plot_check(o.plot)) != EXIT_OK)
    return rc;
  if ((rc = cli_progress_check()) != EXIT_OK) /* the reading draws it */
    return rc;
  if (o.check && cli_mpi_ranks() > 1) /* GSL's histogram on the host would see one rank's share */
    return cli_error(EXIT_USAGE, "--check is made by one process: run it without mpirun, or with -np 1");
  if (o.range) { /* bad input before any data is read */
    double lo[2], hi[2];
    rc = parse_range(o.range, dims, lo, hi);
    if (rc != EXIT_OK)
      return rc;
  }
  hist_data d;
  memset(&d, 0, sizeof d);
  d.inputs = dims;
  if ((o.a || o.b) && !o.f)
    return cli_error(EXIT_USAGE, "--a and --b go with --f");
  if (o.gen && o.f)
    return cli_error(EXIT_USAGE, "--gen and --f: choose one source");
  if (o.gen || o.f) {
    if (npaths > 0)
      return cli_error(EXIT_USAGE, "--%s replaces the input files (got '%s')", o.gen ? "gen" : "f", paths[0]);
    if (o.values)
      return cli_error(EXIT_USAGE, "--values needs data files, not --%s", o.gen ? "gen" : "f");
    if (o.f && dims == 2)
      return cli_error(EXIT_USAGE, "--f gives one input: one --bins");
    if (o.f && o.seed)
      return cli_error(EXIT_USAGE, "--seed goes with --gen");
    if (o.f && (rc = data_agree(evaluate_grid(&o, &d))) != EXIT_OK) {
      free_data(NULL, &d);
      return rc;
    }
  } else {
    if (o.n || o.seed)
      return cli_error(EXIT_USAGE, "--n and --seed go with --gen");
    if (npaths != dims)
      return cli_error(EXIT_USAGE, "expected %d input file%s for %s (or --gen); see --help", dims,
                       dims == 1 ? "" : "s", dims == 1 ? "one --bins" : "two --bins");
    d.names[0] = paths[0];
    d.names[1] = dims == 2 ? paths[1] : NULL;
    d.names[2] = o.values;
    rc = data_agree(read_files(&o, &d));
    if (rc != EXIT_OK) {
      free_data(NULL, &d);
      return rc;
    }
  }
  gq_context *ctx = NULL;
  rc = cli_open_context(o.device ? o.device : "auto", o.json || o.csv || o.quiet, &ctx);
  if (rc == EXIT_OK)
    rc = run(ctx, &o, &d, dims, bins, method, t0);
  free_data(ctx, &d);
  gq_context_free(ctx);
  return rc;
}
