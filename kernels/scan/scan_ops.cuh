// scan_ops.cuh — what a prefix sum adds, as values of three kinds: doubles
// and floats carried as compensated pairs (s, c) (TwoSum per element,
// compensated.h), 64-bit integers exactly (two's complement, wrapping as
// unsigned addition does).  Plain C++ for nvcc and NVRTC alike.
//
// Bound of the compensated kinds (measured by tests/t_scan.c): the pair
// (s, c) after k terms is the exact prefix P_k to within k u^2 sum|x_j|
// (u = 2^-53: every TwoSum is exact, only the additions into c round), so
// the double written, fl(s + c), is within u |P_k| + 2 k u^2 sum_{j<=k} |x_j|
// of P_k: the correctly rounded prefix but for a term that stays below an
// ulp of the prefix until k sum|x| / |P_k| nears 2^53.
#ifndef GQ_SCAN_OPS_CUH
#define GQ_SCAN_OPS_CUH

#include "../../src/lib/compensated.h"

namespace gq {
namespace scan {

// A sum of doubles: the running value is a compensated pair.
struct DoubleSum {
  using In = double;
  using Out = double;
  using Acc = gq_csum;
  static __host__ __device__ __forceinline__ Acc zero() { return Acc{0.0, 0.0}; }
  static __host__ __device__ __forceinline__ void add(Acc &a, In x) { gq_csum_add(&a, (double)x); }
  // a is the earlier part, b the later one.
  static __host__ __device__ __forceinline__ Acc combine(Acc a, Acc b)
  {
    gq_csum_merge(&a, b);
    return a;
  }
  static __host__ __device__ __forceinline__ Out out(Acc a) { return gq_csum_value(a); }
};

// Floats: the same pairs of doubles (float terms add exactly into a double
// for 2^29 terms of one binade; the pair covers the rest), rounded once.
struct FloatSum : DoubleSum {
  using In = float;
  using Out = float;
  static __host__ __device__ __forceinline__ void add(Acc &a, In x) { gq_csum_add(&a, (double)x); }
  static __host__ __device__ __forceinline__ Out out(Acc a) { return (float)gq_csum_value(a); }
};

// 64-bit integers, exact modulo 2^64 (unsigned arithmetic: an overflow
// wraps as defined behaviour instead of being undefined).
struct Int64Sum {
  using In = long long;
  using Out = long long;
  using Acc = unsigned long long;
  static __host__ __device__ __forceinline__ Acc zero() { return 0ull; }
  static __host__ __device__ __forceinline__ void add(Acc &a, In x) { a += (unsigned long long)x; }
  static __host__ __device__ __forceinline__ Acc combine(Acc a, Acc b) { return a + b; }
  static __host__ __device__ __forceinline__ Out out(Acc a) { return (long long)a; }
};

} // namespace scan
} // namespace gq
#endif
