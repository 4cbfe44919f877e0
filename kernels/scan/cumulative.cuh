// cumulative.cuh — the cumulative trapezoid as a scan (device_scan.cuh):
// the items are g_i = g(x_i) on the grid x_i = fma(i, h, a), x_n = b
// (GridItems, no memory read), summed as compensated pairs; the sink writes
//   F_i = h scale (S_i - g_0/2 - g_i/2),  S_i = g_0 + ... + g_i,
// which is h scale (g_0/2 + g_1 + ... + g_{i-1} + g_i/2): the halves are
// exact, the product by h scale (a power of two times h) carries its
// rounding error by fma, so F_i is rounded once.  Only F_0, F_K, F_2K, ...
// and F_n are written (every = K).  Compiled by NVRTC in an expression's
// module (cumulative_jit.cu), whose gq_jit::Map<0> is Map.
#ifndef GQ_SCAN_CUMULATIVE_CUH
#define GQ_SCAN_CUMULATIVE_CUH

#include "device_scan.cuh"

namespace gq {
namespace scan {

template <class Map> struct GridItems {
  using Item = double;
  double a, h, b;
  double last; // n, the index of x_n = b

  __device__ __forceinline__ double point(double i) const { return i == last ? b : fma(i, h, a); }
  template <int BLOCK, int ITEMS>
  __device__ __forceinline__ void load(double (&items)[ITEMS], double *, unsigned long long first, int valid) const
  {
    const double base = (double)(first + (unsigned long long)threadIdx.x * ITEMS); // exact below 2^53
    const int mine = valid - (int)threadIdx.x * ITEMS;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const double x = point(base + (double)k);
      items[k] = k < mine ? Map()(&x) : 0.0;
    }
  }
  __device__ __forceinline__ double at_start() const { return Map()(&a); }
};

struct CumulativeSink {
  double *out;
  double hs;                 // h scale
  unsigned long long n;      // the last index
  unsigned long long every;  // K
  unsigned long long count;  // values written

  template <class Acc>
  __device__ __forceinline__ double value(const Acc &, Acc s, double g, double g0) const
  {
    gq_csum_add(&s, -0.5 * g0);
    gq_csum_add(&s, -0.5 * g);
    const double p = s.s * hs;
    return p + (fma(s.s, hs, -p) + s.c * hs);
  }
  template <int BLOCK, int ITEMS>
  __device__ __forceinline__ void store(double (&values)[ITEMS], double *stage, unsigned long long first,
                                        int valid) const
  {
    const unsigned long long mine = first + (unsigned long long)threadIdx.x * ITEMS;
    if (mine == 0)
      values[0] = 0.0; // F_0 exactly, whatever g_0 is
    if (every == 1) { // every value: staged, coalesced as an array's
      ArraySink<DoubleSum>{out, 0}.template store<BLOCK, ITEMS>(values, stage, first, valid);
      return;
    }
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const unsigned long long i = mine + k;
      if (i > n)
        break;
      if (i % every == 0)
        out[i / every] = values[k];
      else if (i == n)
        out[count - 1] = values[k];
    }
  }
};

} // namespace scan
} // namespace gq
#endif
