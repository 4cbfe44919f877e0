// bench_grid.cu — experiments on the grid level of a one-shot reduction of
// 2^20 doubles (issue 6: gq_rms_diff and gq_dot with the result on the host).
// bench_merge.cu compares the library's last block with a host merge of
// plain partials; this one asks what the partials should look like and who
// should merge them:
//
//   how partials are written into mapped host memory: thread 0's scalar
//     stores (one 8-byte write each), or one store instruction of lanes
//     0..k-1 into an aligned 16/32/64-byte slot;
//   thread-block clusters of 8: the blocks of a cluster merge their totals
//     through distributed shared memory, so 8 times fewer partials reach
//     the host;
//   the last block with fences (release/acquire around the ticket) against
//     the library's without (partials validated against the poison);
//   the lite rms with plain trees (the library's) against compensated pairs
//     through the trees (the library's before, kept here); both finish the
//     gq_rms_result on the device, as the one-shot gq_rms_diff does since
//     issue 14 (before, the last block wrote three totals that the host
//     finished).
//
// Host-merge results are compared with the device merge in the same order,
// bit for bit; cluster results (a different tree) to 1e-13 in the finished
// value.  Host clock, one-node graphs replayed, medians; device time from
// events around 20 replays.  Usage: bench_grid [REPS] (default 400)
#include <cmath>
#include <cstdint>
#include <cstring>
#include <atomic>
#include <vector>

#include <cooperative_groups.h>

#include "../kernels/engine/accumulators.cuh"
#include "../kernels/engine/array_source.cuh"
#include "../kernels/engine/kernel.cuh"
#include "host_merge.cuh"
#include "mapped.cuh"

namespace cg = cooperative_groups;

static int reps = 400;
static cudaStream_t stream;

// ---- partials as words ------------------------------------------------------------
template <class Acc> __host__ __device__ constexpr int words_of() { return sizeof(Acc) / 8; }

// Write thread 0's `total` (lane 0 of warp 0) as words at out[0..]: scalar
// stores by thread 0, or lanes 0..k-1 of warp 0 in one instruction.
template <bool LANES, class Acc>
__device__ __forceinline__ void write_words(const Acc &total, double *out)
{
  constexpr int K = words_of<Acc>();
  double w[K];
  if (threadIdx.x == 0)
    memcpy(w, &total, sizeof w);
  if (!LANES) {
    if (threadIdx.x == 0)
#pragma unroll
      for (int k = 0; k < K; k++)
        out[k] = w[k];
    return;
  }
  if (threadIdx.x >= 32)
    return;
  double mine = 0.0;
#pragma unroll
  for (int k = 0; k < K; k++) {
    const double v = __shfl_sync(gq::FULL_MASK, w[k], 0);
    if (threadIdx.x == (unsigned)k)
      mine = v;
  }
  if (threadIdx.x < (unsigned)K)
    out[threadIdx.x] = mine;
}

// ---- grid levels (reduce_kernel's Level: engine/grid_levels.cuh's interface) ----------
struct WordsTarget {
  double *words;
};
// Block b's total as STRIDE words at words + b * STRIDE.
template <int STRIDE, bool LANES> struct Partials {
  using Target = WordsTarget;
  static constexpr bool POISONED = false;
  template <int BLOCK, int KEYS, class Tree>
  __device__ __forceinline__ static void finish(typename Tree::Partial total, const Target &t, const Tree &,
                                                unsigned long long)
  {
    write_words<LANES>(total, t.words + (size_t)blockIdx.x * STRIDE);
  }
};
// Clusters of 8 blocks: every block's total into the leader's shared memory
// (distributed shared memory), the leader's warp 0 folds them (lane l + d
// into lane l, d = 4, 2, 1) and writes the cluster's partial.
template <int STRIDE> struct ClusterPartials {
  using Target = WordsTarget;
  static constexpr bool POISONED = false;
  template <int BLOCK, int KEYS, class Tree>
  __device__ __forceinline__ static void finish(typename Tree::Partial total, const Target &t, const Tree &,
                                                unsigned long long)
  {
#if __CUDA_ARCH__ >= 900
    using Acc = typename Tree::Partial;
    using Op = typename Tree::Combine;
    __shared__ Acc slot[8];
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync(); // every block of the cluster is running: its shared memory may be written
    if (threadIdx.x == 0)
      *cluster.map_shared_rank(&slot[cluster.block_rank()], 0) = total;
    cluster.sync();
    if (cluster.block_rank() != 0 || threadIdx.x >= 32)
      return;
    Acc v = threadIdx.x < 8 ? slot[threadIdx.x] : Op::identity();
    v = gq::warp_reduce_down<1, 4>(v, Op());
    write_words<true>(v, t.words + (size_t)(blockIdx.x / 8) * STRIDE);
#else
    __trap(); // clusters are sm_90's
#endif
  }
};

// The lite rms as it was before its trees went plain: each thread's
// compensated sums of squares go through the block and grid trees as they
// are (5 words, 2 TwoSums per merge).
struct CsumRms {
  gq_csum sq, ref;
  double max_abs;
};
struct CsumRmsThread : gq::RmsLiteThread {
  __device__ CsumRms result() const
  {
    gq::RmsLiteThread t = *this;
    t.flush();
    return CsumRms{t.sq_sum, t.ref_sum, __longlong_as_double((long long)max_bits)};
  }
};
struct CsumRmsCombine {
  __host__ __device__ __forceinline__ CsumRms operator()(CsumRms a, const CsumRms &b) const
  {
    gq_csum_merge(&a.sq, b.sq);
    gq_csum_merge(&a.ref, b.ref);
    a.max_abs = b.max_abs > a.max_abs || b.max_abs != b.max_abs ? b.max_abs : a.max_abs;
    return a;
  }
  __host__ __device__ static CsumRms identity() { return CsumRms{{0.0, 0.0}, {0.0, 0.0}, 0.0}; }
  // The library's finish (the gq_rms_result) of the rounded sums.
  __device__ static void finish(const CsumRms &a, void *out, uint64_t count)
  {
    gq::RmsLiteCombine::finish(gq::gq_rms_lite{a.sq.s + a.sq.c, a.ref.s + a.ref.c, a.max_abs}, out, count);
  }
};
namespace gq {
template <> struct CombineOf<CsumRmsThread> { using type = CsumRmsCombine; using acc = CsumRms; };
}
static double host_value(const CsumRms &m, uint64_t n)
{
  return host_value(gq::gq_rms_lite{m.sq.s + m.sq.c, m.ref.s + m.ref.c, m.max_abs}, n);
}

// ---- host side --------------------------------------------------------------------------
// The floor: every block writes K words (no data read).
template <int K, bool LANES> __global__ void block_words(double *out, int stride)
{
  gq_csum dummy{1.0 + blockIdx.x, 2.0};
  struct Five {
    double w[K];
  } f;
  for (int k = 0; k < K; k++)
    f.w[k] = dummy.s + k;
  write_words<LANES>(f, out + (size_t)blockIdx.x * stride);
}

// Launch kernel k on `grid` blocks of BLOCK threads, in clusters of `cluster` blocks (or none).
template <class K, class... Args> static void launch(K kernel, int grid, int block, int cluster, Args... args)
{
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  if (cluster > 1) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  CHECK(cudaLaunchKernelEx(&cfg, kernel, args...));
}

int main(int argc, char **argv)
{
  if (argc > 1)
    reps = atoi(argv[1]);
  if (reps < 10 || reps > 100000)
    return fprintf(stderr, "usage: bench_grid [REPS]\n"), 2;
  cudaEvent_t ev0, ev1;
  const cudaDeviceProp prop = bench_device(&stream, &ev0, &ev1);
  const int sms = prop.multiProcessorCount;
  printf("device: %s, %d SMs; host clock, medians of %d after warm-up\n", prop.name, sms, reps);

  const size_t n = (size_t)1 << 20;
  constexpr int BLOCK = 256, ITEMS = 8;
  double *a, *b, *h_map, *d_map;
  void *scratch, *unfenced_scratch;
  unsigned *counter;
  CHECK(cudaMalloc(&a, n * 8));
  CHECK(cudaMalloc(&b, n * 8));
  CHECK(cudaMalloc(&scratch, 4096 * 64));
  CHECK(cudaMalloc(&unfenced_scratch, 4096 * 64));
  CHECK(cudaMalloc(&counter, 4));
  CHECK(cudaMemset(counter, 0, 4));
  const size_t MAP_WORDS = 8192;
  CHECK(cudaHostAlloc((void **)&h_map, MAP_WORDS * 8, cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer((void **)&d_map, h_map, 0));
  fill<<<1024, 256, 0, stream>>>(a, n, 1);
  fill<<<1024, 256, 0, stream>>>(b, n, 2);
  poison_device<<<64, 256, 0, stream>>>(static_cast<ull *>(unfenced_scratch), 4096 * 8);
  CHECK(cudaStreamSynchronize(stream));
  ull *hw = reinterpret_cast<ull *>(h_map);
  const volatile ull *hv = hw;
  const int grid = (int)(n / 2 / (BLOCK * ITEMS)); // 256: one tile per block, as the library's grid at 2^20

  printf("the floor: %d blocks write K words into mapped memory, the host waits for all\n", grid);
  {
    auto floor_row = [&](auto kernel, int stride, int k, const char *what) {
      Graph g(stream, [&] { kernel<<<grid, BLOCK, 0, stream>>>(d_map, stride); });
      row(what, host_time(reps, [&] {
            poison(hw, (size_t)grid * stride);
            g.launch();
            spin_words(stream, hv, (size_t)grid * stride, stride, k);
          }));
    };
    floor_row(block_words<1, false>, 1, 1, "1 word per block");
    floor_row(block_words<2, false>, 2, 2, "2 words, thread 0's scalar stores");
    floor_row(block_words<2, true>, 2, 2, "2 words, lanes 0-1 in one store");
    floor_row(block_words<3, false>, 4, 3, "3 words, thread 0's scalar stores, 32-byte slots");
    floor_row(block_words<3, true>, 4, 3, "3 words, lanes 0-2 in one store, 32-byte slots");
    floor_row(block_words<5, false>, 5, 5, "5 words, thread 0's scalar stores");
    floor_row(block_words<5, true>, 8, 5, "5 words, lanes 0-4 in one store, 64-byte slots");
    floor_row(block_words<1, false>, 8, 1, "1 word per block, 64-byte slots");
  }

  {
    int dev = 0;
    row("host: cudaSetDevice(0) x 100, per call", host_time(reps, [&] {
          for (int k = 0; k < 100; k++)
            cudaSetDevice(0);
        }), "(divide by 100)");
    row("host: cudaGetDevice x 100, per call", host_time(reps, [&] {
          for (int k = 0; k < 100; k++)
            cudaGetDevice(&dev);
        }), "(divide by 100)");
  }

  using namespace gq;
  using Src = ArraySource<double, 2, true>;
  const Src src{a, b, n, 0};
  const Completion none{nullptr, nullptr};
  int mismatches = 0;

  // One reduction (Thread, Map): the last block with and without fences,
  // then several ways to bring the partials to the host.  The timed last
  // blocks finish into mapped memory as the library's one-shot calls do (the
  // dot, or the gq_rms_result); the host rows merge and finish on the host
  // (host_value).  Every merge is checked against the fenced last block's
  // merged partial, written unfinished.
  auto experiment = [&](auto thread, auto map, const char *name) {
    using Thread = decltype(thread);
    using Map = decltype(map);
    using Op = typename CombineOf<Thread>::type;
    using Acc = typename CombineOf<Thread>::acc;
    constexpr int K = words_of<Acc>();
    // words Op::finish writes: the dot, or the gq_rms_result
    constexpr int FIN = (std::is_same<Op, SumLiteCombine>::value ? sizeof(double) : sizeof(gq_rms_result)) / 8;
    char what[160];

    // Device merges, finished into mapped memory: reference bits, then time.
    auto last = reduce_kernel<BLOCK, ITEMS, 1, false, Map, Thread, Src, LastBlock>;
    auto unfenced = reduce_kernel<BLOCK, ITEMS, 1, false, Map, Thread, Src, PoisonedLastBlock>;
    auto last_into = [&](void *result, void *finished) {
      return Problem<Src, LastBlock>{src, LastBlockTarget{scratch, counter, result, finished, none}};
    };
    auto unfenced_into = [&](void *finished) {
      return Problem<Src, PoisonedLastBlock>{src, LastBlockTarget{unfenced_scratch, counter, nullptr, finished, none}};
    };
    Graph g_last(stream, [&] { last<<<grid, BLOCK, 0, stream>>>(last_into(nullptr, d_map)); });
    Graph g_unf(stream, [&] { unfenced<<<grid, BLOCK, 0, stream>>>(unfenced_into(d_map)); });
    Acc merged;
    poison(hw, K);
    last<<<grid, BLOCK, 0, stream>>>(last_into(d_map, nullptr));
    spin_words(stream, hv, K);
    memcpy(&merged, h_map, sizeof merged);
    ull ref[FIN], got[FIN];
    poison(hw, FIN);
    g_last.launch();
    spin_words(stream, hv, FIN);
    memcpy(ref, h_map, sizeof ref);
    poison(hw, FIN);
    g_unf.launch();
    spin_words(stream, hv, FIN);
    memcpy(got, h_map, sizeof got);
    if (memcmp(ref, got, sizeof ref))
      mismatches++, printf("  %s: the unfenced last block's bits differ\n", name);
    double words[K];
    memcpy(words, &merged, sizeof words);
    printf("  %s: merged", name);
    for (int k = 0; k < K; k++)
      printf(" %.17g", words[k]);
    printf(", finished %.17g\n", host_value(merged, n));
    snprintf(what, sizeof what, "%s, last block with fences", name);
    row(what, host_time(reps, [&] {
          poison(hw, FIN);
          g_last.launch();
          spin_words(stream, hv, FIN);
        }));
    snprintf(what, sizeof what, "%s, last block without fences", name);
    row(what, host_time(reps, [&] {
          poison(hw, FIN);
          g_unf.launch();
          spin_words(stream, hv, FIN);
        }));

    // Host merges of partials at a stride, written by scalar stores or lanes.
    auto host_rows = [&](auto level, int parts, int stride, int cluster, const char *how) {
      using Level = decltype(level);
      auto kernel = reduce_kernel<BLOCK, ITEMS, 1, false, Map, Thread, Src, Level>;
      const Problem<Src, Level> p{src, WordsTarget{d_map}};
      Graph g(stream, [&] { launch(kernel, grid, BLOCK, cluster, p); });
      std::vector<Acc> part(parts);
      Acc m;
      volatile double sink;
      auto call = [&] {
        poison(hw, (size_t)parts * stride);
        g.launch();
        spin_words(stream, hv, (size_t)parts * stride, stride, K);
        for (int i = 0; i < parts; i++)
          memcpy(&part[i], h_map + (size_t)i * stride, sizeof(Acc));
        m = host_last_block_merge<BLOCK>(part.data(), (unsigned)parts, Op(), Op::identity());
        sink = host_value(m, n);
      };
      call();
      (void)sink;
      const bool same = !memcmp(&m, &merged, sizeof m);
      const double rel = std::fabs(host_value(m, n) - host_value(merged, n)) / std::fabs(host_value(merged, n));
      if (cluster > 1 ? rel > 1e-13 : !same)
        mismatches++;
      snprintf(what, sizeof what, "%s, host merge, %s", name, how);
      row(what, host_time(reps, call), same ? "same bits" : rel <= 1e-13 ? "within 1e-13" : "DIFFERS");
    };
    constexpr int SLOT = K <= 2 ? 2 : K <= 4 ? 4 : 8;
    host_rows(Partials<K, false>(), grid, K, 1, "scalar stores");
    host_rows(Partials<SLOT, true>(), grid, SLOT, 1, "one store per block");
    host_rows(ClusterPartials<SLOT>(), grid / 8, SLOT, 8, "clusters of 8");

    // Device time per kernel: 20 replays per event pair.
    auto device_row = [&](const char *how, const Graph &g) {
      snprintf(what, sizeof what, "%s, device time: %s", name, how);
      row(what, device_time(g, ev0, ev1, reps / 4));
    };
    // In device memory, past the partials the last block uses (the scratch
    // is 4096 x 64 bytes: 32768 words; the partials take grid x K of them).
    double *dev_out = static_cast<double *>(scratch) + 16384, *dev_fin = static_cast<double *>(scratch) + 32768 - 8;
    Graph d_last(stream, [&] { last<<<grid, BLOCK, 0, stream>>>(last_into(nullptr, dev_fin)); });
    Graph d_unf(stream, [&] { unfenced<<<grid, BLOCK, 0, stream>>>(unfenced_into(dev_fin)); });
    auto pk = reduce_kernel<BLOCK, ITEMS, 1, false, Map, Thread, Src, Partials<SLOT, true>>;
    auto ck = reduce_kernel<BLOCK, ITEMS, 1, false, Map, Thread, Src, ClusterPartials<SLOT>>;
    const Problem<Src, Partials<SLOT, true>> pp{src, WordsTarget{dev_out}};
    const Problem<Src, ClusterPartials<SLOT>> cp{src, WordsTarget{dev_out}};
    Graph d_parts(stream, [&] { launch(pk, grid, BLOCK, 1, pp); });
    Graph d_cluster(stream, [&] { launch(ck, grid, BLOCK, 8, cp); });
    device_row("block partials only", d_parts);
    device_row("cluster partials only", d_cluster);
    device_row("last block with fences", d_last);
    device_row("last block without fences", d_unf);
  };
  printf("n = 2^20, grid %d x %d threads, result on the host:\n", grid, BLOCK);
  experiment(SumLiteThread(), ExactProduct(), "dot");
  experiment(RmsLiteThread(), Difference(), "rms (plain trees)");
  experiment(CsumRmsThread(), Difference(), "rms (compensated trees)");
  CHECK(cudaGetLastError());
  if (mismatches)
    fprintf(stderr, "bench_grid: %d results differ from the device merge\n", mismatches);
  return mismatches ? 1 : 0;
}
