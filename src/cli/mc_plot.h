/* mc_plot.h — `gpuquad mc --plot FILE.png|svg` (issue 24): the running
 * estimate of the integral with +/- one standard error against n.  Plain
 * sampling draws one batch at a time, so the running values come from the
 * same stream honestly: the estimates over the first n/2, n/4, ... samples
 * (the same seed, the same counters) by runs of their own after the main
 * one, whose result stays what is printed.  Sobol's running values are its
 * scramblings' mean so far; VEGAS's are its iterations' own estimates. */
#ifndef GQ_CLI_MC_PLOT_H
#define GQ_CLI_MC_PLOT_H

#include "cli.h"

enum { MC_TRACE_MAX = 1100 }; /* VEGAS's and Sobol's reports at most */
typedef struct {
  double n[MC_TRACE_MAX], mean[MC_TRACE_MAX], se[MC_TRACE_MAX];
  int count;
} mc_trace;

typedef enum { MC_PLAIN, MC_VEGAS, MC_SOBOL } mc_sampler;

/* Record opt's progress reports into t (before the main run). */
void mc_trace_attach(mc_trace *t, gq_mc_options *opt);
/* Draw: r the main run's result, t its reports, exact NaN when not given. */
int mc_plot(const char *path, gq_context *ctx, const gq_integrand *f, const gq_mc_options *opt, mc_sampler sampler,
            const mc_trace *t, const gq_mc_result *r, double exact);

#endif
