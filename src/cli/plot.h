/* plot.h — `--plot FILE.png|svg` (issue 24): figures drawn by gnuplot,
 * looked up on PATH at run time (gpuquad does not depend on it), fed a
 * script and its data on a pipe.  The figures themselves live with their
 * commands: hist_plot.c, batch_output.c (sweeps), plots.c (integrate's
 * integrand and --study, mc's running estimate, scan and --cumulative). */
#ifndef GQ_CLI_PLOT_H
#define GQ_CLI_PLOT_H

#include <stdio.h>

#include "cli.h"

/* Bad input, found before any work: a name that is not FILE.png or
 * FILE.svg, or that gnuplot's quoting cannot carry; no gnuplot on PATH;
 * several ranks under mpirun.
 * EXIT_USAGE after a one-line message, EXIT_OK otherwise. */
int plot_check(const char *path);

/* gnuplot started on a pipe, its terminal and output set from path's
 * extension, text taken literally (noenhanced), a light grid; NULL after a
 * one-line message.  plot_close waits for it: EXIT_OK, or EXIT_RUNTIME when
 * gnuplot failed. */
FILE *plot_open(const char *path);
int plot_close(FILE *g, const char *path);

/* The full path of gnuplot on PATH into buf; 0 if there is none (plot_check
 * and plot_open look it up so; bench draws its own chart with it). */
int plot_find_gnuplot(char *buf, size_t size);

/* text as a gnuplot string: single quotes, a quote doubled. */
void plot_string(FILE *g, const char *text);

#endif
