// job.cuh — what every bench method gets (one reduction to do, with buffers
// allocated once by the driver), the launch shape, and the dispatch from the
// run-time type and operator to the kernels' template arguments.
#ifndef GQB_JOB_CUH
#define GQB_JOB_CUH

#include <cuda_runtime.h>

#include "../../src/cli/bench.h"
#include "ops.cuh"

namespace gqb {

// One shape for every method, so that the methods differ only in what each
// changes.  256 threads x 8 independent loads: 16 KiB of doubles in flight per
// block, 8 blocks resident per multiprocessor.  Not tuned per method.
constexpr int BLOCK = 256;
constexpr int ITEMS = 8;

struct Job {
  const void *in;          // n elements of the data type (device)
  long long n;             // >= 1
  void *out;               // one value_type (device), the result
  void *partials[2];       // ping-pong scratch, partial_capacity values each
  long long partial_capacity;
  void *h_partials;        // pinned host scratch of the same size (method 12)
  unsigned *counter;       // zero between launches (method 14 leaves it zero)
  int *lock;               // method 13's spin lock
  void *library_temp;      // CUB's temporary storage
  size_t library_temp_bytes;
  void *cublas;            // cublasHandle_t, or NULL
  cudaStream_t stream;
  int sms;
  // filled in by the method:
  unsigned long long depth; // height of the addition tree (bench_verify.h)
  bool result_on_host;      // the result is in h_partials[0], not in out
};

// NULL on success, else what failed.
using Error = const char *;
#define GQB_TRY(call)                                  \
  do {                                                 \
    const cudaError_t gqb_e_ = (call);                 \
    if (gqb_e_ != cudaSuccess)                         \
      return cudaGetErrorString(gqb_e_);               \
  } while (0)
#define GQB_LAUNCHED() GQB_TRY(cudaGetLastError())

template <class In_, class Op_> struct Types {
  using In = In_;
  using Op = Op_;
  using T = typename Op_::value_type;
};

// Calls f(Types<In, Op>()) for the run-time type and operator.
template <class In, class F> Error dispatch_op(gqb_op op, F &&f)
{
  switch (op) {
  case GQB_SUM:
    return f(Types<In, Sum<In>>());
  case GQB_MIN:
    return f(Types<In, Min<In>>());
  case GQB_MAX:
    return f(Types<In, Max<In>>());
  case GQB_ARGMAX:
    if constexpr (std::is_same<In, double>::value)
      return f(Types<double, ArgMax>());
    break;
  default:
    break;
  }
  return "operator not available for this type";
}
template <class F> Error dispatch(gqb_type type, gqb_op op, F &&f)
{
  switch (type) {
  case GQB_INT32:
    return dispatch_op<int>(op, f);
  case GQB_INT64:
    return dispatch_op<long long>(op, f);
  case GQB_FLOAT:
    return dispatch_op<float>(op, f);
  case GQB_DOUBLE:
    return dispatch_op<double>(op, f);
  default:
    return "unknown type";
  }
}

template <class T> __global__ void set_value(T *out, T value) { *out = value; }

constexpr unsigned long long log2_ceil(unsigned long long x)
{
  unsigned long long k = 0;
  while ((1ull << k) < x)
    k++;
  return k;
}

// Families of methods (one .cu each).  Each returns NULL, or what failed.
Error run_classic(int method, gqb_type type, gqb_op op, Job &job);  // 1-7
Error run_modular(int method, gqb_type type, gqb_op op, Job &job);  // 8-11, 16
Error run_combine(int method, gqb_type type, gqb_op op, Job &job);  // 12-15
Error run_library(int method, gqb_type type, gqb_op op, Job &job);  // 17, 18
// Bytes of temporary storage method 17 needs for this reduction.
Error library_temp_bytes(gqb_type type, gqb_op op, long long n, size_t *bytes);
// The data (generate.cu says what it is) and the bandwidth probe: a copy of
// the first bytes (a multiple of 16) of d_in to d_out.
Error generate(gqb_type type, void *d_x, long long n, int sms, cudaStream_t stream);
Error copy(const void *d_in, void *d_out, size_t bytes, int sms, cudaStream_t stream);
// A cuBLAS handle, cuBLAS loaded on the first call (library.cu); on failure
// *handle is NULL and the error says why (not installed, not loadable, ...).
Error cublas_open(void **handle);
void cublas_close(void *handle);

} // namespace gqb
#endif
