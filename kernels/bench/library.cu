// library.cu — methods 17 and 18: the toolkit's own reductions, called the way
// their documentation shows, on the same data and stream.
#include "config.h"

#include <cub/device/device_reduce.cuh>
#ifdef HAVE_CUBLAS
#include <cublas_v2.h>
#endif

#include "job.cuh"

namespace gqb {
namespace {

// 17: cub::DeviceReduce, which picks its own launch shapes per architecture.
template <class In, class Op>
cudaError_t cub_reduce(void *temp, size_t &bytes, const In *in, typename Op::value_type *out, long long n,
                       cudaStream_t stream)
{
  if constexpr (Op::is_argmax)
    return cub::DeviceReduce::ArgMax(temp, bytes, in, &out->value, &out->index, n, stream);
  else if constexpr (std::is_same<Op, Sum<In>>::value)
    return cub::DeviceReduce::Sum(temp, bytes, in, out, n, stream);
  else if constexpr (std::is_same<Op, Min<In>>::value)
    return cub::DeviceReduce::Min(temp, bytes, in, out, n, stream);
  else
    return cub::DeviceReduce::Max(temp, bytes, in, out, n, stream);
}

} // namespace

Error library_temp_bytes(gqb_type type, gqb_op op, long long n, size_t *bytes)
{
  return dispatch(type, op, [&](auto types) -> Error {
    using Ty = decltype(types);
    *bytes = 0;
    GQB_TRY((cub_reduce<typename Ty::In, typename Ty::Op>(nullptr, *bytes, nullptr, nullptr, n, 0)));
    return nullptr;
  });
}

Error run_library(int method, gqb_type type, gqb_op op, Job &job)
{
  job.depth = 0; // not known: the caller assumes gqb_opaque_depth (bench_verify.h)
  if (method == 17)
    return dispatch(type, op, [&](auto types) -> Error {
      using Ty = decltype(types);
      size_t bytes = job.library_temp_bytes;
      GQB_TRY((cub_reduce<typename Ty::In, typename Ty::Op>(job.library_temp, bytes, static_cast<const typename Ty::In *>(job.in),
                                                            static_cast<typename Ty::T *>(job.out), job.n, job.stream)));
      return nullptr;
    });
#ifdef HAVE_CUBLAS
  // 18: cuBLAS's sum of |x_i| equals the sum for the bench's positive data.
  // Device pointer mode: the result stays in device memory, no synchronisation.
  if (method == 18 && op == GQB_SUM && (type == GQB_FLOAT || type == GQB_DOUBLE)) {
    cublasHandle_t handle = static_cast<cublasHandle_t>(job.cublas);
    if (!handle || cublasSetStream(handle, job.stream) != CUBLAS_STATUS_SUCCESS ||
        cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE) != CUBLAS_STATUS_SUCCESS)
      return "cuBLAS: no handle, or setting its stream failed";
    const cublasStatus_t s =
        type == GQB_DOUBLE
            ? cublasDasum(handle, (int)job.n, static_cast<const double *>(job.in), 1, static_cast<double *>(job.out))
            : cublasSasum(handle, (int)job.n, static_cast<const float *>(job.in), 1, static_cast<float *>(job.out));
    return s == CUBLAS_STATUS_SUCCESS ? nullptr : cublasGetStatusString(s);
  }
#endif
  return "not a library method for this type and operator";
}

Error cublas_open(void **handle)
{
#ifdef HAVE_CUBLAS
  cublasHandle_t h;
  const cublasStatus_t s = cublasCreate(&h);
  if (s != CUBLAS_STATUS_SUCCESS)
    return cublasGetStatusString(s);
  *handle = h;
#else
  *handle = nullptr;
#endif
  return nullptr;
}

void cublas_close(void *handle)
{
#ifdef HAVE_CUBLAS
  if (handle)
    cublasDestroy(static_cast<cublasHandle_t>(handle));
#else
  (void)handle;
#endif
}

} // namespace gqb
