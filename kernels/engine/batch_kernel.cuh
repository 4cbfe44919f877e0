// batch_kernel.cuh — many grid problems of one expression in one launch
// (issue 23): the problems differ in their parameters and their limits, and
// share the count of points, so each takes the same number of blocks.
//
// Block b of the launch is block b % per_problem of problem b / per_problem:
// it loads its problem's parameters into the module's shared array (the
// batch module's g reads them there: jit.cu), walks that problem's tiles as
// the problem's own launch of per_problem blocks would (agent_of), and adds
// its block total into the problem's KEYS sums (the Atomic level).  Every
// thread therefore sums the very terms, in the very order, of the single
// launch; the host packs only problems whose single launch has per_problem
// blocks (no more tiles than multiprocessors: the resident grid is then the
// tile count whatever the occupancy), so a packed result is the single
// run's.
#ifndef GQ_BATCH_KERNEL_CUH
#define GQ_BATCH_KERNEL_CUH

#include "kernel.cuh"

namespace gq {

template <class Source> struct BatchProblem {
  Source src;               // the problems' common grid (first index, points)
  const double *ah;         // problem i's a and h: ah[2 i], ah[2 i + 1]
  const double *params;     // problem i's nparams values from params[i nparams]
  gq_csum *sums;            // problem i's KEYS sums from sums[i KEYS], zeroed
  unsigned per_problem;     // blocks of each problem
  unsigned nparams;
};

// Map gives load(values, count): the block's parameters into shared memory.
template <int BLOCK, int ITEMS, int MIN_BLOCKS, class Map, class Thread, class Source>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) batch_grid_kernel(const BatchProblem<Source> p)
{
  const unsigned problem = blockIdx.x / p.per_problem;
  const unsigned block = blockIdx.x - problem * p.per_problem;
  // the limits' loads first, so that they are in flight with the
  // parameters' (a tiny problem's block is mostly such latencies)
  Source src = p.src;
  src.a = p.ah[2ull * problem];
  src.h = p.ah[2ull * problem + 1];
  Map::load(p.params + (unsigned long long)problem * p.nparams, p.nparams);
  __syncthreads();
  source_begin<BLOCK, ITEMS>(src); // after the parameters: a source's tables may read them
  const Map map{};
  Thread th;
  agent_of<BLOCK, ITEMS, false>(src, map, th, block, p.per_problem);
  using Tree = TreeOf<Thread, false>;
  const typename Tree::type tree = Tree::make(th);
  using Combine = typename Tree::type::Combine;
  const auto total = block_reduce<BLOCK, Thread::KEYS>(tree.partial(th), Combine(), Combine::identity());
  const AtomicTarget out{p.sums + (unsigned long long)problem * Thread::KEYS};
  Atomic::template finish<BLOCK, Thread::KEYS>(total, out, tree, src.count());
}

} // namespace gq
#endif
