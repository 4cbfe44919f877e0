/* memory.c — vectors in the context's memory: allocation, upload and
 * generation on the backend that will reduce them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

int gq_alloc(gq_context *ctx, size_t bytes, void **ptr)
{
  if (!ptr)
    return gq_null_arg(__func__, "ptr");
  *ptr = NULL;
  if (!ctx)
    return gq_null_arg(__func__, "ctx");
  /* No object is larger (gq_span_fits); refusing here also keeps the
   * rounding up to whole 256-byte blocks below from wrapping to 0. */
  if (bytes > (size_t)PTRDIFF_MAX)
    return gq_fail(GQ_ENOMEM, "gq_alloc: %zu bytes are more than one object can hold", bytes);
  if (ctx->backend == GQ_BACKEND_CUDA)
    return gq_cuda_alloc(ctx->cuda, bytes, ptr);
  const size_t rounded = (bytes + 255) / 256 * 256;
  *ptr = aligned_alloc(256, rounded ? rounded : 256);
  if (!*ptr)
    return gq_fail(GQ_ENOMEM, "cannot allocate %zu bytes", bytes);
  return GQ_SUCCESS;
}

void gq_free(gq_context *ctx, void *ptr)
{
  if (!ptr)
    return;
  if (!ctx) { /* which allocator owns ptr is unknown: leave it */
    gq_null_arg(__func__, "ctx");
    return;
  }
  if (ctx->backend == GQ_BACKEND_CUDA)
    gq_cuda_free(ctx->cuda, ptr);
  else
    free(ptr);
}

/* Both copies: bytes == 0 needs no pointers; an impossible size fails
 * before memcpy or CUDA could touch memory. */
static int check_copy(const char *function, gq_context *ctx, void *dst, const void *src, size_t bytes)
{
  if (!ctx)
    return gq_null_arg(function, "ctx");
  if (bytes == 0)
    return GQ_SUCCESS;
  if (!dst || !src)
    return gq_null_arg(function, dst ? "src" : "dst");
  int status = gq_check_span(function, "dst", dst, bytes, 1);
  return status != GQ_SUCCESS ? status : gq_check_span(function, "src", src, bytes, 1);
}

int gq_copy_to(gq_context *ctx, void *dst, const void *src, size_t bytes)
{
  const int status = check_copy(__func__, ctx, dst, src, bytes);
  if (status != GQ_SUCCESS)
    return status;
  if (ctx->backend == GQ_BACKEND_CUDA)
    return gq_cuda_copy_to(ctx->cuda, dst, src, bytes);
  if (bytes)
    memcpy(dst, src, bytes);
  return GQ_SUCCESS;
}

int gq_copy_from(gq_context *ctx, void *dst, const void *src, size_t bytes)
{
  const int status = check_copy(__func__, ctx, dst, src, bytes);
  if (status != GQ_SUCCESS)
    return status;
  if (ctx->backend == GQ_BACKEND_CUDA)
    return gq_cuda_copy_from(ctx->cuda, dst, src, bytes);
  if (bytes)
    memcpy(dst, src, bytes);
  return GQ_SUCCESS;
}

/* Elements [first, first + count) of the vector of n. */
static int generate(const char *function, gq_context *ctx, gq_gen_kind kind, size_t n, size_t first,
                    size_t count, uint64_t seed, double *xd, float *xf)
{
  if (!ctx)
    return gq_null_arg(function, "ctx");
  if (kind != GQ_GEN_UNIFORM && kind != GQ_GEN_NORMAL && kind != GQ_GEN_LINSPACE)
    return gq_fail(GQ_EINVAL, "%s: unknown kind %d", function, (int)kind);
  if ((count > 0 && first % 4 != 0) || first > n || count > n - first)
    return gq_fail(GQ_EINVAL, "%s: elements [%zu, %zu + %zu) of %zu: the first must be a multiple of 4, the "
                   "range within n", function, first, first, count, n);
  if (count == 0)
    return GQ_SUCCESS;
  if (!xd && !xf)
    return gq_null_arg(function, "x");
  const int status = xd ? gq_check_span(function, "x", xd, count, sizeof *xd)
                        : gq_check_span(function, "x", xf, count, sizeof *xf);
  if (status != GQ_SUCCESS)
    return status;
  if (ctx->backend == GQ_BACKEND_CUDA)
    return gq_cuda_generate(ctx->cuda, kind, n, first, count, seed, xd, xf);
  gq_cpu_generate(kind, n, first, count, seed, xd, xf);
  return GQ_SUCCESS;
}

int gq_generate(gq_context *ctx, gq_gen_kind kind, size_t n, uint64_t seed, double *x)
{
  return generate(__func__, ctx, kind, n, 0, n, seed, x, NULL);
}

int gq_generate_f(gq_context *ctx, gq_gen_kind kind, size_t n, uint64_t seed, float *x)
{
  return generate(__func__, ctx, kind, n, 0, n, seed, NULL, x);
}

int gq_generate_range(gq_context *ctx, gq_gen_kind kind, size_t n, size_t first, size_t count, uint64_t seed,
                      double *x)
{
  return generate(__func__, ctx, kind, n, first, count, seed, x, NULL);
}

int gq_generate_range_f(gq_context *ctx, gq_gen_kind kind, size_t n, size_t first, size_t count, uint64_t seed,
                        float *x)
{
  return generate(__func__, ctx, kind, n, first, count, seed, NULL, x);
}
