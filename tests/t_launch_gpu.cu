// t_launch_gpu.cu — repeated reductions replay cached graphs
// (kernels/launch_cache.cu): the same bits on every call, alternating
// arguments each keep their own graph, new data behind the same pointers is
// read afresh, more keys than the cache holds stay correct, a caller's
// stream works, and an asynchronous call inside the caller's own stream
// capture is recorded (not replayed from our cache) and gives the
// synchronous result when the caller's graph runs.  Outputs are poisoned
// before every call.  Exits 77 (skipped) where there is no CUDA device.
#include <cmath>
#include <cstring>

#include <cuda_runtime.h>

#include "../src/gpuquad.h"
#include "tap.h"

#define POISON(v) memset(&(v), 0xA5, sizeof(v))
static const double U = 0x1p-53;

static gq_context *gpu;

// The full accumulator's dot (gq_dot_accumulate): another launch shape, so
// the two agree to within the compensated sums' error, not to the bit.
static double full_dot(size_t n, const double *x, const double *y)
{
  gq_sum_acc acc;
  gq_sum_acc_init(&acc);
  double v = NAN;
  if (gq_dot_accumulate(gpu, &acc, n, x, y) == GQ_SUCCESS)
    gq_sum_finish(&acc, GQ_NAN_PROPAGATE, &v);
  return v;
}

static bool near(double a, double b) { return std::fabs(a - b) <= 4 * U * std::fabs(b); }

static void repeated(double *x, double *y, size_t n)
{
  double first, v;
  gq_rms_result r1, r2, r;
  POISON(first);
  POISON(r1);
  POISON(r2);
  gq_dot(gpu, n, x, y, &first);
  gq_rms_diff(gpu, n, x, y, &r1);
  gq_rms_diff(gpu, n, y, x, &r2);
  bool same = true;
  for (int k = 0; k < 6; k++) {
    POISON(v);
    same &= gq_dot(gpu, n, x, y, &v) == GQ_SUCCESS && v == first;
    POISON(r);
    same &= gq_rms_diff(gpu, n, x, y, &r) == GQ_SUCCESS && r.rms == r1.rms && r.max_abs == r1.max_abs &&
            r.relative == r1.relative && r.n == n && r.nan_count == 0 && r.inf_count == 0;
    POISON(r);
    same &= gq_rms_diff(gpu, n, y, x, &r) == GQ_SUCCESS && r.rms == r2.rms && r.relative == r2.relative;
  }
  tap_ok(same, "n=%zu: 6 repeated gq_dot and alternating gq_rms_diff(x,y)/(y,x) give the first calls' bits", n);
  tap_ok(r1.rms == r2.rms && r1.relative != r2.relative && r1.max_abs == r2.max_abs,
         "n=%zu: rms and max |x-y| symmetric (%.17g), relative change not (%.17g vs %.17g)", n, r1.rms, r1.relative,
         r2.relative);
  const double full = full_dot(n, x, y);
  tap_ok(near(first, full), "n=%zu: finished dot %.17g, full accumulator %.17g", n, first, full);

  // New data behind the same pointers: a replayed graph reads it.
  gq_generate(gpu, GQ_GEN_NORMAL, n, 33, x);
  POISON(v);
  gq_dot(gpu, n, x, y, &v);
  const double full2 = full_dot(n, x, y);
  tap_ok(v != first && near(v, full2), "n=%zu: after new data the replayed dot is %.17g (full %.17g, before %.17g)",
         n, v, full2, first);
}

// More keys than the cache holds (16 graphs, one per size of a one-shot
// dot): every one still right, twice over.
static void many_keys(double *x, double *y)
{
  bool ok = true;
  for (int pass = 0; pass < 2; pass++)
    for (size_t n = 1000; n < 1000 + 20 * 777; n += 777) {
      double v;
      POISON(v);
      ok &= gq_dot(gpu, n, x, y, &v) == GQ_SUCCESS && near(v, full_dot(n, x, y));
    }
  tap_ok(ok, "20 sizes, twice each (more keys than the 16 cached graphs): every dot agrees with the full accumulator");
}

// The caller's stream, and the caller's capture of an asynchronous call.
static void callers_stream(double *x, double *y, size_t n)
{
  cudaStream_t s;
  double *d_out;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  gq_alloc(gpu, 2 * sizeof(double), (void **)&d_out);
  gq_context_set_stream(gpu, s);
  double sync_dot, v[2];
  POISON(sync_dot);
  bool ok = true;
  for (int k = 0; k < 3; k++) {
    double w;
    POISON(w);
    ok &= gq_dot(gpu, n, x, y, &w) == GQ_SUCCESS && (k == 0 ? (sync_dot = w, true) : w == sync_dot);
  }
  tap_ok(ok && near(sync_dot, full_dot(n, x, y)), "gq_dot on the caller's stream, 3 calls: %.17g", sync_dot);

  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  int status = GQ_EINVAL;
  if (cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess) {
    status = gq_dot_async(gpu, n, x, y, d_out);
    if (status == GQ_SUCCESS)
      status = gq_dot_async(gpu, n, y, x, d_out + 1);
    if (cudaStreamEndCapture(s, &graph) != cudaSuccess)
      status = GQ_ECUDA;
  }
  ok = status == GQ_SUCCESS && graph && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
  tap_ok(ok, "two gq_dot_async captured into the caller's graph: %s", ok ? "instantiated" : gq_last_error());
  for (int run = 0; ok && run < 2; run++) {
    cudaMemsetAsync(d_out, 0xA5, 2 * sizeof(double), s);
    cudaGraphLaunch(exec, s);
    cudaStreamSynchronize(s);
    gq_copy_from(gpu, v, d_out, sizeof v);
    tap_ok(v[0] == sync_dot && v[1] == sync_dot, "the caller's graph, run %d: %.17g and %.17g (synchronous %.17g)",
           run + 1, v[0], v[1], sync_dot);
  }
  if (exec)
    cudaGraphExecDestroy(exec);
  if (graph)
    cudaGraphDestroy(graph);
  gq_context_set_stream(gpu, nullptr);
  gq_free(gpu, d_out);
  cudaStreamDestroy(s);
}

int main()
{
  if (gq_cuda_device_count() == 0) {
    printf("1..0 # SKIP no CUDA device\n");
    return 77;
  }
  gpu = gq_context_create(0);
  if (!tap_ok(gpu != nullptr, "CUDA context: %s", gpu ? gq_context_device_name(gpu) : gq_last_error()))
    return tap_done();
  const size_t n = 1000003;
  double *x, *y;
  gq_alloc(gpu, n * sizeof(double), (void **)&x);
  gq_alloc(gpu, n * sizeof(double), (void **)&y);
  for (size_t m : {(size_t)1000, n}) {
    gq_generate(gpu, GQ_GEN_NORMAL, n, 31, x);
    gq_generate(gpu, GQ_GEN_UNIFORM, n, 32, y);
    repeated(x, y, m);
  }
  many_keys(x, y);
  callers_stream(x, y, n);
  gq_free(gpu, x);
  gq_free(gpu, y);
  gq_context_free(gpu);
  return tap_done();
}
