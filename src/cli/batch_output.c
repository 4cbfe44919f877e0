/* batch_output.c — the records of a sweep or a batch file: JSON Lines (one
 * object per problem, in input order), CSV (a header, then a row each) or
 * a table; and a sweep's --plot, the estimate with its error bars against
 * the swept parameter, drawn by gnuplot (plot.c starts it). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "plot.h"

int batch_writer_open(batch_writer *w, FILE *out, batch_format format, const char *plot)
{
  memset(w, 0, sizeof *w);
  w->out = out;
  w->format = format;
  w->plot = plot;
  if (plot) {
    const int rc = plot_check(plot);
    if (rc != EXIT_OK)
      return rc;
    if (!(w->points = tmpfile()))
      return cli_error(EXIT_RUNTIME, "--plot=%s: cannot make a temporary file", plot);
  }
  return EXIT_OK;
}

/* "k=1 c=2" -> {"k": 1, "c": 2}: each value is a shortest decimal, which is
 * a JSON number. */
static void params_object(const char *params, char *out, size_t size)
{
  size_t at = (size_t)snprintf(out, size, "{");
  for (const char *p = params; *p && at < size;) {
    const size_t len = strcspn(p, " "), name = strcspn(p, "=");
    if (name < len)
      at += (size_t)snprintf(out + at, size - at, "%s\"%.*s\": %.*s", at > 1 ? ", " : "", (int)name, p,
                             (int)(len - name - 1), p + name + 1);
    p += len + (p[len] == ' ');
  }
  if (at < size)
    snprintf(out + at, size - at, "}");
}

static void csv_text(FILE *out, const char *text)
{
  fputc('"', out);
  for (const char *p = text; *p; p++) {
    if (*p == '"')
      fputc('"', out);
    fputc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
  }
  fputc('"', out);
}

static void csv_number(FILE *out, double v)
{
  if (isfinite(v))
    fprintf(out, ",%.17g", v);
  else
    fputc(',', out);
}

void batch_write(batch_writer *w, const batch_record *r)
{
  const char *command = r->command == BATCH_MC ? "mc" : "integrate";
  /* mc's check is a z-score; integrate's a tolerance */
  const char *bound = r->command == BATCH_MC ? "z" : "tolerance";
  if (r->status > w->worst)
    w->worst = r->status;
  if (w->format == BATCH_JSONL) {
    char object[sizeof r->params + 64];
    params_object(r->params, object, sizeof object);
    json_writer j;
    json_begin(&j, w->out);
    if (r->line)
      json_uint(&j, "line", r->line);
    json_uint(&j, "index", r->index);
    json_string(&j, "command", command);
    json_raw(&j, "params", object);
    json_string(&j, "formula", r->formula);
    json_number(&j, "estimate", r->estimate);
    json_number(&j, "error_estimate", r->error_estimate);
    json_number(&j, "reference", r->reference);
    json_number(&j, "difference", r->difference);
    json_number(&j, bound, r->tolerance);
    json_string(&j, "check", r->check);
    if (*r->message)
      json_string(&j, "message", r->message);
    json_uint(&j, "status", (uint64_t)r->status);
    json_number(&j, "kernel_ms", r->kernel_ms);
    json_string(&j, "jit", r->jit);
    json_end(&j);
  } else if (w->format == BATCH_CSV) {
    if (w->records == 0)
      fputs("line,index,command,params,formula,estimate,error_estimate,reference,difference,tolerance_or_z,"
            "check,status,kernel_ms,jit,message\n", w->out);
    fprintf(w->out, "%zu,%zu,%s,", r->line, r->index, command);
    csv_text(w->out, r->params);
    fputc(',', w->out);
    csv_text(w->out, r->formula);
    csv_number(w->out, r->estimate);
    csv_number(w->out, r->error_estimate);
    csv_number(w->out, r->reference);
    csv_number(w->out, r->difference);
    csv_number(w->out, r->tolerance);
    fprintf(w->out, ",%s,%d", r->check, r->status);
    csv_number(w->out, r->kernel_ms);
    fprintf(w->out, ",%s,", r->jit);
    csv_text(w->out, r->message);
    fputc('\n', w->out);
  } else if (w->format == BATCH_QUIET) {
    /* one line per problem, so that lines match values; a problem that
     * failed says why on stderr */
    fprintf(w->out, "%.17g\n", r->estimate);
    if (r->status >= EXIT_USAGE && r->line > 0) /* gpuquad batch: a line of the input */
      fprintf(stderr, "gpuquad: line %zu: %s\n", r->line, r->message);
    else if (r->status >= EXIT_USAGE)
      fprintf(stderr, "gpuquad: problem %zu (%s): %s\n", r->index, r->params, r->message);
  } else {
    if (w->records == 0)
      fprintf(w->out, "%5s %7s  %-24s %-24s %-10s %-9s %s\n", "line", "index", "params", "estimate", "error est.",
              "check", "message");
    fprintf(w->out, "%5zu %7zu  %-24s %-24.17g %-10.3g %-9s %s\n", r->line, r->index, r->params, r->estimate,
            r->error_estimate, r->check, r->message);
  }
  w->records++;
  if (w->points && isfinite(r->x) && isfinite(r->estimate)) {
    /* x, the estimate, its error, then the curve: the other parameters' values */
    fprintf(w->points, "%.17g %.17g %.17g ", r->x, r->estimate, isfinite(r->error_estimate) ? r->error_estimate : 0.0);
    const size_t axis_len = strlen(w->axis);
    int others = 0;
    for (const char *p = r->params; *p;) {
      const size_t len = strcspn(p, " ");
      if (!(len > axis_len && strncmp(p, w->axis, axis_len) == 0 && p[axis_len] == '='))
        fprintf(w->points, "%s%.*s", others++ ? " " : "", (int)len, p);
      p += len + (p[len] == ' ');
    }
    fputc('\n', w->points);
  }
}

/* One curve per combination of the other parameters, in the order they
 * first appear; beyond MAX_CURVES a legend would say nothing: one series. */
enum { MAX_CURVES = 24 };

/* The next row of the points ("x estimate error KEY") into row; its KEY,
 * the curve it belongs to, or NULL at the end. */
static const char *next_point(FILE *points, char *row, size_t size)
{
  if (!fgets(row, (int)size, points))
    return NULL;
  row[strcspn(row, "\n")] = '\0';
  const char *key = row;
  for (int field = 0; field < 3; field++)
    key += strcspn(key, " ") + (key[strcspn(key, " ")] == ' ');
  return key;
}

static int draw(batch_writer *w)
{
  char row[1024], curves[MAX_CURVES][512];
  int ncurves = 0, too_many = 0;
  rewind(w->points);
  for (const char *key; (key = next_point(w->points, row, sizeof row)) != NULL;) {
    int k = 0;
    while (k < ncurves && strcmp(curves[k], key) != 0)
      k++;
    if (k == ncurves && ncurves < MAX_CURVES)
      snprintf(curves[ncurves++], sizeof curves[0], "%s", key);
    else if (k == ncurves)
      too_many = 1;
  }
  if (too_many)
    ncurves = 1;
  FILE *g = plot_open(w->plot);
  if (!g)
    return EXIT_RUNTIME;
  for (int k = 0; k < ncurves; k++) {
    fprintf(g, "$c%d << EOD\n", k);
    rewind(w->points);
    for (const char *key; (key = next_point(w->points, row, sizeof row)) != NULL;)
      if (too_many || strcmp(key, curves[k]) == 0)
        fprintf(g, "%.*s\n", (int)(key - row), row);
    fputs("EOD\n", g);
  }
  fputs("set title ", g);
  plot_string(g, w->title);
  fputs("\nset xlabel ", g);
  plot_string(g, w->axis);
  fprintf(g, "\nset ylabel '%s'\nset offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05\n"
             "set key %s outside right\nplot ",
          w->mc ? "integral +/- standard error" : "estimate +/- error estimate", ncurves > 1 ? "on" : "off");
  for (int k = 0; k < ncurves; k++) {
    fprintf(g, "%s$c%d using 1:2:3 with yerrorlines pointtype 7 pointsize 0.6 title ", k ? ", " : "", k);
    plot_string(g, curves[k]);
  }
  fputc('\n', g);
  return plot_close(g, w->plot);
}

int batch_writer_close(batch_writer *w)
{
  int rc = w->worst;
  if (w->points) {
    if (!w->axis[0]) {
      rc = cli_error(EXIT_USAGE, "--plot=%s: no parameter takes several values", w->plot);
    } else {
      const int drawn = draw(w);
      if (drawn != EXIT_OK && drawn > rc)
        rc = drawn;
    }
    fclose(w->points);
    w->points = NULL;
  }
  if (cli_flush_stdout() != 0)
    rc = EXIT_RUNTIME;
  return rc;
}
