/* memory.c — vectors in the context's memory: allocation, upload and
 * generation on the backend that will reduce them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

int gq_alloc(gq_context *ctx, size_t bytes, void **ptr)
{
  if (!ctx || !ptr)
    return gq_fail(GQ_EINVAL, "gq_alloc: NULL argument");
  *ptr = NULL;
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
  if (!ctx || !ptr)
    return;
  if (ctx->backend == GQ_BACKEND_CUDA)
    gq_cuda_free(ctx->cuda, ptr);
  else
    free(ptr);
}

int gq_copy_to(gq_context *ctx, void *dst, const void *src, size_t bytes)
{
  if (!ctx || (bytes && (!dst || !src)))
    return gq_fail(GQ_EINVAL, "gq_copy_to: NULL argument");
  if (ctx->backend == GQ_BACKEND_CUDA)
    return gq_cuda_copy_to(ctx->cuda, dst, src, bytes);
  if (bytes)
    memcpy(dst, src, bytes);
  return GQ_SUCCESS;
}

int gq_copy_from(gq_context *ctx, void *dst, const void *src, size_t bytes)
{
  if (!ctx || (bytes && (!dst || !src)))
    return gq_fail(GQ_EINVAL, "gq_copy_from: NULL argument");
  if (ctx->backend == GQ_BACKEND_CUDA)
    return gq_cuda_copy_from(ctx->cuda, dst, src, bytes);
  if (bytes)
    memcpy(dst, src, bytes);
  return GQ_SUCCESS;
}

static int generate(gq_context *ctx, gq_gen_kind kind, size_t n, uint64_t seed, double *xd, float *xf)
{
  if (!ctx || (n && !xd && !xf))
    return gq_fail(GQ_EINVAL, "gq_generate: NULL argument");
  if (kind != GQ_GEN_UNIFORM && kind != GQ_GEN_NORMAL && kind != GQ_GEN_LINSPACE)
    return gq_fail(GQ_EINVAL, "gq_generate: unknown kind %d", (int)kind);
  if (n == 0)
    return GQ_SUCCESS;
  if (ctx->backend == GQ_BACKEND_CUDA)
    return gq_cuda_generate(ctx->cuda, kind, n, seed, xd, xf);
  gq_cpu_generate(kind, n, seed, xd, xf);
  return GQ_SUCCESS;
}

int gq_generate(gq_context *ctx, gq_gen_kind kind, size_t n, uint64_t seed, double *x)
{
  return generate(ctx, kind, n, seed, x, NULL);
}

int gq_generate_f(gq_context *ctx, gq_gen_kind kind, size_t n, uint64_t seed, float *x)
{
  return generate(ctx, kind, n, seed, NULL, x);
}
