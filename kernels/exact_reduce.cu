// exact_reduce.cu — the deterministic sum, dot, rms and statistics of device
// arrays (issue 20): one kernel per kind.  Each thread adds its elements
// (whole tiles, a grid-stride loop: which thread takes which element does
// not matter) into expansions (stats: fixed-grid levels) that spill into
// the block's exact words in shared memory (engine/exact_accumulator.cuh),
// a whole tile at once when nothing spills; a warp's expansions are merged
// into one lane's before it flushes them.  A reduction of one block
// exports its own words; otherwise each block adds its words to the grid's
// with one atomic each, its non-finite counts (if any) to the grid's by
// atomics, and the tally words its kind fills (extremes, max |a - b|) to
// its slot, which the grid's last block merges into one.  The last block
// of a reduction's last launch writes each channel's window of nonzero
// words and the tally into the context's mapped host memory, poisoned by
// the host, zeroing the device's words for the next reduction (nothing is
// zeroed, allocated or copied per call; a repeated launch replays a graph);
// the host spins until no word it needs is poisoned and finishes them with
// the CPU backend's code (exact_acc.h), so a CUDA context gives the CPU
// context's bits.
#include <cstdint>
#include <cstdlib>

#include <cuda_pipeline.h>

#include "cuda_check.cuh"
#include "cuda_state.cuh"
#include "exact/sums.cuh"
#include "grid.cuh" // exact_forced_blocks
#include "engine/launch.cuh"
#include "host_spin.cuh"
#include "../src/lib/exact.h"

namespace {

using namespace gq_exact;

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
// Stats' levels, their snapshot for a whole tile, extremes and loads take
// 120 registers: 2 blocks, no spills (H200, 2^28 doubles: 1261 us, 1179
// with the staged loads; at 3 blocks, 80 registers and spills, 1269-1276,
// 1197-1225 staged).
#ifndef GQ_EXACT_STATS_MIN_BLOCKS
#define GQ_EXACT_STATS_MIN_BLOCKS 2
#endif

// Tiles of 8 elements a thread in a small array's blocks (H200, one-shot
// sum, host clock: 2^16 12.9 us at 4 tiles, 11.9 at 2, 11.1 at 1; 2^20
// 13.4, 12.9, 14.1 — 1 needs more blocks than stay resident).  -D
// overrides it for measurements.
#ifndef GQ_EXACT_SMALL_TILES
#define GQ_EXACT_SMALL_TILES 2
#endif

unsigned forced_threads; // the forced block size (tests), or 0 for the default

// A launch's arguments, one parameter so that a repeated launch replays a
// graph from the launch cache (every field is in its key).
template <class T>
struct Args {
  const T *x, *y;
  uint64_t n, base;
  unsigned long long *d_words;
  gq_exact_tally *d_tallies;
  Total total;
  int carry;
};

// kind: GQ_REDUCE_*; ABS: sum and dot also sum |t| (stats and rms always
// fill their channels).  Elements [0, n) of x (and y); indices in the tallies
// count from base.  Whole tiles of ITEMS coalesced loads per thread, all
// issued before any is added, then the last partial tile with bounds (the
// finite count is the host's: n less the non-finite ones).  carry: each
// block carries its words before adding them to the grid's (a launch of
// more adds than UNCARRIED_ADDS); else only the words a block touched are
// added, as they are.
template <int KIND, bool ABS, class T, bool SMALL>
__global__ void __launch_bounds__(EXACT_BLOCK, SMALL                       ? 1
                                               : KIND == GQ_REDUCE_STATS ? GQ_EXACT_STATS_MIN_BLOCKS
                                                                         : GQ_EXACT_MIN_BLOCKS)
    exact_kernel(Args<T> args)
{
  const T *x = args.x, *y = args.y;
  const uint64_t n = args.n, base = args.base;
  unsigned long long *d_words = args.d_words;
  constexpr bool PAIR = KIND == GQ_REDUCE_DOT || KIND == GQ_REDUCE_RMS;
  constexpr int USED = used_channels<KIND, ABS>(), ITEMS = items<KIND>();
  __shared__ unsigned long long words[USED][WORDS];
  __shared__ Rare rare;
  for (int k = threadIdx.x; k < USED * WORDS; k += blockDim.x)
    words[k / WORDS][k % WORDS] = 0;
  if (threadIdx.x == 0)
    rare.zero();
  __syncthreads();
  Sums<KIND, ABS> sum;
  sum.zero();
  gq_exact_tally tally;
  gq_exact_tally_zero(&tally);
  const uint64_t tile = (uint64_t)blockDim.x * ITEMS, whole = n / tile;
  // One whole tile: a[k] (b[k]) is element first + k blockDim.x.
  auto add_tile = [&](const double(&a)[ITEMS], const double(&b)[ITEMS], uint64_t first) {
    bool whole_tile = false;
    if constexpr (KIND == GQ_REDUCE_SUM || KIND == GQ_REDUCE_DOT) {
      whole_tile = sum.add_tile(a, b);
    } else if constexpr (KIND == GQ_REDUCE_STATS) {
      whole_tile = sum.add_tile(a);
      if (whole_tile) {
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
          extremes_in_order(tally, a[k], base + first + (uint64_t)k * blockDim.x);
      }
    }
    if (!whole_tile) {
#pragma unroll
      for (int k = 0; k < ITEMS; k++)
        add_element<KIND, ABS, USED>(a[k], b[k], base + first + (uint64_t)k * blockDim.x, sum, tally, rare, words);
    }
    sum.template tile_done<ITEMS>(words);
  };
  if constexpr (KIND == GQ_REDUCE_STATS && !SMALL) {
    // Stats' tiles staged: each thread has the copy engine fetch its items
    // of the next tile into shared memory (cp.async: no registers held)
    // while it adds the current one, and reads back only its own items, so
    // no barrier is needed (H200, 2^28 doubles: 1254-1261 -> 1179 us, the
    // loads' long-scoreboard stalls gone).
    __shared__ T stage[2][ITEMS][EXACT_BLOCK];
    auto fetch = [&](uint64_t t, int s) {
      const uint64_t first = t * tile + threadIdx.x;
#pragma unroll
      for (int k = 0; k < ITEMS; k++)
        __pipeline_memcpy_async(&stage[s][k][threadIdx.x], x + first + (uint64_t)k * blockDim.x, sizeof(T));
      __pipeline_commit();
    };
    int s = 0;
    if (blockIdx.x < whole)
      fetch(blockIdx.x, 0);
    for (uint64_t t = blockIdx.x; t < whole; t += gridDim.x, s ^= 1) {
      if (t + gridDim.x < whole) {
        fetch(t + gridDim.x, s ^ 1);
        __pipeline_wait_prior(1);
      } else {
        __pipeline_wait_prior(0);
      }
      double a[ITEMS], b[ITEMS];
#pragma unroll
      for (int k = 0; k < ITEMS; k++) {
        a[k] = (double)stage[s][k][threadIdx.x];
        b[k] = 0.0;
      }
      add_tile(a, b, t * tile + threadIdx.x);
    }
  } else {
    auto load = [&](double(&a)[ITEMS], double(&b)[ITEMS], uint64_t first) {
#pragma unroll
      for (int k = 0; k < ITEMS; k++) {
        a[k] = element(x, first + (uint64_t)k * blockDim.x);
        b[k] = PAIR ? element(y, first + (uint64_t)k * blockDim.x) : 0.0;
      }
    };
    if constexpr (SMALL && KIND != GQ_REDUCE_STATS) {
      // A small array's block has a few tiles: two at a time, both loaded
      // before either is added (one round trip to memory for both, where
      // the branchy adds kept the next tile's loads behind them).
      for (uint64_t t = blockIdx.x; t < whole; t += 2 * (uint64_t)gridDim.x) {
        const uint64_t u = t + gridDim.x;
        double a[2][ITEMS], b[2][ITEMS];
        load(a[0], b[0], t * tile + threadIdx.x);
        if (u < whole)
          load(a[1], b[1], u * tile + threadIdx.x);
        add_tile(a[0], b[0], t * tile + threadIdx.x);
        if (u < whole)
          add_tile(a[1], b[1], u * tile + threadIdx.x);
      }
    } else {
      for (uint64_t t = blockIdx.x; t < whole; t += gridDim.x) {
        double a[ITEMS], b[ITEMS];
        load(a, b, t * tile + threadIdx.x);
        add_tile(a, b, t * tile + threadIdx.x);
      }
    }
  }
  if (whole * tile < n && blockIdx.x == whole % gridDim.x) { // the partial tile, by the block the stride gives it
    const uint64_t first = whole * tile + threadIdx.x;
    for (int k = 0; k < ITEMS; k++) {
      const uint64_t i = first + (uint64_t)k * blockDim.x;
      if (i < n) {
        add_element<KIND, ABS, USED>(element(x, i), PAIR ? element(y, i) : 0.0, base + i, sum, tally, rare, words);
      }
    }
  }
  // one block and one launch: the block's words and merged expansions are
  // the result; else thread 0 adds the merged expansions' parts to the
  // grid's words
  const bool single = SMALL && gridDim.x == 1 && args.total.first && args.total.last && !args.carry;
  double parts[CHANNELS][PARTS] = {};
  unsigned nparts[CHANNELS] = {};
  sum.flush_block(words, [&](int c, double v) {
    if (single)
      parts[c][nparts[c]++] = v;
    else if (v != 0.0)
      gq::exact_words_add(d_words + (size_t)c * WORDS, v);
  });
  if constexpr (SMALL) {
    if (single) {
      export_block<KIND, USED>(tally, rare, parts, &words[0][0], args.total);
      return;
    }
  }
  block_tally<KIND>(tally, &args.d_tallies[blockIdx.x]); // its __syncthreads orders the flushes before the carry
  if (threadIdx.x == 0)
    rare.into(args.total.rare);
  if (args.carry) {
    for (unsigned c = threadIdx.x; c < USED; c += blockDim.x)
      gq::exact_words_normalize(words[c]);
    __syncthreads();
  }
  for (int k = threadIdx.x; k < USED * WORDS; k += blockDim.x)
    if (words[k / WORDS][k % WORDS])
      atomicAdd(&d_words[k], words[k / WORDS][k % WORDS]);
  // the ticket's barrier orders these adds before thread 0's release
  last_block_total<KIND, USED>(args.d_tallies, d_words, args.total, &words[0][0]);
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
    const uint64_t per_thread = 2 * EXPANSION_PRODUCT + FLUSH_ADDS_PER_THREAD;
    const int carry = ADDS_PER_ELEMENT * count + 4 * (count >> gq::DEPOSIT_LOG_SPAN) + per_thread * grid * threads >=
                      UNCARRIED_ADDS;
    total.first = first == 0;
    total.last = first + count == p->n;
    Args<T> args{}; // zero-filled: the launch cache compares keys byte by byte
    args.x = x + first;
    args.y = y ? y + first : nullptr;
    args.n = count;
    args.base = first;
    args.d_words = d_words;
    args.d_tallies = d_tallies;
    args.total = total;
    args.carry = carry;
    const int status = gq::launch<true>(st, (const void *)exact_kernel<KIND, ABS, T, SMALL>, grid, (int)threads,
                                        args, st->stream);
    if (status != GQ_SUCCESS)
      return status;
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

// The context's device buffer (d_exact): the words (CHANNELS x WORDS), the
// total tally, the non-finite totals, the ticket — zeroed once, and left so
// by every reduction — then one tally per block.  The mapped host buffer:
// the result as export_result lays it out (tally.cuh), every word poisoned
// between reductions.
constexpr size_t HEAD_BYTES = CHANNELS * WORDS * sizeof(unsigned long long) + sizeof(gq_exact_tally);
constexpr size_t RARE_AT = HEAD_BYTES, TICKET_AT = RARE_AT + sizeof(RareTotal);
constexpr size_t ZEROED_BYTES = TICKET_AT + sizeof(unsigned long long);
constexpr size_t MAPPED_BYTES = MAPPED_WORDS * sizeof(unsigned long long);

// Room for `grid` blocks' tallies, and the mapped buffer.  A buffer that
// grows is freed (cudaFree waits for the device) and zeroed afresh.
int ensure_buffers(gq_cuda_state *st, unsigned grid)
{
  if (!st->h_exact) {
    GQ_CUDA_TRY(cudaHostAlloc(&st->h_exact, MAPPED_BYTES, cudaHostAllocMapped));
    GQ_CUDA_TRY(cudaHostGetDevicePointer(&st->h_exact_dev, st->h_exact, 0));
    st->exact_dirty = 1;
  }
  if (st->d_exact && grid <= st->exact_blocks)
    return GQ_SUCCESS;
  if (st->d_exact) {
    GQ_CUDA_TRY(cudaFree(st->d_exact));
    st->d_exact = nullptr;
  }
  const unsigned blocks = grid > (unsigned)st->sms * 8 ? grid : (unsigned)st->sms * 8;
  GQ_CUDA_TRY(cudaMalloc(&st->d_exact, ZEROED_BYTES + (size_t)blocks * sizeof(gq_exact_tally)));
  st->exact_blocks = blocks;
  st->exact_dirty = 1;
  return GQ_SUCCESS;
}

// The mapped result, read as it lands: the headers and the tally first,
// then the windows they name.  `have` counts the words known to have
// landed, so each poll resumes where the last stopped; `words` is the
// windows' total once the headers are in.
struct Landing {
  const volatile unsigned long long *h;
  unsigned have = 0, words = 0;
  bool done()
  {
    for (; have < MAPPED_WINDOWS; have++)
      if (h[have] == GQ_POISON)
        return false;
    if (words == 0) {
      words = MAPPED_WINDOWS;
      for (int c = 0; c < CHANNELS; c++)
        words += window_count(h[MAPPED_HEADERS + c]);
    }
    for (; have < words; have++)
      if (h[have] == GQ_POISON)
        return false;
    return true;
  }
};

// The launches, the wait and the host's part of the finish.  small: the
// grid is smaller than the device holds (a small array): the kernel
// compiled without GQ_EXACT_MIN_BLOCKS's register cap, whose spills cost a
// short launch more than its occupancy gains (one-shot sum of 2^20:
// 32.7 us uncapped, 39.8 capped at 4 blocks).
int run(gq_cuda_state *st, const gq_array_reduce *p, bool abs, bool small, struct gq_exact_acc *out, unsigned grid,
        unsigned threads)
{
  unsigned long long *d_words = static_cast<unsigned long long *>(st->d_exact);
  volatile unsigned long long *h = static_cast<volatile unsigned long long *>(st->h_exact);
  char *head = static_cast<char *>(st->d_exact);
  const Total total{reinterpret_cast<gq_exact_tally *>(d_words + CHANNELS * WORDS),
                    reinterpret_cast<RareTotal *>(head + RARE_AT),
                    reinterpret_cast<unsigned long long *>(head + TICKET_AT),
                    1,
                    1,
                    static_cast<unsigned long long *>(st->h_exact_dev)};
  gq_exact_tally *d_tallies = reinterpret_cast<gq_exact_tally *>(static_cast<char *>(st->d_exact) + ZEROED_BYTES);
  if (st->exact_dirty) { // the first reduction, or one that failed: every word afresh
    GQ_CUDA_TRY(cudaMemsetAsync(st->d_exact, 0, ZEROED_BYTES, st->stream));
    for (unsigned k = 0; k < MAPPED_WORDS; k++)
      h[k] = GQ_POISON;
  }
  st->exact_dirty = 1; // until the last block has zeroed the words again
  int status;
  if (small)
    status = p->is_float ? by_kind<float, true>(st, p, abs, grid, threads, d_words, d_tallies, total)
                         : by_kind<double, true>(st, p, abs, grid, threads, d_words, d_tallies, total);
  else
    status = p->is_float ? by_kind<float, false>(st, p, abs, grid, threads, d_words, d_tallies, total)
                         : by_kind<double, false>(st, p, abs, grid, threads, d_words, d_tallies, total);
  Landing landing{h};
  if (status == GQ_SUCCESS)
    status = gq::spin(st, [&] { return landing.done(); }, "deterministic data reduction");
  if (status != GQ_SUCCESS)
    return status;
  gq_exact_tally t;
  memcpy(&t, const_cast<const unsigned long long *>(h + MAPPED_TALLY), sizeof t);
  t.n = p->n - t.nan_count - t.posinf_count - t.neginf_count;
  gq_exact_tally_combine(&out->t, &t);
  unsigned at = MAPPED_WINDOWS;
  for (int c = 0; c < CHANNELS; c++) { // out's words are zero (gq_exact_acc_zero) but the windows'
    const unsigned long long header = h[MAPPED_HEADERS + c];
    const unsigned lo = window_lo(header), count = window_count(header);
    for (unsigned k = 0; k < count; k++)
      out->s[c].word[lo + k] = (int64_t)h[at + k];
    at += count;
    bool touched = count > 0;
    for (unsigned k = 0; k < PARTS; k++) { // a single block's merged expansions, exactly
      double v;
      const unsigned long long bits = h[MAPPED_PARTS + c * PARTS + k];
      memcpy(&v, &bits, sizeof v);
      if (v != 0.0) {
        gq_superacc_add(&out->s[c], v);
        touched = true;
      }
    }
    if (touched) // (an untouched channel is zero: normalized)
      gq_superacc_normalize(&out->s[c]);
  }
  for (unsigned k = 0; k < landing.words; k++) // poisoned again for the next reduction
    h[k] = GQ_POISON;
  st->exact_dirty = 0;
  // P and N (used_channels, split) into sum t = P + N and sum |t| = P - N
  const int last = abs && (p->kind == GQ_REDUCE_SUM || p->kind == GQ_REDUCE_DOT) ? 1 : 0;
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
  // a small array: blocks of GQ_EXACT_SMALL_TILES tiles of 8 elements a
  // thread (2^20: 256 blocks), and one block, which exports its own words,
  // up to 4096 elements
  const uint64_t per_block = (uint64_t)threads * 8 * GQ_EXACT_SMALL_TILES, needed = (p->n + per_block - 1) / per_block;
  const bool small = !forced_blocks && needed < grid;
  if (small)
    grid = (unsigned)needed;
  const int status = ensure_buffers(st, grid);
  return status != GQ_SUCCESS ? status : run(st, p, magnitudes != 0, small, out, grid, threads);
}
