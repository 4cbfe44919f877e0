// nonfinite_scan.cuh — where a map is not finite: the count and the first
// index.  Run only after a sum came out NaN or infinite, to tell the user
// where; speed is secondary, so one atomic per thread that found any.
#ifndef GQ_NONFINITE_SCAN_CUH
#define GQ_NONFINITE_SCAN_CUH

namespace gq {

// out[0] += number of k < count with map(first + k) not finite;
// out[1] = min(out[1], smallest such k).  out = {0, ~0} before the launch.
template <int BLOCK, class Map>
__global__ void __launch_bounds__(BLOCK)
nonfinite_scan_kernel(double first, long long count, Map map, unsigned long long *out)
{
  unsigned long long bad = 0, first_bad = ~0ull;
  for (long long k = (long long)blockIdx.x * BLOCK + threadIdx.x; k < count; k += (long long)gridDim.x * BLOCK) {
    const double v = map(first + (double)k);
    if (!(v - v == 0.0)) {
      if (bad++ == 0)
        first_bad = (unsigned long long)k;
    }
  }
  if (bad) {
    atomicAdd(&out[0], bad);
    atomicMin(&out[1], first_bad);
  }
}

} // namespace gq
#endif
