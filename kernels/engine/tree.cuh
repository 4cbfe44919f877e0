// tree.cuh — what a thread accumulator sends through the block and grid
// trees: its Partial (merged by Combine, whose identity fills the unused
// lanes), the Result the merged partial becomes, and Finish, whose
// finish(result, out, count) writes a finished value where the caller wants
// one (one-shot and asynchronous calls).  For every accumulator but one the
// partial is the result; the statistics' fast pass sends a lighter partial
// (accumulators.cuh, StatsLite).
#ifndef GQ_TREE_CUH
#define GQ_TREE_CUH

namespace gq {

// CombineOf<Thread>: type (the merge operator) and acc (its accumulator),
// given beside each thread accumulator.
template <class Thread> struct CombineOf;

template <class Thread> struct PlainTree {
  using Combine = typename CombineOf<Thread>::type;
  using Partial = typename CombineOf<Thread>::acc;
  using Result = Partial;
  using Finish = Combine;
  __device__ __forceinline__ static Partial partial(const Thread &th) { return th.result(); }
  __device__ __forceinline__ const Result &result(const Partial &p) const { return p; }
};

// TreeOf<Thread, CLASSIFY>::make(th): the tree of a thread's accumulator.
template <class Thread, bool CLASSIFY> struct TreeOf {
  using type = PlainTree<Thread>;
  __device__ __forceinline__ static type make(const Thread &) { return type(); }
};

} // namespace gq
#endif
