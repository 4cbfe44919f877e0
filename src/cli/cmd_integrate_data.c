/* cmd_integrate_data.c — `gpuquad integrate DATA`: the integral of sampled
 * data (gq_integrate_samples: scipy.integrate.trapezoid and simpson), from
 * any input `gpuquad stats` reads or generated where it is integrated,
 * checked against the long double reference (check/samples.c).
 *
 * The samples are held whole: read into host memory, then copied to the
 * context's (a stencil needs its neighbours, so the streamed chunks of the
 * data reductions would need their seams stitched; not done).  Under mpirun
 * each rank holds and integrates the samples of its range of the panels
 * (gq_samples_share: the boundary samples held by both neighbours), and the
 * library combines the ranks' sums. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data_ranks.h"
#include "mpi.h"
#include "numparse.h"
#include "progress.h"
#include "vectors.h"

void usage_integrate_data(FILE *out)
{
  fputs("Usage: gpuquad integrate DATA [--dx=H | --x=XDATA] [--rule=R] [OPTION]...\n"
        "       gpuquad integrate --gen=KIND --n=N [--dx=H | --x=XDATA] [OPTION]...\n"
        "The integral of samples y_i of DATA, spaced H apart (default 1) or at the\n"
        "abscissae x_i of XDATA (read with the same options), as\n"
        "scipy.integrate.trapezoid and scipy.integrate.simpson compute it (scipy >=\n"
        "1.11: for an even number of samples Simpson's rule takes the last interval\n"
        "by Cartwright's correction; two samples, the trapezoid).  Decreasing x, or a\n"
        "negative H, gives the signed integral.  Every sum is compensated; float data\n"
        "are widened to double.  At least 2 samples (scipy gives 0 for fewer).  A y_i\n"
        "that is NaN or Inf fails the computation (exit 3) naming the first; an x_i\n"
        "that is, is bad input.  The samples are held in memory whole.\n"
        "\n"
        "Rule:\n"
        "  --rule=R             trapezoid (default) or simpson\n"
        "  --dx=H               the spacing of the samples (default 1)\n"
        "  --x=XDATA            the abscissae, one per sample (not with --dx)\n"
        "  --x-col=K            text XDATA: take column K (default: --col), so that one\n"
        "                       CSV file can give both: DATA --col=2 --x=DATA --x-col=1\n"
        "                       (or by name: DATA --col=v --x=DATA --x-col=t)\n"
        "Data (a path, A.npz:NAME for an array of an archive, or - for standard input):\n"
        "  --format=F           npy, npz, raw or text (default: by extension, else sniffed)\n"
        "  --dtype=D            raw data (and - with --dtype is raw): f64 (default), f32,\n"
        "                       f16, int8..int64, uint8..uint64 or bool (numpy's names too);\n"
        "                       with --gen, f64 or f32 to generate\n"
        "  --offset=BYTES       raw data: bytes to skip first\n"
        "  --col=K              text: take column K (1-based), or the column a header line\n"
        "                       names K (--col=pressure); empty and NA cells are NaN\n"
        "  --header, --no-header  text: the first row is (is not) a header line (default:\n"
        "                       a first row of names, no numbers, is one)\n"
        "  --gen=KIND           no DATA: generate uniform, normal or linspace samples\n"
        "                       where they are integrated (with --n=N, --seed=S)\n"
        "  --n=N, --seed=S      length and seed (default 1) for --gen\n"
        "Run:\n"
        "  --device=DEV         auto (default), cuda, cuda:N, cpu\n",
        out);
  cli_usage_deterministic(out);
  cli_usage_progress(out);
  fputs("  --check, --no-check  compare with the same rule in long double on the host;\n"
        "                       exit 1 beyond the tolerance\n"
        "  --json               one JSON object instead of the table\n"
        "  --csv                the same fields as a CSV header line and one row\n"
        "  --quiet              print only the integral\n"
        "  --help               this help\n"
        "\n"
        "Exit status: 0 ok, 1 check failed, 2 bad input, 3 computation failed.\n",
        out);
}

/* One input, whole, in host memory in its own dtype. */
typedef struct {
  const char *name;
  void *data;
  size_t n;       /* held: under mpirun this rank's samples */
  uint64_t whole; /* the whole's                            */
  int is_float;
  const char *format;
  uint64_t inexact; /* int64/uint64 values that rounded on widening */
} samples_input;

/* Under mpirun: r cut to the samples this rank holds for rule (the header
 * parsed by every rank; text cannot be divided). */
static int slice_share(gq_reader *r, gq_rule rule, samples_input *in, char *msg, size_t msglen)
{
  const int64_t length = gq_reader_length(r);
  in->whole = length > 0 ? (uint64_t)length : 0;
  uint64_t first, count;
  gq_samples_share(in->whole, rule, cli_mpi_rank(), cli_mpi_ranks(), &first, &count);
  return gq_reader_slice(r, first, count, msg, msglen);
}

static int read_whole(const char *path, const gq_reader_opts *ropts, gq_rule rule, samples_input *in)
{
  char msg[512];
  gq_reader *r = NULL;
  if (cli_mpi_ranks() > 1 && data_divisible(path) != EXIT_OK)
    return EXIT_USAGE;
  int status = gq_reader_open(path, ropts, &r, msg, sizeof msg);
  if (status == GQ_SUCCESS && cli_mpi_ranks() > 1)
    status = slice_share(r, rule, in, msg, sizeof msg);
  if (status != GQ_SUCCESS) {
    gq_reader_close(r);
    return cli_error(status == GQ_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", msg);
  }
  in->name = path;
  in->is_float = gq_reader_dtype(r) == GQ_DTYPE_F32;
  in->format = gq_format_name(gq_reader_format(r));
  const size_t esize = in->is_float ? sizeof(float) : sizeof(double);
  size_t cap = 1 << 16, got;
  in->n = 0;
  in->data = malloc(cap * esize);
  for (;;) {
    if (!in->data) {
      gq_reader_close(r);
      return cli_error(EXIT_RUNTIME, "%s: out of host memory", path);
    }
    status = gq_reader_read(r, (char *)in->data + in->n * esize, cap - in->n, &got, msg, sizeof msg);
    in->n += got;
    if (status != GQ_SUCCESS || got == 0)
      break;
    if (in->n == cap) {
      void *grown = cap <= SIZE_MAX / 2 / esize ? realloc(in->data, 2 * cap * esize) : NULL;
      if (!grown)
        free(in->data);
      in->data = grown;
      cap *= 2;
    }
  }
  if (status == GQ_SUCCESS)
    in->inexact = vec_inexact_note(r); /* under mpirun: of this rank's samples */
  if (cli_mpi_ranks() == 1)
    in->whole = in->n;
  gq_reader_close(r);
  if (status != GQ_SUCCESS)
    return cli_error(cli_exit_status(status), "%s", msg);
  return EXIT_OK;
}

/* A float input widened in place of itself, to pair with double data. */
static int widen(samples_input *in)
{
  double *d = malloc((in->n ? in->n : 1) * sizeof *d);
  if (!d)
    return cli_error(EXIT_RUNTIME, "%s: out of host memory", in->name);
  for (size_t i = 0; i < in->n; i++)
    d[i] = ((const float *)in->data)[i];
  free(in->data);
  in->data = d;
  in->is_float = 0;
  return EXIT_OK;
}

typedef struct {
  vec_options v;
  const char *dx_text, *x_path, *x_col, *rule_text;
  double dx;
  gq_rule rule;
} data_options;

/* The option table over data_options *o (also read by integrate_data_wanted). */
#define DATA_OPTIONS(o)                           \
  {"dx", OPT_VALUE, &(o)->dx_text, NULL, 0},      \
  {"x", OPT_VALUE, &(o)->x_path, NULL, 0},        \
  {"x-col", OPT_VALUE, &(o)->x_col, NULL, 0},     \
  {"rule", OPT_VALUE, &(o)->rule_text, NULL, 0},  \
  {"format", OPT_VALUE, &(o)->v.format, NULL, 0}, \
  {"dtype", OPT_VALUE, &(o)->v.dtype, NULL, 0},   \
  {"offset", OPT_VALUE, &(o)->v.offset, NULL, 0}, \
  {"col", OPT_VALUE, &(o)->v.col, NULL, 0},       \
  {"header", OPT_FLAG, NULL, &(o)->v.header, GQ_HEADER_YES}, \
  {"no-header", OPT_FLAG, NULL, &(o)->v.header, GQ_HEADER_NO}, \
  {"gen", OPT_VALUE, &(o)->v.gen, NULL, 0},       \
  {"n", OPT_VALUE, &(o)->v.n, NULL, 0},           \
  {"seed", OPT_VALUE, &(o)->v.seed, NULL, 0},     \
  {"device", OPT_VALUE, &(o)->v.device, NULL, 0}, \
  CLI_OPT_DETERMINISTIC, CLI_OPT_PROGRESS,        \
  {"check", OPT_FLAG, NULL, &(o)->v.check, 1},    \
  {"no-check", OPT_FLAG, NULL, &(o)->v.check, 0}, \
  {"json", OPT_FLAG, NULL, &(o)->v.json, 1},      \
  {"csv", OPT_FLAG, NULL, &(o)->v.csv, 1},        \
  {"quiet", OPT_FLAG, NULL, &(o)->v.quiet, 1},    \
  {"help", OPT_FLAG, NULL, &(o)->v.help, 1}

/* After the word `integrate` only: an operand (DATA, or - for standard
 * input), wherever it stands, or an option that only sampled data take,
 * read as cmd_integrate_data's parse reads them. */
int integrate_data_wanted(int argc, char **argv, int first)
{
  static const char *const data_only[] = {"gen", "dx", "x", "x-col"};
  if (first < 2 || strcmp(argv[first - 1], "integrate") != 0)
    return 0;
  data_options scratch;
  const cli_option opts[] = {DATA_OPTIONS(&scratch)};
  const size_t n = sizeof opts / sizeof opts[0];
  if (cli_peek(argc, argv, first, opts, n, NULL, NULL) > 0)
    return 1;
  for (size_t k = 0; k < sizeof data_only / sizeof data_only[0]; k++)
    if (cli_peek(argc, argv, first, opts, n, data_only[k], NULL) > 0)
      return 1;
  return 0;
}

static int parse(int argc, char **argv, int first, data_options *o, const char **path)
{
  memset(o, 0, sizeof *o);
  const cli_option opts[] = {DATA_OPTIONS(o)};
  char err[256];
  int npos = 0;
  *path = NULL;
  const int parse_rc = cli_parse(argc, argv, first, opts, sizeof opts / sizeof opts[0], path, 1, &npos, err, sizeof err);
  if (parse_rc != 0)
    return parse_rc < 0 ? cli_error(EXIT_USAGE, "%s", err) : EXIT_OK;
  if (o->v.help)
    return EXIT_OK;
  if (o->dx_text && o->x_path)
    return cli_error(EXIT_USAGE, "--dx and --x both give the abscissae: take one");
  if (o->v.json + o->v.csv + o->v.quiet > 1)
    return cli_error(EXIT_USAGE, "--json, --csv and --quiet are three outputs: take one");
  o->dx = 1.0;
  if (o->dx_text && gq_parse_real(o->dx_text, &o->dx, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--dx=%s: %s", o->dx_text, err);
  o->rule = GQ_RULE_TRAPEZOID;
  if (o->rule_text && strcmp(o->rule_text, "trapezoid") == 0)
    o->rule = GQ_RULE_TRAPEZOID;
  else if (o->rule_text && strcmp(o->rule_text, "simpson") == 0)
    o->rule = GQ_RULE_SIMPSON;
  else if (o->rule_text)
    return cli_error(EXIT_USAGE, "--rule=%s: sampled data take trapezoid or simpson", o->rule_text);
  if (o->v.gen && npos > 0)
    return cli_error(EXIT_USAGE, "--gen replaces DATA (got '%s')", *path);
  if (!o->v.gen && npos == 0)
    return cli_error(EXIT_USAGE, "expected DATA (or --gen); see gpuquad integrate DATA --help");
  if (!o->v.gen && (o->v.n || o->v.seed))
    return cli_error(EXIT_USAGE, "--n and --seed go with --gen");
  if (o->x_col && !o->x_path)
    return cli_error(EXIT_USAGE, "--x-col goes with --x");
  if (o->x_path && *path && strcmp(o->x_path, "-") == 0 && strcmp(*path, "-") == 0)
    return cli_error(EXIT_USAGE, "only one input can be standard input");
  return EXIT_OK;
}

/* The samples and abscissae: files read whole into host memory (before any
 * device is opened: bad input is refused first), or the samples generated
 * on the context (copied back for --check only). */
typedef struct {
  samples_input y, x;
  /* generated under mpirun: the Philox quad of y's first sample, and the
   * elements before it there */
  uint64_t first4;
  size_t skip;
  int has_x, generated, is_float;
  gq_gen_kind gen;
  uint64_t seed;
  double ms;
} samples_data;

static int read_inputs(const data_options *o, const char *path, const gq_reader_opts *ro, samples_data *d)
{
  int rc = EXIT_OK;
  gq_reader_opts xo = *ro;
  if (o->x_col && !(*o->x_col >= '0' && *o->x_col <= '9')) { /* by name, as --col */
    xo.column = 0;
    xo.column_name = o->x_col;
  } else if (o->x_col) {
    char err[256];
    uint64_t col;
    if (gq_parse_count(o->x_col, 1000000, &col, err, sizeof err) != 0)
      return cli_error(EXIT_USAGE, "--x-col=%s: %s", o->x_col, err);
    xo.column = (int)col;
    xo.column_name = NULL;
  }
  if (o->x_path && (rc = read_whole(o->x_path, &xo, o->rule, &d->x)) != EXIT_OK)
    return rc;
  d->has_x = o->x_path != NULL;
  if (o->v.gen) {
    uint64_t n;
    if ((rc = vec_gen_options(&o->v, &d->gen, &n, &d->seed)) != EXIT_OK)
      return rc;
    d->generated = 1;
    d->y.name = o->v.gen;
    d->y.format = "generated";
    uint64_t first, count;
    gq_samples_share(n, o->rule, cli_mpi_rank(), cli_mpi_ranks(), &first, &count);
    d->skip = (size_t)(first % 4);
    d->first4 = first - d->skip;
    d->y.n = (size_t)count;
    d->y.whole = n;
    d->y.is_float = ro->raw_dtype == GQ_DTYPE_F32;
    if (d->has_x && d->y.is_float && !d->x.is_float)
      return cli_error(EXIT_USAGE, "--gen with --dtype=f32 and f64 abscissae: generate f64 to pair them");
  } else if ((rc = read_whole(path, ro, o->rule, &d->y)) != EXIT_OK) {
    return rc;
  }
  if (d->has_x && d->x.whole != d->y.whole)
    return cli_error(EXIT_USAGE, "%s has %llu samples but %s has %llu abscissae: one each", d->y.name,
                     (unsigned long long)d->y.whole, d->x.name, (unsigned long long)d->x.whole);
  if (d->y.whole < 2)
    return cli_error(EXIT_USAGE, "%s: %llu sample%s: at least 2 are needed (scipy gives 0 for fewer)", d->y.name,
                     (unsigned long long)d->y.whole, d->y.whole == 1 ? "" : "s");
  /* mixed precision: the float input widened */
  if (d->has_x && d->x.is_float != d->y.is_float && (rc = widen(d->x.is_float ? &d->x : &d->y)) != EXIT_OK)
    return rc;
  d->is_float = d->y.is_float;
  return EXIT_OK;
}

/* The samples in the context's memory (none where this rank holds none);
 * generated ones from the Philox quad of the first (d->skip before it). */
static int place(gq_context *ctx, int check, samples_data *d, void **dy, void **dx)
{
  const size_t esize = d->is_float ? sizeof(float) : sizeof(double), bytes = d->y.n * esize;
  if (d->y.n == 0)
    return EXIT_OK;
  int status = gq_alloc(ctx, bytes + d->skip * esize, dy);
  if (d->generated) {
    if (status == GQ_SUCCESS)
      status = d->is_float ? gq_generate_range_f(ctx, d->gen, d->y.whole, d->first4, d->y.n + d->skip, d->seed, *dy)
                           : gq_generate_range(ctx, d->gen, d->y.whole, d->first4, d->y.n + d->skip, d->seed, *dy);
    if (status == GQ_SUCCESS && check) {
      d->y.data = malloc(bytes);
      status = d->y.data ? gq_copy_from(ctx, d->y.data, *dy, bytes) : GQ_ENOMEM;
    }
  } else if (status == GQ_SUCCESS) {
    status = gq_copy_to(ctx, *dy, d->y.data, bytes);
  }
  if (status == GQ_SUCCESS && d->has_x && (status = gq_alloc(ctx, bytes, dx)) == GQ_SUCCESS)
    status = gq_copy_to(ctx, *dx, d->x.data, bytes);
  if (status != GQ_SUCCESS)
    return cli_error(cli_exit_status(status), "%s", *gq_last_error() ? gq_last_error() : "out of host memory");
  return EXIT_OK;
}

static int print(const data_options *o, const samples_data *d, const gq_samples_result *r,
                 const gq_ref_samples *ref, int passed, gq_context *ctx, double t0)
{
  const char *rule = o->rule == GQ_RULE_SIMPSON ? "simpson" : "trapezoid";
  const char *dtype = d->is_float ? "f32" : "f64";
  if (o->v.quiet) {
    printf("%.17g\n", r->value);
    return EXIT_OK;
  }
  if (o->v.json || o->v.csv) {
    json_writer w;
    if (json_begin_as(&w, stdout, o->v.csv) != EXIT_OK)
      return EXIT_RUNTIME;
    json_string(&w, "command", "integrate-data");
    json_string(&w, "input", d->y.name);
    json_string(&w, "format", d->y.format);
    json_string(&w, "dtype", dtype);
    if (d->y.inexact + d->x.inexact)
      json_uint(&w, "inexact", d->y.inexact + d->x.inexact);
    json_uint(&w, "n", r->n);
    json_string(&w, "rule", rule);
    if (d->has_x)
      json_string(&w, "x", d->x.name);
    else
      json_number(&w, "dx", o->dx);
    json_number(&w, "integral", r->value);
    json_number(&w, "abs_sum", r->abs_sum);
    if (isinf(r->value))
      json_string(&w, "overflow", "integral");
    if (o->v.check) {
      json_number(&w, "reference", ref->value);
      json_string(&w, "reference_method", "long double, term by term");
      json_number(&w, "difference", r->value - ref->value);
      json_number(&w, "tolerance", ref->tol);
    }
    json_string(&w, "check", o->v.check ? (passed ? "passed" : "failed") : "skipped");
    json_string(&w, "backend", gq_context_backend(ctx) == GQ_BACKEND_CUDA ? "cuda" : "cpu");
    json_string(&w, "device", gq_context_device_name(ctx));
    json_number(&w, "integrate_ms", d->ms);
    json_number(&w, "wall_ms", cli_wall_ms() - t0);
    json_end(&w);
    return EXIT_OK;
  }
  printf("integrate %s: n = %zu (%s, %s), %s rule\n", d->y.name, (size_t)r->n, dtype, d->y.format, rule);
  if (d->has_x)
    printf("  abscissae    %s\n", d->x.name);
  else
    printf("  spacing      dx = %.17g\n", o->dx);
  printf("  integral     %.17g%s\n", r->value, isinf(r->value) ? "  (overflow: beyond DBL_MAX)" : "");
  printf("  sum |terms|  %.17g\n", r->abs_sum);
  if (o->v.check) {
    printf("  reference    %.17g  (long double, term by term)\n", ref->value);
    printf("  difference   %.3g  (tolerance %.3g): %s\n", r->value - ref->value, ref->tol, passed ? "ok" : "FAILED");
  }
  if (gq_context_backend(ctx) == GQ_BACKEND_CUDA)
    printf("  backend      cuda: %s, %d multiprocessors\n", gq_context_device_name(ctx), gq_context_threads(ctx));
  else
    printf("  backend      %s\n", gq_context_device_name(ctx));
  printf("  integrate    %.4g ms%s\n", d->ms, d->generated ? "  (data generated in place)" : "");
  printf("  wall time    %.4g ms\n", cli_wall_ms() - t0);
  return EXIT_OK;
}

int cmd_integrate_data(int argc, char **argv, int first, double t0)
{
  data_options o;
  const char *path;
  int rc = parse(argc, argv, first, &o, &path);
  if (rc != EXIT_OK || o.v.help || cli_list_options) {
    if (o.v.help)
      usage_integrate_data(stdout);
    return rc;
  }
  gq_reader_opts ro;
  if ((rc = vec_reader_options(&o.v, &ro)) != EXIT_OK)
    return rc;
  samples_data d;
  memset(&d, 0, sizeof d);
  gq_context *ctx = NULL;
  void *dy = NULL, *dx = NULL;
  if (o.v.check && cli_mpi_ranks() > 1) /* the host's reference would see one rank's samples */
    return cli_error(EXIT_USAGE, "--check is made by one process: run it without mpirun, or with -np 1");
  rc = data_agree(read_inputs(&o, path, &ro, &d));
  if (rc == EXIT_OK)
    rc = cli_open_context(o.v.device ? o.v.device : "auto", o.v.quiet, &ctx);
  if (rc == EXIT_OK)
    rc = data_agree(place(ctx, o.v.check, &d, &dy, &dx));
  gq_samples_result r;
  gq_ref_samples ref = {NAN, NAN};
  gq_check_outcome check = {GQ_CHECK_PASSED, 0, ""};
  if (rc == EXIT_OK) {
    const double t = cli_wall_ms();
    const void *y = dy ? (const char *)dy + d.skip * (d.is_float ? sizeof(float) : sizeof(double)) : NULL;
    const int status = gq_integrate_samples(ctx, y, d.has_x ? dx : NULL, d.y.whole, o.dx, o.rule, d.is_float, &r);
    d.ms = cli_wall_ms() - t;
    /* a y_i that is not finite fails the computation; an x_i (the one
     * argument left to refuse) is bad input */
    if (status != GQ_SUCCESS)
      rc = cli_error(status == GQ_EDOM ? EXIT_RUNTIME : cli_exit_status(status), "%s: %s",
                     status == GQ_EINVAL && d.has_x ? d.x.name : d.y.name, gq_last_error());
  }
  if (rc == EXIT_OK) {
    if (o.v.check)
      gq_check_samples(d.y.data, d.has_x ? d.x.data : NULL, d.y.n, o.dx, o.rule, d.is_float, r.value, &ref, &check);
    const int passed = check.verdict == GQ_CHECK_PASSED;
    if (isinf(r.value))
      vec_overflow_note("the integral");
    rc = print(&o, &d, &r, &ref, passed, ctx, t0);
    if (rc == EXIT_OK && !passed)
      rc = cli_error(EXIT_CHECK, "%s", check.message);
  }
  if (ctx) {
    gq_free(ctx, dy);
    gq_free(ctx, dx);
    gq_context_free(ctx);
  }
  free(d.y.data);
  free(d.x.data);
  return rc;
}
