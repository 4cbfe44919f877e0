// combine.cu — methods 12-15: ways to combine the blocks' partials that need
// no native atomic, so they serve any operator (argmax included).
#include <cooperative_groups.h>

#include "block_partials.cuh"

namespace gqb {
namespace {

// 12: the block partials of method 8 are copied to the host and combined
// there (the time includes the copy, the synchronisation and the host loop).
template <class In, class Op> Error host_finish(Job &job)
{
  using T = typename Op::value_type;
  auto kernel = block_partials<In, Op>;
  const long long grid = resident_blocks(kernel, job.sms, job.n);
  if (grid > job.partial_capacity)
    return "too many partials for the scratch buffer";
  kernel<<<(unsigned)grid, BLOCK, 0, job.stream>>>(static_cast<const In *>(job.in), static_cast<T *>(job.partials[0]), job.n, Op());
  GQB_LAUNCHED();
  GQB_TRY(cudaMemcpyAsync(job.h_partials, job.partials[0], grid * sizeof(T), cudaMemcpyDeviceToHost, job.stream));
  GQB_TRY(cudaStreamSynchronize(job.stream));
  T *h = static_cast<T *>(job.h_partials);
  T acc = Op::identity();
  for (long long b = 0; b < grid; b++)
    acc = Op()(acc, h[b]);
  h[0] = acc;
  job.result_on_host = true;
  job.depth = stride_depth(job.n, grid) + (unsigned long long)grid;
  return nullptr;
}

// 13: one launch; each block's thread 0 takes a global spin lock, combines its
// value into the result with the generic operator, and releases the lock.
template <class In, class Op>
__global__ void __launch_bounds__(BLOCK)
spin_lock(const In *in, typename Op::value_type *out, int *lock, long long n, Op op)
{
  const auto v = gq::block_reduce<BLOCK>(thread_reduce<BLOCK, ITEMS>(in, n, op, blockIdx.x, gridDim.x), op, Op::identity());
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence(); // after the acquire: see the total the last holder wrote
    store_cg(out, op(load_cg(out), v));
    __threadfence(); // the new total is visible before the lock is free
    atomicExch(lock, 0);
  }
}

// 14: one launch, no lock: each block stores its partial, fences, and takes a
// ticket; the block that draws the last ticket combines all the partials and
// resets the counter for the next launch (CUDA sample threadFenceReduction).
template <class In, class Op>
__global__ void __launch_bounds__(BLOCK)
last_block(const In *in, typename Op::value_type *partials, typename Op::value_type *out, unsigned *counter,
           long long n, Op op)
{
  using T = typename Op::value_type;
  __shared__ bool is_last;
  const T v = gq::block_reduce<BLOCK>(thread_reduce<BLOCK, ITEMS>(in, n, op, blockIdx.x, gridDim.x), op, Op::identity());
  if (threadIdx.x == 0) {
    store_cg(&partials[blockIdx.x], v);
    __threadfence(); // the partial is visible before the ticket is taken
    is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads(); // also keeps block_reduce's shared array apart between its two uses
  if (is_last) {
    __threadfence(); // every partial stored before its ticket is seen
    T acc = Op::identity();
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK)
      acc = op(acc, load_cg(&partials[b]));
    acc = gq::block_reduce<BLOCK>(acc, op, Op::identity());
    if (threadIdx.x == 0) {
      *out = acc;
      *counter = 0;
    }
  }
}

// 15: one cooperative launch (every block resident): the partials, a
// grid-wide barrier, then block 0 combines them.
template <class In, class Op>
__global__ void __launch_bounds__(BLOCK)
cooperative(const In *in, typename Op::value_type *partials, typename Op::value_type *out, long long n, Op op)
{
  using T = typename Op::value_type;
  T v = gq::block_reduce<BLOCK>(thread_reduce<BLOCK, ITEMS>(in, n, op, blockIdx.x, gridDim.x), op, Op::identity());
  if (threadIdx.x == 0)
    partials[blockIdx.x] = v;
  cooperative_groups::this_grid().sync(); // a barrier and a fence for the whole grid
  if (blockIdx.x == 0) {
    v = Op::identity();
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK)
      v = op(v, partials[b]);
    v = gq::block_reduce<BLOCK>(v, op, Op::identity());
    if (threadIdx.x == 0)
      *out = v;
  }
}

template <class In, class Op> Error launch(int method, Job &job)
{
  using T = typename Op::value_type;
  const In *in = static_cast<const In *>(job.in);
  T *out = static_cast<T *>(job.out), *partials = static_cast<T *>(job.partials[0]);
  long long n = job.n;
  Op op;
  switch (method) {
  case 12:
    return host_finish<In, Op>(job);
  case 13: {
    const long long grid = resident_blocks(spin_lock<In, Op>, job.sms, n);
    set_value<<<1, 1, 0, job.stream>>>(out, Op::identity());
    GQB_LAUNCHED();
    spin_lock<In, Op><<<(unsigned)grid, BLOCK, 0, job.stream>>>(in, out, job.lock, n, op);
    GQB_LAUNCHED();
    job.depth = stride_depth(n, grid) + (unsigned long long)grid;
    return nullptr;
  }
  case 14: {
    const long long grid = resident_blocks(last_block<In, Op>, job.sms, n);
    if (grid > job.partial_capacity)
      return "too many partials for the scratch buffer";
    last_block<In, Op><<<(unsigned)grid, BLOCK, 0, job.stream>>>(in, partials, out, job.counter, n, op);
    GQB_LAUNCHED();
    job.depth = stride_depth(n, grid) + stride_depth(grid, 1);
    return nullptr;
  }
  case 15: {
    auto kernel = cooperative<In, Op>;
    const long long grid = resident_blocks(kernel, job.sms, n);
    if (grid > job.partial_capacity)
      return "too many partials for the scratch buffer";
    void *args[] = {&in, &partials, &out, &n, &op};
    GQB_TRY(cudaLaunchCooperativeKernel((const void *)kernel, dim3((unsigned)grid), dim3(BLOCK), args, 0, job.stream));
    job.depth = stride_depth(n, grid) + stride_depth(grid, 1);
    return nullptr;
  }
  default:
    return "not a generic-combine method";
  }
}

} // namespace

Error run_combine(int method, gqb_type type, gqb_op op, Job &job)
{
  return dispatch(type, op, [&](auto types) -> Error {
    return launch<typename decltype(types)::In, typename decltype(types)::Op>(method, job);
  });
}

} // namespace gqb
