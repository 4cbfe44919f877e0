// bench_latency.cu — where the latency of a one-shot reduction goes, and
// which launch shape and accumulator take the least of it (issues 6 and 7).
//
// Part 1, host clock (result on the host, median of REPS calls):
//   the floor (an empty kernel with a stream sync; with a mapped flag the
//   host spins on; a full grid that only takes last-block tickets), then the
//   library's gq_dot / gq_rms_diff / gq_sum, then the engine's dot kernel
//   (gq::reduce_kernel, with the fenced last block) at several launch
//   shapes, lite and full.  The finished-value rows time the one-shot
//   shapes: the lite dot and the lite rms, whose last block finishes the
//   gq_rms_result into mapped memory as gq_rms_diff does since issue 14
//   (they timed the rms totals that the host finished before).
// Part 2, CUDA events (device time as `gpuquad bench` sees it): gq_sum_async
//   against cub::DeviceReduce::Sum, one call per event pair, many calls per
//   event pair, and one call replayed as a CUDA graph.
// Usage: bench_latency [REPS]   (default 400)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <type_traits>
#include <vector>

#include <cub/cub.cuh>
#include <cuda.h> // types only: cuLaunchKernel is reached through the runtime

#include "../src/gpuquad.h"
#include "../kernels/engine/accumulators.cuh"
#include "../kernels/engine/array_source.cuh"
#include "../kernels/engine/kernel.cuh"
#include "timing.cuh"

typedef unsigned long long ull;

static int reps = 400;
static cudaStream_t stream;
static int sms;
static ull *h_flag, *d_flag, *d_seq, ticket; // ticket: the host's copy of *d_seq
static unsigned *d_counter;

template <class F> static Stat host_time(F call) { return host_time(reps, call); }

static void spin(ull want)
{
  const volatile ull *f = h_flag;
  for (unsigned k = 1; *f != want; k++)
    if (k % (1u << 22) == 0 && cudaStreamQuery(stream) == cudaSuccess && *f != want) {
      fprintf(stderr, "bench_latency: a kernel finished without raising its flag\n");
      exit(1);
    }
}

// ---- the floor ---------------------------------------------------------------
__global__ void empty_kernel() {}

template <bool FENCE> __global__ void flag_kernel(ull *done, ull t)
{
  if (threadIdx.x == 0) {
    if (FENCE)
      __threadfence_system();
    *reinterpret_cast<volatile ull *>(done) = t;
  }
}

__global__ void ticket_kernel(unsigned *counter, ull *done, ull t)
{
  __shared__ bool last;
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    __threadfence_system();
    *reinterpret_cast<volatile ull *>(done) = t;
  }
}

// The ticket kept on the device, so the launch has fixed arguments (graphs).
__global__ void seq_flag_kernel(ull *seq, ull *done)
{
  if (threadIdx.x == 0) {
    const ull v = *seq + 1;
    *seq = v;
    __threadfence_system();
    *reinterpret_cast<volatile ull *>(done) = v;
  }
}

typedef CUresult (*LaunchFn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void **, void **);

// A finished value in mapped memory, poisoned before each launch with a
// signalling NaN that no arithmetic produces: the host spins on the value
// itself, so no flag and no system fence are needed.
static const ull POISON = 0x7ff4deadbeef0001ULL;
static volatile ull *h_value;
static double *d_value;
static void spin_value(int words)
{
  for (int w = 0; w < words; w++)
    for (unsigned k = 1; h_value[w] == POISON; k++)
      if (k % (1u << 22) == 0 && cudaStreamQuery(stream) == cudaSuccess && h_value[w] == POISON) {
        fprintf(stderr, "bench_latency: a kernel finished without writing its value\n");
        exit(1);
      }
}

// ---- the engine's kernel at a chosen shape -----------------------------------
template <int BLOCK, int ITEMS, class Thread, class Map, int ARRAYS>
struct Engine {
  using Acc = typename gq::CombineOf<Thread>::acc;
  using Src = gq::ArraySource<double, ARRAYS, true>;
  static constexpr auto kernel = gq::reduce_kernel<BLOCK, ITEMS, 1, false, Map, Thread, Src, gq::LastBlock>;
  // Words the finish writes: the sum or dot, or the gq_rms_result.
  static constexpr int FINISHED =
      (std::is_same<Thread, gq::RmsLiteThread>::value ? sizeof(gq_rms_result) : sizeof(double)) / 8;
  int grid;
  Src src;
  Acc *d_scratch, *d_result;
  void *finished;

  Engine(const double *a, const double *b, long long n, void *partials, Acc *result, void *fin, int grid_cap = 0)
  {
    src = Src{a, b, (uint64_t)n, 0};
    const long long tile = (long long)BLOCK * ITEMS;
    grid = bench_resident_grid((const void *)kernel, BLOCK, ((long long)src.vectors() + tile - 1) / tile, sms, grid_cap);
    d_scratch = static_cast<Acc *>(partials);
    d_result = result;
    finished = fin;
  }
  void launch(gq::Completion c) const
  {
    kernel<<<grid, BLOCK, 0, stream>>>(
        gq::Problem<Src, gq::LastBlock>{src, gq::LastBlockTarget{d_scratch, d_counter, d_result, finished, c}});
  }
  // Result in mapped memory; the host spins on the flag.
  void sync_call() const
  {
    launch(gq::Completion{d_flag, d_seq});
    spin(++ticket);
  }
  // The finished value in mapped memory (finished = d_value); the host spins on it.
  void value_call() const
  {
    for (int w = 0; w < FINISHED; w++)
      h_value[w] = POISON;
    launch(gq::Completion{nullptr, nullptr});
    spin_value(FINISHED);
  }
};

template <class E> static void value_row(const char *name, const E &e)
{
  char what[160];
  snprintf(what, sizeof what, "%s grid %d, value spin", name, e.grid);
  row(what, host_time([&] { e.value_call(); }));
}

template <class E> static void engine_row(const char *name, const E &e)
{
  char what[160];
  snprintf(what, sizeof what, "%s grid %d", name, e.grid);
  row(what, host_time([&] { e.sync_call(); }));
}

// ---- device-time comparisons (events) ----------------------------------------
static cudaEvent_t ev0, ev1;

template <class F> static Stat event_time(F call, int batch)
{
  std::vector<double> t;
  for (int r = -5; r < reps; r++) {
    CHECK(cudaEventRecord(ev0, stream));
    for (int k = 0; k < batch; k++)
      call();
    CHECK(cudaEventRecord(ev1, stream));
    CHECK(cudaEventSynchronize(ev1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
    if (r >= 0)
      t.push_back(1e3 * ms / batch);
  }
  return stat_of(t);
}

template <class F> static Stat graph_time(F call)
{
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  call();
  CHECK(cudaStreamEndCapture(stream, &g));
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  const Stat s = event_time([&] { CHECK(cudaGraphLaunch(ge, stream)); }, 1);
  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));
  return s;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    reps = atoi(argv[1]);
  const bool profile = argc > 2 && !strcmp(argv[2], "profile");
  if (reps < 10 || reps > 100000)
    return fprintf(stderr, "usage: bench_latency [REPS [profile]]\n"), 2;
  const cudaDeviceProp prop = bench_device(&stream, &ev0, &ev1);
  sms = prop.multiProcessorCount;
  CHECK(cudaHostAlloc(&h_flag, sizeof(ull), cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(&d_flag, h_flag, 0));
  *h_flag = 0;
  CHECK(cudaMalloc(&d_counter, sizeof(unsigned)));
  CHECK(cudaMalloc(&d_seq, sizeof(ull)));
  CHECK(cudaMemset(d_seq, 0, sizeof(ull)));
  CHECK(cudaMemset(d_counter, 0, sizeof(unsigned)));
  void *partials, *h_res, *d_res, *d_fin;
  constexpr size_t ACC = std::max(sizeof(gq_sum_acc), sizeof(gq_rms_acc)); // the largest partial here
  CHECK(cudaMalloc(&partials, 4096 * ACC));
  CHECK(cudaHostAlloc(&h_res, ACC, cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(&d_res, h_res, 0));
  CHECK(cudaMalloc(&d_fin, sizeof(gq_rms_result)));
  CHECK(cudaHostAlloc((void **)&h_value, 64, cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer((void **)&d_value, (void *)h_value, 0));

  gq_context *ctx = gq_context_create(0);
  if (!ctx || gq_context_set_stream(ctx, stream) != GQ_SUCCESS)
    return fprintf(stderr, "bench_latency: %s\n", gq_last_error()), 1;
  const long long N = 1LL << 20;
  double *a, *b;
  if (gq_alloc(ctx, N * 8, (void **)&a) || gq_alloc(ctx, N * 8, (void **)&b) ||
      gq_generate(ctx, GQ_GEN_UNIFORM, N, 1, a) || gq_generate(ctx, GQ_GEN_UNIFORM, N, 2, b))
    return fprintf(stderr, "bench_latency: %s\n", gq_last_error()), 1;
  CHECK(cudaDeviceSynchronize());

  using namespace gq;
  using Lite = SumLiteThread;
  using Full = SumThread;
  using Dot = ExactProduct;
  gq_csum *lite = static_cast<gq_csum *>(d_res);
  gq_sum_acc *full = static_cast<gq_sum_acc *>(d_res);
  gq_rms_acc *rms = static_cast<gq_rms_acc *>(d_res);
  gq_rms_lite *rmsl = static_cast<gq_rms_lite *>(d_res);
  gq_rms_lite *rmsl_dev = static_cast<gq_rms_lite *>(d_fin);
  gq_csum *lite_dev = static_cast<gq_csum *>(d_fin);

  if (profile) { // a few launches of each kernel, for ncu
    const long long n20 = 1LL << 20;
    for (int k = 0; k < 3; k++) {
      flag_kernel<false><<<1, 32, 0, stream>>>(d_flag, 1);
      ticket_kernel<<<512, 256, 0, stream>>>(d_counter, d_flag, 2);
      Engine<256, 4, Full, ExactProductOperands, 2>(a, b, n20, partials, full, nullptr).launch(Completion{nullptr, nullptr});
      Engine<256, 4, Lite, Dot, 2>(a, b, n20, partials, lite, nullptr).launch(Completion{nullptr, nullptr});
      Engine<512, 4, Lite, Dot, 2>(a, b, n20, partials, lite, nullptr).launch(Completion{nullptr, nullptr});
      Engine<256, 8, Lite, Dot, 2>(a, b, n20, partials, lite, nullptr).launch(Completion{nullptr, nullptr});
      Engine<256, 4, RmsThread, DifferenceWithOperands, 2>(a, b, n20, partials, rms, nullptr).launch(Completion{nullptr, nullptr});
      Engine<256, 8, Lite, Identity, 1>(a, b, 1 << 10, partials, lite, nullptr).launch(Completion{nullptr, nullptr});
      // the one-shot shapes at 2^20: dot and rms lite, finished into device memory
      double *fin = static_cast<double *>(d_fin);
      Engine<256, 8, Lite, Dot, 2>(a, b, n20, partials, lite, fin).launch(Completion{nullptr, nullptr});
      Engine<256, 8, RmsLiteThread, Difference, 2>(a, b, n20, partials, rmsl, fin).launch(Completion{nullptr, nullptr});
      Engine<512, 4, RmsLiteThread, Difference, 2>(a, b, n20, partials, rmsl, fin).launch(Completion{nullptr, nullptr});
      Engine<128, 8, RmsLiteThread, Difference, 2>(a, b, n20, partials, rmsl, fin).launch(Completion{nullptr, nullptr});
      Engine<256, 4, RmsLiteThread, Difference, 2>(a, b, n20, partials, rmsl, fin).launch(Completion{nullptr, nullptr});
      Engine<256, 8, Lite, Identity, 1>(a, b, n20, partials, lite, fin).launch(Completion{nullptr, nullptr});
      size_t tb = 0;
      void *temp = nullptr;
      double *out = static_cast<double *>(d_fin);
      CHECK(cub::DeviceReduce::Sum(temp, tb, a, out, 1 << 10, stream));
      CHECK(cudaMalloc(&temp, tb));
      CHECK(cub::DeviceReduce::Sum(temp, tb, a, out, 1 << 10, stream));
      CHECK(cudaStreamSynchronize(stream));
      CHECK(cudaFree(temp));
    }
    CHECK(cudaDeviceSynchronize());
    return 0;
  }

  printf("device: %s, %d SMs; medians of %d after warm-up\n", prop.name, sms, reps);
  printf("host-side calls (per call):\n");
  {
    const double t0 = now_us();
    for (int k = 0; k < 100000; k++)
      cudaSetDevice(0);
    printf("  %-58s %8.3f us\n", "cudaSetDevice(current)", (now_us() - t0) / 100000);
    int d;
    const double t1 = now_us();
    for (int k = 0; k < 100000; k++)
      cudaGetDevice(&d);
    printf("  %-58s %8.3f us\n", "cudaGetDevice", (now_us() - t1) / 100000);
    cudaStreamCaptureStatus cs;
    const double t3 = now_us();
    for (int k = 0; k < 100000; k++)
      cudaStreamIsCapturing(stream, &cs);
    printf("  %-58s %8.3f us\n", "cudaStreamIsCapturing", (now_us() - t3) / 100000);
    const double t2 = now_us();
    for (int k = 0; k < 1000; k++)
      empty_kernel<<<1, 32, 0, stream>>>();
    printf("  %-58s %8.3f us\n", "empty kernel enqueue (1000 back to back)", (now_us() - t2) / 1000);
    CHECK(cudaStreamSynchronize(stream));
  }

  printf("floor, host clock, result on the host:\n");
  row("empty<<<1,32>>> + cudaStreamSynchronize", host_time([] {
        empty_kernel<<<1, 32, 0, stream>>>();
        cudaStreamSynchronize(stream);
      }));
  static ull value = 1ULL << 40; // flag values of their own, far from the ticket's
  row("flag<<<1,32>>> no fence, host spins", host_time([] {
        flag_kernel<false><<<1, 32, 0, stream>>>(d_flag, ++value);
        spin(value);
      }));
  row("flag<<<1,32>>> __threadfence_system, host spins", host_time([] {
        flag_kernel<true><<<1, 32, 0, stream>>>(d_flag, ++value);
        spin(value);
      }));
  for (int g : {132, 512, 1056}) {
    char what[96];
    snprintf(what, sizeof what, "ticket<<<%d,256>>> last block raises the flag", g);
    row(what, host_time([g] {
          ticket_kernel<<<g, 256, 0, stream>>>(d_counter, d_flag, ++value);
          spin(value);
        }));
  }

  gq_context *own = gq_context_create(0); // on its own stream, as most callers use it
  if (!own)
    return fprintf(stderr, "bench_latency: %s\n", gq_last_error()), 1;
  for (long long n : {1LL << 10, 1LL << 20}) {
    printf("library, n = 2^%d, host clock, result on the host:\n", (int)std::log2((double)n));
    double r;
    gq_rms_result rr;
    row("gq_dot", host_time([&] { gq_dot(own, n, a, b, &r); }));
    row("gq_rms_diff", host_time([&] { gq_rms_diff(own, n, a, b, &rr); }));
    row("gq_sum", host_time([&] { gq_sum(own, n, a, &r); }));
    row("gq_dot, on a caller's stream", host_time([&] { gq_dot(ctx, n, a, b, &r); }));
    row("gq_rms_diff, on a caller's stream", host_time([&] { gq_rms_diff(ctx, n, a, b, &rr); }));
  }

  printf("launch mechanisms (device-side ticket, host spins), host clock:\n");
  {
    LaunchFn cu_launch = nullptr;
    cudaDriverEntryPointQueryResult q;
    CHECK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", (void **)&cu_launch, 12000, cudaEnableDefault, &q));
    cudaFunction_t fn;
    CHECK(cudaGetFuncBySymbol(&fn, (const void *)seq_flag_kernel));
    void *args[] = {&d_seq, &d_flag};
    ull expect = ticket;
    row("seq_flag<<<1,32>>>", host_time([&] {
          seq_flag_kernel<<<1, 32, 0, stream>>>(d_seq, d_flag);
          spin(++expect);
        }));
    row("seq_flag by cuLaunchKernel", host_time([&] {
          cu_launch((CUfunction)fn, 1, 1, 1, 32, 1, 1, 0, (CUstream)stream, args, nullptr);
          spin(++expect);
        }));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    seq_flag_kernel<<<1, 32, 0, stream>>>(d_seq, d_flag);
    CHECK(cudaStreamEndCapture(stream, &g));
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    CHECK(cudaGraphUpload(ge, stream));
    row("seq_flag by cudaGraphLaunch", host_time([&] {
          cudaGraphLaunch(ge, stream);
          spin(++expect);
        }));
    std::vector<double> enq[3];
    for (int r = 0; r < reps; r++) {
      double t0 = now_us();
      seq_flag_kernel<<<1, 32, 0, stream>>>(d_seq, d_flag);
      enq[0].push_back(now_us() - t0);
      spin(++expect);
      t0 = now_us();
      cu_launch((CUfunction)fn, 1, 1, 1, 32, 1, 1, 0, (CUstream)stream, args, nullptr);
      enq[1].push_back(now_us() - t0);
      spin(++expect);
      t0 = now_us();
      cudaGraphLaunch(ge, stream);
      enq[2].push_back(now_us() - t0);
      spin(++expect);
    }
    row("  the <<<>>> call alone", stat_of(enq[0]));
    row("  the cuLaunchKernel call alone", stat_of(enq[1]));
    row("  the cudaGraphLaunch call alone", stat_of(enq[2]));
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    ticket = expect;
  }

  printf("finished value in mapped memory, host spins on the value (no flag, no fence):\n");
  for (long long n : {1LL << 10, 1LL << 20}) {
    value_row("lite 256x4", Engine<256, 4, Lite, Dot, 2>(a, b, n, partials, lite_dev, d_value));
    value_row("lite 512x4", Engine<512, 4, Lite, Dot, 2>(a, b, n, partials, lite_dev, d_value));
    value_row("lite 256x8", Engine<256, 8, Lite, Dot, 2>(a, b, n, partials, lite_dev, d_value));
    value_row("lite 128x8", Engine<128, 8, Lite, Dot, 2>(a, b, n, partials, lite_dev, d_value));
    value_row("rms lite 256x8", Engine<256, 8, RmsLiteThread, Difference, 2>(a, b, n, partials, rmsl_dev, d_value));
    value_row("rms lite 512x4", Engine<512, 4, RmsLiteThread, Difference, 2>(a, b, n, partials, rmsl_dev, d_value));
    value_row("rms lite 128x8", Engine<128, 8, RmsLiteThread, Difference, 2>(a, b, n, partials, rmsl_dev, d_value));
    value_row("rms lite 256x4", Engine<256, 4, RmsLiteThread, Difference, 2>(a, b, n, partials, rmsl_dev, d_value));
    value_row("rms lite 128x4", Engine<128, 4, RmsLiteThread, Difference, 2>(a, b, n, partials, rmsl_dev, d_value));
  }
  {
    printf("L2: lite 256x4 dot at 2^20 after a 256 MB scrub (cold) against repeated (warm):\n");
    void *scrub;
    CHECK(cudaMalloc(&scrub, 256 << 20));
    Engine<256, 4, Lite, Dot, 2> e(a, b, 1 << 20, partials, lite, nullptr);
    std::vector<double> cold;
    for (int r = 0; r < reps / 4; r++) {
      CHECK(cudaMemsetAsync(scrub, r & 0xff, 256 << 20, stream));
      CHECK(cudaStreamSynchronize(stream));
      const double t0 = now_us();
      e.sync_call();
      cold.push_back(now_us() - t0);
    }
    row("cold", stat_of(cold));
    row("warm", host_time([&] { e.sync_call(); }));
    CHECK(cudaFree(scrub));
  }

  for (long long n : {1LL << 10, 1LL << 20}) {
    printf("engine dot kernel, n = 2^%d, host clock, result in mapped memory:\n", (int)std::log2((double)n));
    engine_row("full 256x4 (the full accumulator)", Engine<256, 4, Full, ExactProductOperands, 2>(a, b, n, partials, full, nullptr));
    engine_row("lite 256x4", Engine<256, 4, Lite, Dot, 2>(a, b, n, partials, lite, nullptr));
    engine_row("lite 256x2", Engine<256, 2, Lite, Dot, 2>(a, b, n, partials, lite, nullptr));
    engine_row("lite 256x1", Engine<256, 1, Lite, Dot, 2>(a, b, n, partials, lite, nullptr));
    engine_row("lite 256x8", Engine<256, 8, Lite, Dot, 2>(a, b, n, partials, lite, nullptr));
    engine_row("lite 128x4", Engine<128, 4, Lite, Dot, 2>(a, b, n, partials, lite, nullptr));
    engine_row("lite 128x8", Engine<128, 8, Lite, Dot, 2>(a, b, n, partials, lite, nullptr));
    engine_row("lite 512x2", Engine<512, 2, Lite, Dot, 2>(a, b, n, partials, lite, nullptr));
    engine_row("lite 512x4", Engine<512, 4, Lite, Dot, 2>(a, b, n, partials, lite, nullptr));
    engine_row("lite 1024x1", Engine<1024, 1, Lite, Dot, 2>(a, b, n, partials, lite, nullptr));
    engine_row("lite 1024x2", Engine<1024, 2, Lite, Dot, 2>(a, b, n, partials, lite, nullptr));
    engine_row("lite 256x4, grid <= 264", Engine<256, 4, Lite, Dot, 2>(a, b, n, partials, lite, nullptr, 264));
    engine_row("lite 256x2, grid <= 528", Engine<256, 2, Lite, Dot, 2>(a, b, n, partials, lite, nullptr, 528));
    engine_row("rms lite 256x4", Engine<256, 4, RmsLiteThread, Difference, 2>(a, b, n, partials, rmsl, nullptr));
    engine_row("rms lite 256x8", Engine<256, 8, RmsLiteThread, Difference, 2>(a, b, n, partials, rmsl, nullptr));
    engine_row("rms lite 512x4", Engine<512, 4, RmsLiteThread, Difference, 2>(a, b, n, partials, rmsl, nullptr));
    engine_row("rms lite 128x8", Engine<128, 8, RmsLiteThread, Difference, 2>(a, b, n, partials, rmsl, nullptr));
    engine_row("rms full 256x4 (the full accumulator)",
               Engine<256, 4, RmsThread, DifferenceWithOperands, 2>(a, b, n, partials, rms, nullptr));
    engine_row("rms full 256x2", Engine<256, 2, RmsThread, DifferenceWithOperands, 2>(a, b, n, partials, rms, nullptr));
    engine_row("rms full 512x2", Engine<512, 2, RmsThread, DifferenceWithOperands, 2>(a, b, n, partials, rms, nullptr));
    engine_row("rms full 128x4", Engine<128, 4, RmsThread, DifferenceWithOperands, 2>(a, b, n, partials, rms, nullptr));
    printf("  device time of one launch (events):\n");
    {
      Engine<256, 4, Full, ExactProductOperands, 2> e(a, b, n, partials, full, nullptr);
      row("full 256x4", event_time([&] { e.launch(Completion{nullptr, nullptr}); }, 1));
      row("full 256x4, 100 back to back, per launch", event_time([&] { e.launch(Completion{nullptr, nullptr}); }, 100));
      Engine<256, 4, Lite, Dot, 2> l(a, b, n, partials, lite, nullptr);
      row("lite 256x4", event_time([&] { l.launch(Completion{nullptr, nullptr}); }, 1));
      row("lite 256x4, 100 back to back, per launch", event_time([&] { l.launch(Completion{nullptr, nullptr}); }, 100));
      Engine<256, 2, Lite, Dot, 2> l2(a, b, n, partials, lite, nullptr);
      row("lite 256x2", event_time([&] { l2.launch(Completion{nullptr, nullptr}); }, 1));
      Engine<512, 2, Lite, Dot, 2> l3(a, b, n, partials, lite, nullptr);
      row("lite 512x2", event_time([&] { l3.launch(Completion{nullptr, nullptr}); }, 1));
    }
  }

  {
    printf("throughput at 2^28 (device time of one launch, events; the arrays are 2 GiB each):\n");
    const long long big = 1LL << 28;
    double *A, *B;
    if (gq_alloc(ctx, big * 8, (void **)&A) || gq_alloc(ctx, big * 8, (void **)&B) ||
        gq_generate(ctx, GQ_GEN_UNIFORM, big, 5, A) || gq_generate(ctx, GQ_GEN_UNIFORM, big, 6, B))
      return fprintf(stderr, "bench_latency: %s\n", gq_last_error()), 1;
    const int saved = reps;
    reps = 20;
    auto dev_row = [&](const char *what, auto e) {
      char w[160];
      snprintf(w, sizeof w, "%s grid %d", what, e.grid);
      Stat s = event_time([&] { e.launch(Completion{nullptr, nullptr}); }, 1);
      printf("  %-58s %8.2f us  %7.1f GB/s\n", w, s.median, 16.0 * big / (s.median * 1e3));
    };
    dev_row("dot full 256x4", Engine<256, 4, Full, ExactProductOperands, 2>(A, B, big, partials, full, nullptr));
    dev_row("dot lite 256x4", Engine<256, 4, Lite, Dot, 2>(A, B, big, partials, lite, nullptr));
    dev_row("dot lite 256x8", Engine<256, 8, Lite, Dot, 2>(A, B, big, partials, lite, nullptr));
    dev_row("dot lite 512x4", Engine<512, 4, Lite, Dot, 2>(A, B, big, partials, lite, nullptr));
    dev_row("rms full 256x4", Engine<256, 4, RmsThread, DifferenceWithOperands, 2>(A, B, big, partials, rms, nullptr));
    dev_row("rms lite 256x4", Engine<256, 4, RmsLiteThread, Difference, 2>(A, B, big, partials, rmsl, nullptr));
    dev_row("rms lite 256x8", Engine<256, 8, RmsLiteThread, Difference, 2>(A, B, big, partials, rmsl, nullptr));
    dev_row("rms lite 512x4", Engine<512, 4, RmsLiteThread, Difference, 2>(A, B, big, partials, rmsl, nullptr));
    reps = saved;
    gq_free(ctx, A);
    gq_free(ctx, B);
  }

  printf("gpuquad bench's production sum against CUB, CUDA events on one stream:\n");
  double *d_sum;
  CHECK(cudaMalloc(&d_sum, sizeof(double)));
  for (long long n : {1LL << 10, 1LL << 16, 1LL << 20}) {
    size_t temp_bytes = 0;
    void *temp = nullptr;
    CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, a, d_sum, (int)n, stream));
    CHECK(cudaMalloc(&temp, temp_bytes));
    auto prod = [&] { gq_sum_async(ctx, n, a, d_sum); };
    auto peer = [&] { cub::DeviceReduce::Sum(temp, temp_bytes, a, d_sum, (int)n, stream); };
    char what[120];
    const int lg = (int)std::log2((double)n);
    for (int round = 0; round < 2; round++) {
      snprintf(what, sizeof what, "2^%d production, one call per event pair", lg);
      row(what, event_time(prod, 1));
      snprintf(what, sizeof what, "2^%d CUB,        one call per event pair", lg);
      row(what, event_time(peer, 1));
    }
    snprintf(what, sizeof what, "2^%d production, 100 calls per event pair", lg);
    row(what, event_time(prod, 100));
    snprintf(what, sizeof what, "2^%d CUB,        100 calls per event pair", lg);
    row(what, event_time(peer, 100));
    snprintf(what, sizeof what, "2^%d production, graph replay", lg);
    row(what, graph_time(prod));
    snprintf(what, sizeof what, "2^%d CUB,        graph replay", lg);
    row(what, graph_time(peer));
    snprintf(what, sizeof what, "2^%d production enqueue, host clock (no sync)", lg);
    row(what, host_time(prod));
    snprintf(what, sizeof what, "2^%d CUB enqueue, host clock (no sync)", lg);
    row(what, host_time(peer));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaFree(temp));
  }
  CHECK(cudaGetLastError());
  gq_free(ctx, a);
  gq_free(ctx, b);
  gq_context_free(ctx);
  return 0;
}
