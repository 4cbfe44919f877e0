// sinks.cuh — where a histogram's additions go: global memory (64-bit
// counts, the totals) or 32-bit bins in shared memory, the block's own or,
// in a cluster, the block's that owns the key (distributed shared memory).
// A sink's add(key, count, sum) is one element's or one warp-aggregated
// group's contribution.
//
// Sums: SUM_PLAIN adds with the native double atomicAdd; SUM_COMPENSATED
// keeps (hi, lo) per bin: hi is replaced by compare-and-swap with
// fl(hi + v), so the thread that wins knows the old hi exactly and can form
// TwoSum's error (hi + v) - fl(hi + v) without loss, which it then adds to
// lo with atomicAdd.  hi + lo is the exact sum up to the roundings of the lo
// additions (each of size eps |lo|, lo itself of size n eps |v|).  No native
// atomic does this: it is the project's type "that needs an atomicCAS loop".
#ifndef GQ_HIST_SINKS_CUH
#define GQ_HIST_SINKS_CUH

#include "../../src/lib/hist_bin.h" /* gq_hist_sum_add */

namespace gq {
namespace hist {

enum SumMode { SUM_NONE = 0, SUM_PLAIN = 1, SUM_COMPENSATED = 2 };

// hi += v with TwoSum's error into lo: the atomicCAS loop on hi's bits.
__device__ __forceinline__ void compensated_add(double *hi, double *lo, double v)
{
  unsigned long long *bits = reinterpret_cast<unsigned long long *>(hi);
  unsigned long long seen = *reinterpret_cast<volatile unsigned long long *>(bits), expected;
  double err;
  do {
    expected = seen;
    err = 0.0;
    const double s = gq_hist_sum_add(__longlong_as_double((long long)expected), v, &err);
    seen = atomicCAS(bits, expected, (unsigned long long)__double_as_longlong(s));
  } while (seen != expected);
  if (err != 0.0)
    atomicAdd(lo, err);
}

template <int SUM> __device__ __forceinline__ void add_sum(double *sums, double *errs, unsigned key, double sum)
{
  if constexpr (SUM == SUM_PLAIN)
    atomicAdd(&sums[key], sum);
  else if constexpr (SUM == SUM_COMPENSATED)
    compensated_add(&sums[key], &errs[key], sum);
}

// The totals: one 64-bit atomic per addition.
template <int SUM> struct GlobalSink {
  unsigned long long *counts;
  double *sums, *errs;
  __device__ __forceinline__ void add(unsigned key, unsigned count, double sum)
  {
    atomicAdd(&counts[key], (unsigned long long)count);
    add_sum<SUM>(sums, errs, key, sum);
  }
};

// A block's privatised bins: 32-bit counts (a launch covers at most
// MAX_LAUNCH_ELEMENTS < 2^32 elements, so none wraps).
template <int SUM> struct SharedSink {
  unsigned *counts;
  double *sums, *errs;
  __device__ __forceinline__ void add(unsigned key, unsigned count, double sum)
  {
    atomicAdd(&counts[key], count);
    add_sum<SUM>(sums, errs, key, sum);
  }
};

// Shared memory of a block: doubles first (8-byte aligned), then counts.
template <int SUM> struct SharedLayout {
  static constexpr size_t per_key = sizeof(unsigned) + (SUM == SUM_NONE ? 0 : SUM == SUM_PLAIN ? 8 : 16);
  __device__ static SharedSink<SUM> at(unsigned char *base, unsigned keys)
  {
    double *sums = reinterpret_cast<double *>(base);
    double *errs = sums + (SUM == SUM_NONE ? 0 : keys);
    unsigned *counts = reinterpret_cast<unsigned *>(errs + (SUM == SUM_COMPENSATED ? keys : 0));
    return {counts, SUM == SUM_NONE ? nullptr : sums, SUM == SUM_COMPENSATED ? errs : nullptr};
  }
};

// Zero a block's bins, and add them to the totals (skipping empty bins:
// on skewed data most are).  key0: the first key this block holds.
template <int SUM> __device__ void zero_bins(const SharedSink<SUM> &s, unsigned keys)
{
  for (unsigned k = threadIdx.x; k < keys; k += blockDim.x) {
    s.counts[k] = 0;
    if (SUM != SUM_NONE)
      s.sums[k] = 0.0;
    if (SUM == SUM_COMPENSATED)
      s.errs[k] = 0.0;
  }
}
template <int SUM>
__device__ void flush_bins(const SharedSink<SUM> &s, unsigned keys, unsigned key0, const GlobalSink<SUM> &g)
{
  for (unsigned k = threadIdx.x; k < keys; k += blockDim.x) {
    const unsigned c = s.counts[k];
    if (c == 0)
      continue;
    atomicAdd(&g.counts[key0 + k], (unsigned long long)c);
    if constexpr (SUM == SUM_PLAIN)
      atomicAdd(&g.sums[key0 + k], s.sums[k]);
    if constexpr (SUM == SUM_COMPENSATED) {
      compensated_add(&g.sums[key0 + k], &g.errs[key0 + k], s.sums[k]);
      atomicAdd(&g.errs[key0 + k], s.errs[k]);
    }
  }
}

} // namespace hist
} // namespace gq
#endif
