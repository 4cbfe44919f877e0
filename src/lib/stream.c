/* stream.c — data reductions over readers (files, standard input), one
 * chunk at a time: the chunk source shared by both backends (reading one or
 * two inputs in step, widening, length checks), the CPU loop, and the
 * public gq_*_stream entry points.  The CUDA loop, which overlaps reading,
 * copying and reducing, is kernels/stream.cu. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "exact.h"
#include "check/check.h"
#include "io/reader.h"

enum { CPU_CHUNK = 1 << 20 }; /* elements per chunk on the CPU backend */

int gq_stream_src_init(gq_stream_src *s, gq_reader *x, gq_reader *y, size_t cap)
{
  memset(s, 0, sizeof *s);
  s->x = x;
  s->y = y;
  /* One reader cannot be read as two streams (each chunk would go to one of
   * them); the same data twice needs two readers. */
  if (y == x)
    return gq_fail(GQ_EINVAL, "the two inputs are the same reader (%s): open the data twice", gq_reader_name(x));
  s->want_float = gq_reader_dtype(x) == GQ_DTYPE_F32 && (!y || gq_reader_dtype(y) == GQ_DTYPE_F32);
  if (y) {
    const int64_t nx = gq_reader_length(x), ny = gq_reader_length(y);
    if (nx >= 0 && ny >= 0 && nx != ny)
      return gq_fail(GQ_EINVAL, "the lengths differ: %s has %lld elements, %s has %lld",
                     gq_reader_name(x), (long long)nx, gq_reader_name(y), (long long)ny);
  }
  if (!s->want_float) {
    s->widen = malloc(cap * sizeof(float));
    if (!s->widen)
      return gq_fail(GQ_ENOMEM, "cannot allocate a %zu-element buffer", cap);
  }
  return GQ_SUCCESS;
}

void gq_stream_src_free(gq_stream_src *s) { free(s->widen); }

/* Up to cap elements of r into buf, as float when want_float, else double. */
static int read_one(gq_stream_src *s, gq_reader *r, void *buf, size_t cap, size_t *got)
{
  char msg[512];
  const int f32 = gq_reader_dtype(r) == GQ_DTYPE_F32;
  void *dst = f32 && !s->want_float ? s->widen : buf;
  const double t0 = gq_wall_ms();
  const int status = gq_reader_read(r, dst, cap, got, msg, sizeof msg);
  s->read_ms += gq_wall_ms() - t0;
  if (status != GQ_SUCCESS)
    return gq_fail(status, "%s", msg);
  s->bytes += (double)*got * (double)gq_dtype_size(gq_reader_stored_dtype(r)); /* as read, before widening */
  if (dst != buf) {
    const float *in = s->widen;
    double *out = buf;
    for (size_t k = 0; k < *got; k++)
      out[k] = (double)in[k];
  }
  return GQ_SUCCESS;
}

/* Count what is left of r (after the other input ended). */
static int count_rest(gq_stream_src *s, gq_reader *r, void *buf, size_t cap, uint64_t *total)
{
  size_t got;
  do {
    const int status = read_one(s, r, buf, cap, &got);
    if (status != GQ_SUCCESS)
      return status;
    *total += got;
  } while (got > 0);
  return GQ_SUCCESS;
}

int gq_stream_src_next(gq_stream_src *s, void *xbuf, void *ybuf, size_t cap, size_t *got)
{
  size_t gx = 0, gy = 0;
  int status = read_one(s, s->x, xbuf, cap, &gx);
  if (status == GQ_SUCCESS && s->y)
    status = read_one(s, s->y, ybuf, cap, &gy);
  if (status != GQ_SUCCESS)
    return status;
  if (s->y && gx != gy) {
    uint64_t nx = s->delivered + gx, ny = s->delivered + gy;
    status = gx < gy ? count_rest(s, s->y, ybuf, cap, &ny) : count_rest(s, s->x, xbuf, cap, &nx);
    if (status != GQ_SUCCESS)
      return status;
    return gq_fail(GQ_EINVAL, "the lengths differ: %s has %llu elements, %s has %llu",
                   gq_reader_name(s->x), (unsigned long long)nx, gq_reader_name(s->y),
                   (unsigned long long)ny);
  }
  s->delivered += gx;
  *got = gx;
  /* the end, once: when the inputs end, what was read is the whole */
  if (gx == 0)
    gq_progress(s->progress, (uint64_t)s->bytes, (uint64_t)s->bytes, "bytes");
  else if (!s->total_bytes || (uint64_t)s->bytes < s->total_bytes)
    gq_progress(s->progress, (uint64_t)s->bytes, s->total_bytes, "bytes");
  if (s->observer && gx > 0) /* the check's reference sees each chunk once, as read */
    gq_data_ref_feed(s->observer, xbuf, s->y ? ybuf : NULL, gx, s->want_float);
  return GQ_SUCCESS;
}

static const char *busiest(double read_ms, double copy_ms, double compute_ms, const char *compute)
{
  if (read_ms >= copy_ms && read_ms >= compute_ms)
    return "disk";
  return copy_ms >= compute_ms ? "PCIe" : compute;
}

static int cpu_stream(gq_context *ctx, gq_reduce_kind kind, gq_stream_src *src, gq_reduce_acc *acc, gq_stream_info *info)
{
  const size_t esize = src->want_float ? sizeof(float) : sizeof(double);
  char *buf = malloc(2 * CPU_CHUNK * esize);
  if (!buf)
    return gq_fail(GQ_ENOMEM, "cannot allocate the chunk buffers");
  int status;
  for (;;) {
    size_t got;
    status = gq_stream_src_next(src, buf, buf + CPU_CHUNK * esize, CPU_CHUNK, &got);
    if (status != GQ_SUCCESS || got == 0)
      break;
    gq_array_reduce p = {kind, src->want_float, 0, got, buf, src->y ? buf + CPU_CHUNK * esize : NULL};
    gq_reduce_acc chunk;
    double ms = 0.0;
    status = gq_array_reduce_run(ctx, &p, &chunk, &ms);
    if (status != GQ_SUCCESS)
      break;
    info->compute_ms += ms;
    gq_reduce_acc_merge_chunk(kind, acc, &chunk);
  }
  free(buf);
  return status;
}

/* Deterministic: every chunk into an exact accumulator, on the context's
 * backend (a CUDA context copies each chunk to the device and waits: no
 * overlap yet, but the device's bandwidth rather than the host's cores). */
static int exact_stream(gq_context *ctx, gq_stream_src *src, size_t cap, struct gq_exact_acc *acc,
                        gq_stream_info *info)
{
  const int cuda = ctx->backend == GQ_BACKEND_CUDA;
  const size_t esize = src->want_float ? sizeof(float) : sizeof(double);
  char *buf = malloc(2 * cap * esize);
  struct gq_exact_acc *chunk = malloc(sizeof *chunk);
  void *dev = NULL;
  int status = buf && chunk ? GQ_SUCCESS : gq_fail(GQ_ENOMEM, "cannot allocate the chunk buffers");
  if (status == GQ_SUCCESS && cuda)
    status = gq_cuda_alloc(ctx->cuda, 2 * cap * esize, &dev);
  while (status == GQ_SUCCESS) {
    size_t got;
    status = gq_stream_src_next(src, buf, buf + cap * esize, cap, &got);
    if (status != GQ_SUCCESS || got == 0)
      break;
    const char *data = buf;
    double t0 = gq_wall_ms();
    if (cuda) {
      status = gq_cuda_copy_to(ctx->cuda, dev, buf, got * esize);
      if (status == GQ_SUCCESS && src->y)
        status = gq_cuda_copy_to(ctx->cuda, (char *)dev + cap * esize, buf + cap * esize, got * esize);
      data = dev;
      info->copy_ms += gq_wall_ms() - t0;
      t0 = gq_wall_ms();
    }
    gq_array_reduce p = {(gq_reduce_kind)acc->kind, src->want_float, 0, got, data, src->y ? data + cap * esize : NULL};
    if (status == GQ_SUCCESS)
      status = cuda ? gq_cuda_exact_reduce(ctx->cuda, &p, acc->magnitudes, chunk)
                    : gq_cpu_exact_reduce(&p, acc->magnitudes, chunk);
    info->compute_ms += gq_wall_ms() - t0;
    if (status == GQ_SUCCESS)
      gq_exact_acc_merge_chunk(acc, chunk);
  }
  if (dev)
    gq_cuda_free(ctx->cuda, dev);
  free(chunk);
  free(buf);
  return status;
}

/* The bytes of r's elements when its length is known in advance, else 0. */
static uint64_t input_bytes(const gq_reader *r)
{
  const int64_t n = gq_reader_length(r);
  return n > 0 ? (uint64_t)n * (uint64_t)gq_dtype_size(gq_reader_dtype(r)) : 0;
}

/* acc is the kind's accumulator, or (exact set) a gq_exact_acc. */
static int stream(gq_context *ctx, gq_reduce_kind kind, gq_reader *x, gq_reader *y, gq_reduce_acc *acc,
                  gq_stream_info *info, gq_data_ref *observer, struct gq_exact_acc *exact)
{
  gq_stream_info local;
  if (!info)
    info = &local;
  memset(info, 0, sizeof *info);
  if (!ctx || !x || (!acc && !exact) || ((kind == GQ_REDUCE_DOT || kind == GQ_REDUCE_RMS) && !y))
    return gq_fail(GQ_EINVAL, "streamed reduction: NULL argument");
  const double t0 = gq_wall_ms();
  gq_stream_src src;
  const size_t cap = ctx->backend == GQ_BACKEND_CUDA ? GQ_CUDA_STREAM_CHUNK : CPU_CHUNK;
  int status = gq_stream_src_init(&src, x, y, cap);
  src.observer = observer;
  src.progress = ctx;
  src.total_bytes = input_bytes(x) && (!y || input_bytes(y)) ? input_bytes(x) + (y ? input_bytes(y) : 0) : 0;
  /* Inputs whose length is known to be 0 (npy, raw from a file or memory)
   * give the identity (acc as it was) without a backend: nothing to stage,
   * copy or launch.  Others are read until they end, as always. */
  const int known_empty = gq_reader_length(x) == 0 && (!y || gq_reader_length(y) == 0);
  if (status == GQ_SUCCESS && !known_empty) {
    if (exact)
      status = exact_stream(ctx, &src, cap, exact, info);
    else if (ctx->backend == GQ_BACKEND_CUDA)
      status = gq_cuda_stream(ctx->cuda, kind, &src, acc, info);
    else
      status = cpu_stream(ctx, kind, &src, acc, info);
  }
  info->elements = src.delivered;
  info->bytes = src.bytes;
  info->read_ms = src.read_ms;
  info->wall_ms = gq_wall_ms() - t0;
  info->bound = busiest(info->read_ms, info->copy_ms, info->compute_ms,
                        ctx->backend == GQ_BACKEND_CUDA ? "GPU" : "CPU");
  gq_stream_src_free(&src);
  if (status == GQ_SUCCESS)
    gq_clear_error();
  return status;
}

#define GQ_ACC_ARG ((gq_reduce_acc *)(void *)(acc)) /* each type is a member at offset 0 */
int gq_sum_stream(gq_context *ctx, gq_reader *x, gq_sum_acc *acc, gq_stream_info *info)
{
  return stream(ctx, GQ_REDUCE_SUM, x, NULL, GQ_ACC_ARG, info, NULL, NULL);
}
int gq_dot_stream(gq_context *ctx, gq_reader *x, gq_reader *y, gq_sum_acc *acc, gq_stream_info *info)
{
  return stream(ctx, GQ_REDUCE_DOT, x, y, GQ_ACC_ARG, info, NULL, NULL);
}
int gq_rms_stream(gq_context *ctx, gq_reader *a, gq_reader *b, gq_rms_acc *acc, gq_stream_info *info)
{
  return stream(ctx, GQ_REDUCE_RMS, a, b, GQ_ACC_ARG, info, NULL, NULL);
}
int gq_stats_stream(gq_context *ctx, gq_reader *x, gq_stats_acc *acc, gq_stream_info *info)
{
  return stream(ctx, GQ_REDUCE_STATS, x, NULL, GQ_ACC_ARG, info, NULL, NULL);
}
#undef GQ_ACC_ARG

int gq_stream_checked(gq_context *ctx, gq_data_ref *ref, gq_reader *x, gq_reader *y, void *acc,
                      gq_stream_info *info)
{
  if (!ref)
    return gq_fail(GQ_EINVAL, "checked stream: NULL reference");
  static const gq_reduce_kind kinds[] = {GQ_REDUCE_DOT, GQ_REDUCE_RMS, GQ_REDUCE_STATS};
  return stream(ctx, kinds[ref->kind], x, y, acc, info, ref, NULL);
}

int gq_exact_stream_observed(gq_context *ctx, gq_reader *x, gq_reader *y, struct gq_exact_acc *acc,
                             gq_stream_info *info, gq_data_ref *observer)
{
  if (!acc)
    return gq_fail(GQ_EINVAL, "gq_exact_stream: NULL accumulator");
  return stream(ctx, (gq_reduce_kind)acc->kind, x, y, NULL, info, observer, acc);
}
