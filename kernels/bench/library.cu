// library.cu — methods 17 and 18: the toolkit's own reductions, called the way
// their documentation shows, on the same data and stream.
#include "config.h"

#include <cub/device/device_reduce.cuh>
#ifdef HAVE_CUBLAS
#include <dlfcn.h>

#include <string>

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

#ifdef HAVE_CUBLAS
// cuBLAS is opened with dlopen the first time method 18 runs, never linked:
// linking it made every gpuquad process map cuBLAS and cuBLASLt (with NVRTC
// ~250 MB resident, 0.1 s) before main, --version included, for one bench
// method.  Kept in `gpuquad bench` rather than a bench/ program so that the
// table still sets the toolkit's two reductions side by side on the same data.
// The header gives the prototypes; <cublas_v2.h> maps each name to its _v2
// symbol, which GQB_SYMBOL spells for dlsym.
#define GQB_CUBLAS_ENTRIES(X) \
  X(cublasCreate) X(cublasDestroy) X(cublasSetStream) X(cublasSetPointerMode) X(cublasDasum) X(cublasSasum) \
  X(cublasGetStatusString)
#define GQB_STRING(name) #name
#define GQB_SYMBOL(name) GQB_STRING(name)

struct Cublas {
#define GQB_CUBLAS_POINTER(name) decltype(&::name) name = nullptr;
  GQB_CUBLAS_ENTRIES(GQB_CUBLAS_POINTER)
  std::string missing; // why cuBLAS could not be loaded; empty once it is
};

// Opened once and kept for the life of the process: the soname configure read
// from the toolkit, then the toolkit's library folder.
const Cublas &cublas()
{
  static const Cublas loaded = [] {
    Cublas c;
    void *lib = dlopen(GQ_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const std::string first = dlerror();
      if (!(lib = dlopen(GQ_CUDA_LIBDIR "/" GQ_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL))) {
        c.missing = "cannot load cuBLAS: " + first + "; " + dlerror();
        return c;
      }
    }
#define GQB_CUBLAS_LOOKUP(name)                                               \
    if (!(*reinterpret_cast<void **>(&c.name) = dlsym(lib, GQB_SYMBOL(name)))) \
      c.missing = "cannot load cuBLAS: " GQ_CUBLAS_SONAME " has no " GQB_SYMBOL(name);
    GQB_CUBLAS_ENTRIES(GQB_CUBLAS_LOOKUP)
    return c;
  }();
  return loaded;
}
#endif

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
    const Cublas &api = cublas();
    cublasHandle_t handle = static_cast<cublasHandle_t>(job.cublas);
    if (!handle || api.cublasSetStream(handle, job.stream) != CUBLAS_STATUS_SUCCESS ||
        api.cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE) != CUBLAS_STATUS_SUCCESS)
      return "cuBLAS: no handle, or setting its stream failed";
    const cublasStatus_t s =
        type == GQB_DOUBLE
            ? api.cublasDasum(handle, (int)job.n, static_cast<const double *>(job.in), 1, static_cast<double *>(job.out))
            : api.cublasSasum(handle, (int)job.n, static_cast<const float *>(job.in), 1, static_cast<float *>(job.out));
    return s == CUBLAS_STATUS_SUCCESS ? nullptr : api.cublasGetStatusString(s);
  }
#endif
  return "not a library method for this type and operator";
}

Error cublas_open(void **handle)
{
  *handle = nullptr;
#ifdef HAVE_CUBLAS
  const Cublas &api = cublas();
  if (!api.missing.empty())
    return api.missing.c_str();
  cublasHandle_t h;
  const cublasStatus_t s = api.cublasCreate(&h);
  if (s != CUBLAS_STATUS_SUCCESS)
    return api.cublasGetStatusString(s);
  *handle = h;
  return nullptr;
#else
  return "this gpuquad was built without cuBLAS";
#endif
}

void cublas_close(void *handle)
{
#ifdef HAVE_CUBLAS
  if (handle)
    cublas().cublasDestroy(static_cast<cublasHandle_t>(handle));
#else
  (void)handle;
#endif
}

} // namespace gqb
