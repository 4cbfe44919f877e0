// global_accumulate.cuh — the grid level: one atomic accumulation per block.
#ifndef GQ_GLOBAL_ACCUMULATE_CUH
#define GQ_GLOBAL_ACCUMULATE_CUH

#include "../src/lib/compensated.h"

namespace gq {

// Compensated atomic add.  atomicAdd on a double is an IEEE round-to-nearest
// addition that returns the old total, so TwoSum(old, v.s) recovers exactly
// the rounding error the hardware made; that error and v.c go to out->c.  The
// total out->s + out->c then carries every block's compensation: blocks
// arriving in any order give the same value to within rounding of out->c.
__device__ __forceinline__ void atomic_add(gq_csum *out, gq_csum v)
{
  const double old = atomicAdd(&out->s, v.s);
  double err;
  gq_two_sum(old, v.s, &err);
  atomicAdd(&out->c, err + v.c);
}

} // namespace gq
#endif
