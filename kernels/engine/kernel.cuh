// kernel.cuh — the engine's one kernel: a problem's source x map x thread
// accumulator through the tile loop (agent.cuh), the block tree
// (block_reduce.cuh) and a grid level (grid_levels.cuh).
//
// The kernel takes one parameter, the Problem: the source's parameters and
// the grid level's target.  Maps are stateless (default-constructed here),
// so the host builds the very struct the kernel reads, from this header, for
// the kernels compiled ahead of time and for NVRTC's alike (jit.cu, mc.cu):
// no layout is matched by hand.
//
// Template parameters: the launch shape (BLOCK threads, ITEMS items per
// thread and tile, MIN_BLOCKS for __launch_bounds__: policy.cuh), CLASSIFY
// (the rerun that counts NaN and Inf and adds the finite terms scaled), the
// map, the thread accumulator, the source and the grid level.
#ifndef GQ_KERNEL_CUH
#define GQ_KERNEL_CUH

#include "agent.cuh"
#include "block_reduce.cuh"
#include "grid_levels.cuh"
#include "tree.cuh"

namespace gq {

template <class Source, class Level> struct Problem {
  Source src;
  typename Level::Target out;
};

// What a thread accumulator learns from the problem before the first item
// (the statistics take their shift from the data; the Monte Carlo moments
// from the source).
template <bool CLASSIFY, class Thread, class Source, class Map>
__device__ __forceinline__ void thread_begin(Thread &, const Source &, const Map &)
{
}

// What a source prepares before the tile loop, with the whole block (the
// product grid copies its axis tables into shared memory, the rotating grid
// computes its table of sines and cosines); nothing for the others.  Found
// by argument lookup beside the source.
template <int BLOCK, int ITEMS, class Source> __device__ __forceinline__ void source_begin(const Source &) {}

template <int BLOCK, int ITEMS, int MIN_BLOCKS, bool CLASSIFY, class Map, class Thread, class Source, class Level>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) reduce_kernel(const Problem<Source, Level> p)
{
  source_begin<BLOCK, ITEMS>(p.src);
  const Map map{};
  Thread th;
  thread_begin<CLASSIFY>(th, p.src, map);
  agent<BLOCK, ITEMS, CLASSIFY>(p.src, map, th);
  using Tree = TreeOf<Thread, CLASSIFY>;
  const typename Tree::type tree = Tree::make(th);
  using Combine = typename Tree::type::Combine;
  const auto total = block_reduce<BLOCK, Thread::KEYS>(tree.partial(th), Combine(), Combine::identity());
  Level::template finish<BLOCK, Thread::KEYS>(total, p.out, tree, p.src.count());
}

} // namespace gq
#endif
