// driver.cu — the device side of `gpuquad bench` behind src/cli/bench.h:
// buffers allocated once, one run of a method for verification, and the
// timed runs (CUDA events around each, after two warm-ups).
#include <cstdio>
#include <cstring>

#include "../../src/gpuquad.h"
#include "job.cuh"

using gqb::Error;

struct gqb_device {
  int device, sms;
  char name[256];
  cudaStream_t stream;
  cudaEvent_t start, stop;
  void *d_data, *d_copy; // max_n elements of 8 bytes each
  size_t max_n;
  void *d_out, *h_out;   // one value (16 bytes), device and pinned host
  void *partials[2], *h_partials;
  long long partial_capacity;
  unsigned *counter;
  int *lock;
  void *library_temp;
  size_t library_temp_bytes;
  void *cublas;              // opened by gqb_device_cublas when method 18 first runs
  const char *cublas_missing; // ... or why it could not be
};

namespace {

constexpr long long HOST_PARTIALS = 1 << 16; // method 12 copies one value per resident block

int fail(int status, char *err, size_t errlen, const char *what, const char *why)
{
  snprintf(err, errlen, "%s: %s", what, why);
  return status;
}

int cuda_fail(cudaError_t e, char *err, size_t errlen, const char *what)
{
  return fail(e == cudaErrorMemoryAllocation ? GQ_ENOMEM : GQ_ECUDA, err, errlen, what, cudaGetErrorString(e));
}

#define DRIVER_TRY(call, what)                           \
  do {                                                   \
    const cudaError_t driver_e_ = (call);                \
    if (driver_e_ != cudaSuccess)                        \
      return cuda_fail(driver_e_, err, errlen, what);    \
  } while (0)

Error dispatch_method(int method, gqb_type type, gqb_op op, gqb::Job &job)
{
  if (method >= 1 && method <= 7)
    return gqb::run_classic(method, type, op, job);
  if ((method >= 8 && method <= 11) || method == 16)
    return gqb::run_modular(method, type, op, job);
  if (method >= 12 && method <= 15)
    return gqb::run_combine(method, type, op, job);
  if (method == 17 || method == 18)
    return gqb::run_library(method, type, op, job);
  return "no such method on the device";
}

// The job for one reduction; method 17's temporary storage grows here,
// outside any timing.
int prepare(gqb_device *dev, int method, gqb_type type, gqb_op op, size_t n, gqb::Job *job, char *err, size_t errlen)
{
  if (n < 1 || n > dev->max_n)
    return fail(GQ_EINVAL, err, errlen, "n", "outside the allocated buffers");
  if (method == 17) {
    size_t bytes = 0;
    if (Error e = gqb::library_temp_bytes(type, op, (long long)n, &bytes))
      return fail(GQ_ECUDA, err, errlen, "cub temporary storage", e);
    if (bytes > dev->library_temp_bytes) {
      cudaFree(dev->library_temp);
      dev->library_temp = nullptr;
      dev->library_temp_bytes = 0;
      DRIVER_TRY(cudaMalloc(&dev->library_temp, bytes), "cudaMalloc (cub temporary storage)");
      dev->library_temp_bytes = bytes;
    }
  }
  *job = gqb::Job{};
  job->in = dev->d_data;
  job->n = (long long)n;
  job->out = dev->d_out;
  job->partials[0] = dev->partials[0];
  job->partials[1] = dev->partials[1];
  job->partial_capacity = method == 12 ? HOST_PARTIALS : dev->partial_capacity;
  job->h_partials = dev->h_partials;
  job->counter = dev->counter;
  job->lock = dev->lock;
  job->library_temp = dev->library_temp;
  job->library_temp_bytes = dev->library_temp_bytes;
  job->cublas = dev->cublas;
  job->stream = dev->stream;
  job->sms = dev->sms;
  return GQ_SUCCESS;
}

gqb_value widen(gqb_type type, gqb_op op, const void *p)
{
  gqb_value v = {0, 0.0, -1};
  switch (type) {
  case GQB_INT32:
    v.i = *static_cast<const int *>(p);
    break;
  case GQB_INT64:
    v.i = *static_cast<const long long *>(p);
    break;
  case GQB_FLOAT:
    v.f = *static_cast<const float *>(p);
    break;
  default:
    if (op == GQB_ARGMAX) {
      const gqb::IndexedValue *iv = static_cast<const gqb::IndexedValue *>(p);
      v.f = iv->value;
      v.index = iv->index;
    } else {
      v.f = *static_cast<const double *>(p);
    }
  }
  return v;
}

// Two warm-ups, then reps timed runs of run(): CUDA events on the bench's
// stream around each.  A run that synchronises with the host (method 12, the
// production path) is timed to the moment the host enqueues the stop event.
template <class Run> int timed(gqb_device *dev, int reps, double *us, Run run, char *err, size_t errlen)
{
  for (int r = -2; r < reps; r++) {
    DRIVER_TRY(cudaEventRecord(dev->start, dev->stream), "cudaEventRecord");
    const int status = run();
    if (status != GQ_SUCCESS)
      return status;
    DRIVER_TRY(cudaEventRecord(dev->stop, dev->stream), "cudaEventRecord");
    DRIVER_TRY(cudaEventSynchronize(dev->stop), "timed run");
    float ms = 0.0f;
    DRIVER_TRY(cudaEventElapsedTime(&ms, dev->start, dev->stop), "cudaEventElapsedTime");
    if (r >= 0)
      us[r] = 1e3 * (double)ms;
  }
  return GQ_SUCCESS;
}

} // namespace

extern "C" {

void gqb_device_close(gqb_device *dev)
{
  if (!dev)
    return;
  gqb::cublas_close(dev->cublas);
  cudaFree(dev->library_temp);
  cudaFree(dev->lock);
  cudaFree(dev->counter);
  cudaFreeHost(dev->h_partials);
  cudaFree(dev->partials[1]);
  cudaFree(dev->partials[0]);
  cudaFreeHost(dev->h_out);
  cudaFree(dev->d_out);
  cudaFree(dev->d_copy);
  cudaFree(dev->d_data);
  if (dev->start)
    cudaEventDestroy(dev->start);
  if (dev->stop)
    cudaEventDestroy(dev->stop);
  if (dev->stream)
    cudaStreamDestroy(dev->stream);
  delete dev;
}

static int open_device(gqb_device *dev, int device, size_t max_n, char *err, size_t errlen)
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
    return fail(GQ_ENODEV, err, errlen, "no CUDA device", "none is visible");
  if (device < 0 || device >= count)
    return fail(GQ_ENODEV, err, errlen, "no CUDA device", "no such device number");
  cudaDeviceProp prop;
  DRIVER_TRY(cudaSetDevice(device), "cudaSetDevice");
  DRIVER_TRY(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  dev->device = device;
  dev->sms = prop.multiProcessorCount;
  snprintf(dev->name, sizeof dev->name, "%s", prop.name);
  dev->max_n = max_n;
  // Method 1's first pass leaves one partial per BLOCK elements; a
  // resident grid of any method is far below 2^16 blocks.
  dev->partial_capacity = (long long)((max_n + gqb::BLOCK - 1) / gqb::BLOCK);
  if (dev->partial_capacity < HOST_PARTIALS)
    dev->partial_capacity = HOST_PARTIALS;
  const size_t partial_bytes = (size_t)dev->partial_capacity * sizeof(gqb::IndexedValue);
  DRIVER_TRY(cudaStreamCreateWithFlags(&dev->stream, cudaStreamNonBlocking), "cudaStreamCreate");
  DRIVER_TRY(cudaEventCreate(&dev->start), "cudaEventCreate");
  DRIVER_TRY(cudaEventCreate(&dev->stop), "cudaEventCreate");
  DRIVER_TRY(cudaMalloc(&dev->d_data, max_n * sizeof(double)), "cudaMalloc (data)");
  DRIVER_TRY(cudaMalloc(&dev->d_copy, max_n * sizeof(double)), "cudaMalloc (copy buffer)");
  DRIVER_TRY(cudaMalloc(&dev->d_out, sizeof(gqb::IndexedValue)), "cudaMalloc");
  DRIVER_TRY(cudaMallocHost(&dev->h_out, sizeof(gqb::IndexedValue)), "cudaMallocHost");
  DRIVER_TRY(cudaMalloc(&dev->partials[0], partial_bytes), "cudaMalloc (partials)");
  DRIVER_TRY(cudaMalloc(&dev->partials[1], partial_bytes), "cudaMalloc (partials)");
  DRIVER_TRY(cudaMallocHost(&dev->h_partials, HOST_PARTIALS * sizeof(gqb::IndexedValue)), "cudaMallocHost");
  DRIVER_TRY(cudaMalloc(&dev->counter, sizeof(unsigned)), "cudaMalloc");
  DRIVER_TRY(cudaMalloc(&dev->lock, sizeof(int)), "cudaMalloc");
  DRIVER_TRY(cudaMemset(dev->counter, 0, sizeof(unsigned)), "cudaMemset");
  DRIVER_TRY(cudaMemset(dev->lock, 0, sizeof(int)), "cudaMemset");
  return GQ_SUCCESS;
}

int gqb_device_open(int device, size_t max_n, gqb_device **out, char *err, size_t errlen)
{
  gqb_device *dev = new gqb_device{};
  const int status = open_device(dev, device, max_n, err, errlen);
  if (status != GQ_SUCCESS) {
    gqb_device_close(dev);
    dev = nullptr;
  }
  *out = dev;
  return status;
}

const char *gqb_device_cublas(gqb_device *dev)
{
  if (!dev->cublas && !dev->cublas_missing)
    dev->cublas_missing = gqb::cublas_open(&dev->cublas);
  return dev->cublas_missing;
}

const char *gqb_device_name(const gqb_device *dev) { return dev->name; }
int gqb_device_sms(const gqb_device *dev) { return dev->sms; }
const void *gqb_device_data(const gqb_device *dev) { return dev->d_data; }

int gqb_generate(gqb_device *dev, gqb_type type, size_t n, void *h_copy, char *err, size_t errlen)
{
  if (n < 1 || n > dev->max_n)
    return fail(GQ_EINVAL, err, errlen, "n", "outside the allocated buffers");
  if (Error e = gqb::generate(type, dev->d_data, (long long)n, dev->sms, dev->stream))
    return fail(GQ_ECUDA, err, errlen, "generating the data", e);
  DRIVER_TRY(cudaMemcpyAsync(h_copy, dev->d_data, n * gqb_type_size(type), cudaMemcpyDeviceToHost, dev->stream),
             "copying the data to the host");
  DRIVER_TRY(cudaStreamSynchronize(dev->stream), "generating the data");
  return GQ_SUCCESS;
}

int gqb_run(gqb_device *dev, int method, gqb_type type, gqb_op op, size_t n, gqb_value *result, uint64_t *depth,
            char *err, size_t errlen)
{
  gqb::Job job;
  const int status = prepare(dev, method, type, op, n, &job, err, errlen);
  if (status != GQ_SUCCESS)
    return status;
  // A result the method does not write must not pass as the last method's.
  DRIVER_TRY(cudaMemsetAsync(dev->d_out, 0xa5, sizeof(gqb::IndexedValue), dev->stream), "cudaMemset");
  if (Error e = dispatch_method(method, type, op, job))
    return fail(GQ_ECUDA, err, errlen, gqb_method_at(method)->name, e);
  DRIVER_TRY(cudaStreamSynchronize(dev->stream), gqb_method_at(method)->name);
  if (!job.result_on_host) {
    DRIVER_TRY(cudaMemcpy(dev->h_out, dev->d_out, sizeof(gqb::IndexedValue), cudaMemcpyDeviceToHost), "copying the result");
  }
  *result = widen(type, op, job.result_on_host ? dev->h_partials : dev->h_out);
  *depth = job.depth;
  return GQ_SUCCESS;
}

int gqb_time(gqb_device *dev, int method, gqb_type type, gqb_op op, size_t n, int reps, double *us, char *err,
             size_t errlen)
{
  gqb::Job job;
  const int status = prepare(dev, method, type, op, n, &job, err, errlen);
  if (status != GQ_SUCCESS)
    return status;
  return timed(dev, reps, us, [&]() -> int {
    if (Error e = dispatch_method(method, type, op, job))
      return fail(GQ_ECUDA, err, errlen, gqb_method_at(method)->name, e);
    return GQ_SUCCESS;
  }, err, errlen);
}

void *gqb_device_stream(gqb_device *dev) { return dev->stream; }

int gqb_time_call(gqb_device *dev, int (*call)(void *), void *arg, int reps, double *us, char *err, size_t errlen)
{
  return timed(dev, reps, us, [&]() -> int {
    const int s = call(arg);
    return s == GQ_SUCCESS ? s : fail(s, err, errlen, "production path", gq_last_error());
  }, err, errlen);
}

int gqb_copy_time(gqb_device *dev, size_t bytes, int reps, double *us, char *err, size_t errlen)
{
  if (bytes > dev->max_n * sizeof(double))
    return fail(GQ_EINVAL, err, errlen, "copy", "more bytes than the buffers hold");
  return timed(dev, reps, us, [&]() -> int {
    if (Error e = gqb::copy(dev->d_data, dev->d_copy, bytes, dev->sms, dev->stream))
      return fail(GQ_ECUDA, err, errlen, "copy kernel", e);
    return GQ_SUCCESS;
  }, err, errlen);
}

} // extern "C"
