/* cumulative.h — `gpuquad integrate --cumulative`: the options, and the run
 * the integrate command hands over to once its problem is built. */
#ifndef GQ_CLI_CUMULATIVE_H
#define GQ_CLI_CUMULATIVE_H

#include "cli.h"

typedef struct {
  int cumulative, with_x;
  const char *out, *out_format, *every;
  const char *plot; /* integrate's --plot: F(x) drawn (plots.h), or NULL */
} cli_cumulative;

/* The option table's rows, bound to c (spread into integrate's options). */
#define CLI_CUMULATIVE_OPTIONS(c)                      \
  {"cumulative", OPT_FLAG, NULL, &(c).cumulative, 1},  \
  {"with-x", OPT_FLAG, NULL, &(c).with_x, 1},          \
  {"out", OPT_VALUE, &(c).out, NULL, 0},               \
  {"out-format", OPT_VALUE, &(c).out_format, NULL, 0}, \
  {"every", OPT_VALUE, &(c).every, NULL, 0}

/* The --help lines. */
void cli_cumulative_usage(FILE *out);
/* The options' consistency (--out and the rest need --cumulative; --every a
 * count; the format): an exit status after a message, before any device is
 * opened. */
int cli_cumulative_check(const cli_cumulative *c);
/* The cumulative integral of f on [a, b] with n intervals: written to --out,
 * and a summary whose last value is compared with the plain rule's result
 * and, with check, with GSL's.  Exit status. */
int cli_cumulative_run(gq_context *ctx, const gq_integrand *f, double a, double b, uint64_t n, gq_rule rule,
                       gq_precision precision, const cli_cumulative *c, int check, int quiet, int json,
                       double t_start_ms);

#endif
