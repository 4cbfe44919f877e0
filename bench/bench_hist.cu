// bench_hist.cu — every histogram method of kernels/hist/ against CUB's
// DeviceHistogram::HistogramEven on N doubles in [0, 1) (default 2^28: 2 GiB,
// about 480 us at the H200's read rate, the floor of any method), at 16, 256
// and 65536 bins, over key distributions that favour or defeat aggregation:
//   uniform  every bin alike;
//   hot      90% of the values in one bin (the others uniform);
//   few      4 distinct bins in each warp's 32 consecutive values;
//   equal    every value the same.
// Each method is verified before it is timed: its counts (with under, over
// and NaN) must equal CUB's exactly (the ranges and bin counts are powers of
// two, so CUB's bins and numpy's coincide).  Then binned sums at 256 bins
// (plain double atomics and the TwoSum-by-atomicCAS compensated sum), with
// dyadic values whose every partial sum is exact, so all methods must agree
// to the bit (on at most 2^24 elements).  On sm_90 the cluster method at
// 65536 bins is also timed with each cluster size (2, 4, 8 blocks).  Beside
// the methods, SHARED counts in each launch variant of kernels/hist/hist.cu
// (VARIANTS: shapes, the pipelined tile loop, fast_bin, packed 16-bit bins
// that hold 65536 bins in one block), verified and timed the same way; the
// summary ends with the fastest row of each data set.  Times: CUDA events around the memset of the totals and the
// launches (CUB zeroes its own output), 2 warm-ups, the median of REPS.
//
// Usage: bench_hist [N] [REPS] [verify]   (REPS default 9, at least 5;
// `verify`: every pass run once and checked, nothing timed, for the
// sanitizers of bench/gpu_hist.sh, which reach every kernel this way)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cub/device/device_histogram.cuh>

#include "../kernels/hist/hist.cuh"
#include "timing.cuh"

namespace {

enum Dist { UNIFORM, HOT, FEW, EQUAL, NDIST };
const char *const dist_names[NDIST] = {"uniform", "hot", "few", "equal"};

__device__ __forceinline__ uint64_t mix(uint64_t z)
{
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Values in [0, 1): 53-bit uniform, or the centre of bin (key) of `bins`.
__global__ void fill(double *x, size_t n, int dist, unsigned bins)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const double u = (double)(mix(i) >> 11) * 0x1p-53;
    double v = u;
    if (dist == HOT && mix(i ^ 0x5555) % 10 != 0)
      v = (bins / 3 + 0.5) / bins;
    else if (dist == FEW)
      v = ((mix(i / 32) + i % 4) % bins + 0.5) / bins;
    else if (dist == EQUAL)
      v = 0.5 / bins;
    x[i] = v;
  }
}

// 1 + j 2^-20, j < 4: every partial sum of up to 2^31 of them is exact.
__global__ void fill_values(double *v, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    v[i] = 1.0 + (double)(i % 4) * 0x1p-20;
}

struct Totals {
  unsigned long long *counts;
  double *sums, *errs;
  unsigned keys;
};

// One 1-D pass over x into t's totals (sums when values is not null).
gq::hist::Args args_for(const double *x, const double *values, size_t n, unsigned bins, const Totals &t, int sum)
{
  gq::hist::Args a{};
  a.x = x;
  a.values = values;
  a.n = n;
  a.ax = gq_hist_axis_make(bins, 0.0, 1.0);
  a.dims = 1;
  a.keys = bins + GQ_HIST_EXTRA_KEYS;
  a.counts = t.counts;
  a.sums = sum ? t.sums : nullptr;
  a.errs = sum == 2 ? t.errs : nullptr;
  return a;
}

// The timed unit: zero the totals the pass writes, enqueue it.
void run_pass(const gq::hist::Plan &plan, const gq::hist::Args &a, cudaStream_t s)
{
  CHECK(cudaMemsetAsync(a.counts, 0, a.keys * sizeof(unsigned long long), s));
  if (a.sums)
    CHECK(cudaMemsetAsync(a.sums, 0, a.keys * sizeof(double), s));
  if (a.errs)
    CHECK(cudaMemsetAsync(a.errs, 0, a.keys * sizeof(double), s));
  if (gq::hist::enqueue(plan, a, s) != GQ_SUCCESS) {
    fprintf(stderr, "bench_hist: %s\n", gq_last_error());
    exit(1);
  }
}

} // namespace

int main(int argc, char **argv)
{
  const size_t n = argc > 1 ? strtoull(argv[1], nullptr, 0) : (size_t)1 << 28;
  const int reps = argc > 2 ? std::max(5, atoi(argv[2])) : 9;
  const bool verify_only = argc > 3 && strcmp(argv[3], "verify") == 0;
  if (argc > 4 || (argc > 3 && !verify_only)) {
    fprintf(stderr, "usage: bench_hist [N] [REPS] [verify]\n");
    return 2;
  }
  cudaStream_t s;
  cudaEvent_t e0, e1;
  const cudaDeviceProp prop = bench_device(&s, &e0, &e1);
  // event_time's median, or (verify) nothing run and no time: every pass is
  // run once and checked before it is timed
  auto timed = [&](auto call) { return verify_only ? Stat{0.0, 0.0, 0.0} : event_time(s, e0, e1, 2, reps, call); };
  gq::hist::Device dev;
  if (gq::hist::device_of(0, &dev) != GQ_SUCCESS) {
    fprintf(stderr, "bench_hist: %s\n", gq_last_error());
    return 1;
  }
  printf("bench_hist: %s, %d SMs, cc %d.%d, %zu KiB shared per block (opt-in); n = %zu doubles (%.3g GB), "
         "median of %d\n",
         prop.name, dev.sms, prop.major, prop.minor, dev.smem_optin >> 10, n, n * 8e-9, reps);
  double *x = nullptr, *values = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(double)));
  const unsigned bin_counts[] = {16, 256, 65536};
  const unsigned max_keys = 65536 + GQ_HIST_EXTRA_KEYS;
  Totals t{nullptr, nullptr, nullptr, 0};
  CHECK(cudaMalloc(&t.counts, max_keys * sizeof(unsigned long long)));
  CHECK(cudaMalloc(&t.sums, max_keys * sizeof(double)));
  CHECK(cudaMalloc(&t.errs, max_keys * sizeof(double)));
  unsigned *cub_counts = nullptr;
  CHECK(cudaMalloc(&cub_counts, 65536 * sizeof(unsigned)));
  void *temp = nullptr;
  size_t temp_bytes = 0;
  struct Row {
    char what[96];
    int dist;
    unsigned bins;
    double us, cub_us;
  };
  std::vector<Row> table;
  int failures = 0;

  for (int dist = 0; dist < NDIST; dist++)
    for (unsigned bins : bin_counts) {
      fill<<<1024, 256, 0, s>>>(x, n, dist, bins);
      CHECK(cudaGetLastError());
      // CUB: bins + 1 levels on [0, 1)
      size_t need = 0;
      CHECK(cub::DeviceHistogram::HistogramEven(nullptr, need, x, cub_counts, (int)bins + 1, 0.0, 1.0, (int64_t)n, s));
      if (need > temp_bytes) {
        CHECK(cudaFree(temp));
        CHECK(cudaMalloc(&temp, need));
        temp_bytes = need;
      }
      auto cub_call = [&] {
        CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, x, cub_counts, (int)bins + 1, 0.0, 1.0, (int64_t)n, s));
      };
      cub_call(); // the reference counts
      const Stat cub = timed(cub_call);
      CHECK(cudaStreamSynchronize(s)); // s does not block: before the copy on the default stream
      std::vector<unsigned> ref(bins);
      CHECK(cudaMemcpy(ref.data(), cub_counts, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
      printf("%-8s %6u bins  cub HistogramEven  %9.1f us  %7.1f GB/s  %6.2f G updates/s\n", dist_names[dist], bins,
             cub.median, n * 8e-3 / cub.median, n * 1e-3 / cub.median);
      // Verify a plan's counts against CUB's, then time it; `label` names it
      // in the table (kept when `keep`).
      auto measure = [&](const gq::hist::Plan &plan, const char *label, bool keep) {
        const gq::hist::Args a = args_for(x, nullptr, n, bins, t, 0);
        auto ours = [&] { run_pass(plan, a, s); };
        ours();
        std::vector<unsigned long long> got(a.keys);
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaMemcpy(got.data(), t.counts, a.keys * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        bool ok = got[bins + GQ_HIST_UNDER] == 0 && got[bins + GQ_HIST_OVER] == 0 && got[bins + GQ_HIST_NAN] == 0;
        for (unsigned k = 0; k < bins; k++)
          ok = ok && got[k] == ref[k];
        const Stat st = timed(ours);
        failures += !ok;
        printf("%-8s %6u bins  %-40s grid %5u x %4u  %9.1f us  %7.1f GB/s  %6.2f G updates/s  %5.2fx CUB  %s\n",
               dist_names[dist], bins, label, plan.grid, plan.block, st.median, n * 8e-3 / st.median,
               n * 1e-3 / st.median, cub.median / st.median, ok ? "counts = CUB's" : "COUNTS DIFFER FROM CUB's");
        if (keep) {
          Row r;
          snprintf(r.what, sizeof r.what, "%s %u %s", dist_names[dist], bins, label);
          r.dist = dist;
          r.bins = bins;
          r.us = st.median;
          r.cub_us = cub.median;
          table.push_back(r);
        }
      };
      for (int method = GQ_HIST_GLOBAL; method < GQ_HIST_NMETHODS; method++) {
        gq::hist::Plan plan;
        if (gq::hist::plan(dev, method, bins + GQ_HIST_EXTRA_KEYS, 0, &plan) != GQ_SUCCESS) {
          fprintf(stderr, "bench_hist: %s\n", gq_last_error());
          return 1;
        }
        char label[64];
        snprintf(label, sizeof label, "%s (ran %s)", gq_hist_method_name((gq_hist_method)method),
                 gq_hist_method_name((gq_hist_method)plan.method));
        measure(plan, label, method == GQ_HIST_GLOBAL || plan.method == method);
      }
      // SHARED counts in every launch variant beyond the baseline (row 0,
      // `shared` above): kernels/hist/hist.cu's VARIANTS.
      for (int v = 1; v < gq::hist::NVARIANTS; v++) {
        gq::hist::Plan plan;
        char label[64];
        snprintf(label, sizeof label, "shared/%s", gq::hist::variant_name(v));
        if (gq::hist::plan_variant(dev, GQ_HIST_SHARED, bins + GQ_HIST_EXTRA_KEYS, 0, 1, v, &plan) != GQ_SUCCESS) {
          printf("%-8s %6u bins  %-40s does not run: %s\n", dist_names[dist], bins, label, gq_last_error());
          continue;
        }
        measure(plan, label, true);
      }
    }

  // The cluster's size at 65536 bins (uniform and hot): plan() takes the
  // smallest of 2, 4, 8 whose slices fit half a multiprocessor's shared
  // memory; each size that fits the opt-in limit is timed here, so that the
  // choice can follow the measurement.
  if (dev.cc_major >= 9)
    for (int dist : {UNIFORM, HOT}) {
      const unsigned bins = 65536;
      fill<<<1024, 256, 0, s>>>(x, n, dist, bins);
      CHECK(cudaGetLastError());
      for (unsigned c = 2; c <= 8; c *= 2) {
        gq::hist::Plan plan;
        const gq::hist::Args a = args_for(x, nullptr, n, bins, t, 0);
        if (gq::hist::plan_cluster(dev, GQ_HIST_CLUSTER, a.keys, 0, c, &plan) != GQ_SUCCESS) {
          printf("%-8s  65536 bins  cluster of %u: %s\n", dist_names[dist], c, gq_last_error());
          continue;
        }
        auto ours = [&] { run_pass(plan, a, s); };
        const Stat st = timed(ours);
        printf("%-8s  65536 bins  cluster of %u blocks, %zu KiB each, grid %u  %9.1f us  %6.2f G updates/s\n",
               dist_names[dist], c, plan.smem >> 10, plan.grid, st.median, n * 1e-3 / st.median);
      }
    }

  // 2-D counts in every variant (their 2-D kernels, which the 1-D rows above
  // do not reach), 16 x 16 and 256 x 256 cells over (x[i], x[i + 2]) (both
  // 16-byte aligned), on at most 2^24 points: equal to global's, not timed.
  if (n > 2) {
    fill<<<1024, 256, 0, s>>>(x, n, UNIFORM, 256);
    CHECK(cudaGetLastError());
    const size_t n2 = std::min(n - 2, (size_t)1 << 24);
    for (unsigned side : {16u, 256u}) {
      gq::hist::Args a = args_for(x, nullptr, n2, side, t, 0);
      a.y = x + 2;
      a.ay = a.ax;
      a.dims = 2;
      a.keys = side * side + GQ_HIST_EXTRA_KEYS;
      std::vector<unsigned long long> ref, got(a.keys);
      for (int v = 0; v < gq::hist::NVARIANTS; v++) {
        gq::hist::Plan plan;
        const int method = v == 0 ? GQ_HIST_GLOBAL : GQ_HIST_SHARED;
        if (gq::hist::plan_variant(dev, method, a.keys, 0, 1, v, &plan) != GQ_SUCCESS)
          continue; // 32-bit bins beyond a block
        run_pass(plan, a, s);
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaMemcpy(got.data(), t.counts, a.keys * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        if (v == 0) {
          ref = got;
          continue;
        }
        const bool ok = got == ref;
        failures += !ok;
        printf("2-D %3u x %-3u n %zu  shared/%-36s %s\n", side, side, n2, gq::hist::variant_name(v),
               ok ? "counts = global's" : "COUNTS DIFFER FROM global's");
      }
    }
  }

  // Binned sums, 256 bins: plain and compensated, uniform and hot, on at most
  // 2^24 elements: global's compare-and-swap loop on one hot address
  // serialises every addition, and would take seconds a repetition at 2^28.
  const size_t ns = std::min(n, (size_t)1 << 24);
  CHECK(cudaMalloc(&values, ns * sizeof(double)));
  fill_values<<<1024, 256, 0, s>>>(values, ns);
  CHECK(cudaGetLastError());
  for (int dist : {UNIFORM, HOT}) {
    fill<<<1024, 256, 0, s>>>(x, n, dist, 256);
    std::vector<double> first;
    for (int sum = 1; sum <= 2; sum++)
      for (int method = GQ_HIST_GLOBAL; method < GQ_HIST_NMETHODS; method++) {
        gq::hist::Plan plan;
        const gq::hist::Args a = args_for(x, values, ns, 256, t, sum);
        if (gq::hist::plan(dev, method, a.keys, sum, &plan) != GQ_SUCCESS) {
          fprintf(stderr, "bench_hist: %s\n", gq_last_error());
          return 1;
        }
        auto ours = [&] { run_pass(plan, a, s); };
        ours();
        std::vector<double> sums(a.keys), errs(a.keys, 0.0);
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaMemcpy(sums.data(), t.sums, a.keys * sizeof(double), cudaMemcpyDeviceToHost));
        if (a.errs)
          CHECK(cudaMemcpy(errs.data(), a.errs, a.keys * sizeof(double), cudaMemcpyDeviceToHost));
        for (unsigned k = 0; k < a.keys; k++)
          sums[k] += errs[k];
        if (first.empty())
          first = sums;
        const bool ok = sums == first;
        failures += !ok;
        const Stat st = timed(ours);
        printf("%-8s    256 bins  sums %-11s %-7s (ran %-7s) n %zu  %9.1f us  %6.2f G updates/s  %s\n",
               dist_names[dist], sum == 1 ? "plain" : "compensated", gq_hist_method_name((gq_hist_method)method),
               gq_hist_method_name((gq_hist_method)plan.method), ns, st.median, ns * 1e-3 / st.median,
               ok ? "sums exact, = global's" : "SUMS DIFFER");
      }
  }

  printf("\nsummary (median us; x CUB > 1 is faster than CUB; goals: >= 0.98x at <= 256 bins, >= 10x at 65536 "
         "uniform)\n");
  printf("  %-56s %10s %10s %8s\n", "distribution bins method[/variant]", "us", "CUB us", "x CUB");
  for (const Row &r : table)
    printf("  %-56s %10.1f %10.1f %8.2f\n", r.what, r.us, r.cub_us, r.cub_us / r.us);
  printf("fastest per data set:\n");
  for (size_t i = 0; i < table.size(); i++) {
    const Row *best = nullptr;
    bool first = true;
    for (size_t j = 0; j < table.size(); j++)
      if (table[j].dist == table[i].dist && table[j].bins == table[i].bins) {
        first = first && j >= i;
        if (!best || table[j].us < best->us)
          best = &table[j];
      }
    if (first)
      printf("  %-56s %10.1f %10.1f %8.2f\n", best->what, best->us, best->cub_us, best->cub_us / best->us);
  }
  printf("auto (gq_hist_method_for) picks:");
  for (unsigned bins : bin_counts)
    printf(" %u bins -> %s;", bins,
           gq_hist_method_name((gq_hist_method)gq::hist::method_for(dev, bins + GQ_HIST_EXTRA_KEYS, 0)));
  printf("\n%s\n", failures ? "VERIFICATION FAILED" : "all verified");
  cudaFree(x);
  cudaFree(values);
  cudaFree(t.counts);
  cudaFree(t.sums);
  cudaFree(t.errs);
  cudaFree(cub_counts);
  cudaFree(temp);
  return failures ? 1 : 0;
}
