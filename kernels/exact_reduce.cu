// exact_reduce.cu — the deterministic sum, dot, rms and statistics of device
// arrays (issue 20): one kernel per kind.  Each thread adds its elements
// (a grid-stride loop: which thread takes which element does not matter)
// into expansions that spill into the block's exact words in shared memory
// (engine/exact_accumulator.cuh); the block carries its words once and adds
// them to the grid's words with one atomic each, and writes its tally
// (counts, extremes) to its slot.  The host reads the words and the
// tallies and merges them with the CPU backend's code (exact_acc.h), so a
// CUDA context gives the CPU context's bits.
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
constexpr int EXPANSION = 3; // doubles per sum and thread (ExBLAS's choice for sums)
constexpr int CHANNELS = 3;  // sums per accumulator (exact_acc.h)
constexpr int ITEMS = 4;     // loads in flight per thread and tile
constexpr int WORDS = GQ_SUPERACC_WORDS;

unsigned forced_threads; // the forced block size (tests), or 0 for the default

template <class T>
__device__ __forceinline__ double element(const T *v, uint64_t i)
{
  return (double)v[i];
}

// The block's tallies, merged pairwise through shared memory.
__device__ void block_tally(gq_exact_tally *mine, gq_exact_tally *out)
{
  __shared__ gq_exact_tally all[EXACT_BLOCK];
  all[threadIdx.x] = *mine;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      gq_exact_tally_combine(&all[threadIdx.x], &all[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *out = all[0];
}

// One element (a pair for dot and rms) at index i into the thread's
// expansions and tally.
template <int KIND, bool ABS>
__device__ __forceinline__ void add_element(double a, double b, uint64_t i, gq::Expansion<EXPANSION> (&sum)[CHANNELS],
                                            gq_exact_tally &tally, unsigned long long (&words)[CHANNELS][WORDS])
{
  if constexpr (KIND == GQ_REDUCE_SUM || KIND == GQ_REDUCE_STATS) {
    if (!isfinite(a)) {
      gq_exact_tally_nonfinite(&tally, a, i);
      return;
    }
    sum[0].add(a, words[0]);
    if constexpr (KIND == GQ_REDUCE_SUM) {
      if constexpr (ABS)
        sum[1].add(fabs(a), words[1]);
    } else {
      sum[1].add_product(a, a, 0, 0, words[1]);
      sum[2].add(fabs(a), words[2]);
      gq_exact_tally_extremes(&tally, a, i);
    }
  } else {
    if (!isfinite(a) || !isfinite(b)) {
      if constexpr (KIND == GQ_REDUCE_DOT)
        gq_exact_tally_nonfinite(&tally, a * b, i);
      else
        gq_exact_tally_rms_nonfinite(&tally, a, b);
      return;
    }
    if constexpr (KIND == GQ_REDUCE_DOT) {
      sum[0].add_product(a, b, 0, 0, words[0]);
      if constexpr (ABS)
        sum[1].add_product(fabs(a), fabs(b), 0, 0, words[1]);
    } else { // (a - b)^2 = a^2 - 2ab + b^2, each product exact
      sum[0].add_product(a, a, 0, 0, words[0]);
      sum[0].add_product(a, b, 1, 1, words[0]);
      sum[0].add_product(b, b, 0, 0, words[0]);
      sum[1].add_product(a, a, 0, 0, words[1]);
      tally.max_abs = fmax(tally.max_abs, fabs(a - b));
    }
  }
  tally.n++;
}

// kind: GQ_REDUCE_*; ABS: sum and dot also sum |t| (stats and rms always
// fill their channels).  Elements [0, n) of x (and y); indices in the tallies
// count from base.  Tiles of ITEMS coalesced loads per thread, all issued
// before any is added, keep enough bytes in flight for the bandwidth.
template <int KIND, bool ABS, class T>
__global__ void __launch_bounds__(EXACT_BLOCK) exact_kernel(const T *x, const T *y, uint64_t n, uint64_t base,
                                                             unsigned long long *d_words, gq_exact_tally *d_tallies)
{
  constexpr bool PAIR = KIND == GQ_REDUCE_DOT || KIND == GQ_REDUCE_RMS;
  __shared__ unsigned long long words[CHANNELS][WORDS];
  for (int k = threadIdx.x; k < CHANNELS * WORDS; k += blockDim.x)
    words[k / WORDS][k % WORDS] = 0;
  __syncthreads();
  gq::Expansion<EXPANSION> sum[CHANNELS];
#pragma unroll
  for (int c = 0; c < CHANNELS; c++)
    sum[c].zero();
  gq_exact_tally tally;
  gq_exact_tally_zero(&tally);
  const uint64_t tile = (uint64_t)blockDim.x * ITEMS;
  for (uint64_t first = (uint64_t)blockIdx.x * tile; first < n; first += (uint64_t)gridDim.x * tile) {
    double a[ITEMS], b[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const uint64_t i = first + (uint64_t)k * blockDim.x + threadIdx.x;
      a[k] = i < n ? element(x, i) : 0.0;
      b[k] = PAIR && i < n ? element(y, i) : 0.0;
    }
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const uint64_t i = first + (uint64_t)k * blockDim.x + threadIdx.x;
      if (i < n)
        add_element<KIND, ABS>(a[k], b[k], base + i, sum, tally, words);
    }
  }
#pragma unroll
  for (int c = 0; c < CHANNELS; c++)
    sum[c].flush(words[c]);
  block_tally(&tally, &d_tallies[blockIdx.x]); // its __syncthreads orders the flushes before the carry
  for (unsigned c = threadIdx.x; c < CHANNELS; c += blockDim.x)
    gq::exact_words_normalize(words[c]);
  __syncthreads();
  for (int k = threadIdx.x; k < CHANNELS * WORDS; k += blockDim.x)
    if (words[k / WORDS][k % WORDS])
      atomicAdd(&d_words[k], words[k / WORDS][k % WORDS]);
}

template <int KIND, bool ABS, class T>
int launch(gq_cuda_state *st, const gq_array_reduce *p, unsigned grid, unsigned threads, unsigned long long *d_words,
           gq_exact_tally *d_tallies, gq_exact_tally *h_tallies, struct gq_exact_acc *out)
{
  const T *x = static_cast<const T *>(p->x), *y = static_cast<const T *>(p->y);
  // Each thread adds at most EXACT_TERMS_PER_THREAD elements per launch:
  // its expansions cannot overflow and a block's words cannot either.
  const uint64_t slice = (uint64_t)grid * threads * gq::EXACT_TERMS_PER_THREAD;
  for (uint64_t first = 0; first < p->n; first += slice) {
    const uint64_t count = p->n - first < slice ? p->n - first : slice;
    exact_kernel<KIND, ABS, T><<<grid, threads, 0, st->stream>>>(x + first, y ? y + first : nullptr, count, first,
                                                              d_words, d_tallies);
    GQ_CUDA_LAUNCH_CHECK();
    GQ_CUDA_TRY(cudaMemcpyAsync(h_tallies, d_tallies, grid * sizeof *h_tallies, cudaMemcpyDeviceToHost, st->stream));
    GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
    for (unsigned b = 0; b < grid; b++)
      gq_exact_tally_combine(&out->t, &h_tallies[b]);
  }
  return GQ_SUCCESS;
}

template <class T>
const void *kernel_of(int kind, bool abs)
{
  switch (kind) {
  case GQ_REDUCE_SUM:
    return abs ? (const void *)exact_kernel<GQ_REDUCE_SUM, true, T>
               : (const void *)exact_kernel<GQ_REDUCE_SUM, false, T>;
  case GQ_REDUCE_DOT:
    return abs ? (const void *)exact_kernel<GQ_REDUCE_DOT, true, T>
               : (const void *)exact_kernel<GQ_REDUCE_DOT, false, T>;
  case GQ_REDUCE_RMS: return (const void *)exact_kernel<GQ_REDUCE_RMS, true, T>;
  default: return (const void *)exact_kernel<GQ_REDUCE_STATS, true, T>;
  }
}

template <class T>
int by_kind(gq_cuda_state *st, const gq_array_reduce *p, bool abs, unsigned grid, unsigned threads,
            unsigned long long *d_words, gq_exact_tally *d_tallies, gq_exact_tally *h_tallies,
            struct gq_exact_acc *out)
{
  switch (p->kind) {
  case GQ_REDUCE_SUM:
    return abs ? launch<GQ_REDUCE_SUM, true, T>(st, p, grid, threads, d_words, d_tallies, h_tallies, out)
               : launch<GQ_REDUCE_SUM, false, T>(st, p, grid, threads, d_words, d_tallies, h_tallies, out);
  case GQ_REDUCE_DOT:
    return abs ? launch<GQ_REDUCE_DOT, true, T>(st, p, grid, threads, d_words, d_tallies, h_tallies, out)
               : launch<GQ_REDUCE_DOT, false, T>(st, p, grid, threads, d_words, d_tallies, h_tallies, out);
  case GQ_REDUCE_RMS:
    return launch<GQ_REDUCE_RMS, true, T>(st, p, grid, threads, d_words, d_tallies, h_tallies, out);
  default:
    return launch<GQ_REDUCE_STATS, true, T>(st, p, grid, threads, d_words, d_tallies, h_tallies, out);
  }
}

// The launches and the copies, with the scratch allocated on the stream.
int run(gq_cuda_state *st, const gq_array_reduce *p, bool abs, struct gq_exact_acc *out, unsigned long long *d_words,
        gq_exact_tally *d_tallies, gq_exact_tally *h_tallies, unsigned long long *h_words, unsigned grid,
        unsigned threads)
{
  GQ_CUDA_TRY(cudaMemsetAsync(d_words, 0, CHANNELS * WORDS * sizeof *d_words, st->stream));
  const int status = p->is_float ? by_kind<float>(st, p, abs, grid, threads, d_words, d_tallies, h_tallies, out)
                                 : by_kind<double>(st, p, abs, grid, threads, d_words, d_tallies, h_tallies, out);
  if (status != GQ_SUCCESS)
    return status;
  GQ_CUDA_TRY(cudaMemcpyAsync(h_words, d_words, CHANNELS * WORDS * sizeof *d_words, cudaMemcpyDeviceToHost,
                              st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  for (int c = 0; c < CHANNELS; c++) {
    for (int k = 0; k < WORDS; k++)
      out->s[c].word[k] = (int64_t)h_words[c * WORDS + k];
    gq_superacc_normalize(&out->s[c]);
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
  const uint64_t needed = (p->n + threads - 1) / threads;
  if (!forced_blocks && needed < grid)
    grid = (unsigned)needed;
  unsigned long long *d_words = nullptr, *h_words = nullptr;
  gq_exact_tally *d_tallies = nullptr, *h_tallies = nullptr;
  int status = gq::cuda_status(cudaMallocAsync(&d_words, CHANNELS * WORDS * sizeof *d_words + grid * sizeof *d_tallies,
                                               st->stream),
                               "cudaMallocAsync(exact scratch)");
  if (status == GQ_SUCCESS) {
    d_tallies = reinterpret_cast<gq_exact_tally *>(d_words + CHANNELS * WORDS);
    h_words = static_cast<unsigned long long *>(malloc(CHANNELS * WORDS * sizeof *h_words + grid * sizeof *h_tallies));
    if (!h_words)
      status = gq_fail(GQ_ENOMEM, "cannot allocate the exact results");
  }
  if (status == GQ_SUCCESS) {
    h_tallies = reinterpret_cast<gq_exact_tally *>(h_words + CHANNELS * WORDS);
    status = run(st, p, magnitudes != 0, out, d_words, d_tallies, h_tallies, h_words, grid, threads);
  }
  if (d_words)
    cudaFreeAsync(d_words, st->stream);
  free(h_words);
  return status;
}
