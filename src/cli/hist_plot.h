/* hist_plot.h — `gpuquad hist --plot FILE.png|svg`: the histogram drawn by
 * gnuplot, found on PATH at run time (gpuquad does not depend on it). */
#ifndef GQ_CLI_HIST_PLOT_H
#define GQ_CLI_HIST_PLOT_H

#include "cli.h"

/* Bad input before any work: a name that is not FILE.png or FILE.svg, or
 * that gnuplot's quoting cannot carry; no gnuplot on PATH.  Returns an exit
 * status after a one-line message, EXIT_OK otherwise. */
int hist_plot_check(const char *path);
/* Draw h (bars in 1-D, a heat map in 2-D) into path; EXIT_RUNTIME when
 * gnuplot fails. */
int hist_plot(const gq_hist *h, const char *path);

/* Shared with the sweeps' --plot (batch_output.c): the full path of gnuplot
 * on PATH into buf (0 if there is none); the gnuplot terminal for a FILE.png
 * or FILE.svg (NULL for any other name). */
int cli_find_gnuplot(char *buf, size_t size);
const char *cli_plot_terminal(const char *path);

#endif
