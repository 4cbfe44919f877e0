/* progress.c — the context's progress callback (gpuquad.h's "progress"
 * section); the loops of long work call gq_progress (internal.h). */
#include "config.h"

#include "internal.h"

int gq_context_set_progress(gq_context *ctx, gq_progress_fn *fn, void *user)
{
  if (!ctx)
    return gq_null_arg(__func__, "ctx");
  ctx->progress = fn;
  ctx->progress_user = fn ? user : NULL;
  return GQ_SUCCESS;
}
