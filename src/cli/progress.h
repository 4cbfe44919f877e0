/* progress.h — `--progress=auto|always|never` (issue 24): the library's
 * progress callback (gpuquad.h's "progress") drawn on standard error.
 *   auto    on a terminal only, once a task has run for a second: one line
 *           redrawn with \r (what runs, the fraction, the rate, the time
 *           left), cleared when the task ends;
 *   always  from the first report, on a terminal as auto does, and to a
 *           file or pipe as plain lines (never \r), at most one a second,
 *           the last at 100%;
 *   never   nothing. */
#ifndef GQ_CLI_PROGRESS_H
#define GQ_CLI_PROGRESS_H

#include "cli.h"

/* Every command's --progress: one entry of its option table, one line of its
 * --help; cli_open_context checks it and attaches the callback. */
extern const char *cli_progress_text;
#define CLI_OPT_PROGRESS {"progress", OPT_VALUE, &cli_progress_text, NULL, 0}
void cli_usage_progress(FILE *out);

/* --progress's text checked: EXIT_OK, or EXIT_USAGE after a one-line message
 * (commands that open no context call it themselves). */
int cli_progress_check(void);
/* Attach the renderer to ctx when --progress (and, for auto, stderr) asks
 * for it; under mpirun only rank 0 draws.  ctx NULL: the renderer alone,
 * for loops the program runs before it opens a context (hist's reading). */
void cli_progress_attach(gq_context *ctx);
/* The renderer itself, for loops the program runs (scan's reading): the
 * callback's contract (gpuquad.h); nothing unless attached. */
void cli_progress_report(uint64_t done, uint64_t total, const char *unit, void *user);
/* Progress by whole problems (a sweep's integrals) instead: ctx's own
 * reports stop until cli_progress_attach(ctx) again; count of total done. */
void cli_progress_problems(gq_context *ctx, uint64_t done, uint64_t total);
/* Before another line on stderr: the redrawn line, if shown, is erased. */
void cli_progress_clear(void);

#endif
