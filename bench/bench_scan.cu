// bench_scan.cu — the scans of kernels/scan/ against CUB and a copy.
//
//   bench/bench_scan verify [REPS [MAX_N]]
//                                    both methods, int64 and doubles, at sizes
//                                    that make tiles wait on each other (18 to
//                                    2^14 + 1 tiles; those up to MAX_N), REPS
//                                    times each, int64 compared
//                                    exactly with the host (a look-back race
//                                    shows as a wrong integer); run under
//                                    compute-sanitizer by bench/gpu_scan.sh
//   bench/bench_scan time [REPS]     medians of REPS (default 11) after 3
//                                    warm-ups, CUDA events around each launch:
//                                    a device-to-device copy of the bytes,
//                                    cub::DeviceScan::InclusiveSum (plain
//                                    doubles), the look-back and three-phase
//                                    scans (compensated), at 2^20, 2^24, 2^28
//                                    doubles; each verified before it is timed;
//                                    then gq_cumulative_integral of 10^9
//                                    points into device memory.  A table last.
//
// The kernels are launched here with a tile state of the bench's own, as
// kernels/scan/scan.cu launches them (the library call adds the carry's two
// copies and a synchronisation, which would dominate 2^20).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cub/cub.cuh>

#include "../kernels/scan/device_scan.cuh"
#include "../kernels/scan/scan_policy.cuh"
#include "../src/gpuquad.h"
#include "timing.cuh"

using namespace gq::scan;

namespace {

// The bench's tile state: as gq_scan_state, sized for the largest run.
struct State {
  unsigned long long *counter = nullptr, counted = 0, epoch = 0, *flags = nullptr;
  gq_csum *aggregate = nullptr, *inclusive = nullptr, *carry = nullptr;
  void init(unsigned long long tiles)
  {
    CHECK(cudaMalloc(&counter, 8));
    CHECK(cudaMemset(counter, 0, 8));
    CHECK(cudaMalloc(&flags, tiles * 8));
    CHECK(cudaMemset(flags, 0, tiles * 8));
    CHECK(cudaMalloc(&aggregate, tiles * sizeof(gq_csum)));
    CHECK(cudaMalloc(&inclusive, tiles * sizeof(gq_csum)));
    CHECK(cudaMalloc(&carry, sizeof(gq_csum)));
  }
};

enum Method { LOOKBACK, THREE_PHASE };
const char *method_name(Method m) { return m == LOOKBACK ? "lookback" : "three-phase"; }

// One scan of x into y from a zero carry (the bench's carry word: zeroed
// first, as a chunk of a stream would find it).
template <class Op>
void scan(State &s, Method m, const typename Op::In *x, typename Op::Out *y, unsigned long long n, int exclusive,
          cudaStream_t stream)
{
  using Shape = typename ScanShape<Op>::type;
  using Source = ArraySource<typename Op::In>;
  using Sink = ArraySink<Op>;
  constexpr int TILE = Shape::BLOCK * Shape::ITEMS;
  ScanProblem<Op, Source, Sink> p{};
  p.src = Source{x};
  p.sink = Sink{y, exclusive};
  p.n = n;
  p.tiles = (n + TILE - 1) / TILE;
  p.counter = s.counter;
  p.base = s.counted;
  p.states.flag = s.flags;
  p.states.aggregate = reinterpret_cast<typename Op::Acc *>(s.aggregate);
  p.states.inclusive = reinterpret_cast<typename Op::Acc *>(s.inclusive);
  p.states.epoch = ++s.epoch;
  p.carry_in = nullptr;
  p.carry_out = reinterpret_cast<typename Op::Acc *>(s.carry);
  const unsigned grid = (unsigned)p.tiles;
  if (m == LOOKBACK) {
    lookback_kernel<Op, Source, Sink, Shape::BLOCK, Shape::ITEMS><<<grid, Shape::BLOCK, 0, stream>>>(p);
    s.counted += p.tiles;
  } else {
    reduce_tiles_kernel<Op, Source, Sink, Shape::BLOCK, Shape::ITEMS><<<grid, Shape::BLOCK, 0, stream>>>(p);
    scan_totals_kernel<Op, Source, Sink, TOTALS_BLOCK><<<1, TOTALS_BLOCK, 0, stream>>>(p);
    rescan_tiles_kernel<Op, Source, Sink, Shape::BLOCK, Shape::ITEMS><<<grid, Shape::BLOCK, 0, stream>>>(p);
  }
  CHECK(cudaGetLastError());
}

uint64_t next(uint64_t &r)
{
  r ^= r >> 12;
  r ^= r << 25;
  r ^= r >> 27;
  return r * 0x2545f4914f6cdd1dULL;
}

// verify: int64 exactly, doubles within the stated bound of a long double scan.
int verify(State &s, int reps, unsigned long long max_n, cudaStream_t stream)
{
  const unsigned long long sizes[] = {4096ull * 17 + 5, 4096ull * 300 + 1, (4096ull << 14) + 1};
  int failures = 0;
  for (unsigned long long n : sizes) {
    if (n > max_n)
      continue;
    std::vector<long long> hi(n), ho(n);
    std::vector<double> hd(n), hdo(n);
    uint64_t r = 0x9e3779b97f4a7c15ULL ^ n;
    for (unsigned long long i = 0; i < n; i++) {
      hi[i] = (long long)next(r);
      hd[i] = (double)(next(r) >> 11) * 0x1p-53 - 0.3;
    }
    long long *di, *dio;
    double *dd, *ddo;
    CHECK(cudaMalloc(&di, n * 8));
    CHECK(cudaMalloc(&dio, n * 8));
    CHECK(cudaMalloc(&dd, n * 8));
    CHECK(cudaMalloc(&ddo, n * 8));
    CHECK(cudaMemcpy(di, hi.data(), n * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dd, hd.data(), n * 8, cudaMemcpyHostToDevice));
    for (int m = 0; m < 2; m++)
      for (int ex = 0; ex <= 1; ex++) {
        int bad = 0;
        for (int rep = 0; rep < reps; rep++) {
          CHECK(cudaMemsetAsync(dio, 0xff, n * 8, stream));
          CHECK(cudaMemsetAsync(ddo, 0xff, n * 8, stream));
          scan<Int64Sum>(s, (Method)m, di, dio, n, ex, stream);
          scan<DoubleSum>(s, (Method)m, dd, ddo, n, ex, stream);
          CHECK(cudaMemcpyAsync(ho.data(), dio, n * 8, cudaMemcpyDeviceToHost, stream));
          CHECK(cudaMemcpyAsync(hdo.data(), ddo, n * 8, cudaMemcpyDeviceToHost, stream));
          CHECK(cudaStreamSynchronize(stream));
          uint64_t acc = 0;
          long double ls = 0, lc = 0, labs = 0;
          for (unsigned long long i = 0; i < n; i++) {
            const uint64_t before = acc;
            acc += (uint64_t)hi[i];
            if ((uint64_t)ho[i] != (ex ? before : acc))
              bad++;
            const long double dbefore = ls + lc, v = hd[i], sum = ls + v;
            lc += fabsl(ls) >= fabsl(v) ? (ls - sum) + v : (v - sum) + ls;
            ls = sum;
            labs += fabsl(v);
            const long double want = ex ? dbefore : ls + lc;
            const long double bound = 0x1p-53L * fabsl(want) + 2.0L * (i + 1) * 0x1p-106L * labs + 0x1p-62L * fabsl(want);
            if (!(fabsl((long double)hdo[i] - want) <= bound + 4.9e-324L))
              bad++;
          }
        }
        printf("verify %-11s %s n = %llu (%llu tiles) x %d: %s\n", method_name((Method)m),
               ex ? "exclusive" : "inclusive", n, (n + 4095) / 4096, reps, bad ? "FAILED" : "ok");
        failures += bad != 0;
      }
    cudaFree(di);
    cudaFree(dio);
    cudaFree(dd);
    cudaFree(ddo);
  }
  return failures;
}

int time_all(State &s, int reps, cudaStream_t stream, cudaEvent_t e0, cudaEvent_t e1)
{
  const unsigned long long max_n = 1ull << 28;
  gq_context *ctx = gq_context_create(0);
  if (!ctx) {
    fprintf(stderr, "bench_scan: %s\n", gq_last_error());
    return 1;
  }
  gq_context_set_stream(ctx, stream);
  double *x, *y, *yc;
  CHECK(cudaMalloc(&x, max_n * 8));
  CHECK(cudaMalloc(&y, max_n * 8));
  CHECK(cudaMalloc(&yc, max_n * 8));
  if (gq_generate(ctx, GQ_GEN_UNIFORM, max_n, 7, x) != GQ_SUCCESS) {
    fprintf(stderr, "bench_scan: %s\n", gq_last_error());
    return 1;
  }
  size_t temp_bytes = 0;
  CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, x, yc, (int)max_n, stream));
  void *temp;
  CHECK(cudaMalloc(&temp, temp_bytes));
  struct Row {
    int log2n;
    Stat copy, cub, lookback, three;
  };
  std::vector<Row> rows;
  int failures = 0;
  for (int lg : {20, 24, 28}) {
    const unsigned long long n = 1ull << lg;
    // Verified first: both methods against CUB's plain sums (uniform data in
    // (0, 1): CUB's error is a few ulp of the prefix, ours below one).
    CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, x, yc, (int)n, stream));
    std::vector<double> hc(n), h(n);
    CHECK(cudaMemcpyAsync(hc.data(), yc, n * 8, cudaMemcpyDeviceToHost, stream));
    for (int m = 0; m < 2; m++) {
      scan<DoubleSum>(s, (Method)m, x, y, n, 0, stream);
      CHECK(cudaMemcpyAsync(h.data(), y, n * 8, cudaMemcpyDeviceToHost, stream));
      CHECK(cudaStreamSynchronize(stream));
      double worst = 0;
      for (unsigned long long i = 0; i < n; i++)
        worst = std::max(worst, std::fabs(h[i] - hc[i]) / std::fabs(hc[i]));
      const bool ok = worst < 1e-12;
      printf("2^%d %s against CUB: largest relative difference %.3g: %s\n", lg, method_name((Method)m), worst,
             ok ? "ok" : "FAILED");
      failures += !ok;
    }
    Row r;
    r.log2n = lg;
    r.copy = event_time(stream, e0, e1, 3, reps, [&] { CHECK(cudaMemcpyAsync(y, x, n * 8, cudaMemcpyDeviceToDevice, stream)); });
    r.cub = event_time(stream, e0, e1, 3, reps, [&] { CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, x, yc, (int)n, stream)); });
    r.lookback = event_time(stream, e0, e1, 3, reps, [&] { scan<DoubleSum>(s, LOOKBACK, x, y, n, 0, stream); });
    r.three = event_time(stream, e0, e1, 3, reps, [&] { scan<DoubleSum>(s, THREE_PHASE, x, y, n, 0, stream); });
    rows.push_back(r);
  }
  cudaFree(x);
  cudaFree(y);
  cudaFree(yc);
  cudaFree(temp);

  // The cumulative trapezoid of 10^9 points into device memory (kernel_ms:
  // events around the one launch; the first call compiles or loads it).
  const uint64_t n = 1000000000ull - 1; // n + 1 = 10^9 points
  double *out;
  CHECK(cudaMalloc(&out, (n + 1) * 8));
  std::vector<double> cum;
  const gq_integrand *f = gq_integrand_builtin("circle");
  for (int r = -2; r < reps; r++) {
    double ms = 0;
    if (gq_cumulative_integral(ctx, f, 0.0, 1.0, n, GQ_RULE_TRAPEZOID, out, 1, &ms) != GQ_SUCCESS) {
      fprintf(stderr, "bench_scan: cumulative: %s\n", gq_last_error());
      return 1;
    }
    if (r >= 0)
      cum.push_back(ms * 1e3);
  }
  double last = 0;
  CHECK(cudaMemcpy(&last, out + n, 8, cudaMemcpyDeviceToHost));
  cudaFree(out);
  const Stat c = stat_of(cum);
  gq_context_free(ctx);

  printf("\n| doubles | copy us | CUB us | lookback us | three-phase us | lookback / copy bandwidth | CUB / lookback |\n");
  printf("|---|---|---|---|---|---|---|\n");
  for (const Row &r : rows)
    printf("| 2^%d | %.1f | %.1f | %.1f | %.1f | %.3f | %.2f |\n", r.log2n, r.copy.median, r.cub.median,
           r.lookback.median, r.three.median, r.copy.median / r.lookback.median, r.cub.median / r.lookback.median);
  printf("cumulative trapezoid of circle, 10^9 points into device memory: %.3f ms median (p10 %.3f, p90 %.3f); "
         "F(1) = %.17g\n",
         c.median * 1e-3, c.p10 * 1e-3, c.p90 * 1e-3, last);
  return failures;
}

} // namespace

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "time";
  const int reps = argc > 2 ? atoi(argv[2]) : (strcmp(mode, "verify") == 0 ? 3 : 11);
  cudaStream_t stream;
  cudaEvent_t e0, e1;
  const cudaDeviceProp prop = bench_device(&stream, &e0, &e1);
  printf("bench_scan %s on %s (%d SMs), tile %d x %d\n", mode, prop.name, prop.multiProcessorCount,
         ScanShape<DoubleSum>::type::BLOCK, ScanShape<DoubleSum>::type::ITEMS);
  State s;
  s.init((1ull << 28) / 4096 + 1);
  const unsigned long long max_n = argc > 3 ? strtoull(argv[3], nullptr, 10) : ~0ull;
  const int failures = strcmp(mode, "verify") == 0 ? verify(s, reps, max_n, stream) : time_all(s, reps, stream, e0, e1);
  return failures ? 1 : 0;
}
