/* bench_output.c — the table, CSV and chart of `gpuquad bench`. */
#define _POSIX_C_SOURCE 200809L /* popen */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_output.h"

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

int bench_find_gnuplot(char *path, size_t len)
{
  const char *env = getenv("PATH");
  if (!env)
    return -1;
  for (const char *dir = env; *dir;) {
    const size_t dlen = strcspn(dir, ":");
    snprintf(path, len, "%.*s/gnuplot", (int)(dlen ? dlen : 1), dlen ? dir : ".");
    if (access(path, X_OK) == 0)
      return 0;
    dir += dlen;
    if (*dir == ':')
      dir++;
  }
  return -1;
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
