// exact_reduce.cu — the deterministic sum, dot, rms and statistics of device
// arrays (issue 20): one kernel per kind.  Each thread adds its elements
// (whole tiles, a grid-stride loop: which thread takes which element does
// not matter) into expansions that spill into the block's exact words in
// shared memory (engine/exact_accumulator.cuh); a warp's expansions are
// merged into one lane's before it flushes them; the block adds its words
// to the grid's with one atomic each, and its tally (counts, extremes) to
// its slot, which the grid's last block merges into one.  The host reads
// the words and that tally into pinned memory and finishes them with the
// CPU backend's code (exact_acc.h), so a CUDA context gives the CPU
// context's bits.
#include <cstdint>
#include <cstdlib>

#include "cuda_check.cuh"
#include "cuda_state.cuh"
#include "engine/exact_accumulator.cuh"
#include "grid.cuh" // exact_forced_blocks
#include "engine/launch.cuh"
#include "../src/lib/exact.h"

namespace {

constexpr int EXACT_BLOCK = 256;
// Doubles per expansion (any K is exact; a smaller one only spills to the
// words more often): 2 for sums of doubles, whose 53-bit terms a second part
// holds below the first almost always (a third cost 6 FP64 operations a
// term for nothing), 3 where TwoProd's halves carry 106 bits a term (with
// 2, nearly every product's low half spilled).
constexpr int EXPANSION_SUM = 2, EXPANSION_PRODUCT = 3;
constexpr int CHANNELS = 3;  // sums per accumulator (exact_acc.h)
constexpr int WORDS = GQ_SUPERACC_WORDS;
// Digit adds the grid's words may take in one launch without each block
// carrying its own first: each add is below 2^32, so 2^30 of them keep a
// word far inside an int64.
constexpr uint64_t UNCARRIED_ADDS = 1ull << 30;

// Blocks per multiprocessor the registers must allow on a full grid.  4
// (64 registers a thread) against the compiler's own 78-86 (3 blocks, 2 for
// stats), H200, 2^28 doubles: sum 558 -> 531 us, dot 1096 -> 1053, stats
// 2283 -> 1814, though the kernels then spill a few registers (BENCHMARKS.md,
// issue 20).  -D overrides it for measurements.
#ifndef GQ_EXACT_MIN_BLOCKS
#define GQ_EXACT_MIN_BLOCKS 4
#endif

unsigned forced_threads; // the forced block size (tests), or 0 for the default

// The channels a kind fills (the host's s[0..]); sum and dot with
// magnitudes, and stats, keep sum t as P (terms >= 0) and N (terms < 0) in
// channels 0 and the last used, which the host (run) turns into P + N and
// P - N.
template <int KIND, bool ABS>
__host__ __device__ constexpr int used_channels()
{
  return KIND == GQ_REDUCE_STATS ? 3 : KIND == GQ_REDUCE_RMS ? 2 : ABS ? 2 : 1;
}
template <int KIND, bool ABS>
__host__ __device__ constexpr bool split()
{
  return KIND == GQ_REDUCE_STATS || ((KIND == GQ_REDUCE_SUM || KIND == GQ_REDUCE_DOT) && ABS);
}
// loads in flight per thread and tile: 64 bytes
template <int KIND>
__host__ __device__ constexpr int items()
{
  return KIND == GQ_REDUCE_DOT || KIND == GQ_REDUCE_RMS ? 4 : 8;
}
// word adds per element and channel at most (rms: three products of two
// halves), for the carry decision
constexpr uint64_t ADDS_PER_ELEMENT = 6;

template <class T>
__device__ __forceinline__ double element(const T *v, uint64_t i)
{
  return (double)v[i];
}

// A tally as its 8-byte words (every field is one), and back.
constexpr unsigned TALLY_WORDS = sizeof(gq_exact_tally) / sizeof(unsigned long long);
static_assert(sizeof(gq_exact_tally) % sizeof(unsigned long long) == 0, "a tally is whole 8-byte words");

// A tally from the lane d above.
__device__ __forceinline__ gq_exact_tally shuffle_down(const gq_exact_tally &t, unsigned d, unsigned mask)
{
  unsigned long long w[TALLY_WORDS];
  memcpy(w, &t, sizeof t);
#pragma unroll
  for (unsigned k = 0; k < TALLY_WORDS; k++)
    w[k] = __shfl_down_sync(mask, w[k], d);
  gq_exact_tally o;
  memcpy(&o, w, sizeof o);
  return o;
}

// The block's tallies merged (the merge is order-free: counts add, ties go
// to the smaller index): a shuffle tree per warp, then thread 0 over the
// warps.  Its barrier also orders the threads' flushes into the words
// before the block carries and adds them.
__device__ void block_tally(gq_exact_tally *mine, gq_exact_tally *out)
{
  __shared__ gq_exact_tally warps[EXACT_BLOCK / 32];
  const unsigned lanes = blockDim.x < 32 ? blockDim.x : 32, lane = threadIdx.x % 32;
  const unsigned mask = lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
  gq_exact_tally t = *mine;
  for (unsigned d = lanes / 2; d > 0; d /= 2) {
    const gq_exact_tally o = shuffle_down(t, d, mask);
    if (lane < d)
      gq_exact_tally_combine(&t, &o);
  }
  if (lane == 0)
    warps[threadIdx.x / 32] = t;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < (blockDim.x + 31) / 32; w++)
      gq_exact_tally_combine(&t, &warps[w]);
    *out = t;
  }
}

// Where the grid's tallies end: the last block to finish (a ticket) merges
// every block's into *tally — written by a launch's first slice, merged into
// by the next ones — and puts the ticket back to 0 for the next launch.  So
// one tally comes back, not one per block.
struct Total {
  gq_exact_tally *tally;
  unsigned long long *ticket;
  int first; // the first launch of a reduction
};

__device__ void last_block_total(const gq_exact_tally *d_tallies, const Total &total)
{
  __shared__ bool last;
  __syncthreads(); // thread 0 wrote this block's tally (block_tally)
  if (threadIdx.x == 0) {
    __threadfence(); // this block's tally before its ticket
    last = atomicAdd(total.ticket, 1ull) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last)
    return;
  __threadfence(); // every block's tally, after every ticket
  gq_exact_tally t;
  gq_exact_tally_zero(&t);
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
    gq_exact_tally o; // read through L2: other multiprocessors wrote it
    const unsigned long long *src = reinterpret_cast<const unsigned long long *>(&d_tallies[b]);
    unsigned long long w[TALLY_WORDS];
#pragma unroll
    for (unsigned k = 0; k < TALLY_WORDS; k++)
      w[k] = __ldcg(src + k);
    memcpy(&o, w, sizeof o);
    gq_exact_tally_combine(&t, &o);
  }
  gq_exact_tally merged;
  block_tally(&t, &merged);
  if (threadIdx.x == 0) {
    if (!total.first)
      gq_exact_tally_combine(&merged, total.tally);
    *total.tally = merged;
    *total.ticket = 0;
  }
}

// A thread's sums: one expansion per channel, or for the split kinds P and
// N in one SplitExpansion (channels 0 and LAST) and, for stats, sum x^2 in
// channel 1.
template <int KIND, bool ABS>
struct Sums {
  static constexpr int USED = used_channels<KIND, ABS>();
  // sum and stats' sum x: doubles; dot and rms: products
  static constexpr int K0 = KIND == GQ_REDUCE_SUM || KIND == GQ_REDUCE_STATS ? EXPANSION_SUM : EXPANSION_PRODUCT;
  gq::SplitExpansion<K0> pn;
  gq::Expansion<K0> e0;
  gq::Expansion<EXPANSION_PRODUCT> e1; // stats' sum x^2, rms' sum a^2
  __device__ __forceinline__ void zero()
  {
    pn.zero();
    e0.zero();
    e1.zero();
  }
  // The warp's sums merged into lane 0's, which alone flushes them.
  __device__ __forceinline__ void flush(unsigned long long (&words)[USED][WORDS])
  {
    const unsigned lanes = blockDim.x < 32 ? blockDim.x : 32;
    if constexpr (split<KIND, ABS>()) {
      pn.warp_merge(lanes, words[0], words[USED - 1]);
      if (threadIdx.x % 32 == 0)
        pn.flush(words[0], words[USED - 1]);
    } else {
      e0.warp_merge(lanes, words[0]);
      if (threadIdx.x % 32 == 0)
        e0.flush(words[0]);
    }
    if constexpr (KIND == GQ_REDUCE_STATS || KIND == GQ_REDUCE_RMS) {
      e1.warp_merge(lanes, words[1]);
      if (threadIdx.x % 32 == 0)
        e1.flush(words[1]);
    }
  }
};

// What an element that the fast path does not take does: not finite (the
// tally; *bad counts it), or too large or too small for the expansions'
// error-free arithmetic (straight into the words).  Inlined: a call that
// takes the sums by reference puts them in local memory for the whole
// kernel (measured: dot 2^28 1.4 -> 3.9 ms).
template <int KIND, bool ABS, int USED>
__device__ __forceinline__ void add_rare(double a, double b, uint64_t i, gq_exact_tally &tally, unsigned &bad,
                                      Sums<KIND, ABS> &sum, unsigned long long (&words)[USED][WORDS])
{
  constexpr int LAST = USED - 1;
  if constexpr (KIND == GQ_REDUCE_SUM || KIND == GQ_REDUCE_STATS) {
    if (!isfinite(a)) {
      gq_exact_tally_nonfinite(&tally, a, i);
      bad++;
      return;
    }
    if constexpr (split<KIND, ABS>())
      gq::exact_words_add(signbit(a) ? words[LAST] : words[0], a);
    else
      gq::exact_words_add(words[0], a);
    if constexpr (KIND == GQ_REDUCE_STATS) {
      sum.e1.add_product(a, a, 0, 0, words[1]); // its own range checks
      gq_exact_tally_extremes(&tally, a, i);
    }
  } else {
    if (!isfinite(a) || !isfinite(b)) {
      if constexpr (KIND == GQ_REDUCE_DOT)
        gq_exact_tally_nonfinite(&tally, a * b, i);
      else
        gq_exact_tally_rms_nonfinite(&tally, a, b);
      bad++;
      return;
    }
    if constexpr (KIND == GQ_REDUCE_DOT) {
      if constexpr (ABS) {
        if (a != 0.0 && b != 0.0)
          gq::exact_words_add_product((signbit(a) != signbit(b)) ? words[LAST] : words[0], a, b, 0, 0);
      } else {
        sum.e0.add_product(a, b, 0, 0, words[0]);
      }
    }
  }
}

// One element (a pair for dot and rms) at index i.  The fast path: finite
// and in the expansions' range, checked by one comparison per value.
template <int KIND, bool ABS, int USED>
__device__ __forceinline__ void add_element(double a, double b, uint64_t i, Sums<KIND, ABS> &sum,
                                            gq_exact_tally &tally, unsigned &bad,
                                            unsigned long long (&words)[USED][WORDS])
{
  constexpr int LAST = USED - 1;
  if constexpr (KIND == GQ_REDUCE_SUM) {
    if (fabs(a) < gq::EXACT_EXPANSION_LIMIT) {
      if constexpr (ABS)
        sum.pn.add_in_range(a, signbit(a), words[0], words[LAST]);
      else
        sum.e0.add_in_range(a, words[0]);
    } else {
      add_rare<KIND, ABS, USED>(a, b, i, tally, bad, sum, words);
    }
  } else if constexpr (KIND == GQ_REDUCE_STATS) {
    if (fabs(a) < 0x1p480) { // a^2 below the limit too
      sum.pn.add_in_range(a, signbit(a), words[0], words[LAST]);
      sum.e1.add_product(a, a, 0, 0, words[1]);
      gq_exact_tally_extremes(&tally, a, i);
    } else {
      add_rare<KIND, ABS, USED>(a, b, i, tally, bad, sum, words);
    }
  } else if constexpr (KIND == GQ_REDUCE_DOT) {
    const double p = a * b, ap = fabs(p);
    if (ap >= gq::EXACT_PRODUCT_FLOOR && ap < gq::EXACT_EXPANSION_LIMIT) { // finite, TwoProd exact
      const double err = fma(a, b, -p);
      if constexpr (ABS) {
        const bool negative = signbit(p);
        sum.pn.add_in_range(p, negative, words[0], words[LAST]);
        sum.pn.template add_in_range<1>(err, negative, words[0], words[LAST]);
      } else {
        sum.e0.add_in_range(p, words[0]);
        sum.e0.add_tail(err, words[0]);
      }
    } else {
      add_rare<KIND, ABS, USED>(a, b, i, tally, bad, sum, words);
    }
  } else { // rms: (a - b)^2 = a^2 - 2ab + b^2, each product exact
    if (!isfinite(a) || !isfinite(b)) {
      add_rare<KIND, ABS, USED>(a, b, i, tally, bad, sum, words);
      return;
    }
    sum.e0.add_product(a, a, 0, 0, words[0]);
    sum.e0.add_product(a, b, 1, 1, words[0]);
    sum.e0.add_product(b, b, 0, 0, words[0]);
    sum.e1.add_product(a, a, 0, 0, words[1]);
    tally.max_abs = fmax(tally.max_abs, fabs(a - b));
  }
}

// kind: GQ_REDUCE_*; ABS: sum and dot also sum |t| (stats and rms always
// fill their channels).  Elements [0, n) of x (and y); indices in the tallies
// count from base.  Whole tiles of ITEMS coalesced loads per thread, all
// issued before any is added, then the last partial tile with bounds; each
// thread counts what it took, and its finite count is that less the ones
// that were not.  carry: each block carries its words before adding them
// to the grid's (a launch of more adds than UNCARRIED_ADDS); else only the
// words a block touched are added, as they are.
template <int KIND, bool ABS, class T, bool SMALL>
__global__ void __launch_bounds__(EXACT_BLOCK, SMALL ? 1 : GQ_EXACT_MIN_BLOCKS) exact_kernel(const T *x, const T *y, uint64_t n, uint64_t base,
                                                             int carry, unsigned long long *d_words,
                                                             gq_exact_tally *d_tallies, Total total)
{
  constexpr bool PAIR = KIND == GQ_REDUCE_DOT || KIND == GQ_REDUCE_RMS;
  constexpr int USED = used_channels<KIND, ABS>(), ITEMS = items<KIND>();
  __shared__ unsigned long long words[USED][WORDS];
  for (int k = threadIdx.x; k < USED * WORDS; k += blockDim.x)
    words[k / WORDS][k % WORDS] = 0;
  __syncthreads();
  Sums<KIND, ABS> sum;
  sum.zero();
  gq_exact_tally tally;
  gq_exact_tally_zero(&tally);
  unsigned bad = 0;
  uint64_t took = 0;
  const uint64_t tile = (uint64_t)blockDim.x * ITEMS, whole = n / tile;
  for (uint64_t t = blockIdx.x; t < whole; t += gridDim.x) {
    const uint64_t first = t * tile + threadIdx.x;
    double a[ITEMS], b[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      a[k] = element(x, first + (uint64_t)k * blockDim.x);
      b[k] = PAIR ? element(y, first + (uint64_t)k * blockDim.x) : 0.0;
    }
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
      add_element<KIND, ABS, USED>(a[k], b[k], base + first + (uint64_t)k * blockDim.x, sum, tally, bad, words);
    took += ITEMS;
  }
  if (whole * tile < n && blockIdx.x == whole % gridDim.x) { // the partial tile, by the block the stride gives it
    const uint64_t first = whole * tile + threadIdx.x;
    for (int k = 0; k < ITEMS; k++) {
      const uint64_t i = first + (uint64_t)k * blockDim.x;
      if (i < n) {
        add_element<KIND, ABS, USED>(element(x, i), PAIR ? element(y, i) : 0.0, base + i, sum, tally, bad, words);
        took++;
      }
    }
  }
  tally.n = took - bad;
  sum.flush(words);
  block_tally(&tally, &d_tallies[blockIdx.x]); // its __syncthreads orders the flushes before the carry
  if (carry) {
    for (unsigned c = threadIdx.x; c < USED; c += blockDim.x)
      gq::exact_words_normalize(words[c]);
    __syncthreads();
  }
  for (int k = threadIdx.x; k < USED * WORDS; k += blockDim.x)
    if (words[k / WORDS][k % WORDS])
      atomicAdd(&d_words[k], words[k / WORDS][k % WORDS]);
  last_block_total(d_tallies, total);
}

template <int KIND, bool ABS, class T, bool SMALL>
int launch(gq_cuda_state *st, const gq_array_reduce *p, unsigned grid, unsigned threads, unsigned long long *d_words,
           gq_exact_tally *d_tallies, Total total)
{
  const T *x = static_cast<const T *>(p->x), *y = static_cast<const T *>(p->y);
  // Each thread adds at most EXACT_TERMS_PER_THREAD elements per launch:
  // its expansions cannot overflow and a block's words cannot either.
  const uint64_t slice = (uint64_t)grid * threads * gq::EXACT_TERMS_PER_THREAD;
  for (uint64_t first = 0; first < p->n; first += slice) {
    const uint64_t count = p->n - first < slice ? p->n - first : slice;
    const int carry = ADDS_PER_ELEMENT * count + (uint64_t)(2 * EXPANSION_PRODUCT) * grid * threads >= UNCARRIED_ADDS;
    total.first = first == 0;
    exact_kernel<KIND, ABS, T, SMALL><<<grid, threads, 0, st->stream>>>(x + first, y ? y + first : nullptr, count,
                                                                     first, carry, d_words, d_tallies, total);
    GQ_CUDA_LAUNCH_CHECK();
  }
  return GQ_SUCCESS;
}

template <class T>
const void *kernel_of(int kind, bool abs)
{
  switch (kind) {
  case GQ_REDUCE_SUM:
    return abs ? (const void *)exact_kernel<GQ_REDUCE_SUM, true, T, false>
               : (const void *)exact_kernel<GQ_REDUCE_SUM, false, T, false>;
  case GQ_REDUCE_DOT:
    return abs ? (const void *)exact_kernel<GQ_REDUCE_DOT, true, T, false>
               : (const void *)exact_kernel<GQ_REDUCE_DOT, false, T, false>;
  case GQ_REDUCE_RMS: return (const void *)exact_kernel<GQ_REDUCE_RMS, true, T, false>;
  default: return (const void *)exact_kernel<GQ_REDUCE_STATS, true, T, false>;
  }
}

template <class T, bool SMALL>
int by_kind(gq_cuda_state *st, const gq_array_reduce *p, bool abs, unsigned grid, unsigned threads,
            unsigned long long *d_words, gq_exact_tally *d_tallies, Total total)
{
  switch (p->kind) {
  case GQ_REDUCE_SUM:
    return abs ? launch<GQ_REDUCE_SUM, true, T, SMALL>(st, p, grid, threads, d_words, d_tallies, total)
               : launch<GQ_REDUCE_SUM, false, T, SMALL>(st, p, grid, threads, d_words, d_tallies, total);
  case GQ_REDUCE_DOT:
    return abs ? launch<GQ_REDUCE_DOT, true, T, SMALL>(st, p, grid, threads, d_words, d_tallies, total)
               : launch<GQ_REDUCE_DOT, false, T, SMALL>(st, p, grid, threads, d_words, d_tallies, total);
  case GQ_REDUCE_RMS:
    return launch<GQ_REDUCE_RMS, true, T, SMALL>(st, p, grid, threads, d_words, d_tallies, total);
  default:
    return launch<GQ_REDUCE_STATS, true, T, SMALL>(st, p, grid, threads, d_words, d_tallies, total);
  }
}

// The device buffer of a reduction: the words (CHANNELS x WORDS), the total
// tally, the ticket (zeroed together before the launches), then one tally
// per block; the context's pinned buffer takes the words and the total.
constexpr size_t HEAD_BYTES = CHANNELS * WORDS * sizeof(unsigned long long) + sizeof(gq_exact_tally);
constexpr size_t ZEROED_BYTES = HEAD_BYTES + sizeof(unsigned long long);

// The launches into d_buf (allocated on the stream by the caller) and the
// copy back.  small: the grid is smaller than the device holds (a small array): the
// kernel compiled without GQ_EXACT_MIN_BLOCKS's register cap, whose spills
// cost a short launch more than its occupancy gains (one-shot sum of 2^20:
// 32.7 us uncapped, 39.8 capped at 4 blocks).
int run(gq_cuda_state *st, const gq_array_reduce *p, bool abs, bool small, struct gq_exact_acc *out, void *d_buf,
        unsigned grid, unsigned threads)
{
  unsigned long long *d_words = static_cast<unsigned long long *>(d_buf);
  const Total total{reinterpret_cast<gq_exact_tally *>(d_words + CHANNELS * WORDS),
                    reinterpret_cast<unsigned long long *>(static_cast<char *>(d_buf) + HEAD_BYTES), 1};
  gq_exact_tally *d_tallies = reinterpret_cast<gq_exact_tally *>(static_cast<char *>(d_buf) + ZEROED_BYTES);
  GQ_CUDA_TRY(cudaMemsetAsync(d_buf, 0, ZEROED_BYTES, st->stream));
  int status;
  if (small)
    status = p->is_float ? by_kind<float, true>(st, p, abs, grid, threads, d_words, d_tallies, total)
                         : by_kind<double, true>(st, p, abs, grid, threads, d_words, d_tallies, total);
  else
    status = p->is_float ? by_kind<float, false>(st, p, abs, grid, threads, d_words, d_tallies, total)
                         : by_kind<double, false>(st, p, abs, grid, threads, d_words, d_tallies, total);
  if (status != GQ_SUCCESS)
    return status;
  // the words and the total tally: one copy into pinned memory, one wait
  GQ_CUDA_TRY(cudaMemcpyAsync(st->h_exact, d_buf, HEAD_BYTES, cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  const unsigned long long *h_words = static_cast<const unsigned long long *>(st->h_exact);
  gq_exact_tally t;
  memcpy(&t, h_words + CHANNELS * WORDS, sizeof t);
  gq_exact_tally_combine(&out->t, &t);
  for (int c = 0; c < CHANNELS; c++) {
    for (int k = 0; k < WORDS; k++)
      out->s[c].word[k] = (int64_t)h_words[c * WORDS + k];
    gq_superacc_normalize(&out->s[c]);
  }
  // P and N (used_channels, split) into sum t = P + N and sum |t| = P - N
  const int last = p->kind == GQ_REDUCE_STATS ? 2 : abs && (p->kind == GQ_REDUCE_SUM || p->kind == GQ_REDUCE_DOT) ? 1 : 0;
  if (last) {
    gq_superacc *sum = &out->s[0], *mag = &out->s[last];
    for (int k = 0; k < WORDS; k++) { // both carried: every word below 2^32 in magnitude
      const int64_t P = sum->word[k], N = mag->word[k];
      sum->word[k] = P + N;
      mag->word[k] = P - N;
    }
    gq_superacc_normalize(sum);
    gq_superacc_normalize(mag);
  }
  return GQ_SUCCESS;
}

} // namespace

unsigned gq::exact_forced_blocks;

extern "C" void gq_cuda_exact_force_shape(unsigned blocks, unsigned threads)
{
  if (threads > EXACT_BLOCK || (threads & (threads - 1)))
    threads = 0;
  gq::exact_forced_blocks = blocks;
  forced_threads = threads;
}

extern "C" int gq_cuda_exact_reduce(gq_cuda_state *st, const gq_array_reduce *p, int magnitudes,
                                    struct gq_exact_acc *out)
{
  gq_exact_acc_zero(out, (int)p->kind);
  out->magnitudes = magnitudes;
  if (p->n == 0)
    return GQ_SUCCESS;
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  const size_t esize = p->is_float ? sizeof(float) : sizeof(double);
  if (reinterpret_cast<uintptr_t>(p->x) % esize || (p->y && reinterpret_cast<uintptr_t>(p->y) % esize))
    return gq_fail(GQ_EINVAL, "data reduction: the arrays must be aligned to their element size");
  // The resident grid (a grid-stride loop: no tail of blocks waiting for
  // a multiprocessor); the shape changes no bit (tests force others: a
  // power of two up to EXACT_BLOCK threads, which the tallies' pairwise
  // merge needs).
  const unsigned threads = forced_threads ? forced_threads : EXACT_BLOCK;
  const void *kernel = p->is_float ? kernel_of<float>(p->kind, magnitudes) : kernel_of<double>(p->kind, magnitudes);
  const unsigned forced_blocks = gq::exact_forced_blocks;
  unsigned grid = forced_blocks ? forced_blocks : (unsigned)(gq::resident_per_sm(st, kernel, (int)threads) * st->sms);
  // a small array: blocks of 4 tiles of 8 elements a thread (2^20: 128
  // blocks; 396 took as long on the device and their tallies longer to
  // copy and merge: 46.6 against 52.6 us for the one-shot sum)
  const uint64_t per_block = (uint64_t)threads * 8 * 4, needed = (p->n + per_block - 1) / per_block;
  const bool small = !forced_blocks && needed < grid;
  if (small)
    grid = (unsigned)needed;
  if (!st->h_exact)
    GQ_CUDA_TRY(cudaMallocHost(&st->h_exact, HEAD_BYTES));
  void *d_buf = nullptr;
  GQ_CUDA_TRY(cudaMallocAsync(&d_buf, ZEROED_BYTES + grid * sizeof(gq_exact_tally), st->stream));
  const int status = run(st, p, magnitudes != 0, small, out, d_buf, grid, threads);
  cudaFreeAsync(d_buf, st->stream);
  return status;
}
