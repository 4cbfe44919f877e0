// scan.cu — gq_scan on a CUDA context: the tile states a context keeps,
// and the launches of the one-pass (look-back, bulk_scan.cuh) and three-phase
// scans (device_scan.cuh) for doubles, floats and 64-bit integers, and CUB's
// DeviceScan as the uncompensated baseline.
#include <algorithm>
#include <new>
#include <type_traits>

#include <cub/device/device_scan.cuh>

#include "../cuda_check.cuh"
#include "bulk_scan.cuh"
#include "device_scan.cuh"
#include "scan_state.cuh"
#include "scan_policy.cuh"

#include "../../src/lib/scan_internal.h"

int gq_scan_reserve(gq_cuda_state *st, unsigned long long tiles)
{
  if (!st->scan) {
    st->scan = new (std::nothrow) gq_scan_state();
    if (!st->scan)
      return gq_fail(GQ_ENOMEM, "cannot allocate the scan state");
    GQ_CUDA_TRY(cudaMalloc(&st->scan->d_counter, sizeof(unsigned long long)));
    GQ_CUDA_TRY(cudaMemset(st->scan->d_counter, 0, sizeof(unsigned long long)));
    GQ_CUDA_TRY(cudaMalloc(&st->scan->d_carry, sizeof(gq_csum)));
  }
  gq_scan_state *s = st->scan;
  if (tiles <= s->capacity)
    return GQ_SUCCESS;
  // Grown by half again, so that a stream of growing chunks reallocates rarely.
  const unsigned long long want = tiles + tiles / 2;
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream)); // the old states may still be in use
  cudaFree(s->d_flags);
  cudaFree(s->d_aggregate);
  cudaFree(s->d_inclusive);
  s->d_flags = nullptr;
  s->d_aggregate = s->d_inclusive = nullptr;
  s->capacity = 0;
  GQ_CUDA_TRY(cudaMalloc(&s->d_flags, want * sizeof(unsigned long long)));
  GQ_CUDA_TRY(cudaMalloc(&s->d_aggregate, want * sizeof(gq_csum)));
  GQ_CUDA_TRY(cudaMalloc(&s->d_inclusive, want * sizeof(gq_csum)));
  // Epoch 0: no launch's (epochs start at 1), so fresh flags read "not yet".
  GQ_CUDA_TRY(cudaMemsetAsync(s->d_flags, 0, want * sizeof(unsigned long long), st->stream));
  s->capacity = want;
  return GQ_SUCCESS;
}

void gq_scan_release(gq_cuda_state *st)
{
  if (!st->scan)
    return;
  cudaFree(st->scan->d_counter);
  cudaFree(st->scan->d_carry);
  cudaFree(st->scan->d_flags);
  cudaFree(st->scan->d_aggregate);
  cudaFree(st->scan->d_inclusive);
  delete st->scan;
  st->scan = nullptr;
}

namespace {

using namespace gq::scan;

// The problem of a launch over `tiles` tiles.
template <class Op, class Source, class Sink>
ScanProblem<Op, Source, Sink> problem(gq_cuda_state *st, Source src, Sink sink, unsigned long long n,
                                      unsigned long long tiles)
{
  using Acc = typename Op::Acc;
  ScanProblem<Op, Source, Sink> p{};
  p.src = src;
  p.sink = sink;
  p.n = n;
  p.tiles = tiles;
  gq_scan_bind(st, p);
  p.carry_in = static_cast<const Acc *>(st->scan->d_carry);
  p.carry_out = static_cast<Acc *>(st->scan->d_carry);
  return p;
}

// Tiles of `tile` items over n, and tile states for them.
int reserve_tiles(gq_cuda_state *st, unsigned long long n, int tile, unsigned long long *tiles)
{
  *tiles = (n + tile - 1) / tile;
  if (*tiles > 0x7fffffffull)
    return gq_fail(GQ_EINVAL, "gq_scan: %llu elements are more tiles than one launch holds", n);
  return gq_scan_reserve(st, *tiles);
}

// One pass (bulk_lookback_kernel at ArrayScanShape) or three phases (at
// ScanShape: block-staged tiles).
template <class Op>
int launch_scan(gq_cuda_state *st, gq_scan_method method, ArraySource<typename Op::In> src, ArraySink<Op> sink,
                unsigned long long n)
{
  unsigned long long tiles;
  if (method == GQ_SCAN_LOOKBACK) {
    using Shape = typename ArrayScanShape<Op>::type;
    int status = reserve_tiles(st, n, Shape::BLOCK * Shape::ITEMS, &tiles);
    if (status != GQ_SUCCESS)
      return status;
    const auto p = problem<Op>(st, src, sink, n, tiles);
    bulk_lookback_kernel<Op, Shape::BLOCK, Shape::ITEMS, Shape::MIN_BLOCKS><<<(unsigned)tiles, Shape::BLOCK, 0, st->stream>>>(p);
    GQ_CUDA_LAUNCH_CHECK();
    st->scan->counted += tiles;
    return GQ_SUCCESS;
  }
  using Shape = typename ScanShape<Op>::type;
  int status = reserve_tiles(st, n, Shape::BLOCK * Shape::ITEMS, &tiles);
  if (status != GQ_SUCCESS)
    return status;
  const auto p = problem<Op>(st, src, sink, n, tiles);
  using Source = ArraySource<typename Op::In>;
  using Sink = ArraySink<Op>;
  reduce_tiles_kernel<Op, Source, Sink, Shape::BLOCK, Shape::ITEMS><<<(unsigned)tiles, Shape::BLOCK, 0, st->stream>>>(p);
  GQ_CUDA_LAUNCH_CHECK();
  scan_totals_kernel<Op, Source, Sink, TOTALS_BLOCK><<<1, TOTALS_BLOCK, 0, st->stream>>>(p);
  GQ_CUDA_LAUNCH_CHECK();
  rescan_tiles_kernel<Op, Source, Sink, Shape::BLOCK, Shape::ITEMS><<<(unsigned)tiles, Shape::BLOCK, 0, st->stream>>>(p);
  GQ_CUDA_LAUNCH_CHECK();
  return GQ_SUCCESS;
}

// The carry added to CUB's sums, in their type (T's own addition: CUB's sums
// are plain).
template <class T> __global__ void add_carry_kernel(T *y, unsigned long long n, T carry)
{
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    y[i] += carry;
}

// cub::DeviceScan, the baseline: sums in the element's type (int64 as
// unsigned, so that an overflow wraps as defined), temporary storage from the
// stream-ordered allocator, a nonzero carry added by one more pass, and the
// new total read back: the last sum, plus the last element for an exclusive
// scan (saved first: y may be x).
template <class T> int cub_scan(gq_cuda_state *st, const gq_scan_call *c, gq_scan_carry *carry)
{
  const T *x = static_cast<const T *>(c->x);
  T *y = static_cast<T *>(c->y);
  const unsigned long long n = c->n;
  T last_x = 0, last_y = 0;
  if (c->exclusive)
    GQ_CUDA_TRY(cudaMemcpyAsync(&last_x, x + n - 1, sizeof(T), cudaMemcpyDeviceToHost, st->stream));
  size_t bytes = 0;
  GQ_CUDA_TRY(c->exclusive ? cub::DeviceScan::ExclusiveSum(nullptr, bytes, x, y, n, st->stream)
                           : cub::DeviceScan::InclusiveSum(nullptr, bytes, x, y, n, st->stream));
  void *temp = nullptr;
  GQ_CUDA_TRY(cudaMallocAsync(&temp, bytes, st->stream));
  const cudaError_t e = c->exclusive ? cub::DeviceScan::ExclusiveSum(temp, bytes, x, y, n, st->stream)
                                     : cub::DeviceScan::InclusiveSum(temp, bytes, x, y, n, st->stream);
  GQ_CUDA_TRY(cudaFreeAsync(temp, st->stream));
  GQ_CUDA_TRY(e);
  T in;
  if constexpr (sizeof(T) == 8 && !std::is_floating_point<T>::value)
    in = (T)carry->isum;
  else
    in = (T)(carry->sum + carry->err);
  if (in != 0) {
    add_carry_kernel<T><<<(unsigned)std::min<unsigned long long>((n + 255) / 256, 4096), 256, 0, st->stream>>>(y, n, in);
    GQ_CUDA_LAUNCH_CHECK();
  }
  GQ_CUDA_TRY(cudaMemcpyAsync(&last_y, y + n - 1, sizeof(T), cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  const T total = last_y + last_x;
  if constexpr (sizeof(T) == 8 && !std::is_floating_point<T>::value) {
    carry->isum = (int64_t)total;
  } else {
    carry->sum = (double)total;
    carry->err = 0.0;
  }
  return GQ_SUCCESS;
}

template <class Op>
int scan_as(gq_cuda_state *st, const gq_scan_call *c, gq_scan_carry *carry)
{
  using Acc = typename Op::Acc;
  Acc in;
  if constexpr (sizeof(Acc) == sizeof(gq_csum))
    in = Acc{carry->sum, carry->err};
  else
    in = (Acc)carry->isum;
  GQ_CUDA_TRY(cudaMemcpyAsync(st->scan->d_carry, &in, sizeof in, cudaMemcpyHostToDevice, st->stream));
  ArraySource<typename Op::In> src{static_cast<const typename Op::In *>(c->x)};
  ArraySink<Op> sink{static_cast<typename Op::Out *>(c->y), c->exclusive};
  const int status = launch_scan<Op>(st, c->method, src, sink, c->n);
  if (status != GQ_SUCCESS)
    return status;
  Acc out;
  GQ_CUDA_TRY(cudaMemcpyAsync(&out, st->scan->d_carry, sizeof out, cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  if constexpr (sizeof(Acc) == sizeof(gq_csum)) {
    carry->sum = out.s;
    carry->err = out.c;
  } else {
    carry->isum = (int64_t)out;
  }
  return GQ_SUCCESS;
}

} // namespace

extern "C" int gq_cuda_scan(gq_cuda_state *st, const gq_scan_call *c, gq_scan_carry *carry)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  // The carry's copies use the context's memory: the state exists first.
  int status = gq_scan_reserve(st, 1);
  if (status != GQ_SUCCESS)
    return status;
  if (c->method == GQ_SCAN_CUB) {
    switch (c->type) {
    case GQ_SCAN_F64: return cub_scan<double>(st, c, carry);
    case GQ_SCAN_F32: return cub_scan<float>(st, c, carry);
    default: return cub_scan<unsigned long long>(st, c, carry);
    }
  }
  switch (c->type) {
  case GQ_SCAN_F64: return scan_as<DoubleSum>(st, c, carry);
  case GQ_SCAN_F32: return scan_as<FloatSum>(st, c, carry);
  default: return scan_as<Int64Sum>(st, c, carry);
  }
}
