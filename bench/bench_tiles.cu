// bench_tiles.cu — how fast can a scan's tiles move?  Data movement alone
// (no scan, no look-back): each kernel copies x to y through the structure a
// scan would give it, so the gap to a plain device copy is what the
// structure costs before any arithmetic (issue 19: the single-pass scan at
// 0.60 of a copy, the goal 0.95).
//
//   bench/bench_tiles [LOG2_N [REPS]]   (default 2^28 doubles, 11)
//
// Structures (B threads x I items a tile, M blocks per multiprocessor):
//   memcpy        cudaMemcpyAsync device to device: the reference
//   stride        a grid-stride loop of 16-byte loads and stores
//   reg B×I/M     one tile per block, striped into registers and out again
//   smem B×I/M    one tile per block, striped into shared memory, read
//                 blocked (the scan's transpose), written blocked, read
//                 striped and stored (the library's ArraySource/ArraySink)
//   warp B×I/M    the same per warp (__syncwarp, no block barrier)
//   pers B×I/M    persistent blocks (M per multiprocessor), the next tile's
//                 loads in registers while the current one moves through
//                 shared memory
//   tma B×I/M     persistent blocks, tiles brought in and out by the
//                 Hopper bulk-copy engine (cp.async.bulk, an mbarrier per
//                 stage, two stages), read and written blocked between
// Every copy is compared with x before it is timed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "../kernels/scan/bulk_copy.cuh"
#include "timing.cuh"

using namespace gq::scan;

namespace {

__global__ void stride_copy(const double2 *x, double2 *y, unsigned long long n2)
{
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n2;
       i += (unsigned long long)gridDim.x * blockDim.x)
    y[i] = x[i];
}

template <int B, int I, int M> __global__ void __launch_bounds__(B, M) reg_copy(const double *x, double *y)
{
  const unsigned long long first = (unsigned long long)blockIdx.x * B * I;
  double v[I];
#pragma unroll
  for (int k = 0; k < I; k++)
    v[k] = x[first + k * B + threadIdx.x];
#pragma unroll
  for (int k = 0; k < I; k++)
    y[first + k * B + threadIdx.x] = v[k];
}

template <int I> __device__ __forceinline__ int pad(int i) { return i + i / I; }

// Items v (striped: lane l of a group of STRIDE threads holds from + k STRIDE
// + l) through shared memory: written striped, read blocked (the scan's
// transpose: from + l I + k), written blocked, stored striped to y + base.
// The group is the block (STRIDE = B, __syncthreads) or a warp (32, __syncwarp).
template <int STRIDE, int I>
__device__ __forceinline__ void stage_round_trip(double (&v)[I], double *stage, int from, int l, double *y,
                                                 unsigned long long base)
{
  auto sync = [] {
    if (STRIDE == 32)
      __syncwarp();
    else
      __syncthreads();
  };
#pragma unroll
  for (int k = 0; k < I; k++)
    stage[pad<I>(from + k * STRIDE + l)] = v[k];
  sync();
#pragma unroll
  for (int k = 0; k < I; k++)
    v[k] = stage[pad<I>(from + l * I + k)];
  sync();
#pragma unroll
  for (int k = 0; k < I; k++)
    stage[pad<I>(from + l * I + k)] = v[k];
  sync();
#pragma unroll
  for (int k = 0; k < I; k++)
    y[base + k * STRIDE + l] = stage[pad<I>(from + k * STRIDE + l)];
}

template <int B, int I, int M> __global__ void __launch_bounds__(B, M) smem_copy(const double *x, double *y)
{
  __shared__ double stage[B * I + B];
  const unsigned long long first = (unsigned long long)blockIdx.x * B * I;
  double v[I];
#pragma unroll
  for (int k = 0; k < I; k++)
    v[k] = x[first + k * B + threadIdx.x];
  stage_round_trip<B, I>(v, stage, 0, threadIdx.x, y, first);
}

template <int B, int I, int M> __global__ void __launch_bounds__(B, M) warp_copy(const double *x, double *y)
{
  __shared__ double stage[B * I + B];
  const int lane = threadIdx.x & 31, run = (threadIdx.x >> 5) * 32 * I;
  const unsigned long long first = (unsigned long long)blockIdx.x * B * I + run;
  double v[I];
#pragma unroll
  for (int k = 0; k < I; k++)
    v[k] = x[first + k * 32 + lane];
  stage_round_trip<32, I>(v, stage, run, lane, y, first);
}

template <int B, int I, int M>
__global__ void __launch_bounds__(B, M) pers_copy(const double *x, double *y, unsigned long long tiles)
{
  __shared__ double stage[B * I + B];
  double next[I];
  unsigned long long tile = blockIdx.x;
  if (tile < tiles) {
#pragma unroll
    for (int k = 0; k < I; k++)
      next[k] = x[tile * B * I + k * B + threadIdx.x];
  }
  for (; tile < tiles; tile += gridDim.x) {
    double v[I];
#pragma unroll
    for (int k = 0; k < I; k++)
      v[k] = next[k];
    const unsigned long long after = tile + gridDim.x;
    if (after < tiles) {
#pragma unroll
      for (int k = 0; k < I; k++)
        next[k] = x[after * B * I + k * B + threadIdx.x];
    }
    stage_round_trip<B, I>(v, stage, 0, threadIdx.x, y, tile * B * I);
    __syncthreads();
  }
}

// The bulk-copy engine's primitives are the library's (bulk_copy.cuh).
__device__ __forceinline__ void bar_init(unsigned long long *bar) { bulk_barrier_init(bar); }
__device__ __forceinline__ void bar_wait(unsigned long long *bar, unsigned parity) { bulk_wait(bar, parity); }
__device__ __forceinline__ void fence_async() { bulk_fence_writes(); }
// A store whose read of shared memory is awaited by the next call's (the
// persistent kernel's stages) or at the end.
__device__ __forceinline__ void bulk_store_async(void *dst, const void *src, unsigned bytes)
{
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
               "r"((unsigned)__cvta_generic_to_shared(src)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }

// I odd: a thread's blocked run starts I doubles (2 I words) after the
// previous thread's, so a half-warp's 8-byte accesses fall in 16 banks.
// S stages: the loads of S - 1 tiles ahead are in flight.
template <int B, int I, int M, int S>
__global__ void __launch_bounds__(B, M) tma_copy(const double *x, double *y, unsigned long long tiles)
{
  constexpr int TILE = B * I;
  constexpr unsigned BYTES = TILE * 8;
  extern __shared__ __align__(128) double dyn[]; // S stages of TILE
  __shared__ unsigned long long bar[S];
  if (threadIdx.x == 0) {
    for (int k = 0; k < S; k++)
      bar_init(&bar[k]);
    for (int k = 0; k < S - 1; k++) {
      const unsigned long long t = blockIdx.x + (unsigned long long)k * gridDim.x;
      if (t < tiles)
        bulk_load(dyn + k * TILE, x + t * TILE, BYTES, &bar[k]);
    }
  }
  __syncthreads();
  unsigned j = 0;
  for (unsigned long long tile = blockIdx.x; tile < tiles; tile += gridDim.x, j++) {
    const int s = j % S;
    double *st = dyn + s * TILE;
    if (threadIdx.x == 0) {
      const unsigned long long ahead = tile + (unsigned long long)(S - 1) * gridDim.x;
      const int sa = (j + S - 1) % S;
      bulk_wait_read(); // the store that used stage sa has read its bytes
      if (ahead < tiles) {
        fence_async();
        bulk_load(dyn + sa * TILE, x + ahead * TILE, BYTES, &bar[sa]);
      }
    }
    bar_wait(&bar[s], (j / S) & 1);
    double v[I];
#pragma unroll
    for (int k = 0; k < I; k++)
      v[k] = st[threadIdx.x * I + k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < I; k++)
      st[threadIdx.x * I + k] = v[k];
    fence_async(); // the generic proxy's writes, before the bulk store reads them
    __syncthreads();
    if (threadIdx.x == 0)
      bulk_store_async(y + tile * TILE, st, BYTES);
  }
  if (threadIdx.x == 0)
    bulk_wait_read();
}

// One tile per block, through the bulk-copy engine.
// COUNTED: the tile number from an atomic counter (the scan's in-order
// numbers), not blockIdx.
template <int B, int I, int M, bool COUNTED>
__global__ void __launch_bounds__(B, M) tma1_copy(const double *x, double *y, unsigned long long *counter)
{
  constexpr int TILE = B * I;
  constexpr unsigned BYTES = TILE * 8;
  __shared__ __align__(128) double st[TILE];
  __shared__ unsigned long long bar, tile_s;
  if (threadIdx.x == 0) {
    const unsigned long long tile = COUNTED ? atomicAdd(counter, 1ull) : blockIdx.x;
    tile_s = tile;
    bar_init(&bar);
    bulk_load(st, x + tile * TILE, BYTES, &bar);
  }
  __syncthreads();
  const unsigned long long tile = tile_s;
  bar_wait(&bar, 0);
  double v[I];
#pragma unroll
  for (int k = 0; k < I; k++)
    v[k] = st[threadIdx.x * I + k];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < I; k++)
    st[threadIdx.x * I + k] = v[k];
  fence_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    bulk_store(y + tile * TILE, st, BYTES);
  }
}

struct Row {
  const char *name;
  unsigned long long tile; // items a tile (n is cut to a multiple)
  std::function<void(const double *, double *, unsigned long long, cudaStream_t)> run;
};

int sms()
{
  int dev = 0, v = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev));
  return v;
}

template <int B, int I, int M> Row reg(const char *name)
{
  return Row{name, B * I, [](const double *x, double *y, unsigned long long n, cudaStream_t s) {
               reg_copy<B, I, M><<<(unsigned)(n / (B * I)), B, 0, s>>>(x, y);
             }};
}
template <int B, int I, int M> Row sm(const char *name)
{
  return Row{name, B * I, [](const double *x, double *y, unsigned long long n, cudaStream_t s) {
               smem_copy<B, I, M><<<(unsigned)(n / (B * I)), B, 0, s>>>(x, y);
             }};
}
template <int B, int I, int M> Row wp(const char *name)
{
  return Row{name, B * I, [](const double *x, double *y, unsigned long long n, cudaStream_t s) {
               warp_copy<B, I, M><<<(unsigned)(n / (B * I)), B, 0, s>>>(x, y);
             }};
}
template <int B, int I, int M> Row pers(const char *name)
{
  return Row{name, B * I, [](const double *x, double *y, unsigned long long n, cudaStream_t s) {
               pers_copy<B, I, M><<<sms() * M, B, 0, s>>>(x, y, n / (B * I));
             }};
}
template <int B, int I, int M, int S> Row tma(const char *name)
{
  return Row{name, B * I, [](const double *x, double *y, unsigned long long n, cudaStream_t s) {
               const int bytes = S * B * I * 8;
               CHECK(cudaFuncSetAttribute(tma_copy<B, I, M, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
               tma_copy<B, I, M, S><<<sms() * M, B, bytes, s>>>(x, y, n / (B * I));
             }};
}
unsigned long long *g_counter;
template <int B, int I, int M, bool COUNTED> Row tma1(const char *name)
{
  return Row{name, B * I, [](const double *x, double *y, unsigned long long n, cudaStream_t s) {
               if (COUNTED)
                 CHECK(cudaMemsetAsync(g_counter, 0, 8, s));
               tma1_copy<B, I, M, COUNTED><<<(unsigned)(n / (B * I)), B, 0, s>>>(x, y, g_counter);
             }};
}

} // namespace

int main(int argc, char **argv)
{
  const int lg = argc > 1 ? atoi(argv[1]) : 28;
  const int reps = argc > 2 ? atoi(argv[2]) : 11;
  const unsigned long long N = 1ull << lg;
  double *x, *y;
  CHECK(cudaMalloc(&x, N * 8));
  CHECK(cudaMalloc(&y, N * 8));
  std::vector<double> h(N), back(N);
  for (unsigned long long i = 0; i < N; i++)
    h[i] = (double)(i * 2654435761ull % 1000003ull) + 0.25;
  CHECK(cudaMemcpy(x, h.data(), N * 8, cudaMemcpyHostToDevice));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  const int nsm = sms();
  CHECK(cudaMalloc(&g_counter, 8));
  std::vector<Row> rows = {
      {"memcpy", 2,
       [](const double *a, double *b, unsigned long long n, cudaStream_t st) {
         CHECK(cudaMemcpyAsync(b, a, n * 8, cudaMemcpyDeviceToDevice, st));
       }},
      {"stride 16-byte", 2,
       [nsm](const double *a, double *b, unsigned long long n, cudaStream_t st) {
         stride_copy<<<nsm * 8, 256, 0, st>>>((const double2 *)a, (double2 *)b, n / 2);
       }},
      reg<256, 16, 4>("reg 256x16/4"),
      reg<256, 8, 8>("reg 256x8/8"),
      sm<256, 16, 4>("smem 256x16/4"),

      sm<128, 16, 8>("smem 128x16/8"),
      sm<256, 8, 8>("smem 256x8/8"),
      wp<256, 16, 4>("warp 256x16/4"),

      pers<256, 16, 2>("pers 256x16/2"),
      pers<256, 8, 4>("pers 256x8/4"),
      pers<128, 16, 4>("pers 128x16/4"),
      tma<256, 15, 3, 2>("tma 256x15/3 s2"),
      tma<128, 15, 6, 2>("tma 128x15/6 s2"),
      tma<256, 15, 2, 3>("tma 256x15/2 s3"),
      tma<128, 15, 4, 3>("tma 128x15/4 s3"),
      tma<128, 9, 6, 4>("tma 128x9/6 s4"),
      tma<256, 7, 4, 4>("tma 256x7/4 s4"),
      tma1<256, 15, 6, false>("tma1 256x15/6"),
      tma1<128, 15, 8, false>("tma1 128x15/8"),
      tma1<256, 15, 6, true>("tma1c 256x15/6"),
      tma1<128, 15, 8, true>("tma1c 128x15/8"),
      tma1<256, 7, 8, true>("tma1c 256x7/8"),
      tma1<128, 7, 16, true>("tma1c 128x7/16"),
  };
  printf("bench_tiles: 2^%d doubles, medians of %d\n", lg, reps);
  printf("%-18s %10s %10s %8s\n", "structure", "us", "GB/s", "copy=1");
  double copy_us = 0;
  int bad = 0;
  for (const Row &r : rows) {
    const unsigned long long n = N / r.tile * r.tile;
    CHECK(cudaMemset(y, 0xff, N * 8));
    r.run(x, y, n, s);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(back.data(), y, n * 8, cudaMemcpyDeviceToHost));
    const bool ok = memcmp(back.data(), h.data(), n * 8) == 0;
    bad += !ok;
    const Stat t = event_time(s, e0, e1, 3, reps, [&] { r.run(x, y, n, s); });
    if (copy_us == 0)
      copy_us = t.median * (double)N / (double)n;
    const double gbs = 16.0 * (double)n / t.median * 1e-3;
    printf("%-18s %10.1f %10.0f %8.3f%s\n", r.name, t.median, gbs, copy_us * (double)n / (double)N / t.median,
           ok ? "" : "  WRONG");
  }
  return bad ? 1 : 0;
}
