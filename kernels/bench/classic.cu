// classic.cu — methods 1-7, the shared-memory tree reductions of Mark Harris's
// "Optimizing Parallel Reduction in CUDA" (2007), each a change to the one
// before.  In 1-6 every launch reduces BLOCK (or 2 BLOCK) elements per block
// to one partial, and the same kernel is relaunched on the partials until one
// remains.
#include "thread_reduce.cuh"

namespace gqb {
namespace {

template <class T> __device__ __forceinline__ T *shared_values()
{
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  return reinterpret_cast<T *>(shared_bytes);
}

template <class T, class Op> __device__ __forceinline__ T load_or_identity(const T *in, long long i, long long n)
{
  return i < n ? in[i] : Op::identity();
}

// 1: interleaved addressing: at stride s the threads with tid % (2s) == 0 add;
// the active threads are scattered over every warp, so warps diverge.
template <class T, class Op> __global__ void interleaved_divergent(const T *in, T *out, long long n, Op op)
{
  T *s_v = shared_values<T>();
  const unsigned tid = threadIdx.x;
  s_v[tid] = load_or_identity<T, Op>(in, (long long)blockIdx.x * blockDim.x + tid, n);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      s_v[tid] = op(s_v[tid], s_v[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = s_v[0];
}

// 2: the active threads are contiguous (index = 2 s tid): no divergence, but
// the accesses 2 s apart fall into the same shared-memory banks.
template <class T, class Op> __global__ void interleaved_strided(const T *in, T *out, long long n, Op op)
{
  T *s_v = shared_values<T>();
  const unsigned tid = threadIdx.x;
  s_v[tid] = load_or_identity<T, Op>(in, (long long)blockIdx.x * blockDim.x + tid, n);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x)
      s_v[index] = op(s_v[index], s_v[index + s]);
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = s_v[0];
}

// 3: sequential addressing: thread tid adds tid + s for s = block/2 .. 1;
// consecutive threads touch consecutive words, conflict-free.
template <class T, class Op> __global__ void sequential(const T *in, T *out, long long n, Op op)
{
  T *s_v = shared_values<T>();
  const unsigned tid = threadIdx.x;
  s_v[tid] = load_or_identity<T, Op>(in, (long long)blockIdx.x * blockDim.x + tid, n);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      s_v[tid] = op(s_v[tid], s_v[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = s_v[0];
}

// Two elements per thread, combined as they are loaded (methods 4-6).
template <class T, class Op> __device__ __forceinline__ T load_pair(const T *in, long long n, Op op)
{
  const long long i = (long long)blockIdx.x * (2 * blockDim.x) + threadIdx.x;
  return op(load_or_identity<T, Op>(in, i, n), load_or_identity<T, Op>(in, i + blockDim.x, n));
}

// 4: the first add during the global load: half the blocks, no idle threads
// in the first step.
template <class T, class Op> __global__ void first_add(const T *in, T *out, long long n, Op op)
{
  T *s_v = shared_values<T>();
  const unsigned tid = threadIdx.x;
  s_v[tid] = load_pair(in, n, op);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      s_v[tid] = op(s_v[tid], s_v[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = s_v[0];
}

// 5: the last 64 values are finished by one warp with shuffles: no
// __syncthreads and no idle warps there.  (The 2007 version used volatile
// shared memory without barriers, which is a race since Volta's independent
// thread scheduling.)  Needs blockDim.x >= 64.
template <class T, class Op> __global__ void last_warp(const T *in, T *out, long long n, Op op)
{
  T *s_v = shared_values<T>();
  const unsigned tid = threadIdx.x;
  s_v[tid] = load_pair(in, n, op);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      s_v[tid] = op(s_v[tid], s_v[tid + s]);
    __syncthreads();
  }
  if (tid < 32) {
    const T v = gq::warp_reduce_down(op(s_v[tid], s_v[tid + 32]), op);
    if (tid == 0)
      out[blockIdx.x] = v;
  }
}

// 6: BLOCK is a template argument: the loop is unrolled completely and the
// shared array is static.  Also the block stage of method 7.
template <int BLOCK_, class T, class Op> __device__ __forceinline__ T unrolled_block_reduce(T v, Op op)
{
  static_assert(BLOCK_ >= 64 && (BLOCK_ & (BLOCK_ - 1)) == 0, "BLOCK must be a power of two >= 64");
  __shared__ T s_v[BLOCK_];
  const unsigned tid = threadIdx.x;
  s_v[tid] = v;
  __syncthreads();
#pragma unroll
  for (unsigned s = BLOCK_ / 2; s > 32; s >>= 1) {
    if (tid < s)
      s_v[tid] = op(s_v[tid], s_v[tid + s]);
    __syncthreads();
  }
  if (tid < 32)
    v = gq::warp_reduce_down(op(s_v[tid], s_v[tid + 32]), op);
  return v;
}

template <int BLOCK_, class T, class Op> __global__ void __launch_bounds__(BLOCK_) unrolled(const T *in, T *out, long long n, Op op)
{
  const T v = unrolled_block_reduce<BLOCK_>(load_pair(in, n, op), op);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

// 7: many elements per thread: a resident grid walks the input with a
// grid-stride loop (thread_reduce.cuh), then one block reduces the partials.
template <int BLOCK_, class T, class Op> __global__ void __launch_bounds__(BLOCK_) many_per_thread(const T *in, T *out, long long n, Op op)
{
  const T v = unrolled_block_reduce<BLOCK_>(thread_reduce<BLOCK_, ITEMS>(in, n, op, blockIdx.x, gridDim.x), op);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

// Methods 1-6: BLOCK (or 2 BLOCK) elements per block and launch, relaunched
// on the partials (thread_reduce.cuh); each launch is a tree of log2(BLOCK)
// levels, +1 for the add during the load.
template <class T, class Op, class Kernel> Error passes(Kernel kernel, int per_thread, Job &job)
{
  const unsigned long long levels = log2_ceil(BLOCK) + (per_thread == 2);
  return relaunch_until_one<T, Op>(kernel, (long long)BLOCK * per_thread, BLOCK * sizeof(T), job,
                                   [=](long long, long long) { return levels; });
}

} // namespace

Error run_classic(int method, gqb_type type, gqb_op op, Job &job)
{
  return dispatch(type, op, [&](auto types) -> Error {
    using T = typename decltype(types)::T;
    using Op = typename decltype(types)::Op;
    if constexpr (Op::is_argmax) {
      return "not built for argmax";
    } else {
      switch (method) {
      case 1:
        return passes<T, Op>(interleaved_divergent<T, Op>, 1, job);
      case 2:
        return passes<T, Op>(interleaved_strided<T, Op>, 1, job);
      case 3:
        return passes<T, Op>(sequential<T, Op>, 1, job);
      case 4:
        return passes<T, Op>(first_add<T, Op>, 2, job);
      case 5:
        return passes<T, Op>(last_warp<T, Op>, 2, job);
      case 6:
        return passes<T, Op>(unrolled<BLOCK, T, Op>, 2, job);
      case 7:
        return partials_then_one_block<T, Op>(many_per_thread<BLOCK, T, Op>, job);
      default:
        return "not a classic method";
      }
    }
  });
}

} // namespace gqb
