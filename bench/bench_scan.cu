// bench_scan.cu — the scans of kernels/scan/ against CUB and a copy.
//
//   bench/bench_scan verify [REPS [MAX_N [VARIANT]]]
//                                    every variant (or the one named), int64
//                                    and doubles, inclusive and exclusive, at
//                                    sizes that make tiles wait on each other
//                                    (those up to MAX_N), REPS times each,
//                                    int64 compared exactly with the host (a
//                                    look-back race shows as a wrong integer),
//                                    doubles within the documented bound;
//                                    every other run (the exclusive one when
//                                    REPS is 1) from the second element, off
//                                    the 16-byte alignment; then, unless a
//                                    variant is named, every cumulative shape
//                                    against the library's values (4096 x 300
//                                    intervals); run under compute-sanitizer
//                                    by bench/gpu_scan.sh
//   bench/bench_scan time [REPS]     medians of REPS (default 11) after 3
//                                    warm-ups, CUDA events around each launch:
//                                    a device-to-device copy of the bytes,
//                                    cub::DeviceScan::InclusiveSum (plain
//                                    doubles), three phases, and every
//                                    look-back variant below (compensated) at
//                                    2^20, 2^24, 2^28 doubles, each verified
//                                    against CUB before it is timed; then the
//                                    cumulative trapezoid of 10^9 points into
//                                    device memory, through the library (the
//                                    NVRTC kernel) and through the bench's own
//                                    instantiations of the shapes below.
//                                    Tables last.
//
// Variants (each changes one thing against the baseline; the warp-staged
// ones of session 8 are in BENCHMARKS.md and history):
//   base        256 x 16, block-wide staging (lookback_kernel), registers
//               left to the compiler (70 for doubles: three blocks)
//   occ4        ... __launch_bounds__(256, 4): 64 registers, four blocks
//   bulkBxI-M   bulk_lookback_kernel: tiles moved by the bulk-copy engine,
//               read blocked where they lie (I odd), M blocks
//   library     the library's array scan (ArrayScanShape)
// and for the cumulative trapezoid (cumulative_shapes): the same register
// caps and tiles, g_0/2 subtracted once per thread instead of per point
// (CumulativeSink::fold_start: a TwoSum less per point, the kernel being
// bound by its FP64 work), warp-staged 16-byte stores (warp_store) and
// whole tiles stored by the bulk-copy engine (bulk_store, ITEMS odd).
//
// The kernels are launched here with a tile state of the bench's own, as
// kernels/scan/scan.cu launches them (the library call adds the carry's two
// copies and a synchronisation, which would dominate 2^20).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#include <cub/cub.cuh>

#include "../kernels/integrands.cuh"
#include "../kernels/scan/cumulative.cuh"
#include "../kernels/scan/bulk_scan.cuh"
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

// The smallest tile of any variant (sizes the tile states).
constexpr unsigned long long SMALLEST_TILE = 256 * 15; // bulk256x15-6 and the cumulative 256 x 15

// The problem of one launch from a zero carry (the bench's carry word:
// zeroed first, as a chunk of a stream would find it).
template <class Op, class Source, class Sink>
ScanProblem<Op, Source, Sink> problem(State &s, Source src, Sink sink, unsigned long long n, int tile)
{
  ScanProblem<Op, Source, Sink> p{};
  p.src = src;
  p.sink = sink;
  p.n = n;
  p.tiles = (n + tile - 1) / tile;
  p.counter = s.counter;
  p.base = s.counted;
  p.states.flag = s.flags;
  p.states.aggregate = reinterpret_cast<typename Op::Acc *>(s.aggregate);
  p.states.inclusive = reinterpret_cast<typename Op::Acc *>(s.inclusive);
  p.states.epoch = ++s.epoch;
  p.carry_in = nullptr;
  p.carry_out = reinterpret_cast<typename Op::Acc *>(s.carry);
  return p;
}

// One block-staged look-back scan (lookback_kernel) of x into y at shape Shp.
template <class Shp, class Op>
void lookback(State &s, const typename Op::In *x, typename Op::Out *y, unsigned long long n, int exclusive,
              cudaStream_t stream)
{
  using Source = ArraySource<typename Op::In>;
  using Sink = ArraySink<Op>;
  Sink sink{};
  sink.y = y;
  sink.exclusive = exclusive;
  const auto p = problem<Op>(s, Source{x}, sink, n, Shp::BLOCK * Shp::ITEMS);
  lookback_kernel<Op, Source, Sink, Shp::BLOCK, Shp::ITEMS, Shp::MIN_BLOCKS>
      <<<(unsigned)p.tiles, Shp::BLOCK, 0, stream>>>(p);
  s.counted += p.tiles;
  CHECK(cudaGetLastError());
}

// One look-back scan through the bulk-copy engine (bulk_scan.cuh) at Shp.
template <class Shp, class Op>
void bulk(State &s, const typename Op::In *x, typename Op::Out *y, unsigned long long n, int exclusive,
          cudaStream_t stream)
{
  ArraySink<Op> sink{};
  sink.y = y;
  sink.exclusive = exclusive;
  const auto p = problem<Op>(s, ArraySource<typename Op::In>{x}, sink, n, Shp::BLOCK * Shp::ITEMS);
  bulk_lookback_kernel<Op, Shp::BLOCK, Shp::ITEMS, Shp::MIN_BLOCKS><<<(unsigned)p.tiles, Shp::BLOCK, 0, stream>>>(p);
  s.counted += p.tiles;
  CHECK(cudaGetLastError());
}

// The three-phase scan at the library's shape.
template <class Op>
void three_phase(State &s, const typename Op::In *x, typename Op::Out *y, unsigned long long n, int exclusive,
                 cudaStream_t stream)
{
  using Shape = typename ScanShape<Op>::type;
  using Source = ArraySource<typename Op::In>;
  using Sink = ArraySink<Op>;
  const auto p = problem<Op>(s, Source{x}, Sink{y, exclusive}, n, Shape::BLOCK * Shape::ITEMS);
  const unsigned grid = (unsigned)p.tiles;
  reduce_tiles_kernel<Op, Source, Sink, Shape::BLOCK, Shape::ITEMS><<<grid, Shape::BLOCK, 0, stream>>>(p);
  scan_totals_kernel<Op, Source, Sink, TOTALS_BLOCK><<<1, TOTALS_BLOCK, 0, stream>>>(p);
  rescan_tiles_kernel<Op, Source, Sink, Shape::BLOCK, Shape::ITEMS><<<grid, Shape::BLOCK, 0, stream>>>(p);
  CHECK(cudaGetLastError());
}

// A method as the bench runs it: doubles and int64 through one entry each.
struct Method {
  const char *name;
  int tile;
  void (*f64)(State &, const double *, double *, unsigned long long, int, cudaStream_t);
  void (*i64)(State &, const long long *, long long *, unsigned long long, int, cudaStream_t);
};

template <class Shp> Method variant(const char *name)
{
  return Method{name, Shp::BLOCK * Shp::ITEMS, lookback<Shp, DoubleSum>, lookback<Shp, Int64Sum>};
}
template <class Shp> Method bulk_variant(const char *name)
{
  return Method{name, Shp::BLOCK * Shp::ITEMS, bulk<Shp, DoubleSum>, bulk<Shp, Int64Sum>};
}

std::vector<Method> methods()
{
  using Bulk = ArrayScanShape<DoubleSum>::type;
  return {
      variant<gq::Shape<256, 16, 0>>("base"),
      variant<gq::Shape<256, 16, 4>>("occ4"),
      bulk_variant<gq::Shape<256, 15, 6>>("bulk256x15-6"),
      bulk_variant<gq::Shape<256, 17, 6>>("bulk256x17-6"),
      bulk_variant<gq::Shape<256, 19, 5>>("bulk256x19-5"),
      bulk_variant<gq::Shape<256, 21, 5>>("bulk256x21-5"),
      bulk_variant<gq::Shape<256, 23, 4>>("bulk256x23-4"),
      bulk_variant<gq::Shape<320, 17, 4>>("bulk320x17-4"),
      bulk_variant<gq::Shape<384, 15, 4>>("bulk384x15-4"),
      bulk_variant<Bulk>("library"),
      Method{"three-phase", ScanShape<DoubleSum>::type::BLOCK * ScanShape<DoubleSum>::type::ITEMS,
             three_phase<DoubleSum>, three_phase<Int64Sum>},
  };
}

uint64_t next(uint64_t &r)
{
  r ^= r >> 12;
  r ^= r << 25;
  r ^= r >> 27;
  return r * 0x2545f4914f6cdd1dULL;
}

// verify: int64 exactly, doubles within the stated bound of a long double scan.
int verify(State &s, int reps, unsigned long long max_n, const char *only, cudaStream_t stream)
{
  const std::vector<Method> ms = methods();
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
    for (const Method &m : ms)
      for (int ex = 0; ex <= 1; ex++) {
        if (only && strcmp(only, m.name) != 0)
          continue;
        int bad = 0;
        for (int rep = 0; rep < reps; rep++) {
          // Every other run from the second element: x and y 8 bytes off a
          // 16-byte boundary, the warp-staged kernels' scalar path.
          const unsigned long long off = (rep + ex) & 1;
          CHECK(cudaMemsetAsync(dio, 0xff, n * 8, stream));
          CHECK(cudaMemsetAsync(ddo, 0xff, n * 8, stream));
          m.i64(s, di + off, dio + off, n - off, ex, stream);
          m.f64(s, dd + off, ddo + off, n - off, ex, stream);
          CHECK(cudaMemcpyAsync(ho.data(), dio, n * 8, cudaMemcpyDeviceToHost, stream));
          CHECK(cudaMemcpyAsync(hdo.data(), ddo, n * 8, cudaMemcpyDeviceToHost, stream));
          CHECK(cudaStreamSynchronize(stream));
          uint64_t acc = 0;
          long double ls = 0, lc = 0, labs = 0;
          for (unsigned long long i = off; i < n; i++) {
            const uint64_t before = acc;
            acc += (uint64_t)hi[i];
            if ((uint64_t)ho[i] != (ex ? before : acc))
              bad++;
            const long double dbefore = ls + lc, v = hd[i], sum = ls + v;
            lc += fabsl(ls) >= fabsl(v) ? (ls - sum) + v : (v - sum) + ls;
            ls = sum;
            labs += fabsl(v);
            const long double want = ex ? dbefore : ls + lc;
            const long double bound =
                0x1p-53L * fabsl(want) + 2.0L * (i + 1 - off) * 0x1p-106L * labs + 0x1p-62L * fabsl(want);
            if (!(fabsl((long double)hdo[i] - want) <= bound + 4.9e-324L))
              bad++;
          }
        }
        printf("verify %-11s %s n = %llu (%llu tiles) x %d: %s\n", m.name, ex ? "exclusive" : "inclusive", n,
               (n + m.tile - 1) / m.tile, reps, bad ? "FAILED" : "ok");
        failures += bad != 0;
      }
    cudaFree(di);
    cudaFree(dio);
    cudaFree(dd);
    cudaFree(ddo);
  }
  return failures;
}

// The cumulative trapezoid of the built-in circle on [0, 1] (n intervals)
// at shape Shp, launched as gq_cuda_cumulative launches its NVRTC kernel.
// Map: the NVRTC kernel's Map<0> (CUDA's sqrt), or the fast set's (device_math.cuh's fast_sqrt, faithful
// and branch-free), measured to see what the exact functions cost this kernel.
using Circle = gq::PointMap<gq::exact::Integrand_CIRCLE>;
using FastCircle = gq::PointMap<gq::fast::Integrand_CIRCLE>;
template <class Shp, int FOLD, int WARP_STORE, int BULK = 0, class Map = Circle>
void cumulative(State &s, double *out, unsigned long long n, cudaStream_t stream)
{
  GridItems<Map> src{};
  src.a = 0.0;
  src.h = 1.0 / (double)n;
  src.b = 1.0;
  src.last = (double)n;
  CumulativeSink sink{};
  sink.out = out;
  sink.hs = src.h * 4.0; // the circle's scale
  sink.simpson = 0;
  sink.n = n;
  sink.every = 1;
  sink.count = n + 1;
  sink.fold_start = FOLD;
  sink.warp_store = WARP_STORE;
  sink.bulk_store = BULK;
  auto p = problem<DoubleSum>(s, src, sink, n + 1, Shp::BLOCK * Shp::ITEMS);
  p.carry_out = nullptr;
  lookback_kernel<DoubleSum, GridItems<Map>, CumulativeSink, Shp::BLOCK, Shp::ITEMS, Shp::MIN_BLOCKS>
      <<<(unsigned)p.tiles, Shp::BLOCK, 0, stream>>>(p);
  s.counted += p.tiles;
  CHECK(cudaGetLastError());
}

// The largest relative difference of b from a over n values (NaN counts as
// the largest), as the bits of a non-negative double: they order as integers.
__global__ void max_relative_difference(const double *a, const double *b, unsigned long long n,
                                        unsigned long long *worst)
{
  double mine = 0.0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const double scale = fmax(fabs(a[i]), fabs(b[i]));
    const double d = a[i] == b[i] ? 0.0 : fabs(a[i] - b[i]) / scale;
    mine = d != d || d > mine ? d : mine;
  }
  atomicMax(worst, (unsigned long long)__double_as_longlong(fabs(mine)));
}

struct CumulativeRun {
  const char *name;
  void (*run)(State &, double *, unsigned long long, cudaStream_t);
};

std::vector<CumulativeRun> cumulative_shapes()
{
  return {
      {"256x16, 4 blocks, g_0/2 once per thread, warp stores (the library before)", cumulative<gq::Shape<256, 16, 4>, 1, 1>},
      {"256x15, 4 blocks, g_0/2 once per thread, bulk stores", cumulative<gq::Shape<256, 15, 4>, 1, 1, 1>},
      {"256x17, 4 blocks, g_0/2 once per thread, bulk stores", cumulative<gq::Shape<256, 17, 4>, 1, 1, 1>},
      {"256x17, 5 blocks, g_0/2 once per thread, bulk stores", cumulative<gq::Shape<256, 17, 5>, 1, 1, 1>},
      {"256x19, 4 blocks, g_0/2 once per thread, bulk stores", cumulative<gq::Shape<256, 19, 4>, 1, 1, 1>},
      {"256x21, 3 blocks, g_0/2 once per thread, bulk stores", cumulative<gq::Shape<256, 21, 3>, 1, 1, 1>},
      {"256x19, 3 blocks, g_0/2 once per thread, bulk stores", cumulative<gq::Shape<256, 19, 3>, 1, 1, 1>},
      {"256x17, 4 blocks, g_0/2 once per thread, block stores", cumulative<gq::Shape<256, 17, 4>, 1, 0, 0>},
      {"256x16, 4 blocks, warp stores, fast sqrt", cumulative<gq::Shape<256, 16, 4>, 1, 1, 0, FastCircle>},
      {"256x19, 4 blocks, bulk stores, fast sqrt", cumulative<gq::Shape<256, 19, 4>, 1, 1, 1, FastCircle>},
      {"256x16, 3 blocks, warp stores, fast sqrt", cumulative<gq::Shape<256, 16, 3>, 1, 1, 0, FastCircle>},
  };
}

// Shape k's cumulative trapezoid of n intervals into mine, every value
// compared with the library's (lib) on the device; prints and returns ok.
bool check_cumulative(State &s, const CumulativeRun &k, const double *lib, double *mine, unsigned long long n,
                      unsigned long long *d_worst, cudaStream_t stream)
{
  CHECK(cudaMemsetAsync(mine, 0xff, (n + 1) * 8, stream));
  CHECK(cudaMemsetAsync(d_worst, 0, 8, stream));
  k.run(s, mine, n, stream);
  max_relative_difference<<<4 * 132, 256, 0, stream>>>(lib, mine, n + 1, d_worst);
  CHECK(cudaGetLastError());
  unsigned long long bits = 0;
  CHECK(cudaMemcpyAsync(&bits, d_worst, 8, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  double worst;
  memcpy(&worst, &bits, 8);
  const bool ok = worst <= 1e-13; // the pairs combine in other orders: the last bits may differ
  printf("cumulative %s, n = %llu, against the library: largest relative difference %.3g: %s\n", k.name, n, worst,
         ok ? "ok" : "FAILED");
  return ok;
}

// The library's cumulative trapezoid of circle on [0, 1] into out; false
// (and a message) on an error.
bool library_cumulative(gq_context *ctx, unsigned long long n, double *out, double *ms)
{
  CHECK(cudaMemset(out, 0xff, (n + 1) * 8)); // poisoned: an unwritten value compares as NaN
  // cudaMemset is asynchronous and on the legacy stream, which does not order
  // the context's own (non-blocking) stream: without this wait the poison
  // (8 GB at 10^9 points) could still be writing while the library's kernel
  // runs, and be timed with it.
  CHECK(cudaDeviceSynchronize());
  if (gq_cumulative_integral(ctx, gq_integrand_builtin("circle"), 0.0, 1.0, n, GQ_RULE_TRAPEZOID, out, 1, ms) !=
      GQ_SUCCESS) {
    fprintf(stderr, "bench_scan: cumulative: %s\n", gq_last_error());
    return false;
  }
  return true;
}

// verify, the cumulative shapes: n intervals, every value against the library.
int verify_cumulative(State &s, unsigned long long n, cudaStream_t stream)
{
  gq_context *ctx = gq_context_create(0);
  if (!ctx) {
    fprintf(stderr, "bench_scan: %s\n", gq_last_error());
    return 1;
  }
  gq_context_set_stream(ctx, stream);
  double *lib, *mine, ms;
  unsigned long long *d_worst;
  CHECK(cudaMalloc(&lib, (n + 1) * 8));
  CHECK(cudaMalloc(&mine, (n + 1) * 8));
  CHECK(cudaMalloc(&d_worst, 8));
  int failures = !library_cumulative(ctx, n, lib, &ms);
  if (!failures)
    for (const CumulativeRun &k : cumulative_shapes())
      failures += !check_cumulative(s, k, lib, mine, n, d_worst, stream);
  cudaFree(lib);
  cudaFree(mine);
  cudaFree(d_worst);
  gq_context_free(ctx);
  return failures;
}

// The tile states' capacity: 10^9 cumulative points at the smallest tile.
constexpr unsigned long long STATE_TILES = 1000000000ull / SMALLEST_TILE + 2;

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
  const std::vector<Method> ms = methods();
  struct Row {
    int log2n;
    Stat copy, cub;
    std::vector<Stat> method;
  };
  std::vector<Row> rows;
  int failures = 0;
  for (int lg : {20, 24, 28}) {
    const unsigned long long n = 1ull << lg;
    // Verified first: every method against CUB's plain sums (uniform data in
    // (0, 1): CUB's error is a few ulp of the prefix, ours below one).
    CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, x, yc, (int)n, stream));
    std::vector<double> hc(n), h(n);
    CHECK(cudaMemcpyAsync(hc.data(), yc, n * 8, cudaMemcpyDeviceToHost, stream));
    for (const Method &m : ms) {
      CHECK(cudaMemsetAsync(y, 0xff, n * 8, stream)); // a variant that writes nothing fails
      m.f64(s, x, y, n, 0, stream);
      CHECK(cudaMemcpyAsync(h.data(), y, n * 8, cudaMemcpyDeviceToHost, stream));
      CHECK(cudaStreamSynchronize(stream));
      double worst = 0;
      for (unsigned long long i = 0; i < n; i++) {
        const double d = std::fabs(h[i] - hc[i]) / std::fabs(hc[i]);
        worst = d > worst || d != d ? d : worst; // NaN (an unwritten 0xff..) is kept
      }
      const bool ok = worst < 1e-12;
      printf("2^%d %s against CUB: largest relative difference %.3g: %s\n", lg, m.name, worst, ok ? "ok" : "FAILED");
      failures += !ok;
    }
    Row r;
    r.log2n = lg;
    r.copy = event_time(stream, e0, e1, 3, reps, [&] { CHECK(cudaMemcpyAsync(y, x, n * 8, cudaMemcpyDeviceToDevice, stream)); });
    r.cub = event_time(stream, e0, e1, 3, reps, [&] { CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, x, yc, (int)n, stream)); });
    for (const Method &m : ms)
      r.method.push_back(event_time(stream, e0, e1, 3, reps, [&] { m.f64(s, x, y, n, 0, stream); }));
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
  for (int r = -2; r < reps; r++) {
    double ms = 0;
    if (!library_cumulative(ctx, n, out, &ms))
      return 1;
    if (r >= 0)
      cum.push_back(ms * 1e3);
  }
  double last = 0;
  CHECK(cudaMemcpy(&last, out + n, 8, cudaMemcpyDeviceToHost));
  const Stat c = stat_of(cum);
  gq_context_free(ctx);
  // The same integral through the bench's instantiations (CUDA's sqrt, as
  // the NVRTC module's Map<0>), every value checked against the library's first.
  std::vector<Stat> cum_shapes;
  double *mine;
  unsigned long long *d_worst;
  CHECK(cudaMalloc(&mine, (n + 1) * 8));
  CHECK(cudaMalloc(&d_worst, 8));
  for (const CumulativeRun &k : cumulative_shapes()) {
    failures += !check_cumulative(s, k, out, mine, n, d_worst, stream);
    cum_shapes.push_back(event_time(stream, e0, e1, 2, reps, [&] { k.run(s, mine, n, stream); }));
  }
  cudaFree(mine);
  cudaFree(d_worst);
  cudaFree(out);

  printf("\n| method | 2^20 us | 2^24 us | 2^28 us | 2^28 copy bandwidth fraction | 2^28 CUB / method |\n");
  printf("|---|---|---|---|---|---|\n");
  const Row &big = rows.back();
  printf("| copy | %.1f | %.1f | %.1f | 1.000 | |\n", rows[0].copy.median, rows[1].copy.median, big.copy.median);
  printf("| CUB InclusiveSum | %.1f | %.1f | %.1f | %.3f | 1.00 |\n", rows[0].cub.median, rows[1].cub.median,
         big.cub.median, big.copy.median / big.cub.median);
  for (size_t m = 0; m < ms.size(); m++)
    printf("| %s | %.1f | %.1f | %.1f | %.3f | %.2f |\n", ms[m].name, rows[0].method[m].median,
           rows[1].method[m].median, big.method[m].median, big.copy.median / big.method[m].median,
           big.cub.median / big.method[m].median);
  printf("cumulative trapezoid of circle, 10^9 points into device memory, library (NVRTC): %.3f ms median "
         "(p10 %.3f, p90 %.3f); F(1) = %.17g\n",
         c.median * 1e-3, c.p10 * 1e-3, c.p90 * 1e-3, last);
  const std::vector<CumulativeRun> shapes = cumulative_shapes();
  for (size_t k = 0; k < shapes.size(); k++)
    printf("cumulative trapezoid of circle, 10^9 points, %s: %.3f ms median (p10 %.3f, p90 %.3f)\n", shapes[k].name,
           cum_shapes[k].median * 1e-3, cum_shapes[k].p10 * 1e-3, cum_shapes[k].p90 * 1e-3);
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
  printf("bench_scan %s on %s (%d SMs), library array tile %d x %d (bulk copies), cumulative tile %d x %d, %d blocks\n",
         mode, prop.name, prop.multiProcessorCount, ArrayScanShape<DoubleSum>::type::BLOCK,
         ArrayScanShape<DoubleSum>::type::ITEMS, CumulativeShape::type::BLOCK, CumulativeShape::type::ITEMS,
         CumulativeShape::type::MIN_BLOCKS);
  State s;
  s.init(STATE_TILES);
  const unsigned long long max_n = argc > 3 ? strtoull(argv[3], nullptr, 10) : ~0ull;
  const char *only = argc > 4 && strcmp(argv[4], "all") != 0 ? argv[4] : nullptr;
  // verify: the array scans, then (unless one variant is named) the
  // cumulative shapes at 4096 x 300 intervals, when MAX_N allows.
  int failures;
  if (strcmp(mode, "verify") == 0) {
    failures = verify(s, reps, max_n, only, stream);
    if (!only && 4096ull * 300 <= max_n)
      failures += verify_cumulative(s, 4096ull * 300, stream);
  } else {
    failures = time_all(s, reps, stream, e0, e1);
  }
  return failures ? 1 : 0;
}
