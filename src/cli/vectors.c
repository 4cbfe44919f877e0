/* vectors.c — the data side of `gpuquad dot|rms|stats`: options -> inputs
 * (files streamed through the library's reader, or vectors generated where
 * the context computes) -> one reduction -> host copies for --check. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "numparse.h"
#include "progress.h"
#include "vectors.h"

void vec_cli_options(vec_options *o, cli_option *opts)
{
  const cli_option list[VEC_OPTION_COUNT] = {
    {"format", OPT_VALUE, &o->format, NULL, 0},
    {"dtype", OPT_VALUE, &o->dtype, NULL, 0},
    {"offset", OPT_VALUE, &o->offset, NULL, 0},
    {"col", OPT_VALUE, &o->col, NULL, 0},
    {"header", OPT_FLAG, NULL, &o->header, GQ_HEADER_YES},
    {"no-header", OPT_FLAG, NULL, &o->header, GQ_HEADER_NO},
    {"gen", OPT_VALUE, &o->gen, NULL, 0},
    {"n", OPT_VALUE, &o->n, NULL, 0},
    {"seed", OPT_VALUE, &o->seed, NULL, 0},
    {"nan", OPT_VALUE, &o->nan, NULL, 0},
    {"device", OPT_VALUE, &o->device, NULL, 0},
    CLI_OPT_DETERMINISTIC, CLI_OPT_PROGRESS,
    {"check", OPT_FLAG, NULL, &o->check, 1},
    {"no-check", OPT_FLAG, NULL, &o->check, 0},
    {"json", OPT_FLAG, NULL, &o->json, 1},
    {"csv", OPT_FLAG, NULL, &o->csv, 1},
    {"quiet", OPT_FLAG, NULL, &o->quiet, 1},
    {"help", OPT_FLAG, NULL, &o->help, 1},
  };
  memcpy(opts, list, sizeof list);
}

void vec_usage_options(FILE *out, const char *quiet)
{
  fputs("Data (a path, A.npz:NAME for an array of an archive, or - for standard input):\n"
        "  --format=F           npy, npz, raw or text (default: by extension, else sniffed)\n"
        "  --dtype=D            raw data (and - with --dtype is raw): f64 (default), f32,\n"
        "                       f16, int8..int64, uint8..uint64 or bool (numpy's names too);\n"
        "                       with --gen, f64 or f32 to generate\n"
        "  --offset=BYTES       raw data: bytes to skip first\n"
        "  --col=K              text: take column K (1-based), or the column a header line\n"
        "                       names K (--col=pressure); empty and NA cells are NaN\n"
        "  --header, --no-header  text: the first row is (is not) a header line (default:\n"
        "                       a first row of names, no numbers, is one)\n"
        "  --gen=KIND           no files: generate uniform, normal or linspace data\n"
        "                       where the reduction runs (with --n=N, --seed=S)\n"
        "  --n=N, --seed=S      length (1e6, 2^28, 1Gi...) and seed (default 1) for --gen\n"
        "  --nan=P              propagate (default: NaN/Inf flow into the results, with\n"
        "                       a note), omit (leave them out), error (exit 2)\n"
        "Run:\n"
        "  --device=DEV         auto (default), cuda, cuda:N, cpu\n",
        out);
  cli_usage_deterministic(out);
  cli_usage_progress(out);
  fprintf(out,
          "  --check, --no-check  compare with GSL on the host; exit 1 beyond the tolerance\n"
          "  --json               one JSON object instead of the table\n"
          "  --csv                the same fields as a CSV header line and one row\n"
          "  --quiet              print only %s\n",
          quiet);
  fputs("  --help               this help\n"
        "\n"
        "Exit status: 0 ok, 1 check failed, 2 bad input, 3 computation failed.\n",
        out);
}

int vec_reader_fields(const char *format, const char *dtype, const char *offset, const char *col, int header,
                      gq_reader_opts *ropts)
{
  char err[256];
  memset(ropts, 0, sizeof *ropts);
  if (format) {
    if (strcmp(format, "npy") == 0) ropts->format = GQ_FORMAT_NPY;
    else if (strcmp(format, "npz") == 0) ropts->format = GQ_FORMAT_NPZ;
    else if (strcmp(format, "raw") == 0) ropts->format = GQ_FORMAT_RAW;
    else if (strcmp(format, "text") == 0) ropts->format = GQ_FORMAT_TEXT;
    else return cli_error(EXIT_USAGE, "--format=%s: expected npy, npz, raw or text", format);
  }
  if (dtype && gq_dtype_from_name(dtype, &ropts->raw_dtype) != GQ_SUCCESS)
    return cli_error(EXIT_USAGE, "--dtype=%s: %s", dtype, gq_last_error());
  uint64_t v;
  if (offset && gq_parse_whole(offset, 0, INT64_MAX, &v, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--offset=%s: %s", offset, err);
  if (offset)
    ropts->offset = v;
  if (col && !(*col >= '0' && *col <= '9'))
    ropts->column_name = col;
  else if (col && gq_parse_count(col, 1000000, &v, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--col=%s: %s", col, err);
  else if (col)
    ropts->column = (int)v;
  if (header && ropts->column_name && header == GQ_HEADER_NO)
    return cli_error(EXIT_USAGE, "--col=%s names a column of the header line, and --no-header says there is none",
                     col);
  ropts->header = header;
  return EXIT_OK;
}

int vec_reader_options(const vec_options *o, gq_reader_opts *ropts)
{
  return vec_reader_fields(o->format, o->dtype, o->offset, o->col, o->header, ropts);
}

uint64_t vec_inexact_note(const gq_reader *r)
{
  const uint64_t k = gq_reader_inexact(r);
  if (k)
    cli_error(EXIT_OK, "note: %s: %llu %s value%s beyond 2^53 rounded to the nearest double (a double holds 53 "
                       "bits exactly)",
              gq_reader_name(r), (unsigned long long)k, gq_dtype_name(gq_reader_stored_dtype(r)), k == 1 ? "" : "s");
  return k;
}

int vec_gen_options(const vec_options *o, gq_gen_kind *gen, uint64_t *n, uint64_t *seed)
{
  char err[256];
  gq_dtype t = GQ_DTYPE_F64;
  if (o->dtype && gq_dtype_from_name(o->dtype, &t) == GQ_SUCCESS && t != GQ_DTYPE_F64 && t != GQ_DTYPE_F32)
    return cli_error(EXIT_USAGE, "--dtype=%s: --gen makes f64 or f32 data", o->dtype);
  if (strcmp(o->gen, "uniform") == 0) *gen = GQ_GEN_UNIFORM;
  else if (strcmp(o->gen, "normal") == 0) *gen = GQ_GEN_NORMAL;
  else if (strcmp(o->gen, "linspace") == 0) *gen = GQ_GEN_LINSPACE;
  else return cli_error(EXIT_USAGE, "--gen=%s: expected uniform, normal or linspace", o->gen);
  if (gq_parse_count(o->n ? o->n : "1e6", UINT64_C(1) << 40, n, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--n=%s: %s", o->n, err);
  *seed = 1;
  if (o->seed && gq_parse_whole(o->seed, 0, UINT64_MAX, seed, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--seed=%s: %s", o->seed, err);
  return EXIT_OK;
}

static int parse_options(const vec_options *o, int npaths, vec_run *run, gq_reader_opts *ropts,
                         gq_gen_kind *gen, uint64_t *n, uint64_t *seed)
{
  const int rc = vec_reader_options(o, ropts);
  if (rc != EXIT_OK)
    return rc;
  run->nan_text = o->nan ? o->nan : "propagate";
  if (strcmp(run->nan_text, "propagate") == 0) run->nan = GQ_NAN_PROPAGATE;
  else if (strcmp(run->nan_text, "omit") == 0) run->nan = GQ_NAN_OMIT;
  else if (strcmp(run->nan_text, "error") == 0) run->nan = GQ_NAN_ERROR;
  else return cli_error(EXIT_USAGE, "--nan=%s: expected propagate, omit or error", o->nan);

  run->generated = o->gen != NULL;
  if (run->generated) {
    if (npaths > 0)
      return cli_error(EXIT_USAGE, "--gen replaces the input files (got '%s')", run->names[0]);
    return vec_gen_options(o, gen, n, seed);
  }
  if (o->n || o->seed)
    return cli_error(EXIT_USAGE, "--n and --seed go with --gen");
  if (npaths < run->inputs)
    return cli_error(EXIT_USAGE, "expected %d input file%s (or --gen); see --help", run->inputs,
                     run->inputs == 1 ? "" : "s");
  if (run->inputs == 2 && strcmp(run->names[0], "-") == 0 && strcmp(run->names[1], "-") == 0)
    return cli_error(EXIT_USAGE, "only one input can be standard input");
  return EXIT_OK;
}

/* The reduction of vectors already in the context's memory. */
static int reduce_arrays(gq_context *ctx, vec_kind kind, int is_float, size_t n, const void *x, const void *y,
                         vec_acc *acc, gq_exact_acc *exact)
{
  if (exact)
    return is_float ? gq_exact_accumulate_f(ctx, exact, n, x, y) : gq_exact_accumulate(ctx, exact, n, x, y);
  switch (kind) {
  case VEC_DOT:
    return is_float ? gq_dot_accumulate_f(ctx, &acc->sum, n, x, y) : gq_dot_accumulate(ctx, &acc->sum, n, x, y);
  case VEC_RMS:
    return is_float ? gq_rms_accumulate_f(ctx, &acc->rms, n, x, y) : gq_rms_accumulate(ctx, &acc->rms, n, x, y);
  default:
    return is_float ? gq_stats_accumulate_f(ctx, &acc->stats, n, x) : gq_stats_accumulate(ctx, &acc->stats, n, x);
  }
}

/* Generated data for --check: copied back a bounded chunk at a time and
 * fed to the reference (the host never holds the whole vector). */
static int feed_generated(gq_context *ctx, const void *x, const void *y, size_t n, int is_float, gq_data_ref *ref)
{
  enum { CHUNK = 1 << 20 };
  const size_t esize = is_float ? sizeof(float) : sizeof(double);
  char *buf = malloc(2 * CHUNK * sizeof(double));
  if (!buf)
    return GQ_ENOMEM;
  int status = GQ_SUCCESS;
  for (size_t at = 0; at < n && status == GQ_SUCCESS; at += CHUNK) {
    const size_t count = n - at < CHUNK ? n - at : CHUNK;
    status = gq_copy_from(ctx, buf, (const char *)x + at * esize, count * esize);
    if (status == GQ_SUCCESS && y)
      status = gq_copy_from(ctx, buf + CHUNK * sizeof(double), (const char *)y + at * esize, count * esize);
    if (status == GQ_SUCCESS)
      gq_data_ref_feed(ref, buf, y ? buf + CHUNK * sizeof(double) : NULL, count, is_float);
  }
  free(buf);
  return status;
}

static void merge_sum(void *acc, const void *other) { gq_sum_acc_merge(acc, other); }
static void merge_rms(void *acc, const void *other) { gq_rms_acc_merge(acc, other); }
static void merge_stats(void *acc, const void *other) { gq_stats_acc_merge(acc, other); }

/* Under mpirun: every rank's accumulator merged in rank order (stats
 * indices count on), on every rank. */
static void merge_exact(void *acc, const void *other) { gq_exact_acc_merge(acc, other); }

static int combine_ranks(vec_kind kind, vec_acc *acc, gq_exact_acc *exact, int status)
{
  if (cli_mpi_ranks() == 1)
    return status;
  /* --deterministic: the exact sums, merged exactly, so K ranks give the
   * bits one process gives; the double-double ones beside them as well. */
  if (exact)
    status = cli_mpi_combine(exact, gq_exact_acc_size(), merge_exact, status, NULL);
  switch (kind) {
  case VEC_DOT: return cli_mpi_combine(&acc->sum, sizeof acc->sum, merge_sum, status, NULL);
  case VEC_RMS: return cli_mpi_combine(&acc->rms, sizeof acc->rms, merge_rms, status, NULL);
  default: return cli_mpi_combine(&acc->stats, sizeof acc->stats, merge_stats, status, NULL);
  }
}

/* This rank's elements [first, first + count) of the vectors of n (all of
 * them on one rank), generated in place and reduced. */
static int run_generated(gq_context *ctx, vec_kind kind, gq_gen_kind gen, uint64_t n, uint64_t seed, int is_float,
                         int check, vec_run *run, vec_acc *acc)
{
  const size_t esize = is_float ? sizeof(float) : sizeof(double);
  uint64_t first = 0, count = n;
  gq_share_range(n, 4, cli_mpi_rank(), cli_mpi_ranks(), &first, &count); /* whole Philox quads */
  void *x = NULL, *y = NULL;
  int status = count ? gq_alloc(ctx, count * esize, &x) : GQ_SUCCESS;
  if (status == GQ_SUCCESS && run->inputs == 2 && count)
    status = gq_alloc(ctx, count * esize, &y);
  for (int i = 0; i < run->inputs && status == GQ_SUCCESS; i++)
    status = is_float ? gq_generate_range_f(ctx, gen, n, first, count, seed + (uint64_t)i, i ? y : x)
                      : gq_generate_range(ctx, gen, n, first, count, seed + (uint64_t)i, i ? y : x);
  const double t0 = cli_wall_ms();
  if (status == GQ_SUCCESS && count)
    status = reduce_arrays(ctx, kind, is_float, count, x, y, acc, run->exact);
  run->reduce_ms = cli_wall_ms() - t0; /* this rank's; the combine's wait is reported apart (mpi.c) */
  status = combine_ranks(kind, acc, run->exact, status);
  if (status == GQ_SUCCESS && check)
    status = feed_generated(ctx, x, y, n, is_float, &run->ref);
  gq_free(ctx, x);
  gq_free(ctx, y);
  return status;
}

/* Under mpirun: each rank reads its share of the elements, the header
 * parsed by all (gq_reader_slice); every rank learns whether all could. */
static int slice_inputs(gq_reader *r[2], int inputs, vec_run *run, int opened, char *msg, size_t msglen)
{
  if (cli_mpi_ranks() == 1)
    return opened;
  if (opened == GQ_SUCCESS) {
    const int64_t n = gq_reader_length(r[0]);
    uint64_t first = 0, count = 0;
    gq_share_range(n > 0 ? (uint64_t)n : 0, 1, cli_mpi_rank(), cli_mpi_ranks(), &first, &count);
    for (int i = 0; i < inputs && opened == GQ_SUCCESS; i++)
      opened = gq_reader_slice(r[i], first, count, msg, msglen);
    run->n = n > 0 ? (uint64_t)n : 0;
  }
  const int group = cli_mpi_combine(NULL, 0, NULL, opened, NULL);
  if (group != GQ_SUCCESS && opened == GQ_SUCCESS)
    snprintf(msg, msglen, "another rank could not read its share");
  return group;
}

static int run_files(gq_context *ctx, vec_kind kind, const gq_reader_opts *ropts, int check, vec_run *run,
                     vec_acc *acc)
{
  char msg[512];
  gq_reader *r[2] = {NULL, NULL};
  int opened = GQ_SUCCESS;
  for (int i = 0; i < run->inputs && opened == GQ_SUCCESS; i++)
    opened = gq_reader_open(run->names[i], ropts, &r[i], msg, sizeof msg);
  opened = slice_inputs(r, run->inputs, run, opened, msg, sizeof msg);
  if (opened != GQ_SUCCESS) { /* a file that cannot be read is bad input; memory that runs out is not */
    gq_reader_close(r[0]);
    gq_reader_close(r[1]);
    return cli_error(opened == GQ_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", msg);
  }
  run->format = gq_format_name(gq_reader_format(r[0]));
  run->dtype = gq_reader_dtype(r[0]) == GQ_DTYPE_F32 && (!r[1] || gq_reader_dtype(r[1]) == GQ_DTYPE_F32) ? "f32" : "f64";
  for (int i = 0; i < run->inputs; i++)
    if (gq_reader_stored_dtype(r[i]) != gq_reader_dtype(r[i]))
      run->stored = gq_dtype_name(gq_reader_stored_dtype(r[i]));
  const double t0 = cli_wall_ms();
  /* With --check the reference is fed each chunk as it is read: one pass,
   * so standard input, a FIFO or a process substitution work too. */
  int status = run->exact ? gq_exact_stream_observed(ctx, r[0], r[1], run->exact, &run->stream,
                                                     check ? &run->ref : NULL)
               : check ? gq_stream_checked(ctx, &run->ref, r[0], r[1], acc, &run->stream)
               : kind == VEC_DOT ? gq_dot_stream(ctx, r[0], r[1], &acc->sum, &run->stream)
               : kind == VEC_RMS ? gq_rms_stream(ctx, r[0], r[1], &acc->rms, &run->stream)
                                 : gq_stats_stream(ctx, r[0], &acc->stats, &run->stream);
  run->reduce_ms = cli_wall_ms() - t0;
  status = combine_ranks(kind, acc, run->exact, status);
  if (cli_mpi_ranks() == 1)
    run->n = run->stream.elements;
  for (int i = 0; i < run->inputs; i++) /* under mpirun: each rank of its share */
    run->inexact += vec_inexact_note(r[i]);
  gq_reader_close(r[0]);
  gq_reader_close(r[1]);
  if (status != GQ_SUCCESS)
    return cli_error(cli_exit_status(status), "%s", gq_last_error());
  if (run->n == 0)
    return cli_error(EXIT_USAGE, "%s: is empty (no numbers to reduce)",
                     strcmp(run->names[0], "-") == 0 ? "<stdin>" : run->names[0]);
  return EXIT_OK;
}

/* The exact results under the policy, before the accumulator goes: a dot
 * as a sum accumulator that holds the rounded sums (gq_sum_finish gives it
 * back as it is), rms and stats as results. */
static void finish_exact(vec_kind kind, vec_run *run, vec_acc *acc)
{
  const gq_exact_acc *e = run->exact;
  if (kind == VEC_RMS) {
    run->exact_status = gq_exact_rms_finish(e, run->nan, &run->exact_rms);
  } else if (kind == VEC_STATS) {
    run->exact_status = gq_exact_stats_finish(e, run->nan, &run->exact_stats);
  } else {
    gq_sum_acc_init(&acc->sum);
    acc->sum.n = e->t.n;
    acc->sum.nan_count = e->t.nan_count;
    acc->sum.posinf_count = e->t.posinf_count;
    acc->sum.neginf_count = e->t.neginf_count;
    gq_exact_sum_finish(e, GQ_NAN_OMIT, &acc->sum.sum, &acc->sum.abs_sum);
  }
}

int vec_rms_finish(const vec_run *run, const vec_acc *acc, gq_rms_result *r)
{
  if (!cli_deterministic)
    return gq_rms_finish(&acc->rms, run->nan, r);
  *r = run->exact_rms;
  return run->exact_status;
}

int vec_stats_finish(const vec_run *run, const vec_acc *acc, gq_stats_result *s)
{
  if (!cli_deterministic)
    return gq_stats_finish(&acc->stats, run->nan, s);
  *s = run->exact_stats;
  return run->exact_status;
}

int vec_command(vec_kind kind, int argc, char **argv, int first, double t0, void (*usage)(FILE *),
                vec_options *o, gq_context **ctx, vec_run *run, vec_acc *acc)
{
  memset(run, 0, sizeof *run);
  memset(o, 0, sizeof *o);
  run->t0 = t0;
  *ctx = NULL;
  cli_option opts[VEC_OPTION_COUNT];
  vec_cli_options(o, opts);
  const char *paths[2];
  int npaths;
  char err[256];
  const int parse_rc =
    cli_parse(argc, argv, first, opts, VEC_OPTION_COUNT, paths, kind == VEC_STATS ? 1 : 2, &npaths, err, sizeof err);
  if (parse_rc != 0)
    return parse_rc < 0 ? cli_error(EXIT_USAGE, "%s", err) : EXIT_OK;
  if (o->help) {
    usage(stdout);
    return EXIT_OK;
  }
  run->inputs = kind == VEC_STATS ? 1 : 2;
  for (int i = 0; i < npaths && i < 2; i++)
    run->names[i] = paths[i];
  gq_reader_opts ropts;
  gq_gen_kind gen = GQ_GEN_UNIFORM;
  uint64_t n = 0, seed = 1;
  int rc = parse_options(o, npaths, run, &ropts, &gen, &n, &seed);
  if (rc != EXIT_OK)
    return rc;
  if (o->json + o->csv + o->quiet > 1)
    return cli_error(EXIT_USAGE, "--json, --csv and --quiet are three outputs: take one");
  if (o->check && cli_mpi_ranks() > 1) /* the host reference would see one rank's data */
    return cli_error(EXIT_USAGE, "--check is made by one process: run it without mpirun, or with -np 1");
  rc = cli_open_context(o->device ? o->device : "auto", o->quiet, ctx);
  if (rc != EXIT_OK)
    return rc;
  gq_data_ref_init(&run->ref, kind == VEC_DOT ? GQ_REF_DOT : kind == VEC_RMS ? GQ_REF_RMS : GQ_REF_STATS);
  if (kind == VEC_STATS)
    gq_stats_acc_init(&acc->stats);
  else if (kind == VEC_RMS)
    gq_rms_acc_init(&acc->rms);
  else
    gq_sum_acc_init(&acc->sum);
  if (cli_deterministic) {
    const gq_exact_kind exact = kind == VEC_DOT ? GQ_EXACT_DOT : kind == VEC_RMS ? GQ_EXACT_RMS : GQ_EXACT_STATS;
    const int made = gq_exact_acc_create(exact, &run->exact);
    if (made != GQ_SUCCESS) {
      gq_context_free(*ctx);
      *ctx = NULL;
      return cli_error(cli_exit_status(made), "%s", gq_last_error());
    }
  }
  if (run->generated) {
    const int is_float = ropts.raw_dtype == GQ_DTYPE_F32;
    run->names[0] = o->gen;
    run->names[1] = o->gen;
    run->format = "generated";
    run->dtype = is_float ? "f32" : "f64";
    run->n = n;
    const int status = run_generated(*ctx, kind, gen, n, seed, is_float, o->check, run, acc);
    if (status != GQ_SUCCESS)
      rc = cli_error(cli_exit_status(status), "%s", status == GQ_ENOMEM && !*gq_last_error()
                                                         ? "out of host memory" : gq_last_error());
  } else {
    rc = run_files(*ctx, kind, &ropts, o->check, run, acc);
  }
  if (run->exact) {
    if (rc == EXIT_OK)
      finish_exact(kind, run, acc);
    gq_exact_acc_free(run->exact);
    run->exact = NULL;
  }
  if (rc != EXIT_OK) {
    gq_context_free(*ctx);
    *ctx = NULL;
  }
  return rc;
}

int vec_nan_report(const vec_run *run, int check, int finish_status, uint64_t kept, uint64_t nan_count,
                   uint64_t inf_count)
{
  const char *what = run->generated ? "the data" : run->inputs == 2 ? "the inputs" : run->names[0];
  if (finish_status == GQ_EDOM)
    return cli_error(EXIT_USAGE, "%s: %s; --nan=omit leaves them out", what, gq_last_error());
  if (finish_status != GQ_SUCCESS)
    return cli_error(cli_exit_status(finish_status), "%s", gq_last_error());
  /* Propagated, a NaN or Inf makes the results NaN or Inf on both sides: a
   * comparison of those is no check.  Omitted, nothing may be left. */
  if (check && run->nan == GQ_NAN_PROPAGATE && nan_count + inf_count > 0)
    return cli_error(EXIT_USAGE, "--check with NaN or Inf in the data needs --nan=omit (propagated, the "
                                 "results are NaN or Inf)");
  if (run->nan == GQ_NAN_OMIT && kept == 0)
    return cli_error(EXIT_USAGE, "%s: no finite values: all %llu were NaN or Inf, and --nan=omit leaves them out",
                     what, (unsigned long long)(nan_count + inf_count));
  if (run->nan == GQ_NAN_PROPAGATE && nan_count + inf_count > 0)
    cli_error(EXIT_OK, "note: %s: %llu NaN and %llu infinite terms propagate into the results "
                       "(--nan=omit leaves them out)",
              what, (unsigned long long)nan_count, (unsigned long long)inf_count);
  return EXIT_OK;
}

static double gbps(const vec_run *run)
{
  const double bytes = run->generated ? (double)run->n * run->inputs * (strcmp(run->dtype, "f32") ? 8.0 : 4.0)
                                      : run->stream.bytes;
  return run->reduce_ms > 0 ? bytes / (run->reduce_ms * 1e6) : NAN;
}

void vec_print_footer(const vec_run *run, gq_context *ctx)
{
  if (gq_context_backend(ctx) == GQ_BACKEND_CUDA)
    printf("  backend      cuda: %s, %d multiprocessors\n", gq_context_device_name(ctx), gq_context_threads(ctx));
  else
    printf("  backend      %s\n", gq_context_device_name(ctx));
  if (cli_deterministic)
    printf("  mode         deterministic: exact sums, rounded once\n");
  printf("  reduce time  %.4g ms  (%.3g GB/s%s)\n", run->reduce_ms, gbps(run),
         run->generated ? ", data generated in place" : ", read + copy + reduce");
  if (!run->generated)
    printf("  stream       read %.4g ms, copy %.4g ms, reduce %.4g ms: bound by %s\n", run->stream.read_ms,
           run->stream.copy_ms, run->stream.compute_ms, run->stream.bound);
  printf("  wall time    %.4g ms\n", cli_wall_ms() - run->t0);
}

void vec_json_footer(json_writer *w, const vec_run *run, gq_context *ctx)
{
  json_string(w, "backend", gq_context_backend(ctx) == GQ_BACKEND_CUDA ? "cuda" : "cpu");
  json_string(w, "device", gq_context_device_name(ctx));
  if (cli_deterministic)
    json_bool(w, "deterministic", 1);
  if (run->stored)
    json_string(w, "stored_dtype", run->stored);
  if (run->inexact)
    json_uint(w, "inexact", run->inexact);
  json_number(w, "reduce_ms", run->reduce_ms);
  json_number(w, "gb_per_s", gbps(run));
  if (!run->generated) {
    json_number(w, "read_ms", run->stream.read_ms);
    json_number(w, "copy_ms", run->stream.copy_ms);
    json_number(w, "compute_ms", run->stream.compute_ms);
    json_string(w, "bound", run->stream.bound);
  }
  json_number(w, "wall_ms", cli_wall_ms() - run->t0);
}

int vec_overflow_note(const char *names)
{
  if (!*names)
    return 0;
  fprintf(stderr, "gpuquad: note: overflow: %s exceed%s the double range (DBL_MAX) and %s printed as inf\n",
          names, strchr(names, ',') ? "" : "s", strchr(names, ',') ? "are" : "is");
  return 1;
}
