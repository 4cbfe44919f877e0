/* vectors.h — what `gpuquad dot|rms|stats` share: the data options, loading
 * (streamed from files or generated on the device), the reduction, the
 * host reference for --check (fed in the same pass), and the NaN/Inf
 * policy. */
#ifndef GQ_CLI_VECTORS_H
#define GQ_CLI_VECTORS_H

#include "cli.h"
#include "lib/check/check.h" /* the --check reference and verdict (libgpuquad) */
#include "lib/io/reader.h" /* the library's streaming reader (libgpuquad) */
#include "lib/exact.h" /* the exact stream that feeds the reference (libgpuquad) */

typedef enum { VEC_DOT, VEC_RMS, VEC_STATS } vec_kind;

/* Option texts, as cli_parse leaves them. */
typedef struct {
  const char *format, *dtype, *offset, *col, *gen, *n, *seed, *nan, *device;
  int check, json, csv, quiet, help;
  int header; /* gq_header: --header 1, --no-header -1, else 0 */
} vec_options;

#define VEC_OPTION_COUNT 19
/* Fill opts[0..VEC_OPTION_COUNT-1] with the shared options bound to o. */
void vec_cli_options(vec_options *o, cli_option *opts);
/* The shared options' --help lines; QUIET says what --quiet prints. */
void vec_usage_options(FILE *out, const char *quiet);
/* The reader options (--format, --dtype, --offset, --col) and the generator's
 * (--gen, --n, --seed) from their texts: EXIT_OK, or an exit status after a
 * one-line message. */
int vec_reader_options(const vec_options *o, gq_reader_opts *ropts);
/* The same from the texts of any command's options (hist's, integrate's):
 * --col=K by number, or by a header's name when it starts with no digit. */
int vec_reader_fields(const char *format, const char *dtype, const char *offset, const char *col, int header,
                      gq_reader_opts *ropts);
/* The note on stderr when int64/uint64 values of r rounded on widening to
 * double; returns their count. */
uint64_t vec_inexact_note(const gq_reader *r);
int vec_gen_options(const vec_options *o, gq_gen_kind *gen, uint64_t *n, uint64_t *seed);

typedef union {
  gq_sum_acc sum;
  gq_rms_acc rms;
  gq_stats_acc stats;
} vec_acc;

typedef struct {
  const char *names[2];   /* the inputs as the user named them            */
  int inputs;
  gq_nan_policy nan;
  const char *nan_text;
  int generated;
  const char *dtype;      /* "f64" or "f32": what was reduced             */
  const char *stored;     /* the files' dtype when widened (int32, ...), else NULL */
  uint64_t inexact;       /* int64/uint64 values that rounded on widening */
  const char *format;     /* "npy", "npz", "raw", "text", or "generated"  */
  uint64_t n;
  double reduce_ms;       /* wall time of the reduction (streaming: all)  */
  double t0;              /* the command's start (the wall time's)        */
  gq_stream_info stream;  /* when streamed                                */
  gq_data_ref ref;        /* with --check: the reference, fed each chunk  */
  /* --deterministic: the exact accumulator while reducing, then its results
   * under the policy (dot: in the sum accumulator, rounded once) */
  gq_exact_acc *exact;
  int exact_status;
  gq_rms_result exact_rms;
  gq_stats_result exact_stats;
} vec_run;

/* The start every data command shares: parse argv[first..] (the options and
 * the input paths), print --help with usage, open the context, load or
 * generate, reduce.  Returns an exit status; *ctx is NULL when the command
 * is done (help printed, or a one-line error), else open with run/acc
 * filled. */
int vec_command(vec_kind kind, int argc, char **argv, int first, double t0, void (*usage)(FILE *),
                vec_options *o, gq_context **ctx, vec_run *run, vec_acc *acc);

/* gq_rms_finish and gq_stats_finish of the command's accumulator, or the
 * exact results under --deterministic. */
int vec_rms_finish(const vec_run *run, const vec_acc *acc, gq_rms_result *r);
int vec_stats_finish(const vec_run *run, const vec_acc *acc, gq_stats_result *s);

/* After finishing under the policy: the note for propagate ("...present, and
 * propagate", on stderr even with --json), or the error for --nan=error.  Returns an exit status. */
int vec_nan_report(const vec_run *run, int check, int finish_status, uint64_t kept, uint64_t nan_count,
                   uint64_t inf_count);

/* The common tail of the table and the JSON object (the wall time is the
 * whole run's, up to the call). */
void vec_print_footer(const vec_run *run, gq_context *ctx);
void vec_json_footer(json_writer *w, const vec_run *run, gq_context *ctx);

/* An infinite result from finite data (or under --nan=omit) is an overflow:
 * the true value exceeds DBL_MAX.  Prints the note on stderr naming what
 * overflowed (names: a comma-separated list) and returns 1 when any did. */
int vec_overflow_note(const char *names);

#endif
