// block_partials.cuh — one partial per block from the modular layers; the
// kernel of methods 8, 11 and 12.
#ifndef GQB_BLOCK_PARTIALS_CUH
#define GQB_BLOCK_PARTIALS_CUH

#include "../engine/block_reduce.cuh"
#include "thread_reduce.cuh"

namespace gqb {

// 8: method 7 with the modular layers: shuffles inside each warp, the warp
// partials through shared memory (gq::block_reduce) instead of a shared tree.
template <class In, class Op>
__global__ void __launch_bounds__(BLOCK)
block_partials(const In *in, typename Op::value_type *out, long long n, Op op)
{
  const auto v = gq::block_reduce<BLOCK>(thread_reduce<BLOCK, ITEMS>(in, n, op, blockIdx.x, gridDim.x), op, Op::identity());
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

} // namespace gqb
#endif
