/* plots.c — the figures of plots.h: data inline after the script, in
 * gnuplot's datablocks, so nothing is left in temporary files. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "plot.h"
#include "plots.h"

void plot_series_init(plot_series *s)
{
  s->count = 0;
  s->stride = 1;
  s->seen = 0;
  s->last_x = s->last_y = NAN;
}

void plot_series_add(plot_series *s, double x, double y)
{
  const uint64_t i = s->seen++;
  s->last_x = x;
  s->last_y = y;
  if (i % s->stride != 0)
    return;
  if (s->count == PLOT_SERIES_MAX) { /* keep the even ones: the stride doubles */
    for (size_t k = 0; k < PLOT_SERIES_MAX / 2; k++) {
      s->x[k] = s->x[2 * k];
      s->y[k] = s->y[2 * k];
    }
    s->count = PLOT_SERIES_MAX / 2;
    s->stride *= 2;
    if (i % s->stride != 0)
      return;
  }
  s->x[s->count] = x;
  s->y[s->count] = y;
  s->count++;
}

static void head(FILE *g, const char *title, const char *xlabel, const char *ylabel)
{
  fputs("set title ", g);
  plot_string(g, title);
  fputs("\nset xlabel ", g);
  plot_string(g, xlabel);
  fputs("\nset ylabel ", g);
  plot_string(g, ylabel);
  fputc('\n', g);
}

/* A value gnuplot reads: NaN and the infinities as its missing value. */
static void value(FILE *g, double v)
{
  if (isfinite(v))
    fprintf(g, " %.17g", v);
  else
    fputs(" NaN", g);
}

int plot_curve(const char *path, const char *title, const char *xlabel, const char *ylabel, const plot_series *s,
               int fill)
{
  FILE *g = plot_open(path);
  if (!g)
    return EXIT_RUNTIME;
  fputs("$curve << EOD\n", g);
  for (size_t k = 0; k < s->count; k++) {
    value(g, s->x[k]);
    value(g, s->y[k]);
    fputc('\n', g);
  }
  if (s->seen > 0 && (s->count == 0 || s->x[s->count - 1] != s->last_x)) {
    value(g, s->last_x);
    value(g, s->last_y);
    fputc('\n', g);
  }
  fputs("EOD\n", g);
  head(g, title, xlabel, ylabel);
  fputs("set key off\nset xzeroaxis lt -1\nset offsets 0, 0, graph 0.05, graph 0.05\n", g);
  if (fill)
    fputs("plot $curve using 1:2 with filledcurves y1=0 fillcolor rgb '#c6dbef' fillstyle transparent solid 0.6,"
          " $curve using 1:2 with lines linewidth 1.5 linecolor rgb '#08519c'\n", g);
  else
    fputs("plot $curve using 1:2 with lines linewidth 1.5 linecolor rgb '#08519c'\n", g);
  return plot_close(g, path);
}

int plot_integrand_check(const char *path, int dims, const double *a, const double *b)
{
  const int rc = plot_check(path);
  if (rc != EXIT_OK)
    return rc;
  if (dims > 2)
    return cli_error(EXIT_USAGE, "--plot=%s: f can be drawn in 1 or 2 dimensions, not %d (leave --plot out)", path,
                     dims);
  for (int d = 0; d < dims; d++)
    if (!isfinite(a[d]) || !isfinite(b[d]))
      return cli_error(EXIT_USAGE, "--plot=%s: f is drawn on finite limits, not [%g, %g]", path, a[d], b[d]);
  return EXIT_OK;
}

int plot_integrand(const char *path, const gq_integrand *f, int dims, const double *a, const double *b,
                   const char *how, double estimate)
{
  char title[512];
  if (dims == 2) {
    snprintf(title, sizeof title, "f = %s on [%g, %g] x [%g, %g]: integral %.10g (%s)", gq_integrand_formula(f), a[0],
             b[0], a[1], b[1], estimate, how);
    return plot_heat_map(path, title, f, a, b);
  }
  snprintf(title, sizeof title, "f = %s on [%g, %g]: integral %.10g (%s)", gq_integrand_formula(f), a[0], b[0],
           estimate, how);
  enum { POINTS = 2001 };
  static plot_series s;
  plot_series_init(&s);
  for (int k = 0; k < POINTS; k++) {
    const double x = k == POINTS - 1 ? b[0] : a[0] + (b[0] - a[0]) * k / (POINTS - 1);
    plot_series_add(&s, x, gq_integrand_eval(f, x));
  }
  return plot_curve(path, title, "x", "f(x)", &s, 1);
}

int plot_heat_map(const char *path, const char *title, const gq_integrand *f, const double *a, const double *b)
{
  enum { GRID = 161 };
  FILE *g = plot_open(path);
  if (!g)
    return EXIT_RUNTIME;
  fputs("$map << EOD\n", g);
  for (int i = 0; i < GRID; i++) {
    for (int j = 0; j < GRID; j++) {
      const double x[2] = {a[0] + (b[0] - a[0]) * i / (GRID - 1), a[1] + (b[1] - a[1]) * j / (GRID - 1)};
      value(g, x[0]);
      value(g, x[1]);
      value(g, gq_integrand_eval_point(f, x));
      fputc('\n', g);
    }
    fputc('\n', g); /* a scan line ends: the rows of a grid for splot */
  }
  fputs("EOD\n", g);
  head(g, title, "x1", "x2");
  fputs("set cblabel 'f(x1, x2)'\nset view map\nset size ratio -1\nset key off\nset grid front\n"
        "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')\nset contour base\nset cntrparam levels 10\nunset surface\n"
        "set table $contours\nsplot $map using 1:2:3\nunset table\nset surface\nunset contour\n",
        g);
  fprintf(g, "set xrange [%.17g:%.17g]\nset yrange [%.17g:%.17g]\n", a[0], b[0], a[1], b[1]);
  fputs("plot $map using 1:2:3 with image, $contours using 1:2 with lines linecolor rgb '#ffffff' linewidth 0.8\n", g);
  return plot_close(g, path);
}

int plot_running(const char *path, const char *title, const char *label, int bars, const double *n,
                 const double *estimate, const double *se, int count, double final, double exact)
{
  FILE *g = plot_open(path);
  if (!g)
    return EXIT_RUNTIME;
  fputs("$run << EOD\n", g);
  for (int k = 0; k < count; k++) {
    value(g, n[k]);
    value(g, estimate[k]);
    value(g, se[k]);
    fputc('\n', g);
  }
  fputs("EOD\n", g);
  head(g, title, "n (samples)", "integral: estimate +/- standard error");
  fputs("set format y '%.10g'\nset key top right\nset offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05\n", g);
  if (bars) {
    fputs("plot $run using 1:2:3 with yerrorbars pointtype 7 pointsize 0.6 linecolor rgb '#08519c' title ", g);
  } else {
    fputs("set logscale x 10\nset format x '%.0e'\n"
          "plot $run using 1:($2-$3):($2+$3) with filledcurves fillcolor rgb '#c6dbef' fillstyle transparent "
          "solid 0.6 title '+/- 1 standard error', $run using 1:2 with linespoints pointtype 7 pointsize 0.6 "
          "linecolor rgb '#08519c' title ", g);
  }
  plot_string(g, label);
  fprintf(g, ", %.17g with lines dashtype 2 linecolor rgb '#555555' title 'the final estimate'", final);
  if (isfinite(exact))
    fprintf(g, ", %.17g with lines linecolor rgb '#d62728' title 'exact'", exact);
  fputc('\n', g);
  return plot_close(g, path);
}

enum { SLOPE_ABOVE = 4 };

int plot_study(const char *path, const char *title, const plot_study_rule *rules, int count, double floor,
               const char *floor_label)
{
  static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
  FILE *g = plot_open(path);
  if (!g)
    return EXIT_RUNTIME;
  for (int k = 0; k < count; k++) {
    const plot_study_rule *r = &rules[k];
    fprintf(g, "$e%d << EOD\n", k);
    for (int j = 0; j < r->count; j++)
      fprintf(g, "%.17g %.17g\n", r->n[j], fmax(r->error[j], floor));
    /* the expected slope, parallel to the errors, SLOPE_ABOVE times above
     * the last point well clear of rounding (the first ones may not be in
     * the asymptotic range yet; on the points it would hide under them),
     * drawn over every n where it stays above the floor */
    fprintf(g, "EOD\n$s%d << EOD\n", k);
    int anchor = 0;
    for (int j = 0; j < r->count; j++)
      if (r->error[j] > 100.0 * floor)
        anchor = j;
    for (int j = 0; j < r->count; j++) {
      const double slope = SLOPE_ABOVE * r->error[anchor] * pow(r->n[anchor] / r->n[j], r->order);
      if (slope >= floor)
        fprintf(g, "%.17g %.17g\n", r->n[j], slope);
    }
    fputs("EOD\n", g);
  }
  head(g, title, "n (intervals, or Gauss-Legendre panels)", "error");
  fprintf(g, "set logscale y 10\nset format y '1e%%T'\nset logscale x 2\nset format x '2^%%L'\n"
             "set key top right box opaque\nset yrange [%.3g:*]\nset offsets graph 0.02, graph 0.02, 0, 0\n",
          floor / 4);
  fputs("plot ", g);
  for (int k = 0; k < count; k++) {
    const char *colour = colours[k % 6];
    fprintf(g, "%s$e%d using 1:2 with linespoints pointtype 7 pointsize 0.7 linecolor rgb '%s' title '%s (order %d)', "
               "$s%d using 1:2 with lines dashtype 2 linecolor rgb '%s' notitle",
            k ? ", " : "", k, colour, rules[k].name, rules[k].order, k, colour);
  }
  fprintf(g, ", NaN with lines dashtype 2 linecolor rgb '#000000' title 'dashed: n^-order, x%d above the errors'",
          SLOPE_ABOVE);
  fprintf(g, ", %.17g with lines linecolor rgb '#999999' dashtype 3 title ", floor);
  plot_string(g, floor_label);
  fputc('\n', g);
  return plot_close(g, path);
}
