// alloc.cu — VEGAS+ between passes on the device (alloc.cuh): the
// hypercubes' sums become the pass's totals, and their spreads the next
// pass's counts and quad offsets, by vegas_alloc.h's formulas.  The
// allocation is integer arithmetic over exact running sums, so it equals
// the CPU backend's for the same spreads; the totals are compensated sums in
// a tree order (their last bits may differ from the host's sequence).
#include <math.h>

#include <cub/device/device_scan.cuh>

#include "alloc.cuh"
#include "../../src/lib/vegas_alloc.h"

namespace gq {
namespace vegas {
namespace {

constexpr int THREADS = 256;
constexpr unsigned MAX_BLOCKS = 128; // the totals' partials, summed by one thread
constexpr size_t ALIGN = 256;

size_t round_up(size_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

__device__ void merge(Totals *a, const Totals &b)
{
  gq_csum_merge(&a->mean, b.mean);
  gq_csum_merge(&a->var, b.var);
  a->spread_max = fmax(a->spread_max, b.spread_max);
  a->samples += b.samples;
  a->nonfinite += b.nonfinite;
}

__device__ Totals zero_totals()
{
  Totals t;
  t.mean = t.var = gq_csum_zero();
  t.spread_max = 0.0;
  t.samples = t.nonfinite = 0;
  return t;
}

// Each block's totals over a grid stride of hypercubes; spread[h] kept.
__global__ void __launch_bounds__(THREADS)
    totals_kernel(const double *sum, const double *sum2, const unsigned long long *counts, unsigned hcubes,
                  double beta, double *spread, Totals *partials)
{
  __shared__ Totals shared[THREADS];
  Totals t = zero_totals();
  for (unsigned h = blockIdx.x * THREADS + threadIdx.x; h < hcubes; h += gridDim.x * THREADS) {
    const double n = (double)counts[h];
    double mean, variance;
    gq_vegas_hcube_moments(sum[h], sum2[h], n, &mean, &variance);
    gq_csum_add(&t.mean, mean);
    gq_csum_add(&t.var, variance / n);
    const double s = gq_vegas_spread_power(variance, beta);
    spread[h] = s;
    t.spread_max = fmax(t.spread_max, gq_vegas_spread_for_max(s));
    t.samples += counts[h];
    t.nonfinite += !(isfinite(sum[h]) && isfinite(sum2[h]));
  }
  shared[threadIdx.x] = t;
  __syncthreads();
  for (int half = THREADS / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      merge(&shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partials[blockIdx.x] = shared[0];
}

// The blocks' totals in block order (a launch of one thread: at most
// MAX_BLOCKS terms).
__global__ void finish_kernel(const Totals *partials, unsigned blocks, Totals *result)
{
  Totals t = partials[0];
  for (unsigned b = 1; b < blocks; b++)
    merge(&t, partials[b]);
  *result = t;
}

__global__ void weights_kernel(const double *spread, const Totals *totals, unsigned hcubes,
                               unsigned long long *weights)
{
  const double most = totals->spread_max;
  const bool proportional = gq_vegas_proportional(most);
  for (unsigned h = blockIdx.x * THREADS + threadIdx.x; h < hcubes; h += gridDim.x * THREADS)
    weights[h] = proportional ? gq_vegas_weight(spread[h], most) : 0ull;
}

// counts[h] from the inclusive sums of the weights; quads[h] = ceil(counts /
// 4), and quads[hcubes] = 0 so that the exclusive scan's last entry is the
// pass's quads.
__global__ void counts_kernel(const unsigned long long *running, const Totals *totals, unsigned long long per_pass,
                              unsigned hcubes, unsigned long long *counts, unsigned long long *quads)
{
  const bool proportional = gq_vegas_proportional(totals->spread_max);
  const unsigned long long total = running[hcubes - 1];
  const unsigned long long spare = per_pass - (unsigned long long)GQ_VEGAS_MIN_PER_HCUBE * hcubes;
  for (unsigned h = blockIdx.x * THREADS + threadIdx.x; h <= hcubes; h += gridDim.x * THREADS) {
    if (h == hcubes) {
      quads[h] = 0;
      continue;
    }
    unsigned long long c;
    if (proportional) {
      const unsigned long long now = gq_vegas_spare_upto(spare, running[h], total);
      const unsigned long long before = h ? gq_vegas_spare_upto(spare, running[h - 1], total) : 0ull;
      c = GQ_VEGAS_MIN_PER_HCUBE + (now - before);
    } else {
      c = per_pass / hcubes + (h < per_pass % hcubes);
    }
    counts[h] = c;
    quads[h] = (c + 3) / 4;
  }
}

unsigned blocks_for(unsigned items)
{
  const unsigned b = (items + THREADS - 1) / THREADS;
  return b < 1 ? 1 : b > MAX_BLOCKS ? MAX_BLOCKS : b;
}

size_t scan_bytes(unsigned hcubes)
{
  size_t a = 0, b = 0;
  cub::DeviceScan::InclusiveSum(nullptr, a, (const unsigned long long *)nullptr, (unsigned long long *)nullptr,
                                (int)hcubes);
  cub::DeviceScan::ExclusiveSum(nullptr, b, (const unsigned long long *)nullptr, (unsigned long long *)nullptr,
                                (int)hcubes + 1);
  return a > b ? a : b;
}

} // namespace

size_t alloc_scratch_bytes(unsigned hcubes) { return round_up(MAX_BLOCKS * sizeof(Totals)) + scan_bytes(hcubes); }

cudaError_t hcube_totals(const double *sum, const double *sum2, const unsigned long long *counts, unsigned hcubes,
                         double beta, double *spread, Totals *result, void *scratch, cudaStream_t stream)
{
  Totals *partials = (Totals *)scratch;
  const unsigned blocks = blocks_for(hcubes);
  totals_kernel<<<blocks, THREADS, 0, stream>>>(sum, sum2, counts, hcubes, beta, spread, partials);
  finish_kernel<<<1, 1, 0, stream>>>(partials, blocks, result);
  return cudaGetLastError();
}

cudaError_t reallocate(const double *spread, const Totals *totals, unsigned long long per_pass, unsigned hcubes,
                       unsigned long long *running, unsigned long long *counts, unsigned long long *quads,
                       unsigned long long *first_quad, void *scratch, cudaStream_t stream)
{
  void *temp = (char *)scratch + round_up(MAX_BLOCKS * sizeof(Totals));
  size_t bytes = scan_bytes(hcubes);
  // the weights into quads (free until counts_kernel), their running sums into running
  weights_kernel<<<blocks_for(hcubes), THREADS, 0, stream>>>(spread, totals, hcubes, quads);
  cudaError_t e = cub::DeviceScan::InclusiveSum(temp, bytes, quads, running, (int)hcubes, stream);
  if (e != cudaSuccess)
    return e;
  counts_kernel<<<blocks_for(hcubes + 1), THREADS, 0, stream>>>(running, totals, per_pass, hcubes, counts, quads);
  if ((e = cudaGetLastError()) != cudaSuccess)
    return e;
  bytes = scan_bytes(hcubes);
  return cub::DeviceScan::ExclusiveSum(temp, bytes, quads, first_quad, (int)hcubes + 1, stream);
}

} // namespace vegas
} // namespace gq
