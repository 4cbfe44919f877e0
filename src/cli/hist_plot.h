/* hist_plot.h — `gpuquad hist --plot FILE.png|svg`: the histogram drawn by
 * gnuplot (plot.h: found on PATH at run time; plot_check before any work). */
#ifndef GQ_CLI_HIST_PLOT_H
#define GQ_CLI_HIST_PLOT_H

#include "cli.h"

/* Draw h (bars in 1-D, a heat map in 2-D) into path; EXIT_RUNTIME when
 * gnuplot fails. */
int hist_plot(const gq_hist *h, const char *path);

#endif
