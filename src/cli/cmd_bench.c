/* cmd_bench.c — `gpuquad bench`: every classic reduction strategy, verified
 * and then timed side by side with CUB, cuBLAS and the library's own path.
 * options -> (type, n) data on the device -> reference on the host -> per
 * operator and method: verify, time -> table (or JSON Lines, or medians),
 * CSV, chart. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_output.h"
#include "bench_verify.h"
#include "cli.h"
#include "numparse.h"
#include "plot.h" /* plot_find_gnuplot */

#define BENCH_MAX_N (UINT64_C(1) << 30)
#define BENCH_MAX_SIZES 64
#define BENCH_MAX_REPS 10000

void usage_bench(FILE *out)
{
  fputs("Usage: gpuquad bench [OPTION]...\n"
        "Run every reduction method on data made on the GPU, verify each result, then\n"
        "time the verified ones (CUDA events, median of R runs after two warm-ups).\n"
        "\n"
        "  --method=LIST   methods by name or number, comma separated (default all);\n"
        "                  --list shows them\n"
        "  --type=LIST     int32, int64, float, double or all (default double)\n"
        "  --op=LIST       sum, min, max, argmax (double) or all (default sum)\n"
        "  --n=LIST        sizes, comma separated: 1000003, 2^20, 1Mi (default every\n"
        "                  power of two from 2^10 to 2^28; at most 2^30)\n"
        "  --reps=R        timed runs per method (default 20; 0: verify only)\n"
        "  --device=DEV    cuda (default) or cuda:N\n"
        "  --csv=FILE      also write the rows as CSV\n"
        "  --json          JSON Lines instead of the table: an object per row, the\n"
        "                  CSV's columns as keys, null where the table shows -\n"
        "  --quiet         only the median time in microseconds, one row a line in\n"
        "                  the table's order (nan where nothing was timed)\n"
        "  --plot=FILE     GB/s against n (.png or .svg) through gnuplot, for the\n"
        "                  first type and operator\n"
        "  --list          list the methods\n"
        "  --hist          the histogram methods instead (gpuquad bench --hist --help)\n"
        "  --help          this help\n"
        "\n"
        "Columns: median time in microseconds, GB/s read (n x element size / median),\n"
        "percent of the copy kernel's bandwidth measured in the same run, speed-up\n"
        "over method 1, and verified (yes, FAILED, or n/a with the reason).\n"
        "Exit status: 0 all verified, 1 a method FAILED, 2 bad input or no CUDA device,\n"
        "3 a CUDA error or a write error.\n",
        out);
}

int bench_error(int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  cli_verror("gpuquad bench: ", fmt, ap);
  va_end(ap);
  return status;
}

static void list_methods(FILE *out)
{
  for (int id = 1; id <= GQB_NMETHODS; id++) {
    const gqb_method *m = gqb_method_at(id);
    fprintf(out, "%2d %-21s %s\n", m->id, m->name, m->description);
  }
}

/* ---- options ------------------------------------------------------------- */
typedef struct {
  int methods[GQB_NMETHODS], nmethods;
  int types[GQB_NTYPES], ntypes; /* gqb_type */
  int ops[GQB_NOPS], nops;        /* gqb_op   */
  uint64_t sizes[BENCH_MAX_SIZES];
  int nsizes;
  int reps, device;
  bench_format format;
} bench_options;

/* Each comma-separated word of text through parse(word) -> index or -1. */
static int parse_list(const char *option, const char *text, int (*parse)(const char *), int count, int *out, int *n)
{
  char word[64];
  *n = 0;
  if (strcmp(text, "all") == 0) {
    for (int k = 0; k < count; k++)
      out[(*n)++] = k;
    return 0;
  }
  for (const char *p = text;;) {
    const size_t len = strcspn(p, ",");
    snprintf(word, sizeof word, "%.*s", (int)len, p);
    const int k = len < sizeof word ? parse(word) : -1;
    if (k < 0)
      return bench_error(EXIT_USAGE, "--%s: unknown '%s' (see 'gpuquad help bench')", option, word);
    int seen = 0;
    for (int j = 0; j < *n; j++)
      seen |= out[j] == k;
    if (!seen && *n < count)
      out[(*n)++] = k;
    if (!p[len])
      return 0;
    p += len + 1;
  }
}

static int parse_method(const char *text)
{
  /* names start with a letter; anything else is a number in the grammar of
   * every other (numparse.h) */
  uint64_t id;
  if (!((text[0] >= 'a' && text[0] <= 'z') || (text[0] >= 'A' && text[0] <= 'Z')))
    return gq_parse_whole(text, 1, GQB_NMETHODS, &id, NULL, 0) == 0 ? (int)id - 1 : -1;
  const gqb_method *m = gqb_method_find(text);
  return m ? m->id - 1 : -1;
}

static int parse_sizes(const char *text, bench_options *o)
{
  char err[128];
  o->nsizes = 0;
  for (const char *p = text;;) {
    const size_t len = strcspn(p, ",");
    if (o->nsizes == BENCH_MAX_SIZES)
      return bench_error(EXIT_USAGE, "--n: more than 64 sizes");
    char *word = strndup(p, len);
    if (!word)
      return bench_error(EXIT_RUNTIME, "out of memory");
    const int parsed = gq_parse_count(word, BENCH_MAX_N, &o->sizes[o->nsizes], err, sizeof err);
    if (parsed != 0)
      bench_error(EXIT_USAGE, "--n=%s: %s", word, err);
    free(word);
    if (parsed != 0)
      return EXIT_USAGE;
    o->nsizes++;
    if (!p[len])
      return 0;
    p += len + 1;
  }
}

/* *hist set: --hist was given, and the words are bench_hist.c's to read. */
static int parse_options(int argc, char **argv, int first, bench_options *o, const char **csv, const char **plot,
                         int *help, int *list, int *hist)
{
  const char *method_text = "all", *type_text = "double", *op_text = "sum", *n_text = NULL, *reps_text = "20";
  const char *device_text = "cuda";
  int json = 0, quiet = 0;
  const cli_option opts[] = {
    {"method", OPT_VALUE, &method_text, NULL, 0}, {"type", OPT_VALUE, &type_text, NULL, 0},
    {"op", OPT_VALUE, &op_text, NULL, 0},         {"n", OPT_VALUE, &n_text, NULL, 0},
    {"reps", OPT_VALUE, &reps_text, NULL, 0},     {"device", OPT_VALUE, &device_text, NULL, 0},
    {"csv", OPT_VALUE, csv, NULL, 0},             {"plot", OPT_VALUE, plot, NULL, 0},
    {"list", OPT_FLAG, NULL, list, 1},            {"help", OPT_FLAG, NULL, help, 1},
    {"hist", OPT_FLAG, NULL, hist, 1},            {"json", OPT_FLAG, NULL, &json, 1},
    {"quiet", OPT_FLAG, NULL, &quiet, 1},
  };
  /* --hist (bench_hist.c) as the parse would read it: --his is --hist here too */
  if (!cli_list_options && cli_peek(argc, argv, first, opts, sizeof opts / sizeof opts[0], "hist", NULL)) {
    *hist = 1;
    return EXIT_OK;
  }
  char err[256];
  int npos;
  const int parse_rc = cli_parse(argc, argv, first, opts, sizeof opts / sizeof opts[0], NULL, 0, &npos, err, sizeof err);
  if (parse_rc != 0)
    return parse_rc < 0 ? cli_error(EXIT_USAGE, "%s", err) : EXIT_OK;
  if (*help || *list)
    return EXIT_OK;
  int rc = bench_format_from(json, quiet, &o->format);
  if (rc == EXIT_OK)
    rc = parse_list("method", method_text, parse_method, GQB_NMETHODS, o->methods, &o->nmethods);
  if (rc == EXIT_OK)
    rc = parse_list("type", type_text, gqb_type_parse, GQB_NTYPES, o->types, &o->ntypes);
  if (rc == EXIT_OK)
    rc = parse_list("op", op_text, gqb_op_parse, GQB_NOPS, o->ops, &o->nops);
  if (rc != EXIT_OK)
    return rc;
  for (int k = 0; k < o->nmethods; k++)
    o->methods[k]++; /* indices -> ids */
  if (n_text) {
    if ((rc = parse_sizes(n_text, o)) != EXIT_OK)
      return rc;
  } else {
    for (o->nsizes = 0; o->nsizes <= 18; o->nsizes++)
      o->sizes[o->nsizes] = UINT64_C(1) << (10 + o->nsizes);
  }
  uint64_t reps;
  if (gq_parse_whole(reps_text, 0, BENCH_MAX_REPS, &reps, err, sizeof err) != 0)
    return bench_error(EXIT_USAGE, "--reps=%s: %s", reps_text, err);
  o->reps = (int)reps;
  if (cli_parse_device(device_text, &o->device) != 0 || o->device < 0)
    return bench_error(EXIT_USAGE, "--device=%s: expected cuda or cuda:N", device_text);
  if (*plot) {
    const char *ext = strrchr(*plot, '.');
    if (!ext || (strcmp(ext, ".png") != 0 && strcmp(ext, ".svg") != 0))
      return bench_error(EXIT_USAGE, "--plot=%s: the file must end in .png or .svg", *plot);
  }
  return EXIT_OK;
}

#ifdef HAVE_CUDA
/* ---- measurement (CUDA builds) -------------------------------------------- */
typedef struct {
  gqb_device *dev;
  const bench_options *o;
  double copy_gbps;
  bench_row *rows;
  size_t nrows, cap;
  FILE *csv;
  int failed;
  gq_context *production;
  double *d_production_result;
} bench_run;

static int compare_doubles(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median, min and max of us[reps]; sorts it. */
static void summarise(double *us, int reps, bench_row *r)
{
  qsort(us, (size_t)reps, sizeof *us, compare_doubles);
  r->median_us = reps % 2 ? us[reps / 2] : 0.5 * (us[reps / 2 - 1] + us[reps / 2]);
  r->min_us = us[0];
  r->max_us = us[reps - 1];
  r->timed = 1;
}

#ifdef GQ_HAVE_SUM
/* The production path is verified through gq_sum (result on the host) and
 * timed through gq_sum_async on the bench's own stream, so that CUDA events
 * measure it exactly as they measure every other method (kernel time, result
 * left in device memory). */
typedef struct {
  gq_context *ctx;
  size_t n;
  const double *x;
  double result;
  double *d_result;
} production_call;

static int call_production(void *arg)
{
  production_call *p = arg;
  return gq_sum(p->ctx, p->n, p->x, &p->result);
}

static int call_production_async(void *arg)
{
  production_call *p = arg;
  return gq_sum_async(p->ctx, p->n, p->x, p->d_result);
}
#endif

/* One run (verification), then, if verified and reps > 0, the timed runs. */
static int measure(bench_run *b, bench_row *r, const gqb_reference *ref, double *us)
{
  char err[256];
  gqb_value got = {0, 0.0, -1};
  uint64_t depth = 0;
  int status;
  const int reps = b->o->reps;
#ifdef GQ_HAVE_SUM
  production_call call = {b->production, r->n, gqb_device_data(b->dev), 0.0, b->d_production_result};
  if (r->method == GQB_PRODUCTION) {
    status = call_production(&call);
    if (status != GQ_SUCCESS)
      snprintf(err, sizeof err, "gq_sum: %s", gq_last_error());
    got.f = call.result;
  } else
#endif
    status = gqb_run(b->dev, r->method, r->type, r->op, r->n, &got, &depth, err, sizeof err);
  if (status != GQ_SUCCESS) {
    snprintf(r->detail, sizeof r->detail, "%s", err);
    return status;
  }
  if (depth == 0)
    depth = gqb_opaque_depth(r->n, gqb_device_sms(b->dev));
  double error, bound;
  if (!gqb_verify(ref, r->op, &got, depth, &error, &bound)) {
    r->status = BENCH_FAILED;
    if (r->type == GQB_INT32 || r->type == GQB_INT64) {
      const long long want = r->op == GQB_MIN   ? (long long)ref->imin
                             : r->op == GQB_MAX ? (long long)ref->imax
                             : r->type == GQB_INT32 ? (long long)(int32_t)(uint32_t)ref->sum_bits
                                                    : (long long)ref->sum_bits;
      snprintf(r->detail, sizeof r->detail, "got %lld, want %lld", (long long)got.i, want);
    }
    else if (r->op == GQB_SUM)
      snprintf(r->detail, sizeof r->detail, "got %.17g, error %.3g > bound %.3g (depth %llu)", got.f, error, bound,
               (unsigned long long)depth);
    else
      snprintf(r->detail, sizeof r->detail, "got %.17g at %lld", got.f, (long long)got.index);
    return GQ_SUCCESS;
  }
  r->status = BENCH_VERIFIED;
  if (r->op == GQB_SUM && (r->type == GQB_FLOAT || r->type == GQB_DOUBLE))
    snprintf(r->detail, sizeof r->detail, "error %.2g <= %.2g", error, bound);
  if (reps == 0)
    return GQ_SUCCESS;
#ifdef GQ_HAVE_SUM
  if (r->method == GQB_PRODUCTION)
    status = gqb_time_call(b->dev, call_production_async, &call, reps, us, err, sizeof err);
  else
#endif
    status = gqb_time(b->dev, r->method, r->type, r->op, r->n, reps, us, err, sizeof err);
  if (status != GQ_SUCCESS) {
    snprintf(r->detail, sizeof r->detail, "%s", err);
    return status;
  }
  summarise(us, reps, r);
  r->gbps = (double)r->n * (double)gqb_type_size(r->type) / (r->median_us * 1e3);
  r->percent = 100.0 * r->gbps / b->copy_gbps;
  return GQ_SUCCESS;
}

static bench_row *new_row(bench_run *b)
{
  if (b->nrows == b->cap) {
    const size_t cap = b->cap ? 2 * b->cap : 256;
    bench_row *rows = realloc(b->rows, cap * sizeof *rows);
    if (!rows)
      return NULL;
    b->rows = rows;
    b->cap = cap;
  }
  bench_row *r = &b->rows[b->nrows++];
  memset(r, 0, sizeof *r);
  return r;
}

/* Every operator and method for one type and size. */
static int bench_size(bench_run *b, gqb_type type, uint64_t n, void *h_data, double *us)
{
  char err[256];
  int status = gqb_generate(b->dev, type, n, h_data, err, sizeof err);
  if (status != GQ_SUCCESS)
    return bench_error(cli_exit_status(status), "%s", err);
  gqb_reference ref;
  gqb_reference_compute(type, h_data, n, &ref);
  if (type == GQB_INT64 && ref.sum_bits != gqb_triangular(n))
    return bench_error(EXIT_RUNTIME, "the int64 data is not a permutation of 1..n");
  for (int k = 0; k < b->o->nops; k++) {
    double baseline_us = 0.0;
    for (int j = 0; j < b->o->nmethods; j++) {
      bench_row *r = new_row(b);
      if (!r)
        return bench_error(EXIT_RUNTIME, "out of memory");
      *r = (bench_row){.method = b->o->methods[j], .type = type, .op = (gqb_op)b->o->ops[k], .n = n, .status = BENCH_NA};
      const char *why = gqb_method_not_applicable(r->method, type, r->op);
      if (!why && r->method == 18)
        why = gqb_device_cublas(b->dev);
      if (why) {
        snprintf(r->detail, sizeof r->detail, "%s", why);
      } else if ((status = measure(b, r, &ref, us)) != GQ_SUCCESS) {
        bench_row_out(stdout, b->o->format, r);
        return bench_error(cli_exit_status(status), "%s", r->detail);
      }
      if (r->method == 1 && r->timed)
        baseline_us = r->median_us;
      if (r->timed && baseline_us > 0)
        r->speedup = baseline_us / r->median_us;
      b->failed |= r->status == BENCH_FAILED;
      bench_row_out(stdout, b->o->format, r);
      if (cli_flush_stdout() != 0)
        return EXIT_RUNTIME; /* main reports the write error */
      if (b->csv)
        bench_csv_row(b->csv, r);
    }
  }
  return EXIT_OK;
}

static int bench_all(bench_run *b)
{
  const bench_options *o = b->o;
  uint64_t max_n = 0;
  for (int k = 0; k < o->nsizes; k++)
    if (o->sizes[k] > max_n)
      max_n = o->sizes[k];
  /* The copy probe needs a buffer far larger than L2: at least 2^26 doubles.
   * --reps=0 times nothing, so it has no probe either. */
  const uint64_t floor_n = o->reps > 0 ? UINT64_C(1) << 26 : 1;
  const uint64_t buffer_n = max_n > floor_n ? max_n : floor_n;
  char err[256];
  int status = gqb_device_open(o->device, buffer_n, &b->dev, err, sizeof err);
  if (status == GQ_ENODEV)
    return bench_error(EXIT_USAGE, "%s", err);
  if (status != GQ_SUCCESS)
    return bench_error(cli_exit_status(status), "%s", err);
#ifdef GQ_HAVE_SUM
  if ((status = gq_context_open(&b->production, o->device)) != GQ_SUCCESS)
    return bench_error(cli_exit_status(status), "gq_context_open: %s", gq_last_error());
  void *d_result = NULL;
  if ((status = gq_context_set_stream(b->production, gqb_device_stream(b->dev))) != GQ_SUCCESS ||
      (status = gq_alloc(b->production, sizeof(double), &d_result)) != GQ_SUCCESS)
    return bench_error(cli_exit_status(status), "production context: %s", gq_last_error());
  b->d_production_result = d_result;
#endif
  double *us = malloc((size_t)(o->reps > 0 ? o->reps : 1) * sizeof *us);
  void *h_data = malloc(max_n * sizeof(double));
  if (!us || !h_data) {
    free(us);
    free(h_data);
    return bench_error(EXIT_RUNTIME, "out of host memory for %llu elements", (unsigned long long)max_n);
  }
  /* the preamble is the table's: --json and --quiet print rows only */
  const int table = o->format == BENCH_TABLE;
  if (table)
    printf("device: %s, %d multiprocessors\n", gqb_device_name(b->dev), gqb_device_sms(b->dev));
  int rc = EXIT_OK;
  if (o->reps > 0) {
    const size_t copy_bytes = buffer_n * sizeof(double);
    status = gqb_copy_time(b->dev, copy_bytes, o->reps, us, err, sizeof err);
    if (status != GQ_SUCCESS) {
      rc = bench_error(cli_exit_status(status), "%s", err);
    } else {
      bench_row probe = {0};
      summarise(us, o->reps, &probe);
      b->copy_gbps = 2.0 * (double)copy_bytes / (probe.median_us * 1e3);
      if (table) {
        printf("copy kernel: %.1f GB/s (read + write, %.0f MiB each way)\n", b->copy_gbps,
               (double)copy_bytes / 1048576.0);
        printf("timing: CUDA events, median of %d runs after 2 warm-ups\n", o->reps);
      }
    }
  } else if (table) {
    printf("--reps=0: verification only, nothing timed\n");
  }
  if (rc == EXIT_OK && table) {
    putchar('\n');
    bench_table_header(stdout);
  }
  for (int t = 0; rc == EXIT_OK && t < o->ntypes; t++)
    for (int k = 0; rc == EXIT_OK && k < o->nsizes; k++)
      rc = bench_size(b, (gqb_type)o->types[t], o->sizes[k], h_data, us);
  free(h_data);
  free(us);
  return rc;
}
#endif /* HAVE_CUDA */

int cmd_bench(int argc, char **argv, int first)
{
  bench_options o;
  const char *csv_path = NULL, *plot_path = NULL;
  int help = 0, list = 0, hist = 0;
  memset(&o, 0, sizeof o);
  int rc = parse_options(argc, argv, first, &o, &csv_path, &plot_path, &help, &list, &hist);
  if (hist) /* the histogram methods: bench_hist.c */
    return cmd_bench_hist(argc, argv, first);
  if (rc != EXIT_OK || cli_list_options)
    return rc;
  if (help) {
    usage_bench(stdout);
    return EXIT_OK;
  }
  if (list) {
    list_methods(stdout);
    return EXIT_OK;
  }
  char gnuplot[4096];
  if (plot_path && !plot_find_gnuplot(gnuplot, sizeof gnuplot))
    return bench_error(EXIT_USAGE, "--plot=%s: gnuplot is not on PATH", plot_path);
#ifndef HAVE_CUDA
  (void)csv_path;
  return bench_error(EXIT_USAGE, "this gpuquad was built without CUDA");
#else
  bench_run b;
  memset(&b, 0, sizeof b);
  b.o = &o;
  if (csv_path) {
    if (!(b.csv = fopen(csv_path, "w")))
      return bench_error(EXIT_USAGE, "--csv=%s: cannot write the file", csv_path);
    bench_csv_header(b.csv);
  }
  rc = bench_all(&b);
  if (b.csv && fclose(b.csv) != 0 && rc == EXIT_OK)
    rc = bench_error(EXIT_RUNTIME, "--csv=%s: write error", csv_path);
  if (rc == EXIT_OK && plot_path) {
    char title[512], err[256];
    snprintf(title, sizeof title, "gpuquad bench: %s %s on %s (copy kernel %.0f GB/s)", gqb_type_name((gqb_type)o.types[0]),
             gqb_op_name((gqb_op)o.ops[0]), gqb_device_name(b.dev), b.copy_gbps);
    if (bench_plot(gnuplot, plot_path, b.rows, b.nrows, (gqb_type)o.types[0], (gqb_op)o.ops[0], title, err, sizeof err) != 0)
      rc = bench_error(EXIT_RUNTIME, "%s", err);
  }
#ifdef GQ_HAVE_SUM
  gq_free(b.production, b.d_production_result);
  gq_context_free(b.production);
#endif
  gqb_device_close(b.dev);
  free(b.rows);
  if (rc == EXIT_OK && b.failed)
    rc = EXIT_CHECK;
  return rc;
#endif
}
