/* prestart.c — a context's slow start, begun before it is needed (issue 23).
 *
 * Most of a short GPU run is the opening of its device: on an H200 the CUDA
 * runtime's start takes ~100 ms and the device's primary context ~100 ms
 * more, and opening NVRTC for an expression ~6 ms, while the run's own host
 * work (its options, its problems' integrands and rules; for a sweep of
 * 10,000 integrals ~10 ms) needs no device at all.  gq_context_prestart
 * begins the opening on background threads: one for the runtime and the
 * context (gq_cuda_warm), one for NVRTC (gq_nvrtc_preload).  The next
 * gq_context_open waits for them (gq_context_prestart_wait) and then finds
 * the runtime, the context and NVRTC ready; it checks and reports everything
 * as if it had done the work itself.  The threads report nothing, call no
 * error handler and set no last error. */
#include "config.h"

#include <pthread.h>

#include "internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  int device;
  int warming, loading;    /* threads started and not yet joined */
  pthread_t warm, load;
} pre;

#ifdef HAVE_CUDA
static void *warm_device(void *arg)
{
  gq_cuda_warm(pre.device);
  return arg;
}

static void *load_nvrtc(void *arg)
{
  gq_nvrtc_preload();
  return arg;
}
#endif

int gq_context_prestart(int device, unsigned flags)
{
  if (device < GQ_DEVICE_CPU)
    return gq_fail(GQ_EINVAL, "gq_context_prestart: bad device %d", device);
#ifdef HAVE_CUDA
  if (device == GQ_DEVICE_CPU)
    return GQ_SUCCESS;
  pthread_mutex_lock(&lock);
  if (!pre.warming) {
    pre.device = device == GQ_DEVICE_AUTO ? 0 : device; /* the device AUTO opens, if any */
    pre.warming = pthread_create(&pre.warm, NULL, warm_device, NULL) == 0;
  }
  if ((flags & GQ_PRESTART_JIT) && !pre.loading)
    pre.loading = pthread_create(&pre.load, NULL, load_nvrtc, NULL) == 0;
  pthread_mutex_unlock(&lock);
#else
  (void)flags;
#endif
  return GQ_SUCCESS;
}

void gq_context_prestart_wait(void)
{
  pthread_mutex_lock(&lock);
  if (pre.warming)
    pthread_join(pre.warm, NULL);
  if (pre.loading)
    pthread_join(pre.load, NULL);
  pre.warming = pre.loading = 0;
  pthread_mutex_unlock(&lock);
}
