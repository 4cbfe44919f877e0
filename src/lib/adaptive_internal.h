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
/* The launch alone, on device pointers (b's arrays in device memory),
 * between the state's start and stop events, on its stream; no copy and no
 * synchronisation (the region store's evaluation step). */
int gq_cuda_adaptive_launch(gq_cuda_adaptive *s, const gq_adaptive_batch *device_batch);
struct gq_cuda_state *gq_cuda_adaptive_state(gq_cuda_adaptive *s);

/* The region store on the GPU (kernels/adaptive/store.cu), which adaptive.c
 * uses on the CUDA backend: the regions stay in device memory for the whole
 * integral, and a pass crosses the bus with sums, error bins and counts
 * alone, in two copies.  The decisions are adaptive.c's, taken from the bins
 * as for the host's store; the store carries them out:
 *   evaluate  the new regions [first, first + count) of the pass's range
 *             (all of it, or a rank's slice under a share), launched: the
 *             next step waits for it;
 *   results   the new regions' estimates, errors and axes to or from the
 *             host (a share's assembly);
 *   sums      of the held regions, and the first new one not finite; with
 *             them (or in a step of their own, count) the bins: the live
 *             regions' errors (err > retire share) by binary exponent, their
 *             sums and counts, which bins reads;
 *   apply     retire, split (every live region of a bin >= lowest, and
 *             take of bin cut, in a fixed order), compact: the kept regions
 *             first, the new halves after them.
 * Every step is deterministic: sums in fixed tiles merged in order, bins
 * as integers; so is the store's order. */
typedef struct gq_cuda_store gq_cuda_store;
typedef struct {
  gq_csum est, err;      /* sums: of the held regions; apply: of those retired */
  uint64_t bad;          /* sums: the first new region not finite, or UINT64_MAX */
  uint64_t retired, split; /* apply */
  uint64_t held, first;  /* the store after the step: regions held, the first new one */
  double eval_ms;        /* sums: the device time of the evaluation before them */
} gq_store_report;
enum { GQ_STORE_BINS = 2048 }; /* the exponent field of a double */
int gq_cuda_store_open(gq_cuda_adaptive *a, int dims, uint64_t cap, uint64_t n, const double *centre, const double *half,
                       const double *share, gq_cuda_store **out);
int gq_cuda_store_evaluate(gq_cuda_store *s, uint64_t first, uint64_t count);
int gq_cuda_store_results(gq_cuda_store *s, int to_host, uint64_t first, uint64_t count, double *estimate,
                          double *error, unsigned char *axis);
int gq_cuda_store_sums(gq_cuda_store *s, double retire, int bins, gq_store_report *rep);
int gq_cuda_store_count(gq_cuda_store *s, double retire); /* the bins alone, after sums without them */
void gq_cuda_store_bins(const gq_cuda_store *s, double *bin_err, uint64_t *bin_count); /* the bins, read */
int gq_cuda_store_apply(gq_cuda_store *s, double retire, int lowest, int cut, uint64_t take, uint64_t most_split,
                        gq_store_report *rep);
int gq_cuda_store_region(gq_cuda_store *s, uint64_t r, double *centre, double *half);
void gq_cuda_store_close(gq_cuda_store *s);
/* The new regions evaluated under ctx's share: this rank's slice on its
 * device, the slices assembled through the host on every rank
 * (adaptive_share.c); all of them without a share. */
int gq_shared_store_evaluate(gq_context *ctx, gq_cuda_store *s, uint64_t n);
/* Every pass over the device store ends here: the ranks' statuses agreed
 * (a step can fail on one rank alone), and *full (this rank's store could
 * not grow) made whether any rank's could not.  status as is without a
 * share. */
int gq_shared_store_agree(gq_context *ctx, int status, int *full);

/* For tests without a GPU: compile g's adaptive kernel for sm_<cc>. */
int gq_jit_adaptive_compile_only(const gq_integrand *g, int dims, int cc, size_t *cubin_size);

#ifdef __cplusplus
}
#endif
#endif
