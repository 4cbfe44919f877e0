/* check.h — the checks: every reference a result is compared with, and the
 * verdict on the comparison, in one module (src/lib/check/):
 *   integral.c  reference integrals from GSL (and antiderivatives), the
 *               check of a rule (trapezoid, Simpson, Boole);
 *   vegas.c     the Monte Carlo reference (GSL VEGAS, plain MC for the
 *               normal distribution) and the z-score check;
 *   data.c      the host reference of the data reductions (below) and the
 *               checks of dot, rms and stats;
 *   verdict.c   the one rule that turns a comparison into a verdict;
 *   cubature.c  the reference of an integral over a box: separable.c's
 *               products of 1-D references, or libcubature's hcubature.
 * Each command's check is one gq_check_* call: reference, comparison and a
 * verdict with its message.  The decisions (tolerances, pass or fail, a check
 * that cannot be made) are made here; the CLI only chooses whether to check
 * and prints the outcome.
 *
 * The data reference (what `gpuquad dot|rms|stats --check` compares with) is
 * fed the same chunks as the reduction while it streams, so the input is read
 * once and the reference needs memory for nothing but its sums.
 *
 * It is another algorithm in another precision, so that it checks rather
 * than repeats: plain long double sums (x87 extended on x86-64: a 64-bit
 * significand, uL = 2^-64, and a 15-bit exponent, so no double data can
 * overflow them), and for the moments a two-pass shifted variance within each
 * chunk, merged across chunks by Chan's formulas — against the library's
 * one-pass double-double sums.  Each *_result function gives the reference
 * values and tolerances from the reference's own error bound (n terms:
 * gamma_n in uL) plus 2 ulp of ours; a statistic that is undefined (the
 * sample variance of one value) is NaN on both sides and agrees. */
#ifndef GQ_CHECK_H
#define GQ_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "../../gpuquad.h"

typedef enum { GQ_REF_DOT = 0, GQ_REF_RMS, GQ_REF_STATS } gq_ref_kind;

typedef struct gq_data_ref_ {
  gq_ref_kind kind;
  uint64_t seen;                  /* elements fed, per input                 */
  uint64_t n;                     /* finite terms, pairs or values           */
  uint64_t nan_count, posinf_count, neginf_count; /* the others           */
  long double sum, abs_sum;       /* dot: a*b, |a*b|; stats: x, |x|         */
  long double sq_diff, sq_ref;    /* rms: (a-b)^2, a^2; stats: x^2 (sq_ref) */
  double max_abs;                 /* rms: max |a - b| (a double, as ours)   */
  long double shift, offset, m2;  /* stats: mean = shift + offset, M2       */
  double min, max;                /* stats: over the finite values          */
  uint64_t argmin, argmax;
} gq_data_ref;

void gq_data_ref_init(gq_data_ref *r, gq_ref_kind kind);
/* The next n elements of x (and y for dot and rms), float or double. */
void gq_data_ref_feed(gq_data_ref *r, const void *x, const void *y, size_t n, int is_float);

typedef struct {
  double value, abs_sum, tol;
  uint64_t n;
} gq_ref_dot;
typedef struct {
  gq_rms_result r;
  double tol_rms, tol_relative;
} gq_ref_rms;
typedef struct {
  gq_stats_result r;
  double tol_sum, tol_mean, tol_var, tol_sd, tol_l1, tol_l2;
} gq_ref_stats;

/* ---- verdicts ------------------------------------------------------------ */
typedef enum {
  GQ_CHECK_PASSED = 0,
  GQ_CHECK_FAILED,   /* the result is beyond the tolerance                     */
  GQ_CHECK_NOT_MADE  /* no reference, or none that can vouch for the result:
                        no pass either                                         */
} gq_check_verdict;

typedef struct {
  gq_check_verdict verdict;
  int has_reference; /* the reference was computed (the caller's ref holds it) */
  /* For a failed check or one not made, what the CLI prints after
   * "gpuquad: ": "check failed: ..." or "check could not be made: ...". */
  char message[512];
} gq_check_outcome;

/* The outcome of a comparison with a reference (if has_reference) that
 * returned status (GQ_ECHECK: the reason is in gq_last_error()) at measure
 * (the tolerance or the z-score; NaN: the comparison could not be made). */
void gq_check_conclude(gq_check_outcome *out, int has_reference, int status, double measure);
/* "passed", "failed", "not made". */
const char *gq_check_name(gq_check_verdict verdict);

/* The data checks: the reference into *ref (under the NaN policy: propagate,
 * NaN and Inf flow as in gq_*_finish; omit, the finite ones only; stats: the
 * finite values), compared with what the reduction gave. */
void gq_check_dot(const gq_data_ref *r, gq_nan_policy policy, double dot, gq_ref_dot *ref, gq_check_outcome *out);
void gq_check_rms(const gq_data_ref *r, gq_nan_policy policy, const gq_rms_result *got, gq_ref_rms *ref,
                  gq_check_outcome *out);
void gq_check_stats(const gq_data_ref *r, const gq_stats_result *got, gq_ref_stats *ref, gq_check_outcome *out);

/* The estimate r of f on [a, b] by a rule against its reference (*ref, and
 * the tolerance from the rule's own error estimate, NaN when there is none).
 * GQ_SUCCESS with the outcome; the reference's own failure to run
 * (GQ_ENOMEM, GQ_ECUDA) is returned instead, with no verdict. */
int gq_check_rule(const gq_integrand *f, double a, double b, const gq_rule_result *r,
                  gq_precision precision, gq_reference *ref, double *tolerance, gq_check_outcome *out);
/* The same over a box (gq_integrate_box's result), against
 * gq_integrate_reference_box; gq_check_rule is this on a 1-D box. */
int gq_check_box(const gq_integrand *f, const gq_box *box, const gq_rule_result *r, gq_precision precision,
                 gq_reference *ref, double *tolerance, gq_check_outcome *out);

/* The Monte Carlo estimate r against the exact mean when exact is not NULL
 * (a check only where f's moments exist: a standard error means nothing
 * otherwise), else against GSL (gq_mc_reference_gsl); *ref and the z-score
 * (NaN when there is none) as for gq_check_rule. */
int gq_check_mc(const gq_integrand *f, const gq_mc_options *opt, const gq_mc_result *r, const double *exact,
                gq_mc_reference *ref, double *z, gq_check_outcome *out);

/* A streamed reduction (gq_dot_stream, gq_rms_stream, gq_stats_stream by the
 * reference's kind; acc the matching accumulator) that feeds every chunk to
 * ref as it is read. */
int gq_stream_checked(gq_context *ctx, gq_data_ref *ref, gq_reader *x, gq_reader *y, void *acc,
                      gq_stream_info *info);

/* ---- box references (gq_integrate_reference_box) ------------------------ */
/* f over a box of 2 or more dimensions as sums of products of 1-D references
 * (separable.c): *separable = 0, GQ_SUCCESS and ref untouched when f does
 * not separate; otherwise the reference (method GQ_REFERENCE_SEPARABLE;
 * the caller sets ref->width) or GQ_EDOM when a factor has none. */
int gq_separable_reference(const gq_integrand *f, const gq_box *box, gq_reference *ref, int *separable);
/* f (an expression) over a box by hcubature (cubature.c); GQ_EDOM short of
 * its tolerance, with its estimate in ref, or without libcubature. */
int gq_hcubature_reference(const gq_integrand *f, const gq_box *box, gq_reference *ref);

/* ---- adaptive cubature (adaptive.c) --------------------------------------- */
/* r (gq_integrate_adaptive's over o's box) against gq_integrate_reference_box
 * in up to GQ_MAX_DIM dimensions (not made beyond), as gq_check_box. */
int gq_check_adaptive(const gq_integrand *f, const gq_adaptive_options *o, const gq_adaptive_result *r,
                      gq_reference *ref, double *tolerance, gq_check_outcome *out);

/* ---- sampled data (samples.c) --------------------------------------------- */
typedef struct {
  double value, tol;
} gq_ref_samples;
/* gq_integrate_samples' result got against the same rule in long double
 * (each term, Neumaier-summed) over host copies of y and x (x NULL: the
 * spacing dx), within 16 ulp of the terms' parts plus 4 of the result. */
void gq_check_samples(const void *y, const void *x, size_t n, double dx, gq_rule rule, int is_float, double got,
                      gq_ref_samples *ref, gq_check_outcome *out);

#endif
