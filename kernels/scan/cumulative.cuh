// cumulative.cuh — cumulative integrals as scans (device_scan.cuh) over
// the grid x_i = fma(i, h, a), x_n = b (no memory read), with g evaluated by
// the module's Map (f = scale g), summed as compensated pairs:
//
//   trapezoid (GridItems): items g_i; the sink writes
//     F_i = h scale (S_i - g_0/2 - g_i/2),  S_i = g_0 + ... + g_i,
//   which is h scale (g_0/2 + g_1 + ... + g_{i-1} + g_i/2): the halves are
//   exact, the product by h scale carries its rounding error by fma, so F_i
//   is rounded once;
//   Simpson (SimpsonItems, scipy.integrate.cumulative_simpson's formulas
//   for equal intervals): item i is 12/h times the integral over
//   [x_{i-1}, x_i] of the parabola through three neighbouring points,
//     5 g_j + 8 g_{j+1} - g_{j+2}   for j = i - 1 even (and not the last),
//     -g_{j-1} + 8 g_j + 5 g_{j+1}  for j odd, and for the last interval,
//   so that F at every even i is the composite Simpson rule on [a, x_i];
//   the sink writes h scale / 12 times the prefix.
//
// Only F_0, F_K, F_2K, ... and F_n are written (every = K).  Compiled by
// NVRTC in an expression's module (cumulative_jit.cu), whose gq_jit::Map<0>
// is Map.
#ifndef GQ_SCAN_CUMULATIVE_CUH
#define GQ_SCAN_CUMULATIVE_CUH

#include "bulk_copy.cuh"
#include "device_scan.cuh"

namespace gq {
namespace scan {

template <class Map> struct GridItems {
  using Item = double;
  double a, h, b;
  double last; // n, the index of x_n = b
  unsigned long long offset; // the grid index of the launch's first element (a share's part)

  __device__ __forceinline__ double point(double i) const { return i == last ? b : fma(i, h, a); }
  template <int BLOCK, int ITEMS>
  __device__ __forceinline__ void load(double (&items)[ITEMS], double *, unsigned long long first, int valid) const
  {
    const double base = (double)(offset + first + (unsigned long long)threadIdx.x * ITEMS); // exact below 2^53
    const int mine = valid - (int)threadIdx.x * ITEMS;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const double x = point(base + (double)k);
      items[k] = k < mine ? Map()(&x) : 0.0;
    }
  }
  __device__ __forceinline__ double at_start() const { return Map()(&a); }
};

// The Simpson items: a thread evaluates g once at each of the ITEMS + 3
// points its items need (x_{i-2} .. x_{i+ITEMS}, clamped to the grid), so
// no value crosses a thread.
template <class Map> struct SimpsonItems : GridItems<Map> {
  template <int BLOCK, int ITEMS>
  __device__ __forceinline__ void load(double (&items)[ITEMS], double *, unsigned long long first, int valid) const
  {
    const unsigned long long base = this->offset + first + (unsigned long long)threadIdx.x * ITEMS;
    const int mine = valid - (int)threadIdx.x * ITEMS;
    const long long n = (long long)this->last;
    double g[ITEMS + 3]; // g[m] = g(x_{base - 2 + m})
#pragma unroll
    for (int m = 0; m < ITEMS + 3; m++) {
      const long long i = (long long)base - 2 + m;
      const double x = this->point((double)i);
      g[m] = mine > 0 && i >= 0 && i <= n && m <= mine + 2 ? Map()(&x) : 0.0;
    }
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const long long j = (long long)base + k - 1; // item base + k covers [x_j, x_{j+1}]
      const double *w = g + k + 1;                 // w[0] = g_j
      double v = 0.0;
      if (j >= 0 && j < n && k < mine)
        v = (j % 2 == 0 && j != n - 1) ? 5.0 * w[0] + 8.0 * w[1] - w[2] : -w[-1] + 8.0 * w[0] + 5.0 * w[1];
      items[k] = v;
    }
  }
};

struct CumulativeSink {
  double *out;
  double hs;                 // h scale (trapezoid), h scale / 12 (Simpson)
  int simpson;
  unsigned long long n;      // the last index
  unsigned long long every;  // K
  unsigned long long count;  // values of the whole integral
  // A share's part: the grid index of the launch's first element, and the
  // index of the first value out holds (offset / every; out[i - offset] when
  // every = 1).
  unsigned long long offset, out_base;
  // Trapezoid: 1 adds -g_0/2 to the thread's running pair once (thread_start)
  // instead of once per value, a TwoSum less per point of the FP64 work that
  // bounds this kernel; the pair holds the same exact value either way and
  // only its compensation rounds, so the bound is the same (one more term).
  int fold_start;
  // Every value (every = 1): 1 stages the results per warp and stores 16
  // bytes at a time (WarpArraySink: no block barrier; ITEMS even), 0 through
  // the block.
  int warp_store;
  // ... and 1 has the bulk-copy engine store a whole tile (ITEMS odd, out
  // 16-byte aligned, sm_90): each thread writes its run where it lies in the
  // stage (no padding, no transpose, no bank conflicts), one thread issues
  // the copy; other tiles take the path above.
  int bulk_store;

  template <class Acc> __device__ __forceinline__ Acc thread_start(Acc running, double g0) const
  {
    if (!simpson && fold_start)
      gq_csum_add(&running, -0.5 * g0);
    return running;
  }
  template <class Acc>
  __device__ __forceinline__ double value(const Acc &, Acc s, double g, double g0) const
  {
    if (!simpson) {
      if (!fold_start)
        gq_csum_add(&s, -0.5 * g0);
      gq_csum_add(&s, -0.5 * g);
    }
    const double p = s.s * hs;
    return p + (fma(s.s, hs, -p) + s.c * hs);
  }
  template <int BLOCK, int ITEMS>
  __device__ __forceinline__ void store(double (&values)[ITEMS], double *stage, unsigned long long first,
                                        int valid) const
  {
    const unsigned long long mine = offset + first + (unsigned long long)threadIdx.x * ITEMS;
    if (mine == 0)
      values[0] = 0.0; // F_0 exactly, whatever g_0 is
    if (every == 1) { // every value: staged, coalesced as an array's
      if constexpr (ITEMS % 2 == 1) {
        if (bulk_store && valid == BLOCK * ITEMS && bulk_aligned(out)) {
          double *run = stage + threadIdx.x * ITEMS;
#pragma unroll
          for (int k = 0; k < ITEMS; k++)
            run[k] = values[k];
          bulk_fence_writes();
          __syncthreads();
          if (threadIdx.x == 0)
            ::gq::scan::bulk_store(out + first, stage, BLOCK * ITEMS * (unsigned)sizeof(double));
          return;
        }
      }
      if (warp_store && ITEMS % 2 == 0) // whole 16-byte pairs a thread
        WarpArraySink<DoubleSum, 2>{{out, 0}}.template store<BLOCK, ITEMS>(values, stage, first, valid);
      else
        ArraySink<DoubleSum>{out, 0}.template store<BLOCK, ITEMS>(values, stage, first, valid);
      return;
    }
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const unsigned long long i = mine + k;
      if (i > n)
        break;
      if (i % every == 0)
        out[i / every - out_base] = values[k];
      else if (i == n)
        out[count - 1 - out_base] = values[k];
    }
  }
};

} // namespace scan
} // namespace gq
#endif
