/* context.c — backend selection: a CUDA device or the CPU. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"

int gq_cuda_device_count(void)
{
  gq_context_prestart_wait();
  return gq_cuda_count();
}

/* libgomp starts its workers with the stack size OMP_STACKSIZE (else
 * GOMP_STACKSIZE) gives, parsed as libgomp parses it: a number and an
 * optional b, k (the default), m or g.  0 when neither is set or valid. */
static size_t omp_stacksize(const char *name)
{
  const char *s = getenv(name);
  if (!s)
    return 0;
  while (isspace((unsigned char)*s))
    s++;
  if (*s < '0' || *s > '9')
    return 0;
  errno = 0;
  char *end;
  const unsigned long long value = strtoull(s, &end, 10);
  while (isspace((unsigned char)*end))
    end++;
  int shift = 10;
  if (*end) {
    const char unit = (char)tolower((unsigned char)*end++);
    shift = unit == 'b' ? 0 : unit == 'k' ? 10 : unit == 'm' ? 20 : unit == 'g' ? 30 : -1;
    while (isspace((unsigned char)*end))
      end++;
  }
  if (errno || shift < 0 || *end || value > (SIZE_MAX >> shift))
    return 0;
  return (size_t)value << shift;
}

static void *no_work(void *arg) { return arg; }

/* Stack a CPU worker may use beyond its TLS: the backend's regions need
 * less (they run with OMP_STACKSIZE=16k where the TLS is small). */
#define GQ_CPU_WORKER_STACK ((size_t)16 << 10)

/* Can libgomp start a worker with room for ours?  glibc refuses a thread
 * whose stack cannot hold the static TLS of every loaded library (the CUDA
 * libraries' take more than 128 KiB), and libgomp answers a refused thread by
 * exiting the process; a stack that barely holds the TLS would overflow in
 * our code instead.  So start one thread with GQ_CPU_WORKER_STACK less stack
 * than libgomp will give its workers: if it starts, they have at least that
 * beyond their TLS; if not, the backend stays on the calling thread. */
static int workers_start;
static void probe_workers(void)
{
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0)
    return;
  size_t size = omp_stacksize("OMP_STACKSIZE");
  if (!size)
    size = omp_stacksize("GOMP_STACKSIZE");
  if (size)
    pthread_attr_setstacksize(&attr, size); /* refused: libgomp keeps the default too */
  pthread_t thread;
  if (pthread_attr_getstacksize(&attr, &size) == 0 && size > GQ_CPU_WORKER_STACK &&
      pthread_attr_setstacksize(&attr, size - GQ_CPU_WORKER_STACK) == 0 &&
      pthread_create(&thread, &attr, no_work, NULL) == 0)
    workers_start = pthread_join(thread, NULL) == 0;
  pthread_attr_destroy(&attr);
}

#ifdef _OPENMP
/* The processors this process may run on, counted once: libgomp asks the
 * kernel (sched_getaffinity) on every omp_get_num_procs, and the backend asks
 * for its team on every call (a sweep's packed problems: every problem). */
static int procs_counted;
static void count_procs(void) { procs_counted = omp_get_num_procs(); }
#endif

/* The CPU backend's team: what OpenMP would start (OMP_NUM_THREADS, else
 * one per processor; at most OMP_THREAD_LIMIT), but no more than
 * GQ_CPU_THREADS_PER_PROC per processor this process may run on and no more
 * than GQ_CPU_MAX_THREADS, and 1 where a worker could not start (above).
 * Every parallel region of the backend asks for exactly this many
 * (num_threads), so a huge OMP_NUM_THREADS cannot make libgomp create threads
 * until the system refuses, which libgomp answers by exiting the process.
 * The reductions are compute-bound: threads beyond the processors only add
 * partial sums, and results do not depend on the team. */
int gq_cpu_threads(void)
{
#ifdef _OPENMP
  const int limit = omp_get_thread_limit(); /* OMP_THREAD_LIMIT */
  const int asked = omp_get_max_threads() < limit ? omp_get_max_threads() : limit;
  static pthread_once_t counted = PTHREAD_ONCE_INIT;
  pthread_once(&counted, count_procs);
  const int procs = procs_counted;
  const int cap = procs > 0 && procs <= GQ_CPU_MAX_THREADS / GQ_CPU_THREADS_PER_PROC
                      ? procs * GQ_CPU_THREADS_PER_PROC
                      : GQ_CPU_MAX_THREADS;
  if (asked <= 1)
    return 1;
  static pthread_once_t probed = PTHREAD_ONCE_INIT;
  pthread_once(&probed, probe_workers);
  return !workers_start ? 1 : asked < cap ? asked : cap;
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
  gq_context_prestart_wait();
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
