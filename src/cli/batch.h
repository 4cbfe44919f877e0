/* batch.h — many integrals in one process (issue 23): a problem given as the
 * text of its options (from a command line with a sweep, or one line of a
 * batch file), run on one context shared by all, and its result as one
 * record of JSON Lines, CSV or a table. */
#ifndef GQ_CLI_BATCH_H
#define GQ_CLI_BATCH_H

#include <stdio.h>

#include "cli.h"
#include "sweep.h"

typedef enum { BATCH_INTEGRATE, BATCH_MC } batch_command;

/* Options as text, NULL for the command's default (gpuquad(1)); params are
 * NAME=VALUE, NAME=LO:HI:STEP or NAME=@FILE.  The limits --a and --b may be
 * expressions of the parameters (--b=k, --b='2*pi/k'). */
typedef struct {
  batch_command command;
  const char *f, *dim, *a, *b, *n, *rule, *precision;  /* both commands     */
  const char *dist, *seed, *tol, *exact, *method;      /* mc                */
  int check;
  const char *params[CLI_MAX_PARAMS];
  int nparams;
} batch_problem;

void batch_problem_init(batch_problem *p, batch_command command);

typedef enum { BATCH_JSONL, BATCH_CSV, BATCH_TABLE, BATCH_QUIET /* the estimates alone */ } batch_format;

/* The command line's format: --json, --csv, --quiet, else the table. */
batch_format batch_format_of(int json, int csv, int quiet);

/* True when a command line is a sweep: a parameter is a range or a file of
 * values, or a limit (--a, --b; comma lists) is not a number but, with
 * parameters, an expression of them. */
int batch_wanted(const char *const *params, int nparams, const char *a, const char *b);

/* Where the records go; one writer for a whole run. */
typedef struct {
  FILE *out;
  batch_format format;
  int records;     /* written so far (the CSV header and table head once) */
  int worst;       /* the worst exit status of a record                   */
  const char *plot; /* --plot FILE: the sweep's points, drawn at the end   */
  FILE *points;    /* the points for the plot, while they are written     */
  char axis[64];   /* the swept parameter that is the plot's x axis        */
  char title[256]; /* the plot's title: the command and expression given  */
  int mc;          /* the plot's error bars are standard errors           */
} batch_writer;

/* Run every problem of p's sweep on ctx, one record each; line is the batch
 * file's line (0 for a command line).  A problem that fails is a record
 * with its error; the worst status is kept in w->worst. */
void batch_run(gq_context *ctx, const batch_problem *p, size_t line, batch_writer *w);

/* A record for a line that never became a problem (malformed JSON, an
 * unknown key): its error, status EXIT_USAGE. */
void batch_write_error(batch_writer *w, size_t line, const char *message);

/* The command line's sweep: options -> one context -> records on stdout ->
 * exit status (the worst record's).  device and no_cache as for a single
 * run; format from --json/--csv (default: the table); plot may be NULL. */
int batch_sweep_command(const batch_problem *p, const char *device, int no_cache, batch_format format,
                        const char *plot);

/* gpuquad batch FILE.jsonl (cmd_batch.c) */
int cmd_batch(int argc, char **argv, int first, double t_start_ms);
void usage_batch(FILE *out);

/* batch_output.c: the records' formats; the plot of a sweep. */
typedef struct {
  size_t line, index;       /* batch file line (0: command line), index in its sweep */
  batch_command command;
  char params[512];         /* "k=1 c=2"                                 */
  double x;                 /* the first swept parameter's value (plots) */
  const char *formula;
  double estimate, error_estimate, reference, difference, tolerance;
  const char *check;        /* "passed", "failed", "not made", "skipped", "error" */
  const char *message;      /* the check's or the error's, "" if none    */
  int status;               /* EXIT_*                                    */
  double kernel_ms;
  const char *jit;
} batch_record;

int batch_writer_open(batch_writer *w, FILE *out, batch_format format, const char *plot);
void batch_write(batch_writer *w, const batch_record *r);
/* Flush, draw the plot; the exit status: w->worst, or EXIT_RUNTIME. */
int batch_writer_close(batch_writer *w);

#endif
