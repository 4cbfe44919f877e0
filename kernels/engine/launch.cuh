// launch.cuh — the host side of the engine: a problem's grid, sized from
// the device, and its launch, for the kernels compiled ahead of time and
// those NVRTC compiled (jit.cu, mc.cu) alike.  Kernels are passed as
// `const void *`, which both a __global__ function and a cudaKernel_t from
// cudaLibraryGetKernel are.
#ifndef GQ_LAUNCH_CUH
#define GQ_LAUNCH_CUH

#include <cstring>

#include "../cuda_check.cuh"
#include "../cuda_state.cuh"
#include "../launch_cache.cuh"
#include "policy.cuh"

namespace gq {

// Blocks of `block` threads of `kernel` that stay resident on one of this
// context's multiprocessors.  Asked once per kernel and context (the query
// is a host call that would otherwise delay every small launch; a process
// may hold contexts on two GPU models).
inline int resident_per_sm(gq_cuda_state *st, const void *kernel, int block)
{
  for (int k = 0; k < st->occupancy_used; k++)
    if (st->occupancy[k].kernel == kernel)
      return st->occupancy[k].per_sm;
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0) != cudaSuccess || per_sm < 1) {
    cudaGetLastError();
    per_sm = 1;
  }
  if (st->occupancy_used < GQ_OCCUPANCY_SLOTS)
    st->occupancy[st->occupancy_used++] = {kernel, per_sm};
  return per_sm;
}

// Blocks to launch: as many as stay resident on the device, no more than
// the tiles there are, at least one, at most MAX_BLOCKS (a last-block
// level's scratch).
inline unsigned resident_grid(gq_cuda_state *st, const void *kernel, int block, unsigned long long tiles)
{
  unsigned long long grid = (unsigned long long)resident_per_sm(st, kernel, block) * st->sms;
  if (grid > tiles)
    grid = tiles;
  if (grid > (unsigned long long)MAX_BLOCKS)
    grid = MAX_BLOCKS;
  return grid < 1 ? 1u : (unsigned)grid;
}

// Tiles of Shape's block x items over `items` items.
template <class Shape> unsigned long long tiles(unsigned long long items)
{
  const unsigned long long tile = (unsigned long long)Shape::BLOCK * Shape::ITEMS;
  return (items + tile - 1) / tile;
}

// The launch of a problem (the kernel's one parameter) on `stream`: through
// the launch cache (launch_cache.cu: a repeated launch replays a graph)
// when CACHED, plainly otherwise.
template <bool CACHED, class Problem>
int launch(gq_cuda_state *st, const void *kernel, unsigned grid, int block, const Problem &p, cudaStream_t stream,
           size_t shared_bytes = 0)
{
  Problem copy = p;
  void *args[] = {&copy};
  if constexpr (!CACHED) {
    GQ_CUDA_TRY(cudaLaunchKernel(kernel, dim3(grid), dim3(block), args, shared_bytes, stream));
    return GQ_SUCCESS;
  }
  if (shared_bytes != 0)
    return gq_fail(GQ_EINVAL, "a cached launch takes no dynamic shared memory");
  static_assert(!CACHED || sizeof(Problem) <= sizeof(gq_launch_key::params), "a problem fits a launch key");
  gq_launch_key key{}; // zero-filled: keys are compared byte by byte
  key.func = kernel;
  key.grid = grid;
  key.block = (unsigned)block;
  memcpy(key.params, &p, sizeof p);
  return gq_launch(st, key, args, stream);
}

// One launch of a last-block problem between the context's two events; the
// result slot's bytes into *out and the kernel's time into *ms (when not
// NULL), after the stream has drained.
template <class Out, class Problem>
int launch_timed(gq_cuda_state *st, const void *kernel, unsigned grid, int block, const Problem &prob, Out *out,
                 double *ms, size_t shared_bytes = 0)
{
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  const int status = launch<false>(st, kernel, grid, block, prob, st->stream, shared_bytes);
  if (status != GQ_SUCCESS)
    return status;
  GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
  Out *h = static_cast<Out *>(st->h_result);
  GQ_CUDA_TRY(cudaMemcpyAsync(h, prob.out.result, sizeof *h, cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  float elapsed = 0.0f;
  GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, st->start, st->stop));
  if (ms)
    *ms = elapsed;
  *out = *h;
  return GQ_SUCCESS;
}

} // namespace gq
#endif
