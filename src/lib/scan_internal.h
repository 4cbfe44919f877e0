/* scan_internal.h — what the scans share between the library's entry points
 * (scan.c), the CPU backend (cpu/scan.c) and the CUDA backend
 * (kernels/scan/scan.cu). */
#ifndef GQ_SCAN_INTERNAL_H
#define GQ_SCAN_INTERNAL_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One scan of n elements of x into y (the same memory is allowed), from the
 * carry (never NULL here: zeros for none) and updating it. */
typedef struct {
  gq_scan_type type;
  int exclusive;
  gq_scan_method method;
  size_t n;
  const void *x;
  void *y;
} gq_scan_call;

/* The cumulative integral of f (f = scale g) on x_i = fma(i, h, a),
 * i = 0..n, x_n = b: F_0 = 0; the trapezoid F_i = h (g_0/2 + g_1 + ... +
 * g_{i-1} + g_i/2) scale, or (simpson, n >= 2) the sum of scipy's
 * cumulative_simpson intervals (kernels/scan/cumulative.cuh); the values
 * F_{jK} (j = 0, 1, ...) and F_n into out (gq_cumulative_count). */
typedef struct {
  const gq_integrand *f; /* an expression on the GPU (built-ins parsed from their formula) */
  double a, b, h;
  uint64_t n, every;
  double *out;
  int simpson;
  /* The points [first, first + points) of the grid (all: 0 and n + 1; a
   * share's part: first a multiple of every), whose values go to out from
   * value first / every on.  GPU: the terms' compensated prefix before first
   * (carry; NULL: zero), and their sum including it into *total (NULL: not
   * wanted).  The CPU's shares go by its chunks instead (cpu/scan.c). */
  uint64_t first, points;
  const gq_csum *carry;
  gq_csum *total;
} gq_cumulative_call;

/* The CPU cumulative integral's chunks of grid points: a share's parts are
 * whole chunks, so that its sums are one process's (cumulative_share.c). */
#define GQ_CPU_SCAN_CHUNK ((size_t)1 << 16)

int gq_cpu_scan(const gq_scan_call *p, gq_scan_carry *carry);
int gq_cpu_cumulative(const gq_cumulative_call *p, gq_grid_info *info);
/* Its two passes over p's points: each chunk's sum of terms into totals[c]
 * (c from the first chunk of p's points), then the values from each chunk's
 * compensated prefix offsets[c] (the sums of every chunk before it, merged
 * in order). */
int gq_cpu_cumulative_totals(const gq_cumulative_call *p, gq_csum *totals);
int gq_cpu_cumulative_values(const gq_cumulative_call *p, const gq_csum *offsets);
/* cumulative_share.c: gq_cumulative_integral's part on a shared context. */
int gq_shared_cumulative(gq_context *ctx, gq_cumulative_call *p, gq_grid_info *info);
/* kernels/scan/scan.cu, CUDA builds only */
int gq_cuda_scan(struct gq_cuda_state *st, const gq_scan_call *p, gq_scan_carry *carry);
int gq_cuda_cumulative(struct gq_cuda_state *st, const gq_cumulative_call *p, gq_grid_info *info);
/* kernels/scan/cumulative_jit.cu: compile the cumulative module of f (an
 * expression) for sm_<cc> without loading it (tests; no GPU needed). */
int gq_jit_cumulative_compile_only(const gq_integrand *f, int cc, size_t *cubin_size);

#ifdef __cplusplus
}
#endif
#endif
