// thread_reduce.cuh — the thread level of the grid-stride methods (7-16): each
// thread folds its share of the input into one value.
#ifndef GQB_THREAD_REDUCE_CUH
#define GQB_THREAD_REDUCE_CUH

#include "../cuda_check.cuh"
#include "job.cuh"

namespace gqb {

// Block b of `blocks` takes tiles b, b + blocks, ... of BLOCK * ITEMS
// consecutive elements; thread t loads elements t, t + BLOCK, ... of a tile
// (coalesced).  The ITEMS loads of a tile are independent, so they are in
// flight together; they are combined pairwise, then folded into the thread's
// value.  Only one block meets the partial last tile.
template <int BLOCK_, int ITEMS_, class In, class Op>
__device__ __forceinline__ typename Op::value_type
thread_reduce(const In *__restrict__ in, long long n, Op op, long long block, long long blocks)
{
  using T = typename Op::value_type;
  constexpr long long TILE = (long long)BLOCK_ * ITEMS_;
  T acc = Op::identity();
  long long base = block * TILE;
  const long long step = blocks * TILE;
  for (; base + TILE <= n; base += step) {
    T v[ITEMS_];
#pragma unroll
    for (int k = 0; k < ITEMS_; k++) {
      const long long i = base + k * BLOCK_ + threadIdx.x;
      v[k] = Op::lift(in[i], i);
    }
#pragma unroll
    for (int w = 1; w < ITEMS_; w *= 2)
#pragma unroll
      for (int k = 0; k + w < ITEMS_; k += 2 * w)
        v[k] = op(v[k], v[k + w]);
    acc = op(acc, v[0]);
  }
  if (base < n) {
#pragma unroll
    for (int k = 0; k < ITEMS_; k++) {
      const long long i = base + k * BLOCK_ + threadIdx.x;
      if (i < n)
        acc = op(acc, Op::lift(in[i], i));
    }
  }
  return acc;
}

// Height of the addition tree of one such pass followed by a block reduction:
// the tiles one after another, the pairwise step, the partial tile, the block.
inline unsigned long long stride_depth(long long n, long long blocks, int block = BLOCK, int items = ITEMS)
{
  const long long step = blocks * block * items;
  return (unsigned long long)((n + step - 1) / step) + log2_ceil(items) + items + log2_ceil(block);
}

// Blocks to launch for a grid-stride kernel: as many as stay resident, no
// more than there are tiles.
template <class Kernel> inline long long resident_blocks(Kernel kernel, int sms, long long n)
{
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)kernel, BLOCK, 0) != cudaSuccess || per_sm < 1) {
    cudaGetLastError();
    per_sm = 1;
  }
  const long long tiles = (n + (long long)BLOCK * ITEMS - 1) / ((long long)BLOCK * ITEMS);
  const long long grid = (long long)per_sm * sms;
  return grid < tiles ? grid : tiles < 1 ? 1 : tiles;
}

// Methods 7 and 8: `kernel` writes one partial per block; a resident grid,
// then the same kernel as one block over the partials.
template <class T, class Op, class Kernel> Error partials_then_one_block(Kernel kernel, Job &job)
{
  const long long grid = resident_blocks(kernel, job.sms, job.n);
  if (grid > job.partial_capacity)
    return "too many partials for the scratch buffer";
  T *partials = grid == 1 ? static_cast<T *>(job.out) : static_cast<T *>(job.partials[0]);
  kernel<<<(unsigned)grid, BLOCK, 0, job.stream>>>(static_cast<const T *>(job.in), partials, job.n, Op());
  GQB_LAUNCHED();
  job.depth = stride_depth(job.n, grid);
  if (grid > 1) {
    kernel<<<1, BLOCK, 0, job.stream>>>(partials, static_cast<T *>(job.out), grid, Op());
    GQB_LAUNCHED();
    job.depth += stride_depth(grid, 1);
  }
  return nullptr;
}

// Methods 1-6 and 11: launch `kernel` with one block per per_block
// elements, then again on its partials, until one value remains; the last
// launch writes the result.  depth(count, grid) is the height one launch adds.
template <class T, class Op, class Kernel, class Depth>
Error relaunch_until_one(Kernel kernel, long long per_block, size_t shared_bytes, Job &job, Depth depth)
{
  const T *src = static_cast<const T *>(job.in);
  long long count = job.n;
  int pass = 0;
  job.depth = 0;
  do {
    const long long grid = (count + per_block - 1) / per_block;
    if (grid > 1 && grid > job.partial_capacity)
      return "too many partials for the scratch buffer";
    T *dst = grid == 1 ? static_cast<T *>(job.out) : static_cast<T *>(job.partials[pass & 1]);
    kernel<<<(unsigned)grid, BLOCK, shared_bytes, job.stream>>>(src, dst, count, Op());
    GQB_LAUNCHED();
    job.depth += depth(count, grid);
    src = dst;
    count = grid;
    pass++;
  } while (count > 1);
  return nullptr;
}

} // namespace gqb
#endif
