// device_math.cuh — math for the kernels where CUDA's own function costs more
// than the result needs.
#ifndef GQ_DEVICE_MATH_CUH
#define GQ_DEVICE_MATH_CUH

namespace gq {

// sqrt(v) by Newton's method on s = sqrt(v) from the hardware's approximate
// reciprocal square root r (MUFU.RSQ64H through rsqrt.approx.ftz.f64), two
// steps that reuse r:  s <- s + (v - s^2) r/2.  With r = (1+e)/sqrt(v) the
// relative error goes e -> 1.5 e^2 -> 1.5 e^3, far below 2^-53 for the
// hardware's e.  Near the bottom of the normal range the residual v - s^2 is
// subnormal and rounds to 2^-1075 absolute, which moves s by at most 2^-54
// relative: still faithfully rounded for every normal v (tests/t_device_math
// checks 4M arguments against the IEEE sqrt).  It is branch-free: CUDA's
// correctly rounded sqrt wraps every call in a slow-path branch whose
// reconvergence barrier keeps the compiler from interleaving a tile's
// evaluations, and it costs three more FP64 operations.
//
// Every argument that is not a positive normal number comes out not finite
// from the arithmetic itself (0 * inf, inf * 0, rsqrt of a negative, and
// subnormals, which .ftz flushes to 0): NaN for negatives, NaN, +-0, +inf and
// positive subnormals, +inf for negative subnormals.  A caller whose sum comes
// out not finite reruns it with CUDA's sqrt, which settles whether that was
// real; so no per-point test or select is needed.  The price is a second pass for an integrand that takes
// sqrt(0) at an interior grid point.
__device__ __forceinline__ double fast_sqrt(double v)
{
  double r;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(v));
  // r/2 by decrementing the exponent (r is normal for normal v): an integer
  // operation instead of an FP64 multiply.
  const double half_r = __hiloint2double(__double2hiint(r) - (1 << 20), __double2loint(r));
  double s = v * r;
  double e = fma(-s, s, v);
  s = fma(e, half_r, s);
  e = fma(-s, s, v);
  return fma(e, half_r, s);
}

} // namespace gq
#endif
