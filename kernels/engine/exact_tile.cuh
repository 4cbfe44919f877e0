// exact_tile.cuh — the deterministic grid sums (issue 20): a thread
// accumulator and a grid level that sum a grid's terms exactly, so that
// the rounded result cannot depend on the launch shape (grid, block, items
// per thread) or on the order in which blocks finish.
//
// TileExact<KEYS, SLOTS> has TileCsum's interface (thread t's terms go to
// key t % KEYS, the index classes a rule weighs): each thread keeps one
// ExBLAS expansion (exact_accumulator.cuh) that spills into its key's exact
// words in shared memory; terms that are NaN or infinite are summed apart
// in plain doubles (NaN and infinities sum to the same value in any order)
// and never reach the words.  The tree sends those plain sums through the
// block reduction after every thread has flushed its expansion; the
// ExactWords level carries each channel's words once and adds them to the
// grid's words with one integer atomic per block and word, and its
// non-finite sum with one atomic add.  The host rounds the words
// (superacc_host.h).  PairExact does the same for a product grid's two
// weighted sums, QuadExact for Monte Carlo's moments.  Compiled ahead
// (grid_sum.cu) and by NVRTC (jit.cu, product.cu, mc.cu).
#ifndef GQ_EXACT_TILE_CUH
#define GQ_EXACT_TILE_CUH

#include "exact_accumulator.cuh"
#include "tree.cuh"

namespace gq {

// Terms from here on go straight into the words: a thread's expansion
// then sums fewer than 2^63 terms below 2^960 without overflowing (the
// engine's grid-stride loop gives no smaller bound per thread).
constexpr double EXACT_TILE_LIMIT = 0x1p960;
constexpr int EXACT_TILE_EXPANSION = 3; // doubles per thread (ExBLAS's choice)

template <int KEYS_, int SLOTS> struct TileExact {
  static constexpr int KEYS = KEYS_, CHANNELS = KEYS_;
  Expansion<EXACT_TILE_EXPANSION> e;
  double nonfinite = 0.0;
  unsigned long long *words = nullptr; // the block's words, KEYS x GQ_SUPERACC_WORDS (thread_begin)

  template <bool CLASSIFY, class Index> __device__ __forceinline__ void add(double t, Index, int)
  {
    unsigned long long *mine = words + (threadIdx.x % KEYS) * GQ_SUPERACC_WORDS;
    if (!(t - t == 0.0))
      nonfinite += t;
    else if (fabs(t) < EXACT_TILE_LIMIT)
      e.add(t, mine);
    else
      exact_words_add(mine, t);
  }
  template <int N> __device__ __forceinline__ void close() {}
  __device__ __forceinline__ void flush() const { e.flush(words + (threadIdx.x % KEYS) * GQ_SUPERACC_WORDS); }
};

// Monte Carlo's shifted moments (mc_moments.h), exactly: d = y - K as the
// device rounds it, then sum d and sum d^2 (the square exact: TwoProd, or
// the words' 106-bit product) in two channels.  A value that is not finite
// goes to the non-finite sum (the host makes s1 of it, and s2 its square).
template <int SLOTS> struct QuadExact {
  static constexpr int KEYS = 1, CHANNELS = 2;
  Expansion<EXACT_TILE_EXPANSION> e1, e2;
  double nonfinite = 0.0, shift = 0.0;
  unsigned long long *words = nullptr; // 2 x GQ_SUPERACC_WORDS (thread_begin)

  template <bool CLASSIFY, class Index> __device__ __forceinline__ void add(double t, Index, int)
  {
    const double d = t - shift;
    if (!(d - d == 0.0)) {
      nonfinite += d;
      return;
    }
    if (fabs(d) < EXACT_TILE_LIMIT)
      e1.add(d, words);
    else
      exact_words_add(words, d);
    if (fabs(d) < 0x1p480) // d^2 below EXACT_TILE_LIMIT: the expansion's
      e2.add_product(d, d, 0, 0, words + GQ_SUPERACC_WORDS);
    else
      exact_words_add_product(words + GQ_SUPERACC_WORDS, d, d, 0, 0);
  }
  template <int N> __device__ __forceinline__ void close() {}
  __device__ __forceinline__ void flush() const
  {
    e1.flush(words);
    e2.flush(words + GQ_SUPERACC_WORDS);
  }
};

// A product grid's rule and lower-order rule (WeightedPair's sums):
// sum wh f and sum wl f with the products exact, in two channels; a value
// f that is not finite goes to the non-finite sum (both sums, on the host).
template <int SLOTS> struct PairExact {
  static constexpr int KEYS = 1, CHANNELS = 2;
  Expansion<EXACT_TILE_EXPANSION> hi, lo;
  double nonfinite = 0.0;
  unsigned long long *words = nullptr; // 2 x GQ_SUPERACC_WORDS (thread_begin)

  // A padding point has both weights 0 and adds nothing.
  __device__ __forceinline__ void add_weighted(double wh, double wl, double y)
  {
    if (!(y - y == 0.0)) {
      if (wh != 0.0)
        nonfinite += y;
      return;
    }
    add_one(hi, wh, y, words);
    add_one(lo, wl, y, words + GQ_SUPERACC_WORDS);
  }
  template <int N> __device__ __forceinline__ void close() {}
  __device__ __forceinline__ void flush() const
  {
    hi.flush(words);
    lo.flush(words + GQ_SUPERACC_WORDS);
  }

private:
  // w y exact: in the expansion while the product stays below the limit.
  __device__ __forceinline__ static void add_one(Expansion<EXACT_TILE_EXPANSION> &e, double w, double y,
                                                 unsigned long long *mine)
  {
    if (fabs(w) * fabs(y) < EXACT_TILE_LIMIT)
      e.add_product(w, y, 0, 0, mine);
    else
      exact_words_add_product(mine, w, y, 0, 0);
  }
};

// The block's words, zeroed by the whole block before the first term.
template <int CHANNELS> __device__ __forceinline__ unsigned long long *exact_block_words()
{
  __shared__ unsigned long long words[CHANNELS * GQ_SUPERACC_WORDS];
  for (int k = threadIdx.x; k < CHANNELS * GQ_SUPERACC_WORDS; k += blockDim.x)
    words[k] = 0;
  __syncthreads();
  return words;
}
template <bool CLASSIFY, int K, int S, class Source, class Map>
__device__ __forceinline__ void thread_begin(TileExact<K, S> &th, const Source &, const Map &)
{
  th.e.zero();
  th.words = exact_block_words<K>();
}
template <bool CLASSIFY, int S, class Source, class Map>
__device__ __forceinline__ void thread_begin(PairExact<S> &th, const Source &, const Map &)
{
  th.hi.zero();
  th.lo.zero();
  th.words = exact_block_words<2>();
}
template <bool CLASSIFY, int S, class Source, class Map>
__device__ __forceinline__ void thread_begin(QuadExact<S> &th, const Source &src, const Map &)
{
  th.e1.zero();
  th.e2.zero();
  th.shift = src.shift;
  th.words = exact_block_words<2>();
}

struct NonfiniteSum {
  __device__ __forceinline__ double operator()(double a, double b) const { return a + b; }
  __device__ static double identity() { return 0.0; }
};

// The partial is the non-finite sum; taking it flushes the expansions, and
// the tree keeps the words for the level.
template <class Thread> struct ExactTree {
  using Combine = NonfiniteSum;
  using Partial = double;
  using Result = double;
  static constexpr int CHANNELS = Thread::CHANNELS;
  unsigned long long *words;
  __device__ __forceinline__ double partial(const Thread &th) const
  {
    th.flush();
    return th.nonfinite;
  }
};
template <int K, int S, bool CLASSIFY> struct TreeOf<TileExact<K, S>, CLASSIFY> {
  using type = ExactTree<TileExact<K, S>>;
  __device__ __forceinline__ static type make(const TileExact<K, S> &th) { return type{th.words}; }
};
template <int S, bool CLASSIFY> struct TreeOf<PairExact<S>, CLASSIFY> {
  using type = ExactTree<PairExact<S>>;
  __device__ __forceinline__ static type make(const PairExact<S> &th) { return type{th.words}; }
};
template <int S, bool CLASSIFY> struct TreeOf<QuadExact<S>, CLASSIFY> {
  using type = ExactTree<QuadExact<S>>;
  __device__ __forceinline__ static type make(const QuadExact<S> &th) { return type{th.words}; }
};

// CHANNELS x GQ_SUPERACC_WORDS words and KEYS non-finite sums, zeroed
// before the launch.
struct ExactTarget {
  unsigned long long *words;
  double *nonfinite;
};
struct ExactWords {
  using Target = ExactTarget;
  static constexpr bool POISONED = false;
  template <int BLOCK, int KEYS, class Tree>
  __device__ __forceinline__ static void finish(double total, const Target &t, const Tree &tree, unsigned long long)
  {
    if (threadIdx.x < KEYS && total != 0.0)
      atomicAdd(&t.nonfinite[threadIdx.x], total);
    __syncthreads(); // every flush is in the words (a one-warp block_reduce has no barrier)
    constexpr int CHANNELS = Tree::CHANNELS;
    if (threadIdx.x < CHANNELS)
      exact_words_normalize(tree.words + threadIdx.x * GQ_SUPERACC_WORDS);
    __syncthreads();
    for (int k = threadIdx.x; k < CHANNELS * GQ_SUPERACC_WORDS; k += BLOCK)
      if (tree.words[k])
        atomicAdd(&t.words[k], tree.words[k]);
  }
};

} // namespace gq
#endif
