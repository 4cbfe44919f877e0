// timing.cuh — what the latency benches share: a checked CUDA call, the host
// clock, medians with p10/p90, the library's grid size, and one printed row
// per measurement.
#ifndef GQ_BENCH_TIMING_CUH
#define GQ_BENCH_TIMING_CUH

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include <cuda_runtime.h>

#include "../kernels/engine/policy.cuh" // MAX_BLOCKS

#define CHECK(call)                                                                                     \
  do {                                                                                                  \
    cudaError_t e_ = (call);                                                                            \
    if (e_ != cudaSuccess) {                                                                            \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                       \
      exit(1);                                                                                          \
    }                                                                                                   \
  } while (0)

static inline double now_us()
{
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

struct Stat {
  double median, p10, p90;
};

static inline Stat stat_of(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return Stat{n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v[n / 10], v[(9 * n) / 10]};
}

// Host clock around `call`, `reps` times after 20 warm-up calls.
template <class F> static Stat host_time(int reps, F call)
{
  std::vector<double> t;
  for (int r = -20; r < reps; r++) {
    const double t0 = now_us();
    call();
    const double t1 = now_us();
    if (r >= 0)
      t.push_back(t1 - t0);
  }
  return stat_of(t);
}

// CUDA events around `call` on stream s, `reps` times (µs) after `warmups`.
template <class F> static Stat event_time(cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, int warmups, int reps, F call)
{
  std::vector<double> t;
  for (int r = -warmups; r < reps; r++) {
    CHECK(cudaEventRecord(e0, s));
    call();
    CHECK(cudaEventRecord(e1, s));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 0)
      t.push_back(ms * 1e3);
  }
  return stat_of(t);
}

// Device 0, a non-blocking stream and two events; its properties.
static inline cudaDeviceProp bench_device(cudaStream_t *stream, cudaEvent_t *ev0, cudaEvent_t *ev1)
{
  cudaDeviceProp prop;
  CHECK(cudaSetDevice(0));
  CHECK(cudaGetDeviceProperties(&prop, 0));
  CHECK(cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(ev0));
  CHECK(cudaEventCreate(ev1));
  return prop;
}

// The library's grid for `kernel` (engine/launch.cuh's resident_grid, which
// needs a context): the blocks of `block` threads resident on the device, no
// more than `tiles` nor `cap` (0: no cap), nor the MAX_BLOCKS partials a
// last-block scratch holds; at least one.
static inline int bench_resident_grid(const void *kernel, int block, long long tiles, int sms, long long cap = 0)
{
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
  long long g = (long long)std::max(per_sm, 1) * sms;
  if (cap > 0)
    g = std::min(g, cap);
  g = std::min(std::min(g, tiles), (long long)gq::MAX_BLOCKS);
  return (int)std::max(g, 1LL);
}

static inline void row(const char *what, Stat s, const char *note = "")
{
  printf("  %-58s %8.2f us  (p10 %6.2f, p90 %6.2f) %s\n", what, s.median, s.p10, s.p90, note);
  fflush(stdout);
}

#endif
