/* bench_output.h — how `gpuquad bench` shows its rows: the table, JSON
 * Lines or the medians alone on stdout, the CSV file and the gnuplot chart. */
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

/* What stdout gets (bench and bench --hist): the table, --json (an object
 * per row) or --quiet (a median per row). */
typedef enum { BENCH_TABLE, BENCH_JSON, BENCH_QUIET } bench_format;

/* --json and --quiet -> the format: EXIT_OK, or EXIT_USAGE with the message
 * printed when both are given. */
int bench_format_from(int json, int quiet, bench_format *format);
/* --quiet's line: the median in microseconds, nan where nothing was timed
 * (--reps=0, n/a, FAILED), so that line k is row k whatever happened. */
void bench_quiet_line(FILE *out, int timed, double median_us);

void bench_table_header(FILE *out);
void bench_table_row(FILE *out, const bench_row *r);
/* The row as the table, a JSON object (the CSV header's keys) or a median. */
void bench_row_out(FILE *out, bench_format format, const bench_row *r);
void bench_csv_header(FILE *out);
void bench_csv_row(FILE *out, const bench_row *r);

/* GB/s against n (log2 axis), one line per method, for the rows of type x op
 * that were timed; `title` names the device and the copy bandwidth.  Format
 * from the extension (.png or .svg).  Returns 0, or -1 with err. */
int bench_plot(const char *gnuplot, const char *file, const bench_row *rows, size_t nrows, gqb_type type,
               gqb_op op, const char *title, char *err, size_t errlen);

#endif
