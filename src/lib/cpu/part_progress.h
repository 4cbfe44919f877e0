/* part_progress.h — progress of the CPU backend's part loops (driver.c,
 * product.c; gpuquad.h's "progress" section): the team shares a count of
 * finished points, and only the calling thread (the team's thread 0) tells
 * the context's callback, so the count it reads only grows and the
 * caller's callback needs no lock. */
#ifndef GQ_CPU_PART_PROGRESS_H
#define GQ_CPU_PART_PROGRESS_H

#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../internal.h"

/* Part of count points done, of total; *done is the team's shared count. */
static inline void gq_part_progress(const gq_context *ctx, uint64_t *done, uint64_t count, uint64_t total)
{
  if (!ctx || !ctx->progress)
    return;
  uint64_t now;
#pragma omp atomic capture
  now = *done += count;
#ifdef _OPENMP
  if (omp_get_thread_num() != 0)
    return;
#endif
  if (now < total) /* the end is the loop's own last call, made once */
    gq_progress(ctx, now, total, "points");
}

/* The same on one thread outside any team (driver.c's loop of one). */
static inline void gq_part_progress_alone(const gq_context *ctx, uint64_t *done, uint64_t count, uint64_t total)
{
  *done += count;
  if (ctx && ctx->progress && *done < total)
    gq_progress(ctx, *done, total, "points");
}

#endif
