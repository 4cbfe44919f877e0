/* cli.h — what the gpuquad program's modules share. */
#ifndef GQ_CLI_H
#define GQ_CLI_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpuquad.h"

/* Exit statuses (documented in gpuquad(1)). */
enum {
  EXIT_OK = 0,      /* success                                              */
  EXIT_CHECK = 1,   /* the result disagrees with the GSL/exact reference    */
  EXIT_USAGE = 2,   /* bad command line or bad input                        */
  EXIT_RUNTIME = 3  /* the run failed: CUDA error, out of memory, or output
                       that could not be written                            */
};

#include "options.h" /* cli_option, cli_parse, cli_peek */

/* Print "gpuquad: MESSAGE" on stderr, one line: control characters and bytes
 * that are no UTF-8 escaped (\n, \t, \xHH), whatever a name holds; returns
 * status. */
int cli_error(int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
/* The same after another prefix ("gpuquad bench: "). */
void cli_verror(const char *prefix, const char *fmt, va_list ap);

/* ---- the process's streams (coreutils' close_stdout) --------------------- */
/* At the start of main: a closed stdin, stdout or stderr is reopened on
 * /dev/null the wrong way round, so that no file opened later takes its
 * number and writes to a closed stdout fail; SIGPIPE is ignored, so that a
 * reader gone is a write error (EPIPE) like any other, not a signal. */
void cli_guard_streams(void);
/* fflush(stdout); -1 when stdout has failed (remembering why), to stop early. */
int cli_flush_stdout(void);
/* At the end of main: close stdout; a write to it that failed (a full disk, a
 * closed stdout, a reader gone) is "gpuquad: write error: ..." and turns
 * status 0 or 1 into EXIT_RUNTIME.  Returns the exit status. */
int cli_close_output(int status);

/* Monotonic clock, milliseconds. */
double cli_wall_ms(void);

/* Exit status for a library status. */
int cli_exit_status(int gq_status);

/* --device=auto|cpu|cuda|cuda:N -> GQ_DEVICE_* or a device index. */
int cli_parse_device(const char *text, int *device);

/* --param NAME=VALUE, resolved for gq_integrand_parse: each VALUE must be a
 * real in the grammar of the limits (gq_parse_real: decimals, pi, -pi, e);
 * pi and e are handed on as the decimal of the same double.  Returns EXIT_OK,
 * or an exit status after a one-line message; cli_params_free releases. */
#define CLI_MAX_PARAMS 64
typedef struct {
  const char *text[CLI_MAX_PARAMS]; /* what the library reads              */
  char *owned[CLI_MAX_PARAMS];
  int count;
} cli_params;
int cli_params_resolve(cli_params *resolved, const char *const *params, int count);
void cli_params_free(cli_params *resolved);

/* Report a gq_integrand_parse error for --f=TEXT (with --param definitions):
 * one line, then the offending string and a caret under the column. */
int cli_parse_error(const char *text, const char *const *params, const gq_parse_error *err);

/* How the GPU kernel of an expression was obtained, in words (GQ_JIT_*). */
const char *cli_jit_name(int jit);
/* The one note on stderr when the kernel cache was refused (GQ_JIT_UNSAFE). */
void cli_jit_note(int jit);

/* Open the context for --device; prints the fallback note for auto.  With
 * --deterministic the context is made deterministic; --progress is checked
 * and, when it asks, drawn (progress.h). */
int cli_open_context(const char *device_text, int quiet, gq_context **ctx);
/* Begin opening --device's context in the background (gq_context_prestart),
 * NVRTC too with jit (an expression to compile), so that the host's setup
 * overlaps it; cli_open_context then waits for it.  Bad device text starts
 * nothing: cli_open_context reports it.  main waits for what was begun
 * before the program exits. */
void cli_prestart(const char *device_text, int jit);

/* --deterministic (issue 20), every command's flag: one entry of its option
 * table, one line of its --help; cli_open_context applies it. */
extern int cli_deterministic;
#define CLI_OPT_DETERMINISTIC {"deterministic", OPT_FLAG, NULL, &cli_deterministic, 1}
void cli_usage_deterministic(FILE *out);

/* "v" or "v1,v2,...,vD" (--NAME's text) -> tok[0..dims-1], each at most
 * CLI_TOKEN - 1 bytes: one value is every dimension's; otherwise there must
 * be exactly dims.  EXIT_OK, or EXIT_USAGE with the message printed. */
enum { CLI_TOKEN = 128 };
int cli_split_list(const char *name, const char *text, int dims, char tok[][CLI_TOKEN]);

/* ---- JSON output ---------------------------------------------------------- */
typedef struct {
  FILE *out;    /* JSON: the stream; CSV: the row being built            */
  int fields;
  FILE *dest;   /* CSV: where the header line and the row go at json_end */
  FILE *header; /* CSV: the header line being built                      */
  char *header_text, *row_text;
  size_t header_len, row_len;
} json_writer;

void json_begin(json_writer *w, FILE *out);
/* --csv: the same record as a CSV header line and one row (RFC 4180), the
 * keys the JSON object would have as the columns, an array member as one
 * column per element (key_1, key_2, ...), a non-finite number as inf, -inf
 * or nan (NumPy's and pandas' spelling).  0, or -1 out of memory. */
int json_begin_csv(json_writer *w, FILE *out);
/* json_begin_csv for --csv, else json_begin: 0, or EXIT_RUNTIME after a
 * message. */
int json_begin_as(json_writer *w, FILE *out, int csv);
void json_string(json_writer *w, const char *key, const char *value);
void json_number(json_writer *w, const char *key, double value); /* null if not finite */
void json_uint(json_writer *w, const char *key, uint64_t value);
void json_bool(json_writer *w, const char *key, int value);
void json_raw(json_writer *w, const char *key, const char *json); /* already JSON: an array */
void json_end(json_writer *w);
/* Limits: one number for one dimension, else an array; "inf", "-inf" as strings (cmd_integrate.c). */
void cli_json_limits(json_writer *w, const char *key, int dims, const double *v);
/* "exact", "gsl_integration_qags", ... "hcubature": a GQ_REFERENCE_* method (cmd_integrate.c). */
const char *cli_reference_method(int method);

/* ---- commands ------------------------------------------------------------- */
int cmd_integrate(int argc, char **argv, int first, double t_start_ms);
void usage_integrate(FILE *out);
/* --help or --version of the default command (main.c): --help with no
 * command word (first 1) is the program's usage, after `integrate` the
 * command's own. */
void usage_or_version(int first, int help);
/* gpuquad integrate DATA (cmd_integrate_data.c): sampled data, when the first
 * operand after `integrate` is not an option or --gen is given */
int integrate_data_wanted(int argc, char **argv, int first);
int cmd_integrate_data(int argc, char **argv, int first, double t_start_ms);
void usage_integrate_data(FILE *out);
/* --rule=adaptive (cmd_integrate_adaptive.c, issue 16) */
int cmd_integrate_adaptive(int argc, char **argv, int first, double t_start_ms);
/* gpuquad mc (cmd_mc.c) */
int cmd_mc(int argc, char **argv, int first, double t_start_ms);
void usage_mc(FILE *out);

/* ---- gpuquad bench (cmd_bench.c) ------------------------------------------ */
int cmd_bench(int argc, char **argv, int first);
void usage_bench(FILE *out);
/* "gpuquad bench: MESSAGE" on stderr, one line; returns status. */
int bench_error(int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
/* gpuquad bench --hist (bench_hist.c): the histogram methods side by side */
int cmd_bench_hist(int argc, char **argv, int first);
void usage_bench_hist(FILE *out);
/* data reductions (cmd_dot.c, cmd_rms.c, cmd_stats.c, vectors.c) */
int cmd_dot(int argc, char **argv, int first, double t_start_ms);
int cmd_rms(int argc, char **argv, int first, double t_start_ms);
int cmd_stats(int argc, char **argv, int first, double t_start_ms);
void usage_dot(FILE *out);
void usage_rms(FILE *out);
void usage_stats(FILE *out);
/* gpuquad hist (issue 18, cmd_hist.c) */
int cmd_hist(int argc, char **argv, int first, double t_start_ms);
void usage_hist(FILE *out);
/* gpuquad scan (cmd_scan.c) */
int cmd_scan(int argc, char **argv, int first, double t_start_ms);
void usage_scan(FILE *out);

#endif
