/* plots.h — the figures of integrate, mc and scan (issue 24), drawn through
 * plot.h: a curve (the integrand on [a, b]; a cumulative integral; prefix
 * sums), a heat map (a 2-D integrand), a running estimate with its standard
 * error (mc), errors against n on log axes (integrate --study). */
#ifndef GQ_CLI_PLOTS_H
#define GQ_CLI_PLOTS_H

#include <stdint.h>

#include "cli.h"

/* Points of a long sequence kept for a curve: at most PLOT_SERIES_MAX,
 * evenly spaced in the index.  When full, every other point goes and the
 * stride doubles, so a stream of unknown length needs no second pass. */
#define PLOT_SERIES_MAX 4096
typedef struct {
  double x[PLOT_SERIES_MAX], y[PLOT_SERIES_MAX];
  size_t count;
  uint64_t stride, seen; /* keep index i when i % stride == 0 */
  double last_x, last_y; /* the sequence's end, drawn whatever the stride */
} plot_series;
void plot_series_init(plot_series *s);
/* Element i of the sequence (x its abscissa). */
void plot_series_add(plot_series *s, double x, double y);

/* integrate --plot: f can be drawn on a finite interval or a finite 2-D
 * box; refused (one line, EXIT_USAGE) before any work otherwise, as a bad
 * name or no gnuplot are (plot_check). */
int plot_integrand_check(const char *path, int dims, const double *a, const double *b);
/* f over [a, b] (a curve, the area shaded) or the box (a heat map), the
 * title naming the integral found and how ("simpson, n = 1000"). */
int plot_integrand(const char *path, const gq_integrand *f, int dims, const double *a, const double *b,
                   const char *how, double estimate);

/* A curve: title, axis labels; filled down to y = 0 when fill (an integral
 * is the area under it).  An exit status. */
int plot_curve(const char *path, const char *title, const char *xlabel, const char *ylabel, const plot_series *s,
               int fill);

/* f on [a0, b0] x [a1, b1] as a heat map with contours, sampled on a grid. */
int plot_heat_map(const char *path, const char *title, const gq_integrand *f, const double *a, const double *b);

/* mc: estimates with +/- one standard error against n, named label; as a
 * band on a log axis (running estimates over growing n), or with bars
 * (VEGAS's iterations); the final estimate's line, and the exact value's
 * when finite. */
int plot_running(const char *path, const char *title, const char *label, int bars, const double *n,
                 const double *estimate, const double *se, int count, double final, double exact);

/* integrate --study: each rule's errors against n on log axes, and the
 * slope n^-order of its expected order through its first point, drawn down
 * to floor (rounding: errors below it are drawn at it). */
#define PLOT_STUDY_MAX 64
typedef struct {
  char name[32];
  int order;
  double n[PLOT_STUDY_MAX], error[PLOT_STUDY_MAX];
  int count;
} plot_study_rule;
int plot_study(const char *path, const char *title, const plot_study_rule *rules, int count, double floor,
               const char *floor_label);

#endif
