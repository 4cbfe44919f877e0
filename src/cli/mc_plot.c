/* mc_plot.c — mc's running estimate (mc_plot.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mc_plot.h"
#include "plots.h"

static void record(const gq_mc_progress *p, void *user)
{
  mc_trace *t = user;
  if (t->count == MC_TRACE_MAX)
    return;
  t->n[t->count] = (double)p->done;
  t->mean[t->count] = p->mean;
  t->se[t->count] = p->se;
  t->count++;
}

void mc_trace_attach(mc_trace *t, gq_mc_options *opt)
{
  t->count = 0;
  opt->progress = record;
  opt->progress_user = t;
}

/* Plain sampling: the estimates over the first n/2^j samples (j >= 1, down
 * to about a thousand), each a run of its own on the same stream: the cost
 * of one more run of n. */
static int prefixes(gq_context *ctx, const gq_integrand *f, const gq_mc_options *opt, const gq_mc_result *r,
                    double *n, double *estimate, double *se, int *count)
{
  enum { SMALLEST = 1000 };
  int k = 0;
  uint64_t sizes[64];
  for (uint64_t m = r->n / 2; m >= SMALLEST && k < 64; m /= 2)
    sizes[k++] = m;
  gq_mc_options prefix = *opt;
  prefix.tol = 0.0;
  prefix.progress = NULL;
  gq_context_set_progress(ctx, NULL, NULL); /* these runs are the plot's: no progress of their own */
  *count = 0;
  for (int j = k - 1; j >= 0; j--) {
    prefix.n = sizes[j];
    gq_mc_result p;
    const int status = gq_mc_mean(ctx, f, &prefix, &p);
    if (status != GQ_SUCCESS)
      return cli_error(cli_exit_status(status), "--plot: the first %llu samples: %s", (unsigned long long)sizes[j],
                       gq_last_error());
    n[*count] = (double)sizes[j];
    estimate[*count] = p.integral;
    se[*count] = p.integral_se;
    (*count)++;
  }
  n[*count] = (double)r->n;
  estimate[*count] = r->integral;
  se[*count] = r->integral_se;
  (*count)++;
  return EXIT_OK;
}

int mc_plot(const char *path, gq_context *ctx, const gq_integrand *f, const gq_mc_options *opt, mc_sampler sampler,
            const mc_trace *t, const gq_mc_result *r, double exact)
{
  static double n[MC_TRACE_MAX + 1], estimate[MC_TRACE_MAX + 1], se[MC_TRACE_MAX + 1];
  int count = 0;
  if (sampler == MC_PLAIN) {
    const int rc = prefixes(ctx, f, opt, r, n, estimate, se, &count);
    if (rc != EXIT_OK)
      return rc;
  } else {
    /* the reports are of the mean of f: times the volume, as the integral is */
    for (int k = 0; k < t->count; k++) {
      n[count] = t->n[k];
      estimate[count] = t->mean[k] * r->volume;
      se[count] = t->se[k] * r->volume; /* NaN for Sobol's first scrambling: no band there */
      count++;
    }
  }
  char title[512], box[256] = "";
  size_t at = 0;
  if (opt->dist == GQ_MC_NORMAL)
    snprintf(box, sizeof box, "E f(X), X ~ N(0, I)");
  else
    for (int d = 0; d < opt->dims && at < sizeof box; d++)
      at += (size_t)snprintf(box + at, sizeof box - at, "%s[%g, %g]", d ? " x " : "", opt->a[d], opt->b[d]);
  static const char *const how[] = {"plain Monte Carlo", "VEGAS+", "Sobol"};
  snprintf(title, sizeof title, "%s on %s (%s, seed %llu): %.10g +/- %.3g", gq_integrand_formula(f), box,
           how[sampler], (unsigned long long)opt->seed, r->integral, r->integral_se);
  static const char *const label[] = {"the estimate over the first n samples",
                                      "each iteration's estimate, at the samples drawn so far",
                                      "the scramblings' mean so far"};
  return plot_running(path, title, label[sampler], sampler == MC_VEGAS, n, estimate, se, count, r->integral, exact);
}
