// hist.cu — histograms and binned sums on the device: one kernel per
// (method, sum, dims), a plan that sizes it for the device, and the
// library's entry point (device totals, one pass, copied back).
//
// Every method reads the data once, tile by tile (BLOCK x ITEMS elements,
// all loads of a tile issued before its additions), computes each element's
// key with hist_bin.h (numpy's bins, bit for bit the CPU's), and differs
// only in where the additions go:
//   GLOBAL   one 64-bit atomic in global memory per element: the baseline;
//   SHARED   32-bit bins privatised in each block's shared memory, flushed
//            into the totals once per block (only the bins it touched);
//   MATCH    SHARED, with the lanes of a warp that share a key found by
//            __match_any_sync and their values summed by a peer tree: one
//            shared atomic per distinct key per warp;
//   BALLOT   SHARED, with the peers found by the ballot/shuffle loop;
//   CLUSTER  MATCH, with the bins spread over the blocks of a thread-block
//            cluster (sm_90 distributed shared memory): key k lives in
//            block k / slice, so a cluster of C blocks holds C times the bins
//            one block can.
#include <cstdint>

#include <cooperative_groups.h>

#include "hist.cuh"
#include "sinks.cuh"
#include "warp_aggregate.cuh"
#include "../cuda_check.cuh"
#include "../cuda_state.cuh"
#include "../../src/lib/hist_internal.h"

namespace cg = cooperative_groups;

namespace gq {
namespace hist {
namespace {

constexpr int BLOCK = 256;
constexpr int ITEMS = 4; // even: full tiles load them as double2
static_assert(ITEMS % 2 == 0, "vector loads take two elements");
constexpr unsigned MAX_CLUSTER = 8; // portable cluster sizes only

template <int DIMS> __device__ __forceinline__ unsigned key_of(const Args &a, double x, double y)
{
  if constexpr (DIMS == 1)
    return gq_hist_axis_bin(&a.ax, x);
  else
    return gq_hist_key2(&a.ax, &a.ay, x, y);
}

// One array's ITEMS elements of a tile for this thread: in a full tile of
// 16-byte aligned data as ITEMS / 2 double2 loads (the widest, fewest
// instructions per byte), otherwise one double at a time, 0 past n.  Which
// elements a thread gets does not matter to a histogram, only that the
// block covers the tile once.
template <bool VECTOR>
__device__ __forceinline__ void load_tile(const double *p, size_t base, size_t n, double (&out)[ITEMS])
{
  if constexpr (VECTOR) {
    const double2 *p2 = reinterpret_cast<const double2 *>(p + base);
#pragma unroll
    for (int u = 0; u < ITEMS / 2; u++) {
      const double2 d = __ldg(p2 + u * BLOCK + threadIdx.x);
      out[2 * u] = d.x;
      out[2 * u + 1] = d.y;
    }
  } else {
#pragma unroll
    for (int u = 0; u < ITEMS; u++) {
      const size_t i = base + (size_t)u * BLOCK + threadIdx.x;
      out[u] = i < n ? __ldg(p + i) : 0.0;
    }
  }
}

// Slot u of a tile is element `base + slot_index` (past n: not valid).
template <bool VECTOR> __device__ __forceinline__ size_t slot_index(int u)
{
  return VECTOR ? 2 * ((size_t)(u / 2) * BLOCK + threadIdx.x) + (u % 2) : (size_t)u * BLOCK + threadIdx.x;
}

template <int DIMS, bool VALUES, bool VECTOR, class Add>
__device__ __forceinline__ void consume_tile(const Args &a, size_t base, Add &add)
{
  double x[ITEMS], y[ITEMS] = {}, v[ITEMS] = {};
  load_tile<VECTOR>(a.x, base, a.n, x);
  if constexpr (DIMS == 2)
    load_tile<VECTOR>(a.y, base, a.n, y);
  if constexpr (VALUES)
    load_tile<VECTOR>(a.values, base, a.n, v);
#pragma unroll
  for (int u = 0; u < ITEMS; u++)
    add(key_of<DIMS>(a, x[u], y[u]), v[u], VECTOR || base + slot_index<VECTOR>(u) < a.n);
}

// The tile loop every method shares: add(key, value, valid) is called by
// every lane of the block for every slot (valid false past n), so that the
// warp-level methods see converged warps.  Full tiles of aligned data take
// vector loads (a.vector: x, y and values all 16-byte aligned), the last,
// partial one scalar loads; the choice is the same for the whole block.
template <int DIMS, bool VALUES, class Add> __device__ __forceinline__ void consume(const Args &a, Add add)
{
  const size_t tile = (size_t)BLOCK * ITEMS;
  for (size_t base = (size_t)blockIdx.x * tile; base < a.n; base += (size_t)gridDim.x * tile) {
    if (a.vector && a.n - base >= tile)
      consume_tile<DIMS, VALUES, true>(a, base, add);
    else
      consume_tile<DIMS, VALUES, false>(a, base, add);
  }
}

template <int SUM> struct ClusterSink {
  SharedSink<SUM> local; // this block's slice
  unsigned slice;
  __device__ __forceinline__ void add(unsigned key, unsigned count, double sum)
  {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = key / slice, k = key - rank * slice;
    atomicAdd(cluster.map_shared_rank(local.counts + k, rank), count);
    if constexpr (SUM == SUM_PLAIN)
      atomicAdd(cluster.map_shared_rank(local.sums + k, rank), sum);
    if constexpr (SUM == SUM_COMPENSATED)
      compensated_add(cluster.map_shared_rank(local.sums + k, rank), cluster.map_shared_rank(local.errs + k, rank), sum);
#else
    (void)key; (void)count; (void)sum;
#endif
  }
};

template <int METHOD, int SUM, int DIMS> __global__ void __launch_bounds__(BLOCK) hist_kernel(Args a)
{
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr bool VALUES = SUM != SUM_NONE;
  const GlobalSink<SUM> totals{a.counts, a.sums, a.errs};
  if constexpr (METHOD == GQ_HIST_GLOBAL) {
    GlobalSink<SUM> sink = totals;
    consume<DIMS, VALUES>(a, [&](unsigned key, double v, bool valid) {
      if (valid)
        sink.add(key, 1, v);
    });
  } else if constexpr (METHOD == GQ_HIST_CLUSTER) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned blocks = cluster.num_blocks();
    const unsigned slice = (a.keys + blocks - 1) / blocks;
    ClusterSink<SUM> sink{SharedLayout<SUM>::at(smem, slice), slice};
    zero_bins(sink.local, slice);
    cluster.sync(); // every slice zeroed before any block adds into it
    consume<DIMS, VALUES>(a, [&](unsigned key, double v, bool valid) { add_match<VALUES>(sink, key, v, valid); });
    cluster.sync(); // every addition into this slice done before it is read
    const unsigned key0 = cluster.block_rank() * slice;
    if (key0 < a.keys)
      flush_bins(sink.local, a.keys - key0 < slice ? a.keys - key0 : slice, key0, totals);
#else
    __trap(); // the host never launches it below sm_90 (plan() falls back)
#endif
  } else {
    SharedSink<SUM> sink = SharedLayout<SUM>::at(smem, a.keys);
    zero_bins(sink, a.keys);
    __syncthreads();
    consume<DIMS, VALUES>(a, [&](unsigned key, double v, bool valid) {
      if constexpr (METHOD == GQ_HIST_SHARED) {
        if (valid)
          sink.add(key, 1, v);
      } else if constexpr (METHOD == GQ_HIST_MATCH) {
        add_match<VALUES>(sink, key, v, valid);
      } else {
        add_ballot<VALUES>(sink, key, v, valid);
      }
    });
    __syncthreads();
    flush_bins(sink, a.keys, 0, totals);
  }
}

template <int METHOD> const void *kernel_of(int sum, int dims)
{
  if (dims == 2)
    return (const void *)hist_kernel<METHOD, SUM_NONE, 2>;
  switch (sum) {
  case SUM_PLAIN: return (const void *)hist_kernel<METHOD, SUM_PLAIN, 1>;
  case SUM_COMPENSATED: return (const void *)hist_kernel<METHOD, SUM_COMPENSATED, 1>;
  default: return (const void *)hist_kernel<METHOD, SUM_NONE, 1>;
  }
}

const void *kernel_of(int method, int sum, int dims)
{
  switch (method) {
  case GQ_HIST_SHARED: return kernel_of<GQ_HIST_SHARED>(sum, dims);
  case GQ_HIST_MATCH: return kernel_of<GQ_HIST_MATCH>(sum, dims);
  case GQ_HIST_BALLOT: return kernel_of<GQ_HIST_BALLOT>(sum, dims);
  case GQ_HIST_CLUSTER: return kernel_of<GQ_HIST_CLUSTER>(sum, dims);
  default: return kernel_of<GQ_HIST_GLOBAL>(sum, dims);
  }
}

size_t bytes_per_key(int sum)
{
  return sizeof(unsigned) + (sum == SUM_NONE ? 0 : sum == SUM_PLAIN ? 8 : 16);
}

// Privatised bins take at most half a multiprocessor's shared memory, so
// two blocks stay resident on each and one's flush overlaps the other's loads.
size_t smem_budget(const Device &d) { return d.smem_optin / 2; }

// The smallest cluster (2, 4 or 8 blocks) whose slices fit the budget; 0 if none.
unsigned cluster_size(const Device &d, unsigned keys, int sum)
{
  if (d.cc_major < 9)
    return 0;
  for (unsigned c = 2; c <= MAX_CLUSTER; c *= 2)
    if ((size_t)((keys + c - 1) / c) * bytes_per_key(sum) <= smem_budget(d))
      return c;
  return 0;
}

} // namespace

int device_of(int device, Device *d)
{
  int optin = 0;
  GQ_CUDA_TRY(cudaDeviceGetAttribute(&d->sms, cudaDevAttrMultiProcessorCount, device));
  GQ_CUDA_TRY(cudaDeviceGetAttribute(&d->cc_major, cudaDevAttrComputeCapabilityMajor, device));
  GQ_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  d->smem_optin = (size_t)optin;
  return GQ_SUCCESS;
}

// H200, 2^28 doubles (bench/bench_hist, 2026-11-24): where the bins fit a
// block, shared beat match on every distribution (16 and 256 bins, uniform
// 0.75x CUB against 0.35x and 0.20x; hot, few per warp, all equal 0.75-0.82x
// against 0.66-0.73x): the warp aggregation costs more than the contention it
// saves at these bin counts.  Beyond a block, the cluster.
int method_for(const Device &d, unsigned keys, int sum)
{
  if ((size_t)keys * bytes_per_key(sum) <= smem_budget(d))
    return GQ_HIST_SHARED;
  return cluster_size(d, keys, sum) ? GQ_HIST_CLUSTER : GQ_HIST_GLOBAL;
}

int plan_cluster(const Device &d, int method, unsigned keys, int sum, unsigned cluster, Plan *p)
{
  if (method == GQ_HIST_CLUSTER && (d.cc_major < 9 || cluster < 1 || cluster > MAX_CLUSTER))
    return gq_fail(GQ_EINVAL, "histogram: no cluster of %u blocks on this device", cluster);
  p->method = method;
  p->sum = sum;
  p->block = BLOCK;
  p->cluster = method == GQ_HIST_CLUSTER ? cluster : 1;
  p->smem = method == GQ_HIST_GLOBAL ? 0 : (size_t)((keys + p->cluster - 1) / p->cluster) * bytes_per_key(sum);
  if (p->smem > d.smem_optin)
    return gq_fail(GQ_EINVAL, "histogram: %zu bytes of bins per block exceed the device's %zu", p->smem, d.smem_optin);
  // every dims' kernel of this method and sum: the attribute is per kernel
  for (int dims = 1; dims <= 2; dims++) {
    const void *kernel = kernel_of(method, sum, dims);
    GQ_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p->smem));
  }
  const void *kernel = kernel_of(method, sum, 1);
  if (method == GQ_HIST_CLUSTER) {
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    config.gridDim = dim3(cluster * (unsigned)d.sms);
    config.blockDim = dim3(BLOCK);
    config.dynamicSmemBytes = p->smem;
    config.attrs = &attr;
    config.numAttrs = 1;
    int clusters = 0;
    GQ_CUDA_TRY(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
    p->grid = (unsigned)(clusters > 0 ? clusters : 1) * cluster;
  } else {
    int per_sm = 0;
    GQ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, p->smem));
    p->grid = (unsigned)(per_sm > 0 ? per_sm : 1) * (unsigned)d.sms;
  }
  return GQ_SUCCESS;
}

int plan(const Device &d, int method, unsigned keys, int sum, Plan *p)
{
  if (method == GQ_HIST_AUTO)
    method = method_for(d, keys, sum);
  const bool fits = (size_t)keys * bytes_per_key(sum) <= smem_budget(d);
  if ((method == GQ_HIST_SHARED || method == GQ_HIST_MATCH || method == GQ_HIST_BALLOT) && !fits)
    method = GQ_HIST_CLUSTER;
  const unsigned cluster = method == GQ_HIST_CLUSTER ? cluster_size(d, keys, sum) : 1;
  if (cluster == 0)
    method = GQ_HIST_GLOBAL;
  return plan_cluster(d, method, keys, sum, cluster ? cluster : 1, p);
}

int enqueue(const Plan &p, const Args &args, cudaStream_t stream)
{
  const void *kernel = kernel_of(p.method, p.sum, args.dims);
  const size_t tile = (size_t)BLOCK * ITEMS;
  for (size_t at = 0; at < args.n; at += MAX_LAUNCH_ELEMENTS) {
    Args a = args;
    a.n = args.n - at < MAX_LAUNCH_ELEMENTS ? args.n - at : MAX_LAUNCH_ELEMENTS;
    a.x = args.x + at;
    a.y = args.dims == 2 ? args.y + at : nullptr;
    a.values = args.values ? args.values + at : nullptr;
    const auto aligned = [](const double *p) { return !p || reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    a.vector = aligned(a.x) && aligned(a.y) && aligned(a.values);
    // no more blocks than tiles (a cluster's worth at least)
    unsigned grid = p.grid;
    const size_t tiles = (a.n + tile - 1) / tile;
    if (tiles < grid)
      grid = (unsigned)((tiles + p.cluster - 1) / p.cluster * p.cluster);
    void *params[] = {&a};
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attr;
    config.gridDim = dim3(grid);
    config.blockDim = dim3(p.block);
    config.dynamicSmemBytes = p.smem;
    config.stream = stream;
    if (p.method == GQ_HIST_CLUSTER) {
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = p.cluster;
      attr.val.clusterDim.y = 1;
      attr.val.clusterDim.z = 1;
      config.attrs = &attr;
      config.numAttrs = 1;
    }
    GQ_CUDA_TRY(cudaLaunchKernelExC(&config, kernel, params));
  }
  return GQ_SUCCESS;
}

} // namespace hist
} // namespace gq

// The library's pass: device totals (allocated on the stream, zeroed), the
// launches between two events, the totals copied back.
extern "C" int gq_cuda_hist_method_for(gq_cuda_state *st, uint32_t keys, int sum)
{
  gq::hist::Device d;
  if (gq::hist::device_of(st->device, &d) != GQ_SUCCESS)
    return GQ_HIST_GLOBAL;
  return gq::hist::method_for(d, keys, sum);
}

namespace {
int run(gq_cuda_state *st, const gq_hist_problem *p, gq_hist_out *out, void *d_totals)
{
  using namespace gq::hist;
  Device d;
  int status = device_of(st->device, &d);
  if (status != GQ_SUCCESS)
    return status;
  Plan plan_;
  status = plan(d, p->method, p->keys, p->sum, &plan_);
  if (status != GQ_SUCCESS)
    return status;
  const size_t keys = p->keys;
  Args a{};
  a.x = p->x;
  a.y = p->y;
  a.values = p->values;
  a.n = p->n;
  a.ax = p->ax;
  a.ay = p->ay;
  a.dims = p->dims;
  a.keys = p->keys;
  a.counts = static_cast<unsigned long long *>(d_totals);
  double *d_sums = reinterpret_cast<double *>(a.counts + keys);
  a.sums = p->sum != SUM_NONE ? d_sums : nullptr;
  a.errs = p->sum == SUM_COMPENSATED ? d_sums + keys : nullptr;
  const size_t bytes = keys * (8 + (p->sum == SUM_NONE ? 0 : 16));
  GQ_CUDA_TRY(cudaMemsetAsync(d_totals, 0, bytes, st->stream));
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  status = enqueue(plan_, a, st->stream);
  if (status != GQ_SUCCESS)
    return status;
  GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(out->counts, a.counts, keys * 8, cudaMemcpyDeviceToHost, st->stream));
  if (a.sums)
    GQ_CUDA_TRY(cudaMemcpyAsync(out->sums, a.sums, keys * 8, cudaMemcpyDeviceToHost, st->stream));
  if (a.errs)
    GQ_CUDA_TRY(cudaMemcpyAsync(out->errs, a.errs, keys * 8, cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  float ms = 0;
  GQ_CUDA_TRY(cudaEventElapsedTime(&ms, st->start, st->stop));
  out->ms = ms;
  out->method = plan_.method;
  return GQ_SUCCESS;
}
} // namespace

extern "C" int gq_cuda_hist(gq_cuda_state *st, const gq_hist_problem *p, gq_hist_out *out)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  void *d_totals = nullptr;
  // counts, sums and errors: 24 bytes a key at most
  GQ_CUDA_TRY(cudaMallocAsync(&d_totals, (size_t)p->keys * 24, st->stream));
  const int status = run(st, p, out, d_totals);
  const cudaError_t freed = cudaFreeAsync(d_totals, st->stream);
  if (status != GQ_SUCCESS)
    return status;
  GQ_CUDA_TRY(freed);
  return GQ_SUCCESS;
}
