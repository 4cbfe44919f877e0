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
// SHARED (counts) is also compiled in the launch variants of VARIANTS:
// other shapes, a software-pipelined tile loop, a key without conversions,
// and 16- or 8-bit bins packed in words (65536 bins in one block's 128 KiB,
// or in 64 KiB, three blocks to a multiprocessor).  The bench
// times them all; SHARED_VARIANT and WIDE_VARIANT pick the library's.
#include <cstdint>
#include <utility>

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

constexpr unsigned MAX_CLUSTER = 8; // portable cluster sizes only

// One launch variant: block x items per thread (items even: full tiles load
// them as double2), the tile loop pipelined (the next tile's loads issued
// before this tile's additions, twice the bytes in flight per thread at the
// same occupancy), the key by fast_bin (no integer-double conversions), and
// packed bins (16- or 8-bit counters in 32-bit words, 0 for 32-bit bins;
// wraps carried to the totals, see add_packed);
// min_blocks is __launch_bounds__' (8 at 256 threads caps registers at 32,
// full occupancy, where the compiler would otherwise take more).
struct Variant {
  const char *name;
  int block, items;
  bool pipelined, fastkey;
  int packed; // bits a counter: 0 (plain 32-bit bins), 16 or 8
  int min_blocks;
};
// Row 0 is the baseline every method, sum and dims runs; the others are
// compiled for SHARED counts only (1-D and 2-D).  bench_hist prints every row
// against CUB; the library runs the winners (SHARED_VARIANT, WIDE_VARIANT).
constexpr Variant VARIANTS[] = {
    {"256x4", 256, 4, false, false, 0, 1},
    {"256x8", 256, 8, false, false, 0, 1},
    {"256x16", 256, 16, false, false, 0, 1},
    {"512x8", 512, 8, false, false, 0, 1},
    {"256x8 fastkey", 256, 8, false, true, 0, 1},
    {"256x8 pipelined", 256, 8, true, false, 0, 1},
    {"256x8 pipelined fastkey", 256, 8, true, true, 0, 1},
    {"256x4 pipelined fastkey occ8", 256, 4, true, true, 0, 8},
    {"256x16 pipelined fastkey", 256, 16, true, true, 0, 1},
    {"1024x8 packed16 pipelined", 1024, 8, true, false, 16, 1},
    {"1024x8 packed16 pipelined fastkey", 1024, 8, true, true, 16, 1},
    {"512x4 packed8 pipelined fastkey occ3", 512, 4, true, true, 8, 3},
};
constexpr int NVARIANTS_ = (int)(sizeof VARIANTS / sizeof VARIANTS[0]);
static_assert(NVARIANTS_ == NVARIANTS, "hist.cuh's NVARIANTS counts VARIANTS");

// The library's policy: the VARIANTS row SHARED counts run with, and the
// packed row that takes bins beyond a block's 32-bit bins instead of the
// cluster.  H200, 2^28 doubles, 05:30Z (BENCHMARKS.md): "256x8 pipelined
// fastkey" 1.01-1.10x CUB at 16 and 256 bins on every distribution (row 0:
// 0.78-0.86x); "1024x8 packed16 pipelined fastkey" at 65536 bins 17.6x CUB
// uniform, 2.8x hot, 5.6x few per warp, 1.2x all equal (the cluster: 3.7x,
// 2.1x, 2.5x, 0.99x).
constexpr int SHARED_VARIANT = 6;
constexpr int WIDE_VARIANT = 10;
static_assert(VARIANTS[SHARED_VARIANT].packed == 0, "SHARED_VARIANT: 32-bit bins");
static_assert(WIDE_VARIANT == 0 || VARIANTS[WIDE_VARIANT].packed != 0, "WIDE_VARIANT: a packed row");

// gq_hist_axis_bin without its three integer-double conversions: the
// truncation of f by adding 2^52 rounded toward zero (f < 2^27, so the sum
// is 2^52 + floor(f) exactly, its low word floor(f), and subtracting 2^52
// gives floor(f) as a double again), the edges from that double (i * step
// and (i + 1) * step as hist_bin.h forms them, (double)(i + 1) = fi + 1
// exactly).  The same comparisons in the same order: numpy's bins, bit for
// bit gq_hist_axis_bin's.
__device__ __forceinline__ unsigned fast_bin(const gq_hist_axis &a, double x)
{
  const unsigned k = a.bins;
  if (!(x >= a.lo && x <= a.hi)) // rare: NaN, under, over
    return x != x ? k + GQ_HIST_NAN : x < a.lo ? k + GQ_HIST_UNDER : k + GQ_HIST_OVER;
  const double f = __dmul_rn(__dsub_rn(x, a.lo), a.scale);
  const double t = __dadd_rz(f, 0x1p52);
  unsigned i = (unsigned)__double2loint(t);
  double fi = __dsub_rn(t, 0x1p52);
  if (i >= k) {
    i = k - 1;
    fi = (double)(k - 1);
  }
  if (x < __dadd_rn(__dmul_rn(fi, a.step), a.lo))
    i--;
  else if (i != k - 1 && x >= __dadd_rn(__dmul_rn(__dadd_rn(fi, 1.0), a.step), a.lo))
    i++;
  return i;
}

template <int DIMS, bool FAST> __device__ __forceinline__ unsigned key_of(const Args &a, double x, double y)
{
  if constexpr (!FAST) {
    if constexpr (DIMS == 1)
      return gq_hist_axis_bin(&a.ax, x);
    else
      return gq_hist_key2(&a.ax, &a.ay, x, y);
  } else if constexpr (DIMS == 1) {
    return fast_bin(a.ax, x);
  } else { // gq_hist_key2 over fast_bin
    const unsigned cells = a.ax.bins * a.ay.bins;
    const unsigned i = fast_bin(a.ax, x), j = fast_bin(a.ay, y);
    if (i == a.ax.bins + GQ_HIST_NAN || j == a.ay.bins + GQ_HIST_NAN)
      return cells + GQ_HIST_NAN;
    if (i == a.ax.bins + GQ_HIST_UNDER || j == a.ay.bins + GQ_HIST_UNDER)
      return cells + GQ_HIST_UNDER;
    if (i >= a.ax.bins || j >= a.ay.bins)
      return cells + GQ_HIST_OVER;
    return i * a.ay.bins + j;
  }
}

// One array's ITEMS elements of a tile for this thread: in a full tile of
// 16-byte aligned data as ITEMS / 2 double2 loads (the widest, fewest
// instructions per byte), otherwise one double at a time, 0 past n.  Which
// elements a thread gets does not matter to a histogram, only that the
// block covers the tile once.
template <bool VECTOR, int BLOCK, int ITEMS>
__device__ __forceinline__ void load_tile(const double *p, size_t base, size_t n, double (&out)[ITEMS])
{
  static_assert(ITEMS % 2 == 0, "vector loads take two elements");
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
template <bool VECTOR, int BLOCK> __device__ __forceinline__ size_t slot_index(int u)
{
  return VECTOR ? 2 * ((size_t)(u / 2) * BLOCK + threadIdx.x) + (u % 2) : (size_t)u * BLOCK + threadIdx.x;
}

template <int DIMS, bool VALUES, bool VECTOR, int BLOCK, int ITEMS, bool FAST, class Add>
__device__ __forceinline__ void consume_tile(const Args &a, size_t base, Add &add)
{
  double x[ITEMS], y[ITEMS] = {}, v[ITEMS] = {};
  load_tile<VECTOR, BLOCK>(a.x, base, a.n, x);
  if constexpr (DIMS == 2)
    load_tile<VECTOR, BLOCK>(a.y, base, a.n, y);
  if constexpr (VALUES)
    load_tile<VECTOR, BLOCK>(a.values, base, a.n, v);
#pragma unroll
  for (int u = 0; u < ITEMS; u++)
    add(key_of<DIMS, FAST>(a, x[u], y[u]), v[u], VECTOR || base + slot_index<VECTOR, BLOCK>(u) < a.n);
}

// The tile loop every method shares: add(key, value, valid) is called by
// every lane of the block for every slot (valid false past n), so that the
// warp-level methods see converged warps.  Full tiles of aligned data take
// vector loads (a.vector: x, y and values all 16-byte aligned), the last,
// partial one scalar loads; the choice is the same for the whole block.
// Pipelined (counts only): the block's full tiles with the next one's loads
// in registers while this one's keys are added, then the rest as before.
template <int DIMS, bool VALUES, int BLOCK, int ITEMS, bool PIPELINED, bool FAST, class Add>
__device__ __forceinline__ void consume(const Args &a, Add add)
{
  const size_t tile = (size_t)BLOCK * ITEMS, stride = (size_t)gridDim.x * tile;
  size_t base = (size_t)blockIdx.x * tile;
  if constexpr (PIPELINED) {
    static_assert(!VALUES, "pipelined: counts only");
    if (a.vector && base < a.n && a.n - base >= tile) {
      double x[ITEMS], y[ITEMS] = {};
      load_tile<true, BLOCK>(a.x, base, a.n, x);
      if constexpr (DIMS == 2)
        load_tile<true, BLOCK>(a.y, base, a.n, y);
      for (;;) {
        const size_t next = base + stride;
        const bool more = next < a.n && a.n - next >= tile; // the same for the whole block
        double nx[ITEMS], ny[ITEMS] = {};
        if (more) {
          load_tile<true, BLOCK>(a.x, next, a.n, nx);
          if constexpr (DIMS == 2)
            load_tile<true, BLOCK>(a.y, next, a.n, ny);
        }
#pragma unroll
        for (int u = 0; u < ITEMS; u++)
          add(key_of<DIMS, FAST>(a, x[u], y[u]), 0.0, true);
        base = next;
        if (!more)
          break;
#pragma unroll
        for (int u = 0; u < ITEMS; u++) {
          x[u] = nx[u];
          y[u] = ny[u];
        }
      }
    }
  }
  // base: this block's first tile not yet done (partial, unaligned, or all)
  for (; base < a.n; base += stride) {
    if (a.vector && a.n - base >= tile)
      consume_tile<DIMS, VALUES, true, BLOCK, ITEMS, FAST>(a, base, add);
    else
      consume_tile<DIMS, VALUES, false, BLOCK, ITEMS, FAST>(a, base, add);
  }
}

// Packed bins: key k's count in field k % F of word k / F, F = 32 / BITS
// fields of BITS bits (16: 65536 bins take 128 KiB and fit one block; 8:
// 64 KiB).  The word is one 32-bit counter of S = sum over its fields j of
// c_j 2^(BITS j), and its low m fields hold the partial sum S_m (fields
// below m) modulo 2^(BITS m) exactly: additions to higher fields leave them
// alone.  S_m wraps when an addition to a field below m carries past bit
// BITS m, and atomics on one word are serialised, so the adder sees each
// wrap exactly once in its old value.  Since c_j = (S_(j+1) - S_j) / 2^(BITS j),
// a wrap of S_m (2^(BITS m) lost) owes field m - 1 a count of 2^BITS and
// takes 1 from field m (the carry it left there); the adder puts both in the
// totals at once (64-bit, modulo 2^64, where the -1s are), and the flush
// adds each field's final value.  Wraps come once per 2^BITS additions to a
// field at most, so the global atomics are rare.  Keys past the last (the
// word's unused fields) get no corrections: they are never read.
template <int BITS>
__device__ __forceinline__ void add_packed(unsigned *words, unsigned key, unsigned keys, unsigned long long *totals)
{
  constexpr unsigned F = 32 / BITS;
  const unsigned field = key % F;
  const unsigned inc = 1u << (BITS * field);
  const unsigned old = atomicAdd(&words[key / F], inc);
#pragma unroll
  for (unsigned m = 1; m <= F; m++) {
    const unsigned long long mask = (1ull << (BITS * m)) - 1;
    if (m > field && (old & mask) + inc > mask && key - field + m - 1 < keys) { // S_m wrapped
      atomicAdd(&totals[key - field + m - 1], 1ull << BITS);
      if (m < F && key - field + m < keys)
        atomicAdd(&totals[key - field + m], ~0ull); // -1: the carry into field m
    }
  }
}

template <int BITS> __device__ void flush_packed(const unsigned *words, unsigned keys, unsigned long long *totals)
{
  constexpr unsigned F = 32 / BITS, FIELD = (1u << BITS) - 1;
  for (unsigned w = threadIdx.x; w < (keys + F - 1) / F; w += blockDim.x) {
    const unsigned v = words[w];
#pragma unroll
    for (unsigned j = 0; j < F; j++) {
      const unsigned c = (v >> (BITS * j)) & FIELD;
      if (c && F * w + j < keys)
        atomicAdd(&totals[F * w + j], (unsigned long long)c);
    }
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

template <int METHOD, int SUM, int DIMS, int V = 0>
__global__ void __launch_bounds__(VARIANTS[V].block, VARIANTS[V].min_blocks) hist_kernel(Args a)
{
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr bool VALUES = SUM != SUM_NONE;
  constexpr Variant var = VARIANTS[V];
  static_assert(V == 0 || (METHOD == GQ_HIST_SHARED && SUM == SUM_NONE), "variants: SHARED counts");
  // 2-D rows beyond 0 take half the items: x and y, the same bytes in flight
  // per thread in the registers a row's 1-D kernel needs.
  constexpr int BLOCK = var.block, ITEMS = DIMS == 2 && V != 0 ? var.items / 2 : var.items;
  constexpr bool PIPE = var.pipelined, FAST = var.fastkey;
  const GlobalSink<SUM> totals{a.counts, a.sums, a.errs};
  if constexpr (METHOD == GQ_HIST_GLOBAL) {
    GlobalSink<SUM> sink = totals;
    consume<DIMS, VALUES, BLOCK, ITEMS, PIPE, FAST>(a, [&](unsigned key, double v, bool valid) {
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
    consume<DIMS, VALUES, BLOCK, ITEMS, PIPE, FAST>(a, [&](unsigned key, double v, bool valid) { add_match<VALUES>(sink, key, v, valid); });
    cluster.sync(); // every addition into this slice done before it is read
    const unsigned key0 = cluster.block_rank() * slice;
    if (key0 < a.keys)
      flush_bins(sink.local, a.keys - key0 < slice ? a.keys - key0 : slice, key0, totals);
#else
    __trap(); // the host never launches it below sm_90 (plan() falls back)
#endif
  } else if constexpr (var.packed != 0) {
    constexpr unsigned F = 32 / var.packed;
    unsigned *words = reinterpret_cast<unsigned *>(smem);
    for (unsigned w = threadIdx.x; w < (a.keys + F - 1) / F; w += BLOCK)
      words[w] = 0;
    __syncthreads();
    consume<DIMS, VALUES, BLOCK, ITEMS, PIPE, FAST>(a, [&](unsigned key, double, bool valid) {
      if (valid)
        add_packed<var.packed>(words, key, a.keys, a.counts);
    });
    __syncthreads();
    flush_packed<var.packed>(words, a.keys, a.counts);
  } else {
    SharedSink<SUM> sink = SharedLayout<SUM>::at(smem, a.keys);
    zero_bins(sink, a.keys);
    __syncthreads();
    consume<DIMS, VALUES, BLOCK, ITEMS, PIPE, FAST>(a, [&](unsigned key, double v, bool valid) {
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

// SHARED counts in VARIANTS row v.
template <int DIMS, int... V> const void *shared_variant(int v, std::integer_sequence<int, V...>)
{
  const void *const kernels[] = {(const void *)hist_kernel<GQ_HIST_SHARED, SUM_NONE, DIMS, V>...};
  return kernels[v];
}

const void *kernel_of(int method, int sum, int dims, int variant)
{
  if (variant != 0) // plan_variant() gives rows beyond 0 to SHARED counts only
    return dims == 2 ? shared_variant<2>(variant, std::make_integer_sequence<int, NVARIANTS>{})
                     : shared_variant<1>(variant, std::make_integer_sequence<int, NVARIANTS>{});
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

// Packed bins (counts) of WIDE_VARIANT in one block's opt-in shared memory.
size_t packed_bytes(unsigned keys, int bits)
{
  const unsigned fields = 32 / bits;
  return (size_t)((keys + fields - 1) / fields) * sizeof(unsigned);
}
bool wide_packed(const Device &d, unsigned keys, int sum)
{
  return WIDE_VARIANT != 0 && sum == SUM_NONE && packed_bytes(keys, VARIANTS[WIDE_VARIANT].packed) <= d.smem_optin;
}

} // namespace

const char *variant_name(int variant)
{
  return variant >= 0 && variant < NVARIANTS ? VARIANTS[variant].name : nullptr;
}

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
// saves at these bin counts.  Beyond a block, the cluster (or, with
// WIDE_VARIANT, SHARED in packed bins while they fit one block).
int method_for(const Device &d, unsigned keys, int sum)
{
  if ((size_t)keys * bytes_per_key(sum) <= smem_budget(d) || wide_packed(d, keys, sum))
    return GQ_HIST_SHARED;
  return cluster_size(d, keys, sum) ? GQ_HIST_CLUSTER : GQ_HIST_GLOBAL;
}

int plan_cluster(const Device &d, int method, unsigned keys, int sum, unsigned cluster, Plan *p)
{
  return plan_variant(d, method, keys, sum, cluster, 0, p);
}

int plan_variant(const Device &d, int method, unsigned keys, int sum, unsigned cluster, int variant, Plan *p)
{
  if (method == GQ_HIST_CLUSTER && (d.cc_major < 9 || cluster < 1 || cluster > MAX_CLUSTER))
    return gq_fail(GQ_EINVAL, "histogram: no cluster of %u blocks on this device", cluster);
  if (variant < 0 || variant >= NVARIANTS || (variant != 0 && (method != GQ_HIST_SHARED || sum != SUM_NONE)))
    return gq_fail(GQ_EINVAL, "histogram: variant %d is not one of SHARED counts' 0 .. %d", variant, NVARIANTS - 1);
  const Variant &var = VARIANTS[variant];
  p->method = method;
  p->sum = sum;
  p->variant = variant;
  p->block = (unsigned)var.block;
  p->items = (unsigned)var.items;
  p->cluster = method == GQ_HIST_CLUSTER ? cluster : 1;
  p->smem = method == GQ_HIST_GLOBAL ? 0
            : var.packed             ? packed_bytes(keys, var.packed)
                                     : (size_t)((keys + p->cluster - 1) / p->cluster) * bytes_per_key(sum);
  if (p->smem > d.smem_optin)
    return gq_fail(GQ_EINVAL, "histogram: %zu bytes of bins per block exceed the device's %zu", p->smem, d.smem_optin);
  // every dims' kernel of this method and sum: the attribute is per kernel
  for (int dims = 1; dims <= 2; dims++) {
    const void *kernel = kernel_of(method, sum, dims, variant);
    GQ_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p->smem));
  }
  const void *kernel = kernel_of(method, sum, 1, variant);
  if (method == GQ_HIST_CLUSTER) {
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    config.gridDim = dim3(cluster * (unsigned)d.sms);
    config.blockDim = dim3(p->block);
    config.dynamicSmemBytes = p->smem;
    config.attrs = &attr;
    config.numAttrs = 1;
    int clusters = 0;
    GQ_CUDA_TRY(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
    p->grid = (unsigned)(clusters > 0 ? clusters : 1) * cluster;
  } else {
    int per_sm = 0;
    GQ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)p->block, p->smem));
    p->grid = (unsigned)(per_sm > 0 ? per_sm : 1) * (unsigned)d.sms;
  }
  return GQ_SUCCESS;
}

int plan(const Device &d, int method, unsigned keys, int sum, Plan *p)
{
  if (method == GQ_HIST_AUTO)
    method = method_for(d, keys, sum);
  const bool fits = (size_t)keys * bytes_per_key(sum) <= smem_budget(d);
  int variant = method == GQ_HIST_SHARED && sum == SUM_NONE ? SHARED_VARIANT : 0;
  if ((method == GQ_HIST_SHARED || method == GQ_HIST_MATCH || method == GQ_HIST_BALLOT) && !fits) {
    if (method == GQ_HIST_SHARED && wide_packed(d, keys, sum))
      variant = WIDE_VARIANT;
    else
      method = GQ_HIST_CLUSTER;
  }
  const unsigned cluster = method == GQ_HIST_CLUSTER ? cluster_size(d, keys, sum) : 1;
  if (cluster == 0)
    method = GQ_HIST_GLOBAL;
  return plan_variant(d, method, keys, sum, cluster ? cluster : 1, method == GQ_HIST_SHARED ? variant : 0, p);
}

int enqueue(const Plan &p, const Args &args, cudaStream_t stream)
{
  const void *kernel = kernel_of(p.method, p.sum, args.dims, p.variant);
  const size_t tile = (size_t)p.block * p.items;
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
