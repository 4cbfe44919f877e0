// modular.cu — methods 8-11 and 16: the grid-stride thread level
// (thread_reduce.cuh) with the library's own warp and block layers
// (kernels/warp_reduce.cuh, kernels/block_reduce.cuh), combined across blocks
// in different ways.
#include "block_partials.cuh"

namespace gqb {
namespace {

// 9: one launch: every warp's lane 0 combines its value into the result with a
// native atomic (no second pass, no shared memory).
// 16: method 9 with the butterfly (__shfl_xor_sync: every lane ends with the
// warp's value) instead of __shfl_down_sync.
template <bool BUTTERFLY, class In, class Op>
__global__ void __launch_bounds__(BLOCK) atomic_per_warp(const In *in, typename Op::value_type *out, long long n, Op op)
{
  auto v = thread_reduce<BLOCK, ITEMS>(in, n, op, blockIdx.x, gridDim.x);
  v = BUTTERFLY ? gq::warp_reduce_xor(v, op) : gq::warp_reduce_down(v, op);
  if ((threadIdx.x & 31) == 0)
    atomic_combine(out, v, op);
}

// 10: one atomic per block, after gq::block_reduce: 8x fewer atomics than 9.
template <class In, class Op>
__global__ void __launch_bounds__(BLOCK) atomic_per_block(const In *in, typename Op::value_type *out, long long n, Op op)
{
  const auto v = gq::block_reduce<BLOCK>(thread_reduce<BLOCK, ITEMS>(in, n, op, blockIdx.x, gridDim.x), op, Op::identity());
  if (threadIdx.x == 0)
    atomic_combine(out, v, op);
}

template <class T, class Op, class Kernel> Error atomic_launch(Kernel kernel, int atomics_per_block, Job &job)
{
  T *out = static_cast<T *>(job.out);
  const long long grid = resident_blocks(kernel, job.sms, job.n);
  set_value<<<1, 1, 0, job.stream>>>(out, Op::identity());
  GQB_LAUNCHED();
  kernel<<<(unsigned)grid, BLOCK, 0, job.stream>>>(static_cast<const T *>(job.in), out, job.n, Op());
  GQB_LAUNCHED();
  job.depth = stride_depth(job.n, grid) + (unsigned long long)grid * atomics_per_block;
  return nullptr;
}

// 11: no atomics and no grid-stride loop: each block reduces one whole tile
// of BLOCK x ITEMS elements, and the kernel is relaunched on the partials
// until one block remains.
template <class T, class Op> Error multi_pass(Job &job)
{
  return relaunch_until_one<T, Op>(block_partials<T, Op>, (long long)BLOCK * ITEMS, 0, job,
                                   [](long long count, long long grid) { return stride_depth(count, grid); });
}

} // namespace

Error run_modular(int method, gqb_type type, gqb_op op, Job &job)
{
  return dispatch(type, op, [&](auto types) -> Error {
    using T = typename decltype(types)::T;
    using Op = typename decltype(types)::Op;
    if constexpr (Op::is_argmax) {
      return "not built for argmax";
    } else {
      switch (method) {
      case 8:
        return partials_then_one_block<T, Op>(block_partials<T, Op>, job);
      case 11:
        return multi_pass<T, Op>(job);
      default:
        break;
      }
      if constexpr (has_native_atomic<Op>::value) {
        switch (method) {
        case 9:
          return atomic_launch<T, Op>(atomic_per_warp<false, T, Op>, BLOCK / 32, job);
        case 10:
          return atomic_launch<T, Op>(atomic_per_block<T, Op>, 1, job);
        case 16:
          return atomic_launch<T, Op>(atomic_per_warp<true, T, Op>, BLOCK / 32, job);
        default:
          break;
        }
      }
      return "not a method of this family for this type and operator";
    }
  });
}

} // namespace gqb
