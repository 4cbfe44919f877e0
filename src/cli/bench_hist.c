/* bench_hist.c — `gpuquad bench --hist`: every histogram method of the
 * library (issue 18) on the same data on the GPU, per kind of data and
 * number of bins: each method's counts checked against the host's, then its
 * kernel time (the library's CUDA events, gq_hist.kernel_ms) as the median
 * of R runs after one warm-up, with updates per second.  The comparison with
 * CUB's DeviceHistogram is bench/bench_hist (BENCHMARKS.md); this command
 * needs only the library, and runs on the CPU backend too (--device=cpu:
 * one method, the same checks), which is how it is tested without a GPU.
 * options -> host data per kind -> device copy -> per bins: the host's
 * counts -> per method: verify, time -> table (or JSON Lines, or medians). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_output.h"
#include "cli.h"
#include "numparse.h"

enum { KINDS = 4, MAX_BINS_LIST = 16, MAX_REPS = 1000 };

static const char *const kind_names[KINDS] = {"uniform", "hot", "few", "equal"};
static const char *const kind_help[KINDS] = {
  "uniform on [0, 1)", "90% of the values in one bin, the rest uniform",
  "4 distinct bins per warp of 32 consecutive values", "every value equal"};

void usage_bench_hist(FILE *out)
{
  fputs("Usage: gpuquad bench --hist [OPTION]...\n"
        "Run every histogram method (gpuquad hist --method=) on data copied to the GPU,\n"
        "verify each method's counts against the host's, then time the verified ones\n"
        "(the library's CUDA events, median of R runs after a warm-up).\n"
        "\n"
        "  --bins=LIST     bin counts, comma separated (default 16,256,65536)\n"
        "  --data=LIST     uniform, hot, few, equal or all (default all):\n",
        out);
  for (int k = 0; k < KINDS; k++)
    fprintf(out, "                    %-8s %s\n", kind_names[k], kind_help[k]);
  fputs("  --method=LIST   auto, global, shared, match, ballot, cluster or all (default all)\n"
        "  --n=N           values (default 2^26, at most 2^28), doubles on [0, 1)\n"
        "  --reps=R        timed runs per method (default 9; 0: verify only)\n"
        "  --device=DEV    cuda (default), cuda:N, or cpu (the CPU backend has one\n"
        "                  method: every row runs it; a check of this command)\n"
        "  --json          JSON Lines instead of the table: an object per row, keys\n"
        "                  data, bins, n, method, method_ran, median_us,\n"
        "                  g_updates_per_s, gb_per_s, verified (null: not timed)\n"
        "  --quiet         only the median time in microseconds, one row a line in\n"
        "                  the table's order (nan where nothing was timed)\n"
        "  --help          this help\n"
        "\n"
        "Columns: data, bins, the method asked for and the one that ran, median kernel\n"
        "time in microseconds, updates per second, GB/s read, verified (yes or FAILED).\n"
        "bench/bench_hist compares the methods with CUB's DeviceHistogram.\n"
        "Exit status: 0 all verified, 1 a method FAILED, 2 bad input or no CUDA device,\n"
        "3 a CUDA error.\n",
        out);
}

typedef struct {
  uint32_t bins[MAX_BINS_LIST];
  int nbins;
  int kinds[KINDS], nkinds;
  int methods[GQ_HIST_NMETHODS], nmethods;
  uint64_t n;
  int reps, device;
  bench_format format;
} hist_options;

/* "a,b,c" or "all" -> one callback per item. */
static int each_item(const char *name, const char *text, int (*item)(const char *, void *), void *ctx)
{
  char buf[512];
  if (strlen(text) >= sizeof buf)
    return bench_error(EXIT_USAGE, "--%s: too long", name);
  strcpy(buf, text);
  int count = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), count++) {
    const int rc = item(tok, ctx);
    if (rc != EXIT_OK)
      return rc;
  }
  if (count == 0 || text[0] == ',' || text[strlen(text) - 1] == ',' || strstr(text, ",,"))
    return bench_error(EXIT_USAGE, "--%s=%s: expected a comma-separated list", name, text);
  return EXIT_OK;
}

static int add_bins(const char *tok, void *ctx)
{
  hist_options *o = ctx;
  uint64_t k;
  char err[128];
  if (gq_parse_whole(tok, 1, GQ_HIST_MAX_BINS, &k, err, sizeof err) != 0)
    return bench_error(EXIT_USAGE, "--bins: '%s' %s (1 to %u)", tok, err, (unsigned)GQ_HIST_MAX_BINS);
  if (o->nbins == MAX_BINS_LIST)
    return bench_error(EXIT_USAGE, "--bins: more than %d values", MAX_BINS_LIST);
  o->bins[o->nbins++] = (uint32_t)k;
  return EXIT_OK;
}

/* tok, one of names[0..count-1] or "all", into the list (once each): 1 when
 * it was a name or "all", 0 otherwise. */
static int add_named(const char *tok, const char *const *names, int count, int *list, int *n)
{
  const int all = strcmp(tok, "all") == 0;
  int found = all;
  for (int k = 0; k < count; k++)
    if (all || strcmp(tok, names[k]) == 0) {
      int seen = 0;
      for (int j = 0; j < *n; j++)
        seen |= list[j] == k;
      if (!seen)
        list[(*n)++] = k;
      found = 1;
    }
  return found;
}

static int add_kind(const char *tok, void *ctx)
{
  hist_options *o = ctx;
  if (add_named(tok, kind_names, KINDS, o->kinds, &o->nkinds))
    return EXIT_OK;
  return bench_error(EXIT_USAGE, "--data: '%s' (expected uniform, hot, few, equal or all)", tok);
}

static int add_method(const char *tok, void *ctx)
{
  hist_options *o = ctx;
  const char *names[GQ_HIST_NMETHODS];
  for (int m = 0; m < GQ_HIST_NMETHODS; m++)
    names[m] = gq_hist_method_name((gq_hist_method)m);
  if (add_named(tok, names, GQ_HIST_NMETHODS, o->methods, &o->nmethods))
    return EXIT_OK;
  return bench_error(EXIT_USAGE, "--method: '%s' (expected auto, global, shared, match, ballot, cluster or all)", tok);
}

static int parse_hist_options(int argc, char **argv, int first, hist_options *o, int *help)
{
  const char *bins_text = "16,256,65536", *data_text = "all", *method_text = "all", *n_text = "2^26";
  const char *reps_text = "9", *device_text = "cuda";
  int hist_flag = 0, json = 0, quiet = 0;
  const cli_option opts[] = {
    {"hist", OPT_FLAG, NULL, &hist_flag, 1},      {"bins", OPT_VALUE, &bins_text, NULL, 0},
    {"data", OPT_VALUE, &data_text, NULL, 0},     {"method", OPT_VALUE, &method_text, NULL, 0},
    {"n", OPT_VALUE, &n_text, NULL, 0},           {"reps", OPT_VALUE, &reps_text, NULL, 0},
    {"device", OPT_VALUE, &device_text, NULL, 0}, {"help", OPT_FLAG, NULL, help, 1},
    {"json", OPT_FLAG, NULL, &json, 1},           {"quiet", OPT_FLAG, NULL, &quiet, 1},
  };
  char err[256];
  int npos;
  const int parse_rc = cli_parse(argc, argv, first, opts, sizeof opts / sizeof opts[0], NULL, 0, &npos, err, sizeof err);
  if (parse_rc != 0)
    return parse_rc < 0 ? cli_error(EXIT_USAGE, "%s", err) : EXIT_OK;
  if (*help)
    return EXIT_OK;
  int rc = bench_format_from(json, quiet, &o->format);
  if (rc == EXIT_OK)
    rc = each_item("bins", bins_text, add_bins, o);
  if (rc == EXIT_OK)
    rc = each_item("data", data_text, add_kind, o);
  if (rc == EXIT_OK)
    rc = each_item("method", method_text, add_method, o);
  if (rc != EXIT_OK)
    return rc;
  if (gq_parse_count(n_text, UINT64_C(1) << 28, &o->n, err, sizeof err) != 0)
    return bench_error(EXIT_USAGE, "--n=%s: %s", n_text, err);
  uint64_t reps;
  if (gq_parse_whole(reps_text, 0, MAX_REPS, &reps, err, sizeof err) != 0)
    return bench_error(EXIT_USAGE, "--reps=%s: %s", reps_text, err);
  o->reps = (int)reps;
  if (cli_parse_device(device_text, &o->device) != 0 || o->device == GQ_DEVICE_AUTO)
    return bench_error(EXIT_USAGE, "--device=%s: expected cuda, cuda:N or cpu", device_text);
  return EXIT_OK;
}

/* A kind of data, made on the host (splitmix64: the same values every run). */
static double unit(uint64_t *s)
{
  uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}

static void make_data(int kind, double *x, uint64_t n, uint32_t bins)
{
  uint64_t s = 7;
  for (uint64_t i = 0; i < n; i++) {
    switch (kind) {
    case 0: x[i] = unit(&s); break;
    case 1: x[i] = unit(&s) < 0.9 ? 0.3 : unit(&s); break;
    case 2: /* warp w's values fall in 4 bins of its own */
      x[i] = ((double)(((i / 32) * 7 + i % 4) % bins) + 0.5) / (double)bins;
      break;
    default: x[i] = 0.25; break;
    }
  }
}

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* h's counts equal the reference's, bin by bin and outside the bins. */
static int same_counts(const gq_hist *h, const gq_hist *ref)
{
  return h->under == ref->under && h->over == ref->over && h->nan == ref->nan &&
         memcmp(h->counts, ref->counts, ref->cells * sizeof *ref->counts) == 0;
}

/* The host's counts, from the bins the library computes (gq_hist_bin). */
static void host_counts(gq_hist *ref, const double *x, uint64_t n)
{
  for (uint64_t i = 0; i < n; i++) {
    const uint32_t b = gq_hist_bin(ref, 0, x[i]);
    if (b < ref->bins[0])
      ref->counts[b]++;
    else if (b == ref->bins[0])
      ref->under++;
    else if (b == ref->bins[0] + 1)
      ref->over++;
    else
      ref->nan++;
  }
  ref->total = n;
}

/* One row: what ran, and its median (timed) in microseconds. */
typedef struct {
  const char *kind, *method, *ran;
  uint32_t bins;
  uint64_t n;
  int verified, timed;
  double median_us;
} hist_row;

static void hist_row_out(bench_format format, const hist_row *r)
{
  const double updates = r->timed ? (double)r->n / (r->median_us * 1e3) : NAN;
  const double gbps = r->timed ? (double)r->n * sizeof(double) / (r->median_us * 1e3) : NAN;
  if (format == BENCH_QUIET) {
    bench_quiet_line(stdout, r->timed, r->median_us);
  } else if (format == BENCH_JSON) {
    json_writer w;
    json_begin(&w, stdout);
    json_string(&w, "data", r->kind);
    json_uint(&w, "bins", r->bins);
    json_uint(&w, "n", r->n);
    json_string(&w, "method", r->method);
    json_string(&w, "method_ran", r->ran);
    json_number(&w, "median_us", r->timed ? r->median_us : NAN);
    json_number(&w, "g_updates_per_s", updates);
    json_number(&w, "gb_per_s", gbps);
    json_string(&w, "verified", r->verified ? "yes" : "FAILED");
    json_end(&w);
  } else {
    printf("%-8s %6u bins  %-8s (ran %-7s)", r->kind, r->bins, r->method, r->ran);
    if (r->timed)
      printf(" %11.1f us %9.2f G updates/s %8.1f GB/s", r->median_us, updates, gbps);
    printf("  verified %s\n", r->verified ? "yes" : "FAILED");
  }
}

/* One kind of data on the device, every bin count and method. */
static int bench_kind(gq_context *ctx, const hist_options *o, int kind, double *host, double *dev, int *failed)
{
  for (int b = 0; b < o->nbins; b++) {
    const uint32_t bins = o->bins[b];
    make_data(kind, host, o->n, bins);
    int status = gq_copy_to(ctx, dev, host, o->n * sizeof(double));
    gq_hist *ref = NULL, *h = NULL;
    if (status == GQ_SUCCESS)
      status = gq_hist_create(&ref, bins, 0.0, 1.0, GQ_HIST_COUNTS);
    if (status == GQ_SUCCESS)
      status = gq_hist_create(&h, bins, 0.0, 1.0, GQ_HIST_COUNTS);
    if (status != GQ_SUCCESS) {
      gq_hist_free(ref);
      return bench_error(cli_exit_status(status), "%s", gq_last_error());
    }
    host_counts(ref, host, o->n);
    for (int m = 0; m < o->nmethods; m++) {
      const gq_hist_method method = (gq_hist_method)o->methods[m];
      double t[MAX_REPS];
      gq_hist_reset(h);
      status = gq_hist_accumulate(ctx, h, o->n, dev, NULL, NULL, method); /* the warm-up is the check */
      const int ok = status == GQ_SUCCESS && same_counts(h, ref);
      const char *ran = gq_hist_method_name((gq_hist_method)h->method);
      for (int r = 0; ok && r < o->reps && status == GQ_SUCCESS; r++) {
        gq_hist_reset(h);
        status = gq_hist_accumulate(ctx, h, o->n, dev, NULL, NULL, method);
        t[r] = h->kernel_ms * 1e3;
      }
      if (status != GQ_SUCCESS) {
        gq_hist_free(h);
        gq_hist_free(ref);
        return bench_error(cli_exit_status(status), "%s %u bins, %s: %s", kind_names[kind], bins,
                          gq_hist_method_name(method), gq_last_error());
      }
      hist_row row = {kind_names[kind], gq_hist_method_name(method), ran ? ran : "?", bins, o->n, ok,
                      ok && o->reps > 0, 0.0};
      if (row.timed) {
        qsort(t, (size_t)o->reps, sizeof *t, cmp_double);
        row.median_us = o->reps % 2 ? t[o->reps / 2] : 0.5 * (t[o->reps / 2 - 1] + t[o->reps / 2]);
      }
      hist_row_out(o->format, &row);
      *failed |= !ok;
    }
    gq_hist_free(h);
    gq_hist_free(ref);
  }
  return EXIT_OK;
}

int cmd_bench_hist(int argc, char **argv, int first)
{
  hist_options o;
  memset(&o, 0, sizeof o);
  int help = 0;
  int rc = parse_hist_options(argc, argv, first, &o, &help);
  if (rc != EXIT_OK || cli_list_options)
    return rc;
  if (help) {
    usage_bench_hist(stdout);
    return EXIT_OK;
  }
  if (o.device >= 0 && gq_cuda_device_count() <= o.device)
    return bench_error(EXIT_USAGE, "%s", gq_cuda_device_count() == 0 ? "no CUDA device" : "no CUDA device of that number");
  gq_context *ctx = gq_context_create(o.device);
  if (!ctx)
    return bench_error(EXIT_RUNTIME, "%s", gq_last_error());
  double *host = malloc(o.n * sizeof *host), *dev = NULL;
  if (!host || gq_alloc(ctx, o.n * sizeof(double), (void **)&dev) != GQ_SUCCESS) {
    free(host);
    gq_context_free(ctx);
    return bench_error(EXIT_RUNTIME, "cannot allocate %llu doubles", (unsigned long long)o.n);
  }
  if (o.format == BENCH_TABLE)
    printf("gpuquad bench --hist: %s, %llu doubles, median of %d runs\n", gq_context_device_name(ctx),
           (unsigned long long)o.n, o.reps);
  int failed = 0;
  for (int k = 0; rc == EXIT_OK && k < o.nkinds; k++)
    rc = bench_kind(ctx, &o, o.kinds[k], host, dev, &failed);
  gq_free(ctx, dev);
  free(host);
  gq_context_free(ctx);
  if (rc == EXIT_OK && failed)
    rc = EXIT_CHECK;
  return rc;
}
