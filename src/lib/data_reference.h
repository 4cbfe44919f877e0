/* data_reference.h — the host reference of the data reductions (what
 * `gpuquad dot|rms|stats --check` compares with), fed the same chunks as the
 * reduction while it streams, so the input is read once and the reference
 * needs memory for nothing but its sums.
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
#ifndef GQ_DATA_REFERENCE_H
#define GQ_DATA_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "../gpuquad.h"

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

/* The reference under a NaN policy (propagate: NaN and Inf flow as in
 * gq_*_finish; omit: the finite ones only). */
void gq_data_ref_dot(const gq_data_ref *r, gq_nan_policy policy, gq_ref_dot *out);
void gq_data_ref_rms(const gq_data_ref *r, gq_nan_policy policy, gq_ref_rms *out);
void gq_data_ref_stats(const gq_data_ref *r, gq_ref_stats *out); /* the finite values */

/* A streamed reduction (gq_dot_stream, gq_rms_stream, gq_stats_stream by the
 * reference's kind; acc the matching accumulator) that feeds every chunk to
 * ref as it is read. */
int gq_stream_checked(gq_context *ctx, gq_data_ref *ref, gq_reader *x, gq_reader *y, void *acc,
                      gq_stream_info *info);

#endif
