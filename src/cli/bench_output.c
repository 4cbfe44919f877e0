/* bench_output.c — the table, JSON Lines, medians, CSV and chart of
 * `gpuquad bench`. */
#define _POSIX_C_SOURCE 200809L /* popen */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_output.h"
#include "cli.h"

static const char *status_word(bench_status s)
{
  return s == BENCH_VERIFIED ? "yes" : s == BENCH_FAILED ? "FAILED" : "n/a";
}

void bench_table_header(FILE *out)
{
  fprintf(out, "%-2s %-21s %-6s %-6s %10s %11s %9s %6s %8s  %s\n", "#", "method", "type", "op", "n", "median_us",
          "GB/s", "%bw", "vs_1", "verified");
}

void bench_table_row(FILE *out, const bench_row *r)
{
  const gqb_method *m = gqb_method_at(r->method);
  fprintf(out, "%-2d %-21s %-6s %-6s %10llu ", r->method, m->name, gqb_type_name(r->type), gqb_op_name(r->op),
          (unsigned long long)r->n);
  if (r->timed) {
    fprintf(out, "%11.2f %9.1f %6.1f ", r->median_us, r->gbps, r->percent);
    if (r->speedup > 0)
      fprintf(out, "%7.2fx", r->speedup);
    else
      fprintf(out, "%8s", "-");
  } else {
    fprintf(out, "%11s %9s %6s %8s", "-", "-", "-", "-");
  }
  fprintf(out, "  %s%s%s\n", status_word(r->status), r->detail[0] ? ": " : "", r->detail);
}

int bench_format_from(int json, int quiet, bench_format *format)
{
  if (json && quiet)
    return bench_error(EXIT_USAGE, "--json and --quiet are two outputs: take one");
  *format = json ? BENCH_JSON : quiet ? BENCH_QUIET : BENCH_TABLE;
  return EXIT_OK;
}

void bench_quiet_line(FILE *out, int timed, double median_us)
{
  fprintf(out, "%.17g\n", timed ? median_us : NAN);
}

/* The CSV file's columns, under the same keys; what the table shows as "-"
 * is null. */
static void json_row(FILE *out, const bench_row *r)
{
  json_writer w;
  json_begin(&w, out);
  json_uint(&w, "method_id", (uint64_t)r->method);
  json_string(&w, "method", gqb_method_at(r->method)->name);
  json_string(&w, "type", gqb_type_name(r->type));
  json_string(&w, "op", gqb_op_name(r->op));
  json_uint(&w, "n", r->n);
  json_number(&w, "median_us", r->timed ? r->median_us : NAN);
  json_number(&w, "min_us", r->timed ? r->min_us : NAN);
  json_number(&w, "max_us", r->timed ? r->max_us : NAN);
  json_number(&w, "gb_per_s", r->timed ? r->gbps : NAN);
  json_number(&w, "percent_of_copy", r->timed ? r->percent : NAN);
  json_number(&w, "speedup_vs_1", r->timed && r->speedup > 0 ? r->speedup : NAN);
  json_string(&w, "verified", status_word(r->status));
  json_string(&w, "detail", r->detail);
  json_end(&w);
}

void bench_row_out(FILE *out, bench_format format, const bench_row *r)
{
  if (format == BENCH_JSON)
    json_row(out, r);
  else if (format == BENCH_QUIET)
    bench_quiet_line(out, r->timed, r->median_us);
  else
    bench_table_row(out, r);
}

void bench_csv_header(FILE *out)
{
  fputs("method_id,method,type,op,n,median_us,min_us,max_us,gb_per_s,percent_of_copy,speedup_vs_1,verified,detail\n",
        out);
}

void bench_csv_row(FILE *out, const bench_row *r)
{
  fprintf(out, "%d,%s,%s,%s,%llu,", r->method, gqb_method_at(r->method)->name, gqb_type_name(r->type),
          gqb_op_name(r->op), (unsigned long long)r->n);
  if (r->timed)
    fprintf(out, "%.3f,%.3f,%.3f,%.2f,%.2f,", r->median_us, r->min_us, r->max_us, r->gbps, r->percent);
  else
    fputs(",,,,,", out);
  if (r->timed && r->speedup > 0)
    fprintf(out, "%.3f", r->speedup);
  fprintf(out, ",%s,\"", status_word(r->status));
  for (const char *p = r->detail; *p; p++) {
    if (*p == '"')
      fputc('"', out); /* a quote inside a quoted field is doubled */
    fputc(*p, out);
  }
  fputs("\"\n", out);
}

int bench_plot(const char *gnuplot, const char *file, const bench_row *rows, size_t nrows, gqb_type type,
               gqb_op op, const char *title, char *err, size_t errlen)
{
  const char *ext = strrchr(file, '.');
  const int svg = ext && strcmp(ext, ".svg") == 0;
  char command[4200];
  /* The output name goes to gnuplot in single quotes: refuse one that has them. */
  if (strchr(file, '\'') || strlen(gnuplot) > 4000) {
    snprintf(err, errlen, "--plot=%s: the name may not contain a single quote", file);
    return -1;
  }
  snprintf(command, sizeof command, "'%s'", gnuplot);
  FILE *gp = popen(command, "w");
  if (!gp) {
    snprintf(err, errlen, "cannot run %s", gnuplot);
    return -1;
  }
  fprintf(gp, "set terminal %s size 1200,750\nset output '%s'\n", svg ? "svg" : "png", file);
  fprintf(gp, "set title \"%s\" noenhanced\nset logscale x 2\nset format x '2^{%%L}'\n", title);
  fprintf(gp, "set xlabel 'n (%s elements)'\nset ylabel 'GB/s (read)'\nset key outside right noenhanced\nset grid\n",
          gqb_type_name(type));
  int plotted = 0;
  for (int id = 1; id <= GQB_NMETHODS; id++) {
    int points = 0;
    for (size_t k = 0; k < nrows; k++)
      if (rows[k].method == id && rows[k].type == type && rows[k].op == op && rows[k].timed) {
        if (points++ == 0)
          fprintf(gp, "$m%d << EOD\n", id);
        fprintf(gp, "%llu %.3f\n", (unsigned long long)rows[k].n, rows[k].gbps);
      }
    if (points) {
      fputs("EOD\n", gp);
      plotted++;
    }
  }
  if (plotted) {
    fputs("plot ", gp);
    int first = 1;
    for (int id = 1; id <= GQB_NMETHODS; id++)
      for (size_t k = 0; k < nrows; k++)
        if (rows[k].method == id && rows[k].type == type && rows[k].op == op && rows[k].timed) {
          fprintf(gp, "%s$m%d with linespoints title '%d %s'", first ? "" : ", ", id, id, gqb_method_at(id)->name);
          first = 0;
          break;
        }
    fputc('\n', gp);
  }
  const int rc = pclose(gp);
  if (!plotted) {
    snprintf(err, errlen, "--plot: no %s %s rows were timed", gqb_type_name(type), gqb_op_name(op));
    return -1;
  }
  if (rc != 0) {
    snprintf(err, errlen, "gnuplot failed (status %d) writing %s", rc, file);
    return -1;
  }
  return 0;
}
