// bench_mc_curand.cu — gpuquad mc's fused method (gq_mc_mean: Philox in
// registers inside the reduction) against the textbook cuRAND pipeline: the
// host API (Philox4_32_10) generates n uniforms into a device buffer, a map
// kernel writes sqrt(1 - u^2) over them, cub::DeviceReduce::Sum adds them.
// n samples of sqrt(1 - u^2), u uniform on (0, 1), in double.  The
// comparison lives here, not in the library, so libgpuquad and gpuquad link
// no cuRAND.
//
// Times are CUDA events: around generate + map + reduce for cuRAND, the
// library's own around its kernel (gq_mc_result.kernel_ms) for fused;
// medians (p10, p90) of REPS after two warm-ups.  Every estimate must be
// within 5 standard errors of pi/4 (cuRAND's from the integrand's exact
// variance 2/3 - pi^2/16, fused's from its own), else exit 1.
//   bench_mc_curand [log2_n=28] [reps=20]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cub/device/device_reduce.cuh>
#include <curand.h>

#include "../src/gpuquad.h"
#include "timing.cuh"

#define CURAND_CHECK(call)                                                                              \
  do {                                                                                                  \
    curandStatus_t s_ = (call);                                                                         \
    if (s_ != CURAND_STATUS_SUCCESS) {                                                                  \
      fprintf(stderr, "%s:%d: %s: cuRAND status %d\n", __FILE__, __LINE__, #call, (int)s_);            \
      exit(1);                                                                                          \
    }                                                                                                   \
  } while (0)

namespace {

const double quarter_pi = 0.78539816339744830962;

__global__ void circle_map(double *x, unsigned long long n)
{
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    x[i] = sqrt(1.0 - x[i] * x[i]);
}

int failures;

void row(const char *name, const std::vector<double> &ms, unsigned long long n, double mean, double z)
{
  const Stat s = stat_of(ms);
  printf("%-8s %10.4f %10.4f %10.4f %16.4g %14.10f %8.2f\n", name, s.median, s.p10, s.p90, (double)n / s.median, mean,
         z);
}

void verify(const char *name, double mean, double se)
{
  const double z = (mean - quarter_pi) / se;
  if (!(fabs(z) <= 5)) {
    fprintf(stderr, "bench_mc_curand %s: %.17g is %.1f standard errors from pi/4\n", name, mean, z);
    failures++;
  }
}

// cuRAND host API + map + CUB sum, in place in one buffer of n doubles.
double curand_run(unsigned long long n, int reps, std::vector<double> *ms, double *z)
{
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  double *x, *d_sum;
  CHECK(cudaMalloc(&x, n * sizeof *x));
  CHECK(cudaMalloc(&d_sum, sizeof *d_sum));
  void *temp = nullptr;
  size_t temp_bytes = 0;
  CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, x, d_sum, (long long)n, stream));
  CHECK(cudaMalloc(&temp, temp_bytes));
  curandGenerator_t gen;
  CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CURAND_CHECK(curandSetStream(gen, stream));
  CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 2026));
  int sms = 0, device = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const double se = sqrt((2.0 / 3.0 - quarter_pi * quarter_pi) / (double)n);
  double mean = NAN;
  for (int k = -2; k < reps; k++) { // each run draws new numbers (the generator moves on)
    CHECK(cudaEventRecord(start, stream));
    CURAND_CHECK(curandGenerateUniformDouble(gen, x, n));
    circle_map<<<sms * 8, 256, 0, stream>>>(x, n);
    CHECK(cudaGetLastError());
    CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, x, d_sum, (long long)n, stream));
    CHECK(cudaEventRecord(stop, stream));
    double sum;
    CHECK(cudaMemcpyAsync(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    float elapsed;
    CHECK(cudaEventElapsedTime(&elapsed, start, stop));
    mean = sum / (double)n;
    verify("cuRAND", mean, se);
    if (k >= 0)
      ms->push_back(elapsed);
  }
  *z = (mean - quarter_pi) / se;
  curandDestroyGenerator(gen);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(temp);
  cudaFree(d_sum);
  cudaFree(x);
  cudaStreamDestroy(stream);
  return mean;
}

// gq_mc_mean, the fused method, on the same integrand and n.
double fused_run(gq_context *ctx, unsigned long long n, int reps, std::vector<double> *ms, double *z)
{
  gq_integrand *f = nullptr;
  if (gq_integrand_parse("sqrt(1-x^2)", nullptr, 0, 1, &f, nullptr) != GQ_SUCCESS) {
    fprintf(stderr, "bench_mc_curand: %s\n", gq_last_error());
    exit(1);
  }
  gq_mc_options o;
  gq_mc_options_init(&o);
  o.n = n;
  o.seed = 2026;
  gq_mc_result r{};
  for (int k = -2; k < reps; k++) {
    if (gq_mc_mean(ctx, f, &o, &r) != GQ_SUCCESS) {
      fprintf(stderr, "bench_mc_curand fused: %s\n", gq_last_error());
      exit(1);
    }
    verify("fused", r.mean, r.se);
    if (k >= 0)
      ms->push_back(r.kernel_ms);
  }
  gq_integrand_free(f);
  *z = (r.mean - quarter_pi) / r.se;
  return r.mean;
}

} // namespace

int main(int argc, char **argv)
{
  const int log2n = argc > 1 ? atoi(argv[1]) : 28;
  const int reps = argc > 2 ? atoi(argv[2]) : 20;
  if (log2n < 10 || log2n > 31 || reps < 1 || reps > 1000) {
    fprintf(stderr, "usage: bench_mc_curand [log2_n 10..31] [reps 1..1000]\n");
    return 2;
  }
  gq_context *ctx = gq_context_create(0);
  if (!ctx) {
    fprintf(stderr, "bench_mc_curand: %s\n", gq_last_error());
    return 77;
  }
  const unsigned long long n = 1ull << log2n;
  printf("# %s, n = 2^%d samples of sqrt(1-u^2), double, CUDA events, median (p10, p90) of %d\n",
         gq_context_device_name(ctx), log2n, reps);
  printf("%-8s %10s %10s %10s %16s %14s %8s\n", "method", "median_ms", "p10_ms", "p90_ms", "samples_per_ms", "mean",
         "z_pi/4");
  std::vector<double> fused_ms, curand_ms;
  double z;
  const double fused_mean = fused_run(ctx, n, reps, &fused_ms, &z);
  row("fused", fused_ms, n, fused_mean, z);
  const double curand_mean = curand_run(n, reps, &curand_ms, &z);
  row("cuRAND", curand_ms, n, curand_mean, z);
  printf("# cuRAND host API + map + cub::DeviceReduce::Sum / fused: %.2fx\n",
         stat_of(curand_ms).median / stat_of(fused_ms).median);
  gq_context_free(ctx);
  if (failures)
    fprintf(stderr, "bench_mc_curand: %d estimates beyond 5 standard errors of pi/4\n", failures);
  return failures ? 1 : 0;
}
