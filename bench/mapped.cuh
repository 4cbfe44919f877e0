// mapped.cuh — what bench_merge.cu and bench_grid.cu share: one-node graphs
// replayed on a stream, words of mapped host memory poisoned and waited for,
// and the inputs.
#ifndef GQ_BENCH_MAPPED_CUH
#define GQ_BENCH_MAPPED_CUH

#include <atomic>
#include <cstdint>

#include "timing.cuh"

typedef unsigned long long ull;
static const ull POISON = 0x7ff4dead5eed0001ULL; // a signalling NaN: no arithmetic makes one

// A one-node graph (whatever `enqueue` launches on `stream`), replayed there.
struct Graph {
  cudaGraphExec_t exec = nullptr;
  cudaStream_t stream;
  template <class F> Graph(cudaStream_t s, F enqueue) : stream(s)
  {
    cudaGraph_t g;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    enqueue();
    CHECK(cudaStreamEndCapture(stream, &g));
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaGraphUpload(exec, stream));
  }
  void launch() const { CHECK(cudaGraphLaunch(exec, stream)); }
};

// Device time of one replay of g: events around 20 replays, `samples` times
// after 3 warm-up samples.
static inline Stat device_time(const Graph &g, cudaEvent_t ev0, cudaEvent_t ev1, int samples)
{
  std::vector<double> t;
  for (int r = -3; r < samples; r++) {
    CHECK(cudaEventRecord(ev0, g.stream));
    for (int k = 0; k < 20; k++)
      g.launch();
    CHECK(cudaEventRecord(ev1, g.stream));
    CHECK(cudaEventSynchronize(ev1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
    if (r >= 0)
      t.push_back(1e3 * ms / 20);
  }
  return stat_of(t);
}

// Wait until words i .. i + count - 1 of every stride-th i < n no longer hold
// the poison; a kernel that failed on `stream` must not hang the host.
static inline void spin_words(cudaStream_t stream, const volatile ull *w, size_t n, size_t stride = 1,
                              size_t count = 1)
{
  for (size_t i = 0; i < n; i += stride)
    for (size_t k = 0; k < count; k++)
      for (unsigned t = 1; w[i + k] == POISON; t++)
        if (t % (1u << 24) == 0 && cudaStreamQuery(stream) != cudaErrorNotReady && w[i + k] == POISON) {
          fprintf(stderr, "a kernel finished without writing word %zu\n", i + k);
          exit(1);
        }
  std::atomic_thread_fence(std::memory_order_acquire);
}

static inline void poison(ull *w, size_t n)
{
  for (size_t i = 0; i < n; i++)
    w[i] = POISON;
}

__global__ void poison_device(ull *w, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    w[i] = POISON;
}

// Inputs: uniform in [-1, 1) from a hash of the index (never zeros).
__global__ void fill(double *x, size_t n, unsigned seed)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    ull h = (i + 1) * 0x9e3779b97f4a7c15ULL ^ ((ull)seed << 32);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
    x[i] = (double)(h >> 11) * 0x1p-52 - 1.0;
  }
}

#endif
