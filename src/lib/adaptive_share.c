/* adaptive_share.c — adaptive cubature's evaluation step under a context's
 * share (gpuquad.h, gq_context_set_share): the one step of a pass that the
 * ranks divide.
 *
 * Every rank holds the same region store and makes the same decisions on
 * the host (adaptive.c); only the evaluation of a pass's new regions is cut:
 * rank r evaluates the contiguous slice gq_share_range gives it, and the
 * slices' estimates, errors and split axes are assembled on every rank
 * through the combine.  Every region costs the same evaluations, so the
 * slices of each pass are its work divided evenly: the work is rebalanced
 * every pass by construction, however the subdivision concentrates.  A
 * region's results depend on that region alone and the sums are taken on
 * the host in store order, so the result is bitwise one process's on the
 * same backend for every number of ranks.
 *
 * The combine gathers equal partials from every rank and merges them in
 * rank order, so a partial that can hold the assembled results holds a
 * whole stretch of the pass, of which each rank fills its slice: a pass of
 * n regions moves n RECORD bytes from each rank and K times that into each
 * (the least this contract allows: a gather of unequal parts, each rank
 * sending its slice alone, would move K times less into each).  The pass goes through in windows of at most WINDOW regions, one
 * combine each, so the buffers of a combine stay bounded whatever the pass
 * (WINDOW RECORD bytes, 1.06 MiB, from each rank, K times that gathered).
 *
 * On the CUDA backend the regions live in the device's store (store.cu):
 * each rank evaluates its slice there, the slices are assembled through the
 * host as above and put back into every rank's store, whose steps are
 * deterministic: so GPU ranks, too, give one GPU process's bits. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "adaptive_internal.h"

enum { WINDOW = 65536 }; /* regions per combine */
/* a region's results: estimate, error, axis */
#define RECORD (2 * sizeof(double) + sizeof(unsigned char))

/* A window's partial, as bytes: this header, then the window's estimates,
 * errors and axes (length each), of which the sender wrote [first, first +
 * count).  Read and written by memcpy: the combine may hand partials at any
 * alignment. */
typedef struct {
  uint64_t first, count, length; /* window-relative */
} window_header;

static size_t window_bytes(size_t length) { return sizeof(window_header) + length * RECORD; }

/* The offsets in a window's partial of its three arrays. */
static void window_arrays(uint64_t length, size_t at[3])
{
  at[0] = sizeof(window_header);
  at[1] = at[0] + length * sizeof(double);
  at[2] = at[1] + length * sizeof(double);
}

/* The merge: the other rank's slice into acc. */
static void merge_slice(void *acc, const void *other)
{
  window_header h;
  memcpy(&h, other, sizeof h);
  size_t at[3];
  window_arrays(h.length, at);
  unsigned char *dst = acc;
  const unsigned char *src = other;
  memcpy(dst + at[0] + h.first * sizeof(double), src + at[0] + h.first * sizeof(double), h.count * sizeof(double));
  memcpy(dst + at[1] + h.first * sizeof(double), src + at[1] + h.first * sizeof(double), h.count * sizeof(double));
  memcpy(dst + at[2] + h.first, src + at[2] + h.first, h.count);
}

static int backend_evaluate(gq_cuda_adaptive *cuda, const gq_adaptive_batch *b, double *ms)
{
  if (b->n == 0)
    return GQ_SUCCESS;
  return cuda ? gq_cuda_adaptive_evaluate(cuda, b, ms) : gq_cpu_adaptive_evaluate(b, ms);
}

/* Every rank's slice of b's results, [first, first + count) being this
 * rank's (status its own evaluation's), assembled in b on every rank. */
static int assemble(gq_context *ctx, const gq_adaptive_batch *b, uint64_t first, uint64_t count, int status)
{
  const size_t largest = b->n < WINDOW ? b->n : WINDOW;
  unsigned char *partial = malloc(window_bytes(largest));
  if (!partial && status == GQ_SUCCESS)
    status = gq_fail(GQ_ENOMEM, "cannot allocate a window of %zu regions' results", largest);
  /* every rank evaluated its slice and holds a buffer, or every rank
   * stops here: the windows' combines are then reached by all */
  status = gq_shared_agree(ctx, status);
  for (size_t w0 = 0; status == GQ_SUCCESS && w0 < b->n; w0 += WINDOW) {
    const size_t length = b->n - w0 < WINDOW ? b->n - w0 : WINDOW;
    /* this rank's slice within the window, if any */
    const uint64_t lo = first > w0 ? first : w0, end = first + count, hi = end < w0 + length ? end : w0 + length;
    const window_header h = hi > lo ? (window_header){lo - w0, hi - lo, length} : (window_header){0, 0, length};
    size_t at[3];
    window_arrays(length, at);
    memset(partial, 0, window_bytes(length)); /* the bytes sent are defined: zeros outside the slice */
    memcpy(partial, &h, sizeof h);
    memcpy(partial + at[0] + h.first * sizeof(double), b->estimate + w0 + h.first, h.count * sizeof(double));
    memcpy(partial + at[1] + h.first * sizeof(double), b->error + w0 + h.first, h.count * sizeof(double));
    memcpy(partial + at[2] + h.first, b->axis + w0 + h.first, h.count);
    status = gq_shared_combine(ctx, partial, window_bytes(length), merge_slice, status);
    if (status != GQ_SUCCESS)
      break;
    /* the window assembled: every rank's slice, in rank order */
    memcpy(b->estimate + w0, partial + at[0], length * sizeof(double));
    memcpy(b->error + w0, partial + at[1], length * sizeof(double));
    memcpy(b->axis + w0, partial + at[2], length);
  }
  free(partial);
  return status;
}

int gq_shared_adaptive_evaluate(gq_context *ctx, gq_cuda_adaptive *cuda, const gq_adaptive_batch *b, double *ms)
{
  if (ctx->share.ranks <= 1)
    return backend_evaluate(cuda, b, ms);
  const size_t D = (size_t)b->dims;
  uint64_t first, count;
  gq_share_range(b->n, 1, ctx->share.rank, ctx->share.ranks, &first, &count);
  const gq_adaptive_batch mine = {b->g, b->dims, (size_t)count, b->centre + first * D, b->half + first * D,
                                  b->estimate + first, b->error + first, b->axis + first};
  return assemble(ctx, b, first, count, backend_evaluate(cuda, &mine, ms));
}

/* The device store's pass: each rank evaluates its slice on its device and
 * brings it to the host, the slices are assembled as above, and every rank
 * puts the whole pass's results back into its store, which then holds what
 * one process's would. */
int gq_shared_store_evaluate(gq_context *ctx, gq_cuda_store *s, uint64_t n)
{
  if (ctx->share.ranks <= 1)
    return gq_cuda_store_evaluate(s, 0, n);
  uint64_t first, count;
  gq_share_range(n, 1, ctx->share.rank, ctx->share.ranks, &first, &count);
  gq_adaptive_batch all = {NULL, 0, (size_t)n, NULL, NULL, malloc(n * sizeof(double) + 1),
                           malloc(n * sizeof(double) + 1), malloc(n + 1)};
  int status = all.estimate && all.error && all.axis
                   ? GQ_SUCCESS
                   : gq_fail(GQ_ENOMEM, "cannot allocate the results of a pass of %llu regions", (unsigned long long)n);
  if (status == GQ_SUCCESS && count > 0)
    status = gq_cuda_store_evaluate(s, first, count);
  if (status == GQ_SUCCESS && count > 0)
    status = gq_cuda_store_results(s, 1, first, count, all.estimate + first, all.error + first, all.axis + first);
  status = assemble(ctx, &all, first, count, status);
  if (status == GQ_SUCCESS && n > 0)
    status = gq_cuda_store_results(s, 0, 0, n, all.estimate, all.error, all.axis);
  free(all.estimate);
  free(all.error);
  free(all.axis);
  return status;
}

/* A pass's end under a share.  The ranks' stores hold the same regions and
 * their decisions are the same, but a device step of a rank's own (the
 * sums, the bins, the apply, the copies back) can fail on that rank alone:
 * so every pass ends here on every rank, failed or not, and all go on or
 * all stop.  *full: this rank's store could not grow (the apply's
 * GQ_ENOMEM, which adaptive.c turns into a stop like a full store); on
 * return, whether any rank's could not. */
static void merge_full(void *acc, const void *other)
{
  unsigned char a, b;
  memcpy(&a, acc, 1);
  memcpy(&b, other, 1);
  a |= b;
  memcpy(acc, &a, 1);
}

int gq_shared_store_agree(gq_context *ctx, int status, int *full)
{
  if (ctx->share.ranks <= 1)
    return status;
  unsigned char flag = *full != 0;
  status = gq_shared_combine(ctx, &flag, sizeof flag, merge_full, status);
  *full = flag;
  return status;
}
