/* cmd_scan.c — `gpuquad scan A`: prefix sums of a vector read (streamed
 * chunk by chunk, the carry passed from chunk to chunk, so files larger than
 * the GPU's memory work) or generated where the scan runs, written as .npy,
 * raw or text; a summary (first and last values, the total) on stdout, and
 * with --check every value against a long double scan on the host.
 *
 * Under mpirun each rank scans its share of the elements (data_ranks.h)
 * twice: from zero, for its total; then, the ranks' totals gathered, from
 * the merge of the totals before it (gq_scan_carry_merge), writing its part
 * of --out at its offset (.npy or raw).  Integer data whose sums stay below
 * 2^53 scan exactly, the same bits for every number of ranks; other doubles
 * stay within the scan's bound (the pairs are merged in another grouping). */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data_ranks.h"
#include "mpi.h"
#include "numparse.h"
#include "plot.h"
#include "plots.h"
#include "progress.h"
#include "vector_out.h"
#include "vectors.h"

void usage_scan(FILE *out)
{
  fputs("Usage: gpuquad scan A [--out=FILE] [OPTION]...\n"
        "       gpuquad scan --gen=KIND --n=N [--out=FILE] [OPTION]...\n"
        "Prefix sums (cumulative sums) of a vector: y_i = x_0 + ... + x_i, or with\n"
        "--exclusive y_i = x_0 + ... + x_{i-1} (y_0 = 0).  Sums are compensated\n"
        "pairs: every y_i is the exactly rounded prefix but for its last bit.  Files\n"
        "are streamed in chunks, the running total carried from one to the next.\n"
        "\n"
        "  --exclusive          exclusive scan (default: inclusive)\n"
        "  --method=M           lookback (default: one pass, decoupled look-back),\n"
        "                       three-phase (tile totals, their scan, a second pass) or\n"
        "                       cub (CUB's DeviceScan, plain sums: the GPU baseline)\n"
        "  --out=FILE           write the n sums (- for standard output); the format\n"
        "                       by extension (.npy; .txt .csv .dat .tsv; .bin .raw .f64\n"
        "                       .f32) or --out-format; f32 data give f32 sums\n"
        "  --out-format=F       npy, raw or text\n"
        "  --json               the summary as one JSON object instead of the table\n"
        "  --csv                the same fields as a CSV header line and one row\n"
        "  --quiet              print only the total, the sum of all the values\n"
        "  --nan=P              refused: NaN and Inf propagate into the sums\n"
        "  --check, --no-check  compare every sum with a long double scan on the host;\n"
        "                       exit 1 beyond u |P_i| + 2 i u^2 sum |x_j| (cub: i u sum |x_j|)\n"
        "  --plot=FILE          draw the sums against i (at most 4096 points, evenly\n"
        "                       spaced) into FILE.png or FILE.svg (gnuplot)\n",
        out);
  fputs("Data (a path, or - for standard input):\n"
        "  --format=F           npy, npz, raw or text (default: by extension, else sniffed)\n"
        "  --dtype=D            raw data (and - with --dtype is raw): f64 (default), f32,\n"
        "                       f16, int8..int64, uint8..uint64 or bool (numpy's names too);\n"
        "                       with --gen, f64 or f32 to generate\n"
        "  --offset=BYTES       raw data: bytes to skip first\n"
        "  --col=K              text: take column K (1-based), or the column a header line\n"
        "                       names K (--col=pressure)\n"
        "  --header, --no-header  text: the first row is (is not) a header line (default:\n"
        "                       a first row of names, no numbers, is one)\n"
        "  --gen=KIND           no file: generate uniform, normal or linspace data\n"
        "                       where the scan runs (with --n=N, --seed=S)\n"
        "  --n=N, --seed=S      length and seed (default 1) for --gen\n"
        "  --device=DEV         auto (default), cuda, cuda:N, cpu\n",
        out);
  cli_usage_deterministic(out);
  cli_usage_progress(out);
  fputs("  --help               this help\n"
        "\n"
        "Exit status: 0 ok, 1 check failed, 2 bad input, 3 computation failed.\n",
        out);
}

/* Elements per chunk: 32 MiB of doubles per buffer. */
#define SCAN_CHUNK ((size_t)1 << 22)

typedef struct {
  const char *name, *format, *dtype;
  int is_float, exclusive, check;
  gq_scan_method method;
  uint64_t n;
  double first, last;
  gq_scan_carry carry;
  double scan_ms;
  /* --check: the host's scan (Neumaier in long double) and the worst error */
  long double ref_s, ref_c, ref_abs;
  double worst; /* |y - P| / bound */
  uint64_t bad, first_bad;
  plot_series *plot; /* --plot: the sums kept for the curve, or NULL */
  /* under mpirun: this rank's elements [share_first, + share_count) of
   * whole, the total of all of them, and --out's file */
  int split;
  uint64_t whole, share_first, share_count;
  gq_scan_carry grand;
  const char *out_path;
  vout_format out_format;
} scan_run;

static void check_chunk(scan_run *run, const void *x, const void *y, size_t count, uint64_t at)
{
  const double u = run->is_float ? 0x1p-24 : 0x1p-53;
  for (size_t k = 0; k < count; k++) {
    const long double v = run->is_float ? ((const float *)x)[k] : ((const double *)x)[k];
    const long double before = run->ref_s + run->ref_c, sum = run->ref_s + v;
    run->ref_c += fabsl(run->ref_s) >= fabsl(v) ? (run->ref_s - sum) + v : (v - sum) + run->ref_s;
    run->ref_s = sum;
    run->ref_abs += fabsl(v);
    const long double want = run->exclusive ? before : run->ref_s + run->ref_c;
    const double got = run->is_float ? ((const float *)y)[k] : ((const double *)y)[k];
    const long double i = (long double)(at + k + 1);
    /* CUB's plain sums: any order of i roundings */
    const long double spread = run->method == GQ_SCAN_CUB ? i * u * run->ref_abs : 2.0L * i * 0x1p-106L * run->ref_abs;
    const double bound = (double)(u * fabsl(want) + spread + 0x1p-62L * fabsl(want)) + DBL_TRUE_MIN;
    const double err = fabs((double)((long double)got - want));
    if (!(err <= bound) && run->bad++ == 0)
      run->first_bad = at + k;
    if (err / bound > run->worst)
      run->worst = err / bound;
  }
}

/* After a chunk's scan: the summary's values, the check, the output. */
static int take_chunk(scan_run *run, vout *out, const void *x, const void *y, size_t count)
{
  const double y0 = run->is_float ? ((const float *)y)[0] : ((const double *)y)[0];
  const double yl = run->is_float ? ((const float *)y)[count - 1] : ((const double *)y)[count - 1];
  if (run->n == 0)
    run->first = y0;
  run->last = yl;
  if (run->check)
    check_chunk(run, x, y, count, run->n);
  for (size_t k = 0; run->plot && k < count; k++)
    plot_series_add(run->plot, (double)(run->n + k),
                    run->is_float ? ((const float *)y)[k] : ((const double *)y)[k]);
  run->n += count;
  return out->f ? vout_write(out, y, count) : EXIT_OK;
}

static int scan_chunk(gq_context *ctx, scan_run *run, size_t count, const void *d_x, void *d_y)
{
  const double t0 = cli_wall_ms();
  const int status = gq_scan(ctx, run->is_float ? GQ_SCAN_F32 : GQ_SCAN_F64, run->exclusive, run->method, count,
                             d_x, d_y, &run->carry);
  run->scan_ms += cli_wall_ms() - t0;
  return status == GQ_SUCCESS ? EXIT_OK : cli_error(cli_exit_status(status), "%s", gq_last_error());
}

/* Every rank's part into *all (cli_mpi_ranks() entries, to free), whatever
 * this rank's rc: the group's exit status. */
static int gather_parts(const data_scan_part *mine, int rc, data_scan_part **all)
{
  *all = malloc((size_t)cli_mpi_ranks() * sizeof **all);
  const int group = data_scan_gather(mine, *all, *all ? rc : EXIT_RUNTIME);
  if (rc == EXIT_OK && !*all)
    return cli_error(EXIT_RUNTIME, "out of host memory");
  if (rc == EXIT_OK && group != EXIT_OK)
    return EXIT_RUNTIME; /* another rank failed: its message is the one shown */
  return rc;
}

/* Under mpirun, between the passes: the ranks' totals gathered (status:
 * this rank's pass so far), the carry of the ranks before this one, the
 * total of all; then the ranks after rank 0 open their part of --out (rank
 * 0 made the file before the gather).  The group's exit status. */
static int share_carry(scan_run *run, gq_scan_carry total, int rc, vout *out)
{
  const int ranks = cli_mpi_ranks();
  const data_scan_part mine = {total, 0.0, 0.0, run->share_count};
  data_scan_part *all;
  rc = gather_parts(&mine, rc, &all);
  if (rc == EXIT_OK) {
    memset(&run->carry, 0, sizeof run->carry);
    memset(&run->grand, 0, sizeof run->grand);
    for (int r = 0; r < ranks; r++) {
      if (r == cli_mpi_rank())
        run->carry = run->grand;
      gq_scan_carry_merge(&run->grand, &all[r].total);
    }
  }
  free(all);
  if (rc == EXIT_OK && run->out_path && cli_mpi_rank() > 0)
    rc = vout_open_part(out, run->out_path, run->out_format, run->is_float, 1, run->whole, run->share_first, 0);
  return rc;
}

/* Under mpirun, after the second pass: the summary's values of every rank's
 * part (the first value the first nonempty part's, the last the last one's),
 * and the total of all as the carry. */
static int share_summary(scan_run *run, int rc)
{
  const int ranks = cli_mpi_ranks();
  const data_scan_part mine = {run->carry, run->first, run->last, run->n};
  data_scan_part *all;
  rc = gather_parts(&mine, rc, &all);
  if (rc == EXIT_OK) {
    run->n = 0;
    for (int r = 0; r < ranks; r++) {
      if (all[r].count > 0 && run->n == 0)
        run->first = all[r].first;
      if (all[r].count > 0)
        run->last = all[r].last;
      run->n += all[r].count;
    }
    run->carry = run->grand;
  }
  free(all);
  return rc;
}

/* The input, under mpirun cut to this rank's share (the header parsed by
 * every rank; text and pipes cannot be divided). */
static int open_input(const char *path, const gq_reader_opts *ropts, scan_run *run, gq_reader **r)
{
  char msg[512];
  if (run->split && data_divisible(path) != EXIT_OK)
    return EXIT_USAGE;
  int status = gq_reader_open(path, ropts, r, msg, sizeof msg);
  if (status == GQ_SUCCESS && run->split) {
    const int64_t length = gq_reader_length(*r);
    run->whole = length > 0 ? (uint64_t)length : 0;
    data_share(run->whole, 1, &run->share_first, &run->share_count);
    status = gq_reader_slice(*r, run->share_first, run->share_count, msg, sizeof msg);
  }
  if (status != GQ_SUCCESS)
    return cli_error(status == GQ_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", msg);
  return EXIT_OK;
}

/* A file, chunk by chunk: read, copy, scan in place, copy back, write. */
static int scan_file(gq_context *ctx, gq_reader *r, scan_run *run, vout *out)
{
  const size_t es = run->is_float ? sizeof(float) : sizeof(double);
  char msg[512];
  void *h_x = malloc(SCAN_CHUNK * es), *h_y = malloc(SCAN_CHUNK * es), *d = NULL;
  int rc = EXIT_OK;
  if (!h_x || !h_y) {
    rc = cli_error(EXIT_RUNTIME, "out of host memory");
  } else if (gq_alloc(ctx, SCAN_CHUNK * es, &d) != GQ_SUCCESS) {
    rc = cli_error(EXIT_RUNTIME, "%s", gq_last_error());
  }
  /* progress in bytes read, of the whole when its length is known */
  const int64_t length = run->split ? (int64_t)run->share_count : gq_reader_length(r);
  const uint64_t total = length > 0 ? (uint64_t)length * es : 0;
  uint64_t bytes = 0;
  while (rc == EXIT_OK) {
    size_t got = 0;
    const int status = gq_reader_read(r, h_x, SCAN_CHUNK, &got, msg, sizeof msg);
    if (status != GQ_SUCCESS) {
      rc = cli_error(status == GQ_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", msg);
      break;
    }
    if (got == 0) {
      cli_progress_report(bytes, bytes, "bytes", NULL);
      break;
    }
    if (gq_copy_to(ctx, d, h_x, got * es) != GQ_SUCCESS)
      rc = cli_error(EXIT_RUNTIME, "%s", gq_last_error());
    if (rc == EXIT_OK)
      rc = scan_chunk(ctx, run, got, d, d);
    if (rc == EXIT_OK && gq_copy_from(ctx, h_y, d, got * es) != GQ_SUCCESS)
      rc = cli_error(EXIT_RUNTIME, "%s", gq_last_error());
    if (rc == EXIT_OK)
      rc = take_chunk(run, out, h_x, h_y, got);
    bytes += got * es;
    if (!total || bytes < total)
      cli_progress_report(bytes, total, "bytes", NULL);
  }
  gq_free(ctx, d);
  free(h_x);
  free(h_y);
  return rc;
}

/* Generated data: made and scanned where the context computes, whole (under
 * mpirun this rank's share, whole Philox quads, scanned twice); then copied
 * back a chunk at a time for the output and the check. */
static int scan_generated(gq_context *ctx, gq_gen_kind gen, uint64_t seed, scan_run *run, vout *out)
{
  const uint64_t n = run->share_count;
  const size_t es = run->is_float ? sizeof(float) : sizeof(double);
  void *d_x = NULL, *d_y = NULL, *h_x = malloc(SCAN_CHUNK * es), *h_y = malloc(SCAN_CHUNK * es);
  int rc = EXIT_OK, status = !h_x || !h_y ? GQ_ENOMEM : n ? gq_alloc(ctx, n * es, &d_x) : GQ_SUCCESS;
  if (status == GQ_SUCCESS && n)
    status = gq_alloc(ctx, n * es, &d_y);
  if (status == GQ_SUCCESS && n)
    status = run->is_float ? gq_generate_range_f(ctx, gen, run->whole, run->share_first, n, seed, d_x)
                           : gq_generate_range(ctx, gen, run->whole, run->share_first, n, seed, d_x);
  if (status != GQ_SUCCESS)
    rc = cli_error(cli_exit_status(status), "%s", *gq_last_error() ? gq_last_error() : "out of host memory");
  if (run->split) {
    scan_run totals = *run;
    memset(&totals.carry, 0, sizeof totals.carry);
    if (rc == EXIT_OK)
      rc = scan_chunk(ctx, &totals, n, d_x, d_y);
    rc = share_carry(run, totals.carry, rc, out);
  }
  if (rc == EXIT_OK)
    rc = scan_chunk(ctx, run, n, d_x, d_y);
  for (uint64_t at = 0; at < n && rc == EXIT_OK; at += SCAN_CHUNK) {
    const size_t count = n - at < SCAN_CHUNK ? (size_t)(n - at) : SCAN_CHUNK;
    if (gq_copy_from(ctx, h_x, (char *)d_x + at * es, count * es) != GQ_SUCCESS ||
        gq_copy_from(ctx, h_y, (char *)d_y + at * es, count * es) != GQ_SUCCESS)
      rc = cli_error(EXIT_RUNTIME, "%s", gq_last_error());
    else
      rc = take_chunk(run, out, h_x, h_y, count);
  }
  gq_free(ctx, d_x);
  gq_free(ctx, d_y);
  free(h_x);
  free(h_y);
  return rc;
}

/* A file; under mpirun this rank's share, scanned from zero for its total,
 * then (the file opened again) from the carry of the ranks before it. */
static int scan_input(gq_context *ctx, const char *path, const gq_reader_opts *ropts, gq_reader **r, scan_run *run,
                      vout *out)
{
  if (!run->split)
    return scan_file(ctx, *r, run, out);
  scan_run totals = *run;
  vout none;
  memset(&none, 0, sizeof none);
  int rc = scan_file(ctx, *r, &totals, &none);
  gq_reader_close(*r);
  *r = NULL;
  if (rc == EXIT_OK)
    rc = open_input(path, ropts, run, r);
  rc = share_carry(run, totals.carry, rc, out);
  return rc == EXIT_OK ? scan_file(ctx, *r, run, out) : rc;
}

static const char *method_name(gq_scan_method method)
{
  return method == GQ_SCAN_LOOKBACK ? "lookback" : method == GQ_SCAN_THREE_PHASE ? "three-phase" : "cub";
}

/* --json, or --csv: the summary's fields as a JSON object or a CSV header
 * line and row. */
static int summary_record(int csv, const scan_run *run, gq_context *ctx, const char *out_path, double t0)
{
  json_writer w;
  if (json_begin_as(&w, stdout, csv) != EXIT_OK)
    return EXIT_RUNTIME;
  json_string(&w, "command", "scan");
  json_string(&w, "input", run->name);
  json_string(&w, "format", run->format);
  json_string(&w, "dtype", run->dtype);
  json_uint(&w, "n", run->n);
  json_bool(&w, "exclusive", run->exclusive);
  json_string(&w, "method", method_name(run->method));
  json_number(&w, "first", run->first);
  json_number(&w, "last", run->last);
  json_number(&w, "total", run->carry.sum + run->carry.err);
  if (run->check) {
    json_number(&w, "check_worst_ratio", run->worst);
    json_uint(&w, "check_failures", run->bad);
  }
  json_string(&w, "check", run->check ? (run->bad ? "failed" : "passed") : "skipped");
  if (out_path)
    json_string(&w, "out", out_path);
  json_string(&w, "backend", gq_context_backend(ctx) == GQ_BACKEND_CUDA ? "cuda" : "cpu");
  json_string(&w, "device", gq_context_device_name(ctx));
  json_number(&w, "scan_ms", run->scan_ms);
  json_number(&w, "wall_ms", cli_wall_ms() - t0);
  json_end(&w);
  return EXIT_OK;
}

static void summary(FILE *f, const scan_run *run, gq_context *ctx, const char *out_path, double t0)
{
  fprintf(f, "scan %s: n = %llu (%s, %s), %s, %s\n", run->name, (unsigned long long)run->n, run->dtype,
          run->format, run->exclusive ? "exclusive" : "inclusive", method_name(run->method));
  fprintf(f, "  first        %.17g\n", run->first);
  fprintf(f, "  last         %.17g\n", run->last);
  fprintf(f, "  total        %.17g\n", run->carry.sum + run->carry.err);
  if (run->check)
    fprintf(f, "  check        long double scan on the host: worst error %.3g of the bound: %s\n", run->worst,
            run->bad ? "FAILED" : "ok");
  if (out_path)
    fprintf(f, "  out          %s (%llu values)\n", out_path, (unsigned long long)run->n);
  if (gq_context_backend(ctx) == GQ_BACKEND_CUDA)
    fprintf(f, "  backend      cuda: %s, %d multiprocessors\n", gq_context_device_name(ctx), gq_context_threads(ctx));
  else
    fprintf(f, "  backend      %s\n", gq_context_device_name(ctx));
  fprintf(f, "  scan time    %.4g ms (the scans' calls, copies excluded)\n", run->scan_ms);
  fprintf(f, "  wall time    %.4g ms\n", cli_wall_ms() - t0);
}

int cmd_scan(int argc, char **argv, int first, double t0)
{
  vec_options o;
  memset(&o, 0, sizeof o);
  const char *method = NULL, *out_path = NULL, *out_format = NULL;
  const char *plot = NULL;
  int exclusive = 0;
  cli_option opts[VEC_OPTION_COUNT + 5];
  vec_cli_options(&o, opts);
  const cli_option mine[5] = {
    {"plot", OPT_VALUE, &plot, NULL, 0},
    {"exclusive", OPT_FLAG, NULL, &exclusive, 1},
    {"method", OPT_VALUE, &method, NULL, 0},
    {"out", OPT_VALUE, &out_path, NULL, 0},
    {"out-format", OPT_VALUE, &out_format, NULL, 0},
  };
  memcpy(opts + VEC_OPTION_COUNT, mine, sizeof mine);
  const char *paths[1];
  int npaths;
  char err[256];
  const int parse_rc = cli_parse(argc, argv, first, opts, VEC_OPTION_COUNT + 5, paths, 1, &npaths, err, sizeof err);
  if (parse_rc != 0)
    return parse_rc < 0 ? cli_error(EXIT_USAGE, "%s", err) : EXIT_OK;
  if (o.help) {
    usage_scan(stdout);
    return EXIT_OK;
  }
  if (o.nan)
    return cli_error(EXIT_USAGE, "--nan does not apply to scan (NaN and Inf propagate into the sums)");
  if (o.json + o.csv + o.quiet > 1)
    return cli_error(EXIT_USAGE, "--json, --csv and --quiet are three outputs: take one");
  if ((o.json || o.csv || o.quiet) && out_path && strcmp(out_path, "-") == 0)
    return cli_error(EXIT_USAGE, "--out=- writes the sums to standard output: --json, --csv or --quiet would mix "
                                 "with them");
  scan_run run;
  memset(&run, 0, sizeof run);
  run.exclusive = exclusive;
  run.check = o.check;
  run.method = GQ_SCAN_LOOKBACK;
  if (method && strcmp(method, "three-phase") == 0)
    run.method = GQ_SCAN_THREE_PHASE;
  else if (method && strcmp(method, "cub") == 0)
    run.method = GQ_SCAN_CUB;
  else if (method && strcmp(method, "lookback") != 0)
    return cli_error(EXIT_USAGE, "--method=%s: expected lookback, three-phase or cub", method);
  if (o.gen && npaths > 0)
    return cli_error(EXIT_USAGE, "--gen replaces the input file (got '%s')", paths[0]);
  if (!o.gen && npaths == 0)
    return cli_error(EXIT_USAGE, "expected an input file (or --gen) (see 'gpuquad help scan')");
  if (!o.gen && (o.n || o.seed))
    return cli_error(EXIT_USAGE, "--n and --seed go with --gen");
  gq_reader_opts ropts;
  int rc = vec_reader_options(&o, &ropts);
  vout_format format = VOUT_TEXT;
  if (rc == EXIT_OK && out_path)
    rc = vout_choose(out_format, out_path, &format);
  else if (rc == EXIT_OK && out_format)
    rc = cli_error(EXIT_USAGE, "--out-format goes with --out");
  if (rc == EXIT_OK && plot)
    rc = plot_check(plot);
  if (rc != EXIT_OK)
    return rc;
  static plot_series curve;
  if (plot) {
    plot_series_init(&curve);
    run.plot = &curve;
  }

  run.split = cli_mpi_ranks() > 1;
  if (run.split && o.check) /* the host's scan would see one rank's share */
    return cli_error(EXIT_USAGE, "--check is made by one process: run it without mpirun, or with -np 1");
  if (run.split && out_path && (format == VOUT_TEXT || strcmp(out_path, "-") == 0))
    return cli_error(EXIT_USAGE, "--out=%s: under mpirun the ranks write their parts of one .npy or raw file at "
                                 "their offsets (text rows have no fixed width): write .npy or raw, or run one "
                                 "process", out_path);
  gq_reader *r = NULL;
  gq_gen_kind gen = GQ_GEN_UNIFORM;
  uint64_t seed = 1;
  if (o.gen) {
    rc = vec_gen_options(&o, &gen, &run.whole, &seed);
    if (rc != EXIT_OK)
      return rc;
    data_share(run.whole, 4, &run.share_first, &run.share_count); /* whole Philox quads */
    run.name = o.gen;
    run.format = "generated";
    run.is_float = ropts.raw_dtype == GQ_DTYPE_F32;
  } else {
    rc = data_agree(open_input(paths[0], &ropts, &run, &r));
    if (rc != EXIT_OK) {
      gq_reader_close(r);
      return rc;
    }
    run.name = paths[0];
    run.format = gq_format_name(gq_reader_format(r));
    run.is_float = gq_reader_dtype(r) == GQ_DTYPE_F32;
  }
  run.dtype = run.is_float ? "f32" : "f64";
  run.out_path = out_path;
  run.out_format = format;
  gq_context *ctx = NULL;
  rc = cli_open_context(o.device ? o.device : "auto", o.quiet, &ctx);
  vout out;
  memset(&out, 0, sizeof out);
  if (rc == EXIT_OK) {
    if (out_path && !run.split) {
      const int64_t length = r ? gq_reader_length(r) : (int64_t)run.whole;
      rc = vout_open(&out, out_path, format, run.is_float, 1, length > 0 ? (uint64_t)length : 0);
    } else if (out_path && cli_mpi_rank() == 0) { /* the file, before any other rank opens it */
      rc = vout_open_part(&out, out_path, format, run.is_float, 1, run.whole, run.share_first, 1);
    }
    rc = data_agree(rc);
  }
  const int scanned = rc == EXIT_OK; /* under mpirun: every rank meets the others at each pass */
  if (scanned)
    rc = o.gen ? scan_generated(ctx, gen, seed, &run, &out) : scan_input(ctx, paths[0], &ropts, &r, &run, &out);
  const int closed = vout_close(&out);
  if (rc == EXIT_OK)
    rc = closed;
  if (run.split && scanned)
    rc = share_summary(&run, rc);
  if (r && rc == EXIT_OK)
    vec_inexact_note(r);
  gq_reader_close(r);
  if (rc == EXIT_OK && run.n == 0)
    rc = cli_error(EXIT_USAGE, "%s: is empty (no numbers to scan)", strcmp(run.name, "-") == 0 ? "<stdin>" : run.name);
  if (rc == EXIT_OK) {
    if (o.json || o.csv)
      rc = summary_record(o.csv, &run, ctx, out_path, t0);
    else if (o.quiet)
      printf("%.17g\n", run.carry.sum + run.carry.err);
    else
      summary(out_path && strcmp(out_path, "-") == 0 ? stderr : stdout, &run, ctx, out_path, t0);
    if (rc == EXIT_OK && run.bad)
      rc = cli_error(EXIT_CHECK, "scan: %llu sums beyond the bound; the first at index %llu",
                     (unsigned long long)run.bad, (unsigned long long)run.first_bad);
  }
  if ((rc == EXIT_OK || rc == EXIT_CHECK) && plot) {
    char title[512];
    snprintf(title, sizeof title, "%s prefix sums of %s (n = %llu, %s): total %.10g",
             exclusive ? "exclusive" : "inclusive", strcmp(run.name, "-") == 0 ? "<stdin>" : run.name,
             (unsigned long long)run.n, run.dtype, run.last);
    const int drawn = plot_curve(plot, title, "i", exclusive ? "y_i = x_0 + ... + x_(i-1)" : "y_i = x_0 + ... + x_i",
                                 &curve, 0);
    rc = drawn != EXIT_OK ? drawn : rc;
  }
  gq_context_free(ctx);
  return rc;
}
