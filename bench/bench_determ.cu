// bench_determ.cu — deterministic mode (issue 20) against the fast path, in
// one run on one device: sum and dot at 2^28 doubles (bandwidth), stats at
// 2^28, and the one-shot latency of sum at 2^20 (and by size, 2^0..2^20); CUB's DeviceReduce::Sum
// beside them, and CUB's gpu_to_gpu deterministic sum where the toolkit's
// CCCL has it (built with -DGQ_HAVE_CUB_GPU_TO_GPU=1 by bench/gpu_determ.sh
// when a probe compiles).  Every result is verified before it is timed: the
// GPU's deterministic bits against a CPU deterministic context on the same
// data, the fast path within 4 ulp of them, CUB within 1e-12 relative.
// Timing: the host clock around each synchronous call (the one-shot calls
// copy their result back), median of REPS after warm-up; CUB by CUDA events.
//   bench/bench_determ [log2_n_big] [reps]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cub/device/device_reduce.cuh>
#if GQ_HAVE_CUB_GPU_TO_GPU
#include <cuda/__execution/determinism.h>
#include <cuda/__execution/require.h>
#endif

#include "../src/gpuquad.h"
#include "timing.cuh"

namespace {

#define GQ_OK(call)                                                                                     \
  do {                                                                                                  \
    if ((call) != GQ_SUCCESS) {                                                                         \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, gq_last_error());                   \
      exit(1);                                                                                          \
    }                                                                                                   \
  } while (0)

int failures;

void verify(bool ok, const char *what, double got, double want)
{
  printf("  verify %-52s %s (%.17g, want %.17g)\n", what, ok ? "ok" : "FAILED", got, want);
  failures += !ok;
}

bool within_ulps(double a, double b, double ulps)
{
  return std::fabs(a - b) <= ulps * (std::nextafter(std::fabs(b), INFINITY) - std::fabs(b));
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct Data {
  size_t n;
  double *d_x, *d_y; // on the device (gq_alloc of the fast context)
  std::vector<double> h_x, h_y;
};

Data make(gq_context *ctx, size_t n)
{
  Data d{n, nullptr, nullptr, std::vector<double>(n), std::vector<double>(n)};
  GQ_OK(gq_alloc(ctx, n * sizeof(double), (void **)&d.d_x));
  GQ_OK(gq_alloc(ctx, n * sizeof(double), (void **)&d.d_y));
  GQ_OK(gq_generate(ctx, GQ_GEN_NORMAL, n, 20, d.d_x));
  GQ_OK(gq_generate(ctx, GQ_GEN_UNIFORM, n, 21, d.d_y));
  GQ_OK(gq_copy_from(ctx, d.h_x.data(), d.d_x, n * sizeof(double)));
  GQ_OK(gq_copy_from(ctx, d.h_y.data(), d.d_y, n * sizeof(double)));
  return d;
}

void table_row(const char *what, Stat fast, Stat det, double bytes)
{
  printf("  %-28s fast %9.2f us %7.1f GB/s | determ %9.2f us %7.1f GB/s | ratio %.3f\n", what, fast.median,
         bytes / fast.median * 1e-3, det.median, bytes / det.median * 1e-3, fast.median / det.median);
  fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
  const int log2_big = argc > 1 ? atoi(argv[1]) : 28;
  const int reps = argc > 2 ? atoi(argv[2]) : 9;
  cudaStream_t stream;
  cudaEvent_t e0, e1;
  const cudaDeviceProp prop = bench_device(&stream, &e0, &e1);
  printf("bench_determ: %s, n = 2^%d and 2^20, median of %d\n", prop.name, log2_big, reps);
  gq_context *fast, *det, *cpu;
  GQ_OK(gq_context_open(&fast, 0));
  GQ_OK(gq_context_open(&det, 0));
  GQ_OK(gq_context_open(&cpu, GQ_DEVICE_CPU));
  GQ_OK(gq_context_set_deterministic(det, 1));
  GQ_OK(gq_context_set_deterministic(cpu, 1));

  const size_t big = (size_t)1 << log2_big, small = (size_t)1 << 20;
  Data B = make(fast, big), S = make(fast, small);

  // ---- verification, before any timing ----
  double f_sum, d_sum, c_sum, f_dot, d_dot, c_dot;
  GQ_OK(gq_sum(fast, big, B.d_x, &f_sum));
  GQ_OK(gq_sum(det, big, B.d_x, &d_sum));
  GQ_OK(gq_sum(cpu, big, B.h_x.data(), &c_sum));
  verify(same_bits(d_sum, c_sum), "sum: GPU deterministic == CPU deterministic", d_sum, c_sum);
  verify(within_ulps(f_sum, d_sum, 4), "sum: fast within 4 ulp of the exact", f_sum, d_sum);
  GQ_OK(gq_dot(fast, big, B.d_x, B.d_y, &f_dot));
  GQ_OK(gq_dot(det, big, B.d_x, B.d_y, &d_dot));
  GQ_OK(gq_dot(cpu, big, B.h_x.data(), B.h_y.data(), &c_dot));
  verify(same_bits(d_dot, c_dot), "dot: GPU deterministic == CPU deterministic", d_dot, c_dot);
  verify(within_ulps(f_dot, d_dot, 4), "dot: fast within 4 ulp of the exact", f_dot, d_dot);
  gq_stats_result fs, ds, cs;
  GQ_OK(gq_stats(fast, big, B.d_x, &fs));
  GQ_OK(gq_stats(det, big, B.d_x, &ds));
  GQ_OK(gq_stats(cpu, big, B.h_x.data(), &cs));
  verify(std::memcmp(&ds, &cs, sizeof ds) == 0, "stats: GPU deterministic == CPU deterministic (all)", ds.mean,
         cs.mean);
  verify(within_ulps(fs.mean, ds.mean, 4) && within_ulps(fs.sd_sample, ds.sd_sample, 4) && fs.argmin == ds.argmin,
         "stats: fast mean, sd within 4 ulp, argmin equal", fs.sd_sample, ds.sd_sample);
  double s_small, c_small;
  GQ_OK(gq_sum(det, small, S.d_x, &s_small));
  GQ_OK(gq_sum(cpu, small, S.h_x.data(), &c_small));
  verify(same_bits(s_small, c_small), "sum 2^20: GPU deterministic == CPU", s_small, c_small);

  // CUB's sum of the same data (device to device), verified too.
  double *d_out;
  CHECK(cudaMalloc(&d_out, sizeof(double)));
  size_t temp_bytes = 0;
  CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, B.d_x, d_out, (long long)big, stream));
  void *d_temp;
  CHECK(cudaMalloc(&d_temp, temp_bytes));
  CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, B.d_x, d_out, (long long)big, stream));
  double cub_sum;
  CHECK(cudaMemcpyAsync(&cub_sum, d_out, sizeof cub_sum, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  // a tree of plain additions: within log2(n) eps sum|x|
  const double tree_tol = log2_big * 0x1p-52 * ds.l1;
  verify(std::fabs(cub_sum - d_sum) <= tree_tol, "CUB sum within log2(n) eps sum|x|", cub_sum, d_sum);
#if GQ_HAVE_CUB_GPU_TO_GPU
  const auto env = cuda::execution::require(cuda::execution::determinism::gpu_to_gpu);
  CHECK(cub::DeviceReduce::Sum(B.d_x, d_out, (long long)big, env));
  double cub_det;
  CHECK(cudaMemcpy(&cub_det, d_out, sizeof cub_det, cudaMemcpyDeviceToHost));
  verify(std::fabs(cub_det - d_sum) <= tree_tol, "CUB gpu_to_gpu sum within log2(n) eps sum|x|", cub_det, d_sum);
#endif
  if (failures) {
    printf("bench_determ: %d verification(s) failed: nothing timed\n", failures);
    return 1;
  }

  // ---- timings ----
  double r;
  gq_stats_result st;
  const double bytes = (double)big * sizeof(double);
  printf("\n");
  const Stat sum_f = host_time(reps, [&] { gq_sum(fast, big, B.d_x, &r); });
  const Stat sum_d = host_time(reps, [&] { gq_sum(det, big, B.d_x, &r); });
  const Stat dot_f = host_time(reps, [&] { gq_dot(fast, big, B.d_x, B.d_y, &r); });
  const Stat dot_d = host_time(reps, [&] { gq_dot(det, big, B.d_x, B.d_y, &r); });
  const Stat sta_f = host_time(reps, [&] { gq_stats(fast, big, B.d_x, &st); });
  const Stat sta_d = host_time(reps, [&] { gq_stats(det, big, B.d_x, &st); });
  const Stat lat_f = host_time(5 * reps, [&] { gq_sum(fast, small, S.d_x, &r); });
  const Stat lat_d = host_time(5 * reps, [&] { gq_sum(det, small, S.d_x, &r); });
  const Stat cub = event_time(stream, e0, e1, 3, reps, [&] {
    cub::DeviceReduce::Sum(d_temp, temp_bytes, B.d_x, d_out, (long long)big, stream);
  });
  printf("---- deterministic vs fast (goals: sum, dot >= 0.9; stats >= 0.85; latency ratio >= 1/1.2 = 0.83) ----\n");
  table_row("sum 2^28", sum_f, sum_d, bytes);
  table_row("dot 2^28", dot_f, dot_d, 2 * bytes);
  table_row("stats 2^28", sta_f, sta_d, bytes);
  table_row("sum 2^20 (one-shot latency)", lat_f, lat_d, (double)small * sizeof(double));
  printf("  %-28s %9.2f us %7.1f GB/s (CUDA events, device only)\n", "CUB DeviceReduce::Sum 2^28", cub.median,
         bytes / cub.median * 1e-3);
#if GQ_HAVE_CUB_GPU_TO_GPU
  const Stat cubd =
    event_time(stream, e0, e1, 3, reps, [&] { cub::DeviceReduce::Sum(B.d_x, d_out, (long long)big, env); });
  printf("  %-28s %9.2f us %7.1f GB/s (CUDA events; the env's stream)\n", "CUB gpu_to_gpu Sum 2^28", cubd.median,
         bytes / cubd.median * 1e-3);
#else
  printf("  %-28s not measured: this toolkit's CCCL has no gpu_to_gpu determinism\n", "CUB gpu_to_gpu Sum");
#endif
  // Where the one-shot latency goes: the same call on prefixes of the 2^20
  // array (a fixed cost shows as a floor, the kernel's main loop as growth).
  printf("---- one-shot sum latency by size (host clock, median) ----\n");
  for (int lg = 0; lg <= 20; lg += 4) {
    const size_t m = (size_t)1 << lg;
    const Stat lf = host_time(5 * reps, [&] { gq_sum(fast, m, S.d_x, &r); });
    const Stat ld = host_time(5 * reps, [&] { gq_sum(det, m, S.d_x, &r); });
    printf("  sum 2^%-2d  fast %8.2f us | determ %8.2f us | ratio %5.2fx\n", lg, lf.median, ld.median,
           ld.median / lf.median);
  }
  cudaFree(d_temp);
  cudaFree(d_out);
  gq_free(fast, B.d_x);
  gq_free(fast, B.d_y);
  gq_free(fast, S.d_x);
  gq_free(fast, S.d_y);
  gq_context_free(cpu);
  gq_context_free(det);
  gq_context_free(fast);
  return 0;
}
