// bench_vegas.cu — gpuquad mc's adaptive samplers on the GPU (issue 17),
// every estimate verified against an exact value before it is timed:
//   peak    the 4-D peak exp(-100 |x - 1/2|^2) by VEGAS+ (defaults) at
//           n = 2^20 .. 2^26: wall and kernel time, error, standard error;
//           the goal is +-3e-8 in <= 10 ms;
//   bins    one VEGAS pass (gq_cuda_vegas_pass) with the training cells by
//           warp-aggregated global atomics against privatized shared cells,
//           2^24 samples, D = 4 (512 bins) and D = 8 (256 bins); their cells
//           must agree;
//   genz    Genz's oscillatory, product peak, corner peak and Gaussian
//           families at d = 5, 6, 8: VEGAS+ and plain Philox at 2^26
//           samples (the ratio of standard errors), scrambled Sobol and
//           Philox at 2^24 points;
//   curand  cuRAND's scrambled Sobol (host API, one scrambling) + a map +
//           cub::DeviceReduce::Sum on the oscillatory family, d = 5, 2^24
//           points, against gq_mc_sobol's 16 scramblings of the same total;
//   ladder  the time to a relative standard error of 1e-4 .. 1e-8 on the
//           4-D peak for plain, vegas and sobol (n doubled from 2^16, up to
//           2^34 plain, 2^30 vegas, 2^32 sobol).
// Times: the host clock around a library call (it returns with its results
// on the host) and the library's CUDA events (kernel_ms); medians of REPS
// after one warm-up.  A failed verification exits 1 after the table.
//   bench_vegas [reps=5]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cub/device/device_reduce.cuh>
#include <curand.h>

#include "../src/lib/internal.h"
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

int reps = 5, failures;

gq_integrand *parse(const std::string &text, int dims)
{
  gq_integrand *f = nullptr;
  if (gq_integrand_parse(text.c_str(), nullptr, 0, dims, &f, nullptr) != GQ_SUCCESS) {
    fprintf(stderr, "bench_vegas: %s: %s\n", text.c_str(), gq_last_error());
    exit(1);
  }
  return f;
}

void verify(const char *what, double estimate, double se, double exact)
{
  const double z = (estimate - exact) / se;
  if (!(fabs(z) <= 5.0) && !(se == 0.0 && estimate == exact)) {
    fprintf(stderr, "bench_vegas %s: %.17g is %.1f standard errors (%.3g) from %.17g\n", what, estimate, z, se, exact);
    failures++;
  }
}

enum Method { PLAIN, VEGAS, SOBOL };
const char *method_name[] = {"plain", "vegas", "sobol"};

struct Run {
  double integral, se, wall_ms, kernel_ms, chi2_dof;
  unsigned long long n;
};

// One library call of method on f over [0,1]^dims, n samples.
Run call(gq_context *ctx, Method m, const gq_integrand *f, int dims, unsigned long long n)
{
  gq_mc_options o;
  gq_mc_options_init(&o);
  o.dims = dims;
  o.n = n;
  o.seed = 2026;
  Run r{};
  const double t0 = now_us();
  int st;
  if (m == VEGAS) {
    gq_vegas_options v;
    gq_vegas_options_init(&v);
    gq_vegas_result vr;
    st = gq_mc_vegas(ctx, f, &o, &v, &vr);
    r = {vr.mc.integral, vr.mc.integral_se, 0, vr.mc.kernel_ms, vr.chi2_dof, vr.mc.n};
  } else {
    gq_mc_result mr;
    st = m == SOBOL ? gq_mc_sobol(ctx, f, &o, GQ_SOBOL_SCRAMBLINGS, &mr) : gq_mc_mean(ctx, f, &o, &mr);
    r = {mr.integral, mr.integral_se, 0, mr.kernel_ms, NAN, mr.n};
  }
  r.wall_ms = (now_us() - t0) * 1e-3;
  if (st != GQ_SUCCESS) {
    fprintf(stderr, "bench_vegas %s: %s\n", method_name[m], gq_last_error());
    exit(1);
  }
  return r;
}

// Medians of reps calls after a warm-up (the JIT's compile, the allocator).
Run timed(gq_context *ctx, Method m, const gq_integrand *f, int dims, unsigned long long n, double exact)
{
  std::vector<double> wall, kernel;
  Run r{};
  for (int k = -1; k < reps; k++) {
    r = call(ctx, m, f, dims, n);
    verify(method_name[m], r.integral, r.se, exact);
    if (k >= 0) {
      wall.push_back(r.wall_ms);
      kernel.push_back(r.kernel_ms);
    }
  }
  r.wall_ms = stat_of(wall).median;
  r.kernel_ms = stat_of(kernel).median;
  return r;
}

std::string peak_text(int dims, double a)
{
  char buf[64];
  std::string s = "exp(-" + std::to_string(a) + "*(";
  for (int d = 1; d <= dims; d++) {
    snprintf(buf, sizeof buf, "%s(x%d-0.5)^2", d > 1 ? "+" : "", d);
    s += buf;
  }
  return s + "))";
}
const double peak4 = pow(sqrt(M_PI) / 10.0 * erf(5.0), 4);

void bench_peak(gq_context *ctx)
{
  printf("\n# peak: exp(-100 |x - 1/2|^2) on [0,1]^4 by VEGAS+ (defaults), exact %.17g; goal +-3e-8 in <= 10 ms\n",
         peak4);
  printf("%-6s %12s %12s %11s %11s %9s\n", "log2n", "wall_ms", "kernel_ms", "error", "stderr", "chi2/dof");
  gq_integrand *f = parse(peak_text(4, 100.0), 4);
  for (int lg = 20; lg <= 26; lg++) {
    const Run r = timed(ctx, VEGAS, f, 4, 1ull << lg, peak4);
    printf("%-6d %12.3f %12.3f %11.3g %11.3g %9.2f%s\n", lg, r.wall_ms, r.kernel_ms, r.integral - peak4, r.se,
           r.chi2_dof, r.se <= 3e-8 ? "  <= 3e-8" : "");
  }
  gq_integrand_free(f);
}

// One pass of 2^24 samples with each way of accumulating the training cells.
void bench_bins(gq_context *ctx)
{
  printf("\n# bins: one VEGAS pass, 2^24 samples of the peak, training cells by warp-aggregated global atomics or\n"
         "# privatized shared cells (kernel ms, CUDA events)\n");
  printf("%-4s %5s %8s %12s %12s %12s\n", "D", "bins", "hcubes", "warp_ms", "shared_ms", "max_rel_diff");
  const int dims_list[] = {4, 8}, bins_list[] = {512, 256};
  for (int c = 0; c < 2; c++) {
    const int D = dims_list[c], bins = bins_list[c];
    gq_integrand *f = parse(peak_text(D, 100.0), D);
    gq_vegas_pass p{};
    p.f = f;
    p.dims = D;
    p.precision = GQ_PRECISION_DOUBLE;
    p.bins = bins;
    p.strata = D == 4 ? 32 : 4; // 2^20 and 2^16 hypercubes
    p.hcubes = 1;
    for (int d = 0; d < D; d++) {
      p.hcubes *= (uint32_t)p.strata;
      p.a[d] = 0.0;
      p.w[d] = 1.0;
    }
    p.seed = 1;
    const size_t cells = (size_t)D * bins;
    std::vector<double> edges(D * (bins + 1)), sum(p.hcubes), sum2(p.hcubes), train[2], weight[2];
    std::vector<uint64_t> counts(p.hcubes, (1ull << 24) / p.hcubes), first(p.hcubes + 1);
    for (int d = 0; d < D; d++)
      for (int k = 0; k <= bins; k++)
        edges[d * (bins + 1) + k] = (double)k / bins;
    for (uint32_t h = 0; h <= p.hcubes; h++)
      first[h] = (uint64_t)h * ((counts[0] + 3) / 4);
    p.edges = edges.data();
    p.counts = counts.data();
    p.first_quad = first.data();
    p.sum = sum.data();
    p.sum2 = sum2.data();
    double ms[2];
    for (int method = 0; method < 2; method++) {
      train[method].resize(cells);
      weight[method].resize(cells);
      p.train = train[method].data();
      p.train_weight = weight[method].data();
      p.bins_method = method == 0 ? GQ_VEGAS_BINS_WARP : GQ_VEGAS_BINS_SHARED;
      std::vector<double> t;
      for (int k = -1; k < reps; k++) {
        gq_grid_info info{};
        if (gq_cuda_vegas_pass(ctx->cuda, &p, &info) != GQ_SUCCESS) {
          fprintf(stderr, "bench_vegas bins: %s\n", gq_last_error());
          exit(1);
        }
        if (k >= 0)
          t.push_back(info.ms);
      }
      ms[method] = stat_of(t).median;
    }
    double worst = 0.0;
    for (size_t c2 = 0; c2 < cells; c2++) {
      const double scale = fmax(fabs(train[0][c2]), 1e-300);
      worst = fmax(worst, fabs(train[0][c2] - train[1][c2]) / scale);
      worst = fmax(worst, fabs(weight[0][c2] - weight[1][c2]) / fmax(weight[0][c2], 1e-300));
    }
    if (!(worst <= 1e-9)) {
      fprintf(stderr, "bench_vegas bins: the two methods' cells differ by %.3g (relative)\n", worst);
      failures++;
    }
    printf("%-4d %5d %8u %12.3f %12.3f %12.3g\n", D, bins, p.hcubes, ms[0], ms[1], worst);
    gq_integrand_free(f);
  }
}

// Genz's families with their exact integrals over [0,1]^d; a_k and u_k fixed.
struct Family {
  const char *name;
  std::string text;
  double exact;
};

Family genz(int which, int d)
{
  char buf[128];
  std::string s;
  double exact = 1.0;
  switch (which) {
  case 0: { // oscillatory cos(2 pi u1 + sum a x), a = 1.5, u1 = 0.2: Re(e^(2 pi i u1) prod (e^(i a) - 1)/(i a))
    const double a = 1.5, u1 = 0.2;
    double re = cos(2 * M_PI * u1), im = sin(2 * M_PI * u1);
    for (int k = 1; k <= d; k++) {
      snprintf(buf, sizeof buf, "+%g*x%d", a, k);
      s += buf;
      const double fr = sin(a) / a, fi = (1.0 - cos(a)) / a; // (e^(ia) - 1) / (ia)
      const double nr = re * fr - im * fi, ni = re * fi + im * fr;
      re = nr, im = ni;
    }
    return {"oscillatory", "cos(" + std::to_string(2 * M_PI * u1) + s + ")", re};
  }
  case 1: { // product peak prod 1 / (a^-2 + (x - u)^2), a = 5
    const double a = 5.0;
    for (int k = 1; k <= d; k++) {
      const double u = 0.3 + 0.05 * k;
      snprintf(buf, sizeof buf, "%s1/(%.17g+(x%d-%.17g)^2)", k > 1 ? "*" : "", 1.0 / (a * a), k, u);
      s += buf;
      exact *= a * (atan(a * (1.0 - u)) + atan(a * u));
    }
    return {"product_peak", s, exact};
  }
  case 2: { // corner peak (1 + sum a x)^-(d+1), a = 0.6: 1/(d! prod a) sum_S (-1)^|S| / (1 + sum_S a)
    const double a = 0.6;
    for (int k = 1; k <= d; k++) {
      snprintf(buf, sizeof buf, "+%g*x%d", a, k);
      s += buf;
    }
    double sum = 0.0, fact = 1.0;
    for (int k = 1; k <= d; k++)
      fact *= k;
    for (unsigned S = 0; S < (1u << d); S++) {
      const int bits = __builtin_popcount(S);
      sum += (bits % 2 ? -1.0 : 1.0) / (1.0 + a * bits);
    }
    snprintf(buf, sizeof buf, ")^-%d", d + 1);
    return {"corner_peak", "(1" + s + buf, sum / (fact * pow(a, d))};
  }
  default: { // Gaussian exp(-sum a^2 (x - u)^2), a = 4
    const double a = 4.0;
    for (int k = 1; k <= d; k++) {
      const double u = 0.3 + 0.05 * k;
      snprintf(buf, sizeof buf, "%s(x%d-%.17g)^2", k > 1 ? "+" : "", k, u);
      s += buf;
      exact *= sqrt(M_PI) / (2 * a) * (erf(a * (1.0 - u)) + erf(a * u));
    }
    return {"gaussian", "exp(-" + std::to_string(a * a) + "*(" + s + "))", exact};
  }
  }
}

void bench_genz(gq_context *ctx)
{
  printf("\n# genz: VEGAS+ against plain Philox at 2^26 samples; scrambled Sobol against Philox at 2^24 points\n");
  printf("%-13s %2s %11s %11s %9s %11s %11s %9s %10s %10s\n", "family", "d", "vegas_se", "plain_se", "ratio",
         "sobol_se", "philox_se", "ratio", "vegas_ms", "sobol_ms");
  const int dims[] = {5, 6, 8};
  for (int which = 0; which < 4; which++)
    for (int d : dims) {
      const Family fam = genz(which, d);
      gq_integrand *f = parse(fam.text, d);
      const Run v = timed(ctx, VEGAS, f, d, 1ull << 26, fam.exact), p = timed(ctx, PLAIN, f, d, 1ull << 26, fam.exact);
      const Run s = timed(ctx, SOBOL, f, d, 1ull << 24, fam.exact), q = timed(ctx, PLAIN, f, d, 1ull << 24, fam.exact);
      printf("%-13s %2d %11.3g %11.3g %9.1f %11.3g %11.3g %9.1f %10.3f %10.3f\n", fam.name, d, v.se, p.se, p.se / v.se,
             s.se, q.se, q.se / s.se, v.wall_ms, s.wall_ms);
      gq_integrand_free(f);
    }
}

// cos(2 pi 0.2 + 1.5 sum x) over points stored dimension-major (cuRAND's
// quasirandom layout: all of dimension 0, then dimension 1, ...).
__global__ void oscillatory_map(const double *x, double *out, unsigned long long n, int d)
{
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    double s = 2 * M_PI * 0.2;
    for (int k = 0; k < d; k++)
      s += 1.5 * x[k * n + i];
    out[i] = cos(s);
  }
}

void bench_curand(gq_context *ctx)
{
  const int d = 5;
  const unsigned long long n = 1ull << 24;
  const Family fam = genz(0, d);
  printf("\n# curand: scrambled Sobol, oscillatory d = %d, 2^24 points: cuRAND's host API (SCRAMBLED_SOBOL64, one\n"
         "# scrambling) + map + CUB sum, against gq_mc_sobol (16 Owen scramblings inside the reduction)\n", d);
  double *x, *v, *d_sum;
  CHECK(cudaMalloc(&x, n * d * sizeof *x));
  CHECK(cudaMalloc(&v, n * sizeof *v));
  CHECK(cudaMalloc(&d_sum, sizeof *d_sum));
  void *temp = nullptr;
  size_t temp_bytes = 0;
  CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, v, d_sum, (long long)n));
  CHECK(cudaMalloc(&temp, temp_bytes));
  curandGenerator_t gen;
  CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_QUASI_SCRAMBLED_SOBOL64));
  CURAND_CHECK(curandSetQuasiRandomGeneratorDimensions(gen, d));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<double> ms;
  double mean = NAN;
  for (int k = -1; k < reps; k++) {
    CURAND_CHECK(curandSetGeneratorOffset(gen, 0));
    CHECK(cudaEventRecord(start));
    CURAND_CHECK(curandGenerateUniformDouble(gen, x, n * d));
    oscillatory_map<<<1024, 256>>>(x, v, n, d);
    CHECK(cudaGetLastError());
    CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, v, d_sum, (long long)n));
    CHECK(cudaEventRecord(stop));
    double sum;
    CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
    float elapsed;
    CHECK(cudaEventElapsedTime(&elapsed, start, stop));
    mean = sum / (double)n;
    if (k >= 0)
      ms.push_back(elapsed);
  }
  if (!(fabs(mean - fam.exact) <= 1e-4)) {
    fprintf(stderr, "bench_vegas curand: %.17g is not within 1e-4 of %.17g\n", mean, fam.exact);
    failures++;
  }
  gq_integrand *f = parse(fam.text, d);
  const Run s = timed(ctx, SOBOL, f, d, n, fam.exact);
  printf("%-24s %10s %10s %11s %11s\n", "method", "gpu_ms", "wall_ms", "error", "stderr");
  printf("%-24s %10.3f %10s %11.3g %11s\n", "curand_sobol64+map+cub", stat_of(ms).median, "-", mean - fam.exact, "-");
  printf("%-24s %10.3f %10.3f %11.3g %11.3g\n", "gq_mc_sobol", s.kernel_ms, s.wall_ms, s.integral - fam.exact, s.se);
  gq_integrand_free(f);
  curandDestroyGenerator(gen);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(temp);
  cudaFree(d_sum);
  cudaFree(v);
  cudaFree(x);
}

void bench_ladder(gq_context *ctx)
{
  printf("\n# ladder: wall ms to a relative standard error of 1e-4 .. 1e-8 on the 4-D peak (n doubled from 2^16;\n"
         "# '-' beyond the largest n tried); the n reached in parentheses (log2)\n");
  printf("%-7s %16s %16s %16s %16s %16s\n", "method", "1e-4", "1e-5", "1e-6", "1e-7", "1e-8");
  gq_integrand *f = parse(peak_text(4, 100.0), 4);
  const int cap[] = {34, 30, 32};
  for (int m = 0; m < 3; m++) {
    printf("%-7s", method_name[m]);
    int lg = 16;
    for (int t = 4; t <= 8; t++) {
      const double target = pow(10.0, -t) * peak4;
      Run r{};
      bool reached = false;
      for (; lg <= cap[m]; lg++) {
        r = call(ctx, (Method)m, f, 4, 1ull << lg);
        if (r.se <= target) {
          r = timed(ctx, (Method)m, f, 4, 1ull << lg, peak4);
          reached = r.se <= target * 1.5; // the median run's se may differ a little from the first's
          break;
        }
      }
      if (reached)
        printf(" %10.3f (%2d)", r.wall_ms, lg);
      else
        printf(" %16s", "-");
    }
    printf("\n");
  }
  gq_integrand_free(f);
}

} // namespace

int main(int argc, char **argv)
{
  if (argc > 1)
    reps = atoi(argv[1]);
  if (reps < 1)
    reps = 1;
  gq_context *ctx = gq_context_create(0);
  if (!ctx || gq_context_backend(ctx) != GQ_BACKEND_CUDA) {
    fprintf(stderr, "bench_vegas: no CUDA device: %s\n", gq_last_error());
    return 77;
  }
  printf("bench_vegas on %s, medians of %d after a warm-up\n", gq_context_device_name(ctx), reps);
  bench_peak(ctx);
  bench_bins(ctx);
  bench_genz(ctx);
  bench_curand(ctx);
  bench_ladder(ctx);
  gq_context_free(ctx);
  if (failures)
    fprintf(stderr, "bench_vegas: %d verification(s) failed\n", failures);
  return failures ? 1 : 0;
}
