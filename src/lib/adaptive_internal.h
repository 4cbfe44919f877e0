/* adaptive_internal.h — the one per-backend part of adaptive cubature
 * (adaptive.c drives it): evaluate a batch of regions with the rule of
 * adaptive_rule.h.  The CPU backend is cpu/adaptive.c; the GPU's is
 * kernels/adaptive/adaptive.cu (a session that keeps the compiled kernel
 * and device buffers of one integral from pass to pass). */
#ifndef GQ_ADAPTIVE_INTERNAL_H
#define GQ_ADAPTIVE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* n regions: region r has centre centre[r D + d] and half-widths
 * half[r D + d]; the backend writes its estimate, error and split axis
 * (0-based) at index r.  g is an expression (f = scale g: the driver
 * applies the scale) over finite limits. */
typedef struct {
  const gq_integrand *g;
  int dims;
  size_t n;
  const double *centre, *half;
  double *estimate, *error;
  unsigned char *axis;
} gq_adaptive_batch;

int gq_cpu_adaptive_evaluate(const gq_adaptive_batch *b, double *ms);
/* The batch evaluated under ctx's share (adaptive_share.c): this rank's
 * slice by the backend (cuda, or the CPU where NULL), every region's
 * results then assembled on every rank; the whole batch without a share.
 * ms: this rank's own evaluation time. */
typedef struct gq_cuda_adaptive gq_cuda_adaptive;
int gq_shared_adaptive_evaluate(gq_context *ctx, gq_cuda_adaptive *cuda, const gq_adaptive_batch *b, double *ms);

/* The CUDA backend: open loads (or compiles) g's kernel for dims; evaluate
 * copies the batch in (device buffers grow to the largest batch and stay
 * until close), runs one launch and copies the results back (ms: device
 * time). */
int gq_cuda_adaptive_open(struct gq_cuda_state *st, const gq_integrand *g, int dims,
                          gq_cuda_adaptive **out, gq_grid_info *info);
int gq_cuda_adaptive_evaluate(gq_cuda_adaptive *s, const gq_adaptive_batch *b, double *ms);
void gq_cuda_adaptive_close(gq_cuda_adaptive *s);
/* For tests without a GPU: compile g's adaptive kernel for sm_<cc>. */
int gq_jit_adaptive_compile_only(const gq_integrand *g, int dims, int cc, size_t *cubin_size);

#ifdef __cplusplus
}
#endif
#endif
