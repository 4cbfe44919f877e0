/* bench_output.h — how `gpuquad bench` shows its rows: the table, the CSV
 * file and the gnuplot chart. */
#ifndef GQ_BENCH_OUTPUT_H
#define GQ_BENCH_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "bench.h"

typedef enum { BENCH_VERIFIED, BENCH_FAILED, BENCH_NA } bench_status;

typedef struct {
  int method;
  gqb_type type;
  gqb_op op;
  uint64_t n;
  bench_status status;
  int timed;                      /* median_us ... speedup are set         */
  double median_us, min_us, max_us;
  double gbps;                    /* n * sizeof(type) / median             */
  double percent;                 /* of the copy kernel's bandwidth        */
  double speedup;                 /* method 1's median / this median; 0 if none */
  char detail[256];               /* the failure, or why not applicable    */
} bench_row;

void bench_table_header(FILE *out);
void bench_table_row(FILE *out, const bench_row *r);
void bench_csv_header(FILE *out);
void bench_csv_row(FILE *out, const bench_row *r);

/* The gnuplot on PATH: 0 and its path, or -1. */
int bench_find_gnuplot(char *path, size_t len);

/* GB/s against n (log2 axis), one line per method, for the rows of type x op
 * that were timed; `title` names the device and the copy bandwidth.  Format
 * from the extension (.png or .svg).  Returns 0, or -1 with err. */
int bench_plot(const char *gnuplot, const char *file, const bench_row *rows, size_t nrows, gqb_type type,
               gqb_op op, const char *title, char *err, size_t errlen);

#endif
