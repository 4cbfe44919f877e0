/* sweep.h — parameter sweeps: `--param NAME=LO:HI:STEP`, `--param
 * NAME=@FILE` and plain `--param NAME=VALUE`, several giving their product
 * (issue 23).  A sweep is a list of axes; problem i takes the value of each
 * axis at the digits of i, the last axis varying fastest. */
#ifndef GQ_CLI_SWEEP_H
#define GQ_CLI_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"

/* The most problems one sweep or one batch file may hold: at ~1 µs of host
 * work each, ten million take seconds; more is a typing error. */
#define SWEEP_MAX_PROBLEMS 10000000u

typedef struct {
  char name[64];   /* the parameter's name                                  */
  double *values;  /* its values, in order                                  */
  size_t count;
} sweep_axis;

typedef struct {
  sweep_axis axis[CLI_MAX_PARAMS];
  int naxes;
  size_t problems; /* product of the axes' counts (1 with no parameter)     */
} sweep;

/* True when one of the definitions is a range or a file of values. */
int sweep_wanted(const char *const *params, int count);

/* Read the definitions NAME=VALUE, NAME=LO:HI:STEP or NAME=@FILE into s.
 * A bad definition, a step of 0 or one that moves away from HI, an empty or
 * unreadable file, or a product beyond SWEEP_MAX_PROBLEMS: EXIT_USAGE with
 * the reason in err (no "gpuquad:" prefix), s freed. */
int sweep_parse(sweep *s, const char *const *params, int count, char *err, size_t errlen);
void sweep_free(sweep *s);

/* The values of problem index (0 <= index < s->problems), axis by axis. */
void sweep_values(const sweep *s, size_t index, double *values);

/* "NAME=VALUE" for axis k at value v (a whole number below 10^15 in full,
 * else the shortest decimal that reads back as v), into buf. */
void sweep_definition(const sweep *s, int k, double v, char *buf, size_t size);

#endif
