/* context.c — backend selection: a CUDA device or the CPU. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"

int gq_cuda_device_count(void) { return gq_cuda_count(); }

/* The CPU backend's team: what OpenMP would start (OMP_NUM_THREADS, else
 * one per processor; at most OMP_THREAD_LIMIT), but no more than
 * GQ_CPU_THREADS_PER_PROC per processor this process may run on and no more
 * than GQ_CPU_MAX_THREADS.  Every parallel region of the backend asks for
 * exactly this many (num_threads), so a huge OMP_NUM_THREADS cannot make
 * libgomp create threads until the system refuses, which libgomp answers by
 * exiting the process.  The reductions are compute-bound: threads beyond the
 * processors only add partial sums, and results do not depend on the team. */
int gq_cpu_threads(void)
{
#ifdef _OPENMP
  const int limit = omp_get_thread_limit(); /* OMP_THREAD_LIMIT */
  const int asked = omp_get_max_threads() < limit ? omp_get_max_threads() : limit;
  const int procs = omp_get_num_procs();
  const int cap = procs > 0 && procs <= GQ_CPU_MAX_THREADS / GQ_CPU_THREADS_PER_PROC
                ? procs * GQ_CPU_THREADS_PER_PROC
                : GQ_CPU_MAX_THREADS;
  return asked < 1 ? 1 : asked < cap ? asked : cap;
#else
  return 1;
#endif
}

int gq_context_open(gq_context **out, int device)
{
  if (!out)
    return gq_null_arg(__func__, "ctx");
  *out = NULL;
  if (device < GQ_DEVICE_CPU)
    return gq_fail(GQ_EINVAL, "gq_context_open: bad device %d", device);
  gq_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx)
    return gq_fail(GQ_ENOMEM, "cannot allocate a context");

  if (device == GQ_DEVICE_CPU || (device == GQ_DEVICE_AUTO && gq_cuda_count() == 0)) {
    ctx->backend = GQ_BACKEND_CPU;
    ctx->threads = gq_cpu_threads();
    snprintf(ctx->device_name, sizeof ctx->device_name, "CPU, %d OpenMP thread%s", ctx->threads,
             ctx->threads == 1 ? "" : "s");
  } else {
    int status = gq_cuda_open(device == GQ_DEVICE_AUTO ? 0 : device, &ctx->cuda, ctx->device_name,
                              sizeof ctx->device_name, &ctx->threads);
    if (status != GQ_SUCCESS) {
      free(ctx);
      return status;
    }
    ctx->backend = GQ_BACKEND_CUDA;
  }
  ctx->jit_cache = 1;
  gq_clear_error();
  *out = ctx;
  return GQ_SUCCESS;
}

gq_context *gq_context_create(int device)
{
  gq_context *ctx;
  return gq_context_open(&ctx, device) == GQ_SUCCESS ? ctx : NULL;
}

void gq_context_free(gq_context *ctx)
{
  if (!ctx)
    return;
  if (ctx->cuda)
    gq_cuda_close(ctx->cuda);
  free(ctx);
}

void gq_context_set_jit_cache(gq_context *ctx, int enabled)
{
  if (!ctx) {
    gq_null_arg(__func__, "ctx");
    return;
  }
  ctx->jit_cache = enabled != 0;
  if (ctx->cuda)
    gq_cuda_set_jit_cache(ctx->cuda, ctx->jit_cache);
}

int gq_context_set_stream(gq_context *ctx, void *stream)
{
  if (!ctx)
    return gq_null_arg(__func__, "ctx");
  if (ctx->backend != GQ_BACKEND_CUDA)
    return gq_fail(GQ_EUNSUP, "a CPU context has no CUDA stream");
  gq_cuda_set_stream(ctx->cuda, stream);
  return GQ_SUCCESS;
}

/* The getters of a NULL context say so and give a value no context has. */
int gq_context_backend(const gq_context *ctx)
{
  return ctx ? ctx->backend : (gq_null_arg(__func__, "ctx"), -1);
}

const char *gq_context_device_name(const gq_context *ctx)
{
  return ctx ? ctx->device_name : (gq_null_arg(__func__, "ctx"), "");
}

int gq_context_threads(const gq_context *ctx)
{
  return ctx ? ctx->threads : (gq_null_arg(__func__, "ctx"), 0);
}
