// bench_merge.cu — where should a one-shot reduction's grid level finish?
//
//   last block (the library's one-shot and asynchronous forms): every
//     block writes its partial to device scratch (poisoned between
//     launches: no fences, engine/grid_levels.cuh) and takes a ticket; the last
//     block merges the partials and writes the finished value into mapped
//     host memory, which the host spins on;
//   host (the library's one-shot sum and dot for a while, host_merge.cuh):
//     every block writes its partial straight into mapped host memory (the
//     BlockPartials grid level); the host waits for them and merges them in
//     the last block's order (host_last_block_merge), so the bits are the
//     same.  Two partial buffers alternate, and the host poisons the idle
//     one while it waits.
//
// Every row is a one-node graph replayed (as the library launches) with the
// result read on the host: host clock, median of REPS.  The device rows time
// 20 replays of one kernel per event pair.  Each host-merge result is
// compared bit for bit with the last block's before it is timed.  The rms
// rows are the lite rms (RmsLiteThread) as the library's one-shot
// gq_rms_diff runs it since issue 14: the last block finishes the
// gq_rms_result into mapped memory (before, it wrote three totals that the
// host finished).
// Usage: bench_merge [REPS]   (default 400)
#include <cmath>
#include <cstdint>
#include <cstring>
#include <atomic>
#include <type_traits>

#include <cuda.h> // types only: cuGraphLaunch is reached through the runtime

#include "../kernels/engine/accumulators.cuh"
#include "../kernels/engine/array_source.cuh"
#include "../kernels/engine/kernel.cuh"
#include "host_merge.cuh"
#include "../src/gpuquad.h"
#include "mapped.cuh"

static int reps = 400;
static cudaStream_t stream;
static int sms;

// ---- the floor: no data ---------------------------------------------------------
__global__ void one_value(double *out)
{
  if (threadIdx.x == 0)
    *out = 1.0;
}
__global__ void block_values(double *out)
{
  if (threadIdx.x == 0)
    out[blockIdx.x] = 1.0 + blockIdx.x;
}
__global__ void ticket_value(unsigned *counter, double *out)
{
  __shared__ bool last;
  if (threadIdx.x == 0) {
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0)
    *out = 2.0;
}

// ---- the engine, last block against host merge ------------------------------------
template <int BLOCK, int ITEMS, class Thread, class Map>
struct Reduction {
  using Combine = typename gq::CombineOf<Thread>::type;
  using Acc = typename gq::CombineOf<Thread>::acc;
  using Src = gq::ArraySource<double, 2, true>;
  static constexpr int WORDS = sizeof(Acc) / 8;
  // Words the last block's finish writes: the dot, or the gq_rms_result.
  static constexpr int FINISHED =
      (std::is_same<Combine, gq::RmsLiteCombine>::value ? sizeof(gq_rms_result) : sizeof(double)) / 8;
  static constexpr auto last_block = gq::reduce_kernel<BLOCK, ITEMS, 1, false, Map, Thread, Src, gq::PoisonedLastBlock>;
  static constexpr auto per_block = gq::reduce_kernel<BLOCK, ITEMS, 1, false, Map, Thread, Src, gq::BlockPartials>;
  using LastProblem = gq::Problem<Src, gq::PoisonedLastBlock>;
  using PartsProblem = gq::Problem<Src, gq::BlockPartials>;
  Src src;
  int grid;
  LastProblem finish_into, merge_into; // the finished value (timed), the merged partial (the bits compared)
  // Two mapped partial buffers (host merge) and the finished value (last block).
  Acc *h_parts[2], *d_parts[2];
  Graph *g_last = nullptr, *g_parts[2] = {nullptr, nullptr};
  int turn = 0;

  Reduction(const double *a, const double *b, size_t n, void *lite_scratch, unsigned *counter, double *d_finished)
  {
    src = Src{a, b, n, 0};
    const long long tile = (long long)BLOCK * ITEMS;
    grid = bench_resident_grid((const void *)last_block, BLOCK, ((long long)src.vectors() + tile - 1) / tile, sms);
    const gq::Completion none{nullptr, nullptr};
    finish_into = LastProblem{src, gq::LastBlockTarget{lite_scratch, counter, nullptr, d_finished, none}};
    merge_into = LastProblem{src, gq::LastBlockTarget{lite_scratch, counter, d_finished, nullptr, none}};
    g_last = new Graph(stream, [&] { last_block<<<grid, BLOCK, 0, stream>>>(finish_into); });
    for (int k = 0; k < 2; k++) {
      CHECK(cudaHostAlloc((void **)&h_parts[k], (size_t)grid * sizeof(Acc), cudaHostAllocMapped));
      CHECK(cudaHostGetDevicePointer((void **)&d_parts[k], h_parts[k], 0));
      poison(reinterpret_cast<ull *>(h_parts[k]), (size_t)grid * WORDS);
      const PartsProblem p{src, gq::BlockPartialsTarget{d_parts[k]}};
      g_parts[k] = new Graph(stream, [&] { per_block<<<grid, BLOCK, 0, stream>>>(p); });
    }
  }
  // The last block's merged partial, unfinished, into `h_out` (mapped, at
  // d_finished): what the host merge must equal bit for bit.
  Acc device_merge(ull *h_out) const
  {
    poison(h_out, WORDS);
    last_block<<<grid, BLOCK, 0, stream>>>(merge_into);
    spin_words(stream, h_out, WORDS);
    Acc m;
    memcpy(&m, h_out, sizeof m);
    return m;
  }
  // The partials of one host-merge call, poisoned again for the call after next.
  const Acc *host_partials()
  {
    const int k = turn;
    turn ^= 1;
    g_parts[k]->launch();
    poison(reinterpret_cast<ull *>(h_parts[turn]), (size_t)grid * WORDS); // while the kernel runs
    spin_words(stream, reinterpret_cast<const volatile ull *>(h_parts[k]), (size_t)grid * WORDS);
    return h_parts[k];
  }
  // Wait for the partials, then merge.
  Acc host_merge() { return gq::host_last_block_merge<BLOCK>(host_partials(), (unsigned)grid, Combine(), Combine::identity()); }
};

static ull bits(double v)
{
  ull u;
  memcpy(&u, &v, 8);
  return u;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    reps = atoi(argv[1]);
  if (reps < 10 || reps > 100000)
    return fprintf(stderr, "usage: bench_merge [REPS]\n"), 2;
  cudaEvent_t ev0, ev1;
  const cudaDeviceProp prop = bench_device(&stream, &ev0, &ev1);
  sms = prop.multiProcessorCount;
  printf("device: %s, %d SMs, L2 %d MB; host clock, medians of %d after warm-up\n", prop.name, sms,
         prop.l2CacheSize >> 20, reps);

  const size_t NMAX = (size_t)1 << 22;
  double *a, *b, *d_fin, *h_value, *d_value;
  void *scratch, *lite_scratch;
  unsigned *counter;
  CHECK(cudaMalloc(&a, NMAX * 8));
  CHECK(cudaMalloc(&b, NMAX * 8));
  CHECK(cudaMalloc(&d_fin, 64));
  CHECK(cudaMalloc(&scratch, 4096 * 64));
  CHECK(cudaMalloc(&lite_scratch, 4096 * 64));
  poison_device<<<64, 256, 0, stream>>>(static_cast<ull *>(lite_scratch), 4096 * 8);
  CHECK(cudaMalloc(&counter, 4));
  CHECK(cudaMemset(counter, 0, 4));
  CHECK(cudaHostAlloc((void **)&h_value, 64 * 1024, cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer((void **)&d_value, h_value, 0));
  fill<<<1024, 256, 0, stream>>>(a, NMAX, 1);
  fill<<<1024, 256, 0, stream>>>(b, NMAX, 2);
  CHECK(cudaStreamSynchronize(stream));
  ull *vw = reinterpret_cast<ull *>(h_value);
  const volatile ull *vv = vw;

  printf("the floor (no data), graph replayed, host spins:\n");
  {
    Graph one(stream, [&] { one_value<<<1, 32, 0, stream>>>(d_value); });
    row("1 block writes a value", host_time(reps, [&] {
          vw[0] = POISON;
          one.launch();
          spin_words(stream, vv, 1);
        }));
    for (int g : {132, 264}) {
      Graph parts(stream, [&] { block_values<<<g, 256, 0, stream>>>(d_value); });
      Graph ticket(stream, [&] { ticket_value<<<g, 256, 0, stream>>>(counter, d_value); });
      char what[120];
      snprintf(what, sizeof what, "%d blocks write a value each, host waits for all", g);
      row(what, host_time(reps, [&] {
            poison(vw, g);
            parts.launch();
            spin_words(stream, vv, g);
          }));
      snprintf(what, sizeof what, "%d blocks take a ticket, the last writes the value", g);
      row(what, host_time(reps, [&] {
            vw[0] = POISON;
            ticket.launch();
            spin_words(stream, vv, 1);
          }));
    }
    // Host cost of the launch call itself: runtime against driver entry point.
    typedef CUresult (*GraphLaunchFn)(CUgraphExec, CUstream);
    GraphLaunchFn cu_graph_launch = nullptr;
    cudaDriverEntryPointQueryResult q;
    CHECK(cudaGetDriverEntryPointByVersion("cuGraphLaunch", (void **)&cu_graph_launch, 12000, cudaEnableDefault, &q));
    std::vector<double> rt, drv;
    for (int r = 0; r < reps; r++) {
      vw[0] = POISON;
      double t0 = now_us();
      one.launch();
      rt.push_back(now_us() - t0);
      spin_words(stream, vv, 1);
      vw[0] = POISON;
      t0 = now_us();
      cu_graph_launch((CUgraphExec)one.exec, (CUstream)stream);
      drv.push_back(now_us() - t0);
      spin_words(stream, vv, 1);
    }
    row("  cudaGraphLaunch call alone", stat_of(rt));
    row("  cuGraphLaunch (driver entry point) call alone", stat_of(drv));
    row("1 block writes a value, launched by cuGraphLaunch", host_time(reps, [&] {
          vw[0] = POISON;
          cu_graph_launch((CUgraphExec)one.exec, (CUstream)stream);
          spin_words(stream, vv, 1);
        }));
  }

  gq_context *lib = gq_context_create(0);
  if (!lib)
    return fprintf(stderr, "bench_merge: %s\n", gq_last_error()), 1;
  using namespace gq;
  int mismatches = 0;
  for (size_t n : {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20, (size_t)1 << 22}) {
    printf("n = 2^%d (%zu MB read), graph replayed, result on the host:\n", (int)std::log2((double)n), n * 16 >> 20);
    // One reduction's rows: the host merge's merged partial against the last
    // block's (bit for bit), then the last block (finished into mapped
    // memory, as the library's one-shot calls), the host merge (finished on
    // the host), and the host waiting for the partials only.
    auto rows = [&](auto red, const char *name) {
      using R = decltype(red);
      constexpr int W = R::FINISHED;
      const typename R::Acc last = red.device_merge(vw), host = red.host_merge();
      const bool same = !memcmp(&last, &host, sizeof last);
      mismatches += !same;
      printf("  %s grid %d: last block %.17g, host merge %.17g: %s\n", name, red.grid, host_value(last, n),
             host_value(host, n), same ? "same bits" : "DIFFERENT BITS");
      char what[120];
      snprintf(what, sizeof what, "%s grid %d, last block", name, red.grid);
      row(what, host_time(reps, [&] {
            poison(vw, W);
            red.g_last->launch();
            spin_words(stream, vv, W);
          }));
      volatile double sink;
      snprintf(what, sizeof what, "%s grid %d, host merge", name, red.grid);
      row(what, host_time(reps, [&] { sink = host_value(red.host_merge(), n); }));
      snprintf(what, sizeof what, "%s grid %d, host waits for the partials only", name, red.grid);
      row(what, host_time(reps, [&] { sink = reinterpret_cast<const double *>(red.host_partials())[0]; }));
      (void)sink;
    };
    Reduction<256, 8, SumLiteThread, ExactProduct> dot(a, b, n, lite_scratch, counter, d_value);
    Reduction<256, 8, RmsLiteThread, Difference> rms(a, b, n, lite_scratch, counter, d_value);
    rows(dot, "dot 256x8");
    rows(rms, "rms 256x8");
    // The library on the same data: its one-shot calls are this last block
    // at the same shape, so the bits agree too.
    double v;
    gq_rms_result r;
    const gq_csum m = dot.host_merge();
    mismatches += !(gq_dot(lib, n, a, b, &v) == GQ_SUCCESS && bits(v) == bits(m.s + m.c));
    row("library gq_dot", host_time(reps, [&] { gq_dot(lib, n, a, b, &v); }));
    const gq_rms_lite q = rms.host_merge();
    double rr, rel;
    gq_rms_values(q.sq, q.ref, n, &rr, &rel);
    mismatches += !(gq_rms_diff(lib, n, a, b, &r) == GQ_SUCCESS && bits(r.rms) == bits(rr) && bits(r.relative) == bits(rel));
    row("library gq_rms_diff", host_time(reps, [&] { gq_rms_diff(lib, n, a, b, &r); }));
    printf("  library: dot %.17g, rms %.17g (mismatches so far: %d)\n", v, r.rms, mismatches);
  }

  printf("device time per kernel, 20 graph replays per event pair (n = 2^20):\n");
  {
    auto device_row = [&](const char *what, const Graph &g) {
      row(what, device_time(g, ev0, ev1, reps / 4));
    };
    Graph one(stream, [&] { one_value<<<1, 32, 0, stream>>>(d_fin); });
    device_row("1 block writes a value (device memory)", one);
    Graph parts(stream, [&] { block_values<<<264, 256, 0, stream>>>(d_fin); });
    device_row("264 blocks write a value each", parts);
    Graph ticket(stream, [&] { ticket_value<<<264, 256, 0, stream>>>(counter, d_fin); });
    device_row("264 blocks take a ticket, the last writes", ticket);
    using Src = ArraySource<double, 2, true>;
    const size_t n = 1 << 20;
    Src src{a, b, n, 0};
    const Completion none{nullptr, nullptr};
    // Both grid levels at a block shape (the 512-thread one was tried for
    // fewer partials and dropped: policy.cuh).
    auto dot_device_rows = [&](auto block, const char *shape) {
      constexpr int B = decltype(block)::value;
      const int grid = (int)(n / 2 / (B * 8));
      auto dl = reduce_kernel<B, 8, 1, false, ExactProduct, SumLiteThread, Src, LastBlock>;
      auto du = reduce_kernel<B, 8, 1, false, ExactProduct, SumLiteThread, Src, PoisonedLastBlock>;
      auto dp = reduce_kernel<B, 8, 1, false, ExactProduct, SumLiteThread, Src, BlockPartials>;
      char what[120];
      const Problem<Src, LastBlock> pl{src, LastBlockTarget{scratch, counter, nullptr, d_fin, none}};
      Graph gl(stream, [&] { dl<<<grid, B, 0, stream>>>(pl); });
      snprintf(what, sizeof what, "dot 2^20 %s, last block with fences", shape);
      device_row(what, gl);
      const Problem<Src, PoisonedLastBlock> pu{src, LastBlockTarget{lite_scratch, counter, nullptr, d_fin, none}};
      Graph gu(stream, [&] { du<<<grid, B, 0, stream>>>(pu); });
      snprintf(what, sizeof what, "dot 2^20 %s, last block without fences (poisoned)", shape);
      device_row(what, gu);
      const Problem<Src, BlockPartials> pp{src, BlockPartialsTarget{scratch}};
      Graph gp(stream, [&] { dp<<<grid, B, 0, stream>>>(pp); });
      snprintf(what, sizeof what, "dot 2^20 %s, block partials (device memory)", shape);
      device_row(what, gp);
    };
    dot_device_rows(std::integral_constant<int, 256>(), "256x8");
    dot_device_rows(std::integral_constant<int, 512>(), "512x8");
  }
  CHECK(cudaGetLastError());
  if (mismatches)
    fprintf(stderr, "bench_merge: %d host merges differ from the last block's bits\n", mismatches);
  return mismatches ? 1 : 0;
}
