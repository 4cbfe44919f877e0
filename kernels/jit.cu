// jit.cu — expression integrands on the GPU.
//
// One kind of module for every problem: the CUDA source of g (f = scale * g)
// generated from the expression's AST (lib/expr: whitelisted names and exact
// literals only, never the user's text) as the map of a point, twice (fast
// and exact functions), and the engine's reduce_kernel (engine/kernel.cuh,
// embedded as strings) instantiated for the problem's kernels by name
// expressions; compiled by NVRTC for the device's architecture, cached on
// disk (jit_cache.c), and loaded with the runtime's library API
// (cudaLibraryLoadData), whose kernels launch like any other, with the same
// Problem struct the host builds from the same headers.  The grid problems
// are here; Monte Carlo's are in mc.cu.  No libcuda is linked, so gpuquad
// still starts on machines without a driver.
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <new>
#include <string>

#include "cuda_check.cuh"
#include "grid.cuh"
#include "jit_module.cuh"

#include "../src/lib/jit_cache.h"
#include "../src/lib/expr/expr.h"

extern "C" const int gq_jit_header_count;
extern "C" const char *const gq_jit_header_names[];
extern "C" const char *const gq_jit_header_sources[];

struct gq_jit_module {
  std::string key;     // what was compiled: expression, kind of module, precision
  cudaLibrary_t library;
  cudaKernel_t kernels[gq::JIT_MAX_KERNELS]; // in the order the caller named them
  void *d_params;      // the module's gq_params, looked up on first use (nullptr: none yet)
  gq_jit_module *next;
};

namespace {

// A grid module's kernels: the sum with the fast functions (the large and
// the small shape, policy.cuh's Grid and GridSmall) or CUDA's, and the scan.
// The rerun with CUDA's functions keeps the large shape whatever the size:
// only the fast sum's bits are a packed problem's (grid_batch.cu).
enum { FAST = 0, EXACT = 1, SCAN = 2, FAST_SMALL = 3, GRID_KERNELS = 4 };
// A deterministic module's kernels: the exact sum (exact functions) and the scan.
constexpr int EXACT_SUM = 0, EXACT_SCAN = 1;

int nvrtc_status(nvrtcResult r, const char *what)
{
  if (r == NVRTC_SUCCESS)
    return GQ_SUCCESS;
  return gq_fail(GQ_ECUDA, "%s: %s", what, nvrtcGetErrorString(r));
}
#define GQ_NVRTC_TRY(call)                                           \
  do {                                                               \
    const int gq_s_ = nvrtc_status((call), #call);                   \
    if (gq_s_ != GQ_SUCCESS) {                                       \
      nvrtcDestroyProgram(&prog);                                    \
      return gq_s_;                                                  \
    }                                                                \
  } while (0)

// The grid kernels of the module: the sum (fast or exact functions; the
// fast one in both shapes), and the scan, for the device's policy row.
// rot (jit_grid_rotates): the fast sums take the rotating grid's source and
// shape; the rerun and the scan take the plain grid.
void grid_kernel_names(int cc_major, bool rot, int precision, std::string want[GRID_KERNELS])
{
  gq::with_rows(cc_major, [&](auto rows) {
    using G = typename decltype(rows)::Grid;
    using S = typename decltype(rows)::GridSmall;
    const char *real = precision == GQ_PRECISION_FLOAT ? "float" : "double";
    using R = typename decltype(rows)::GridRot;
    const std::string fast_source = gq::jit_grid_source(rot, precision);
    char buf[320];
    snprintf(buf, sizeof buf, "gq::TileCsum<%d, %d>", gq::GRID_KEYS, rot ? R::ITEMS : G::ITEMS);
    want[FAST] = rot ? gq::jit_kernel_name(R::BLOCK, R::ITEMS, R::MIN_BLOCKS, 1, buf, fast_source, "gq::Atomic")
                     : gq::jit_kernel_name(G::BLOCK, G::ITEMS, 1, 1, buf, fast_source, "gq::Atomic");
    snprintf(buf, sizeof buf, "gq::TileCsum<%d, %d>", gq::GRID_KEYS, G::ITEMS);
    want[EXACT] = gq::jit_kernel_name(G::BLOCK, G::ITEMS, 1, 0, buf, std::string("gq::GridSource<") + real + ">",
                                      "gq::Atomic");
    snprintf(buf, sizeof buf, "gq::TileCsum<%d, %d>", gq::GRID_KEYS, S::ITEMS);
    want[FAST_SMALL] = gq::jit_kernel_name(S::BLOCK, S::ITEMS, 1, 1, buf, fast_source, "gq::Atomic");
    want[SCAN] = gq::jit_kernel_name(G::BLOCK, G::ITEMS, 1, 0, "gq::NonfiniteThread",
                                     std::string("gq::GridSource<") + real + ">", "gq::LastBlock");
    return 0;
  });
}

// The kernels of a deterministic grid module (engine/exact_tile.cuh).
void exact_grid_kernel_names(int cc_major, int precision, std::string want[2])
{
  gq::with_rows(cc_major, [&](auto rows) {
    using G = typename decltype(rows)::Grid;
    const std::string src = std::string("gq::GridSource<") + (precision == GQ_PRECISION_FLOAT ? "float" : "double") + ">";
    char buf[320];
    snprintf(buf, sizeof buf, "gq::TileExact<%d, %d>", gq::GRID_KEYS, G::ITEMS);
    want[EXACT_SUM] = gq::jit_kernel_name(G::BLOCK, G::ITEMS, 1, 0, buf, src, "gq::ExactWords");
    want[EXACT_SCAN] = gq::jit_kernel_name(G::BLOCK, G::ITEMS, 1, 0, "gq::NonfiniteThread", src, "gq::LastBlock");
    return 0;
  });
}

// The expression of f as the module compiles it, and whether its
// parameters are symbolic (read from gq_params).
const gq_expr *module_expr(const gq_integrand *f, int *symbolic)
{
  *symbolic = f->gpu_g != nullptr;
  return f->gpu_g ? f->gpu_g : f->g;
}

} // namespace

// GPUQUAD_GRID_ROTATION=0 in the environment turns the rotation off (for
// benchmarks and tests that compare both paths).
bool gq::jit_grid_rotates(const gq_integrand *f, int precision)
{
  if (precision == GQ_PRECISION_FLOAT)
    return false;
  const char *env = getenv("GPUQUAD_GRID_ROTATION");
  if (env && strcmp(env, "0") == 0)
    return false;
  int symbolic = 0;
  const gq_expr *e = module_expr(f, &symbolic);
  return gq_expr_trig_count(e, symbolic) > 0;
}

std::string gq::jit_grid_source(bool rotates, int precision)
{
  if (rotates)
    return "gq::GridRotSource<gq_jit::fast::Trig>";
  return std::string("gq::GridSource<") + (precision == GQ_PRECISION_FLOAT ? "float" : "double") + ">";
}

// The one module source of (expression, precision): g twice, in
// gq_jit::fast (device_math's fast sqrt) and gq_jit::exact (CUDA's), the
// map of a point Map<FAST>, and every engine header a problem's kernels
// need.  Problems differ only in the kernels named (grid_kernel_names,
// mc.cu's), so one generator serves them all.
int gq::jit_module_source(const gq_integrand *f, int precision, std::string *src, bool batch)
{
  const int use_float = precision == GQ_PRECISION_FLOAT;
  char *g = nullptr;
  const int status = f->gpu_g ? gq_expr_emit_cuda_params(f->gpu_g, "g", use_float, &g)
                              : gq_expr_emit_cuda(f->g, "g", use_float, &g);
  if (status != GQ_SUCCESS)
    return gq_fail(status, "cannot generate CUDA source for the expression");
  // the rotation's functions (engine/grid_rot_source.cuh), in double only
  char *trig = nullptr;
  if (!use_float) {
    int symbolic = 0;
    const gq_expr *e = module_expr(f, &symbolic);
    if (gq_expr_emit_cuda_trig(e, symbolic, &trig) != GQ_SUCCESS) {
      free(g);
      return gq_fail(GQ_ENOMEM, "cannot generate CUDA source for the expression");
    }
  }
  const std::string real = use_float ? "float" : "double";
  // The parameters' values of the problem at hand (jit_load_integrand).
  // A batch module's are each block's problem's, in shared memory
  // (engine/batch_kernel.cuh): g finds gq_jit::gq_params first.
  char params[96] = "";
  if (batch)
    snprintf(params, sizeof params, "namespace gq_jit { __shared__ double gq_params[%d]; }\n", GQ_EXPR_MAX_PARAMS);
  else if (f->gpu_g)
    snprintf(params, sizeof params, "extern \"C\" { __constant__ double gq_params[%d]; }\n", GQ_EXPR_MAX_PARAMS);
  *src = std::string("// gpuquad expression kernels (generated)\n"
                     "#include \"kernel.cuh\"\n"
                     "#include \"grid_source.cuh\"\n"
                     "#include \"philox_source.cuh\"\n"
                     "#include \"product_source.cuh\"\n"
                     "#include \"tile_accumulators.cuh\"\n"
                     "#include \"device_math.cuh\"\n") +
         (trig ? "#include \"grid_rot_source.cuh\"\n" : "") + params +
         "namespace gq_jit {\n"
         "namespace fast {\n"
         "__device__ __forceinline__ double sqrt(double v) { return gq::fast_sqrt(v); }\n"
         "__device__ __forceinline__ float sqrt(float v) { return ::sqrtf(v); }\n" +
         g + (trig ? trig : "") + "}\nnamespace exact {\n" + g + "}\n" +
         "template <int FAST> struct Map {\n"
         "  __device__ __forceinline__ " + real + " operator()(const " + real + " *x) const {\n"
         "    return FAST ? fast::g(x) : exact::g(x);\n"
         "  }\n" +
         (batch ? "  __device__ __forceinline__ static void load(const double *v, unsigned n) {\n"
                  "    for (unsigned j = threadIdx.x; j < n; j += blockDim.x)\n"
                  "      gq_params[j] = v[j];\n"
                  "  }\n"
                : "") +
         "};\n"
         "}\n";
  free(g);
  free(trig);
  return GQ_SUCCESS;
}

// The name expression of reduce_kernel for a problem of the module (the
// map is the module's Map<fast>).
std::string gq::jit_kernel_name(int block, int items, int min_blocks, int fast, const std::string &thread,
                                const std::string &source, const char *level)
{
  char buf[128];
  snprintf(buf, sizeof buf, "&gq::reduce_kernel<%d, %d, %d, false, gq_jit::Map<%d>, ", block, items, min_blocks, fast);
  return buf + thread + ", " + source + ", " + level + " >";
}

// NVRTC: source -> cubin for sm_XY, and the lowered names of the kernels
// named by the name expressions want[0..count-1].
int gq::jit_compile(int cc_major, int cc_minor, const std::string &src, const std::string *want, int count,
                    std::string *cubin, std::string *names)
{
  nvrtcProgram prog = nullptr;
  GQ_NVRTC_TRY(nvrtcCreateProgram(&prog, src.c_str(), "gpuquad_expression.cu", gq_jit_header_count,
                                  gq_jit_header_sources, gq_jit_header_names));
  for (int k = 0; k < count; k++)
    GQ_NVRTC_TRY(nvrtcAddNameExpression(prog, want[k].c_str()));
  char arch[32];
  snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", cc_major, cc_minor);
  const char *options[] = {arch, "--std=c++17", "-default-device", "--fmad=false"};
  const nvrtcResult r = nvrtcCompileProgram(prog, jit_exact_module(src) ? 4 : 3, options);
  if (r != NVRTC_SUCCESS) {
    size_t len = 0;
    nvrtcGetProgramLogSize(prog, &len);
    std::string log(len, '\0');
    nvrtcGetProgramLog(prog, &log[0]);
    nvrtcDestroyProgram(&prog);
    const size_t nl = log.find('\n');
    return gq_fail(GQ_ECUDA, "NVRTC could not compile the expression kernel: %s",
                   log.substr(0, nl == std::string::npos ? 300 : nl).c_str());
  }
  size_t size = 0;
  GQ_NVRTC_TRY(nvrtcGetCUBINSize(prog, &size));
  cubin->resize(size);
  GQ_NVRTC_TRY(nvrtcGetCUBIN(prog, &(*cubin)[0]));
  for (int k = 0; k < count; k++) {
    const char *lowered = nullptr;
    GQ_NVRTC_TRY(nvrtcGetLoweredName(prog, want[k].c_str(), &lowered));
    names[k] = lowered;
  }
  nvrtcDestroyProgram(&prog);
  return GQ_SUCCESS;
}

namespace {

// The library and kernels of m from cubin; the runtime's error, not yet a
// status, so that a cached image the driver refuses can be retried quietly.
cudaError_t load_library(gq_jit_module *m, const std::string &cubin, const std::string *names, int count)
{
  cudaLibrary_t library = nullptr;
  cudaError_t e = cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (e != cudaSuccess)
    return e;
  for (int k = 0; e == cudaSuccess && k < count; k++)
    e = cudaLibraryGetKernel(&m->kernels[k], library, names[k].c_str());
  if (e != cudaSuccess) {
    cudaLibraryUnload(library);
    return e;
  }
  m->library = library;
  return cudaSuccess;
}

// m loaded from the disk cache: GQ_JIT_CACHE_OK, or why not.  The entry is
// verified (jit_cache.c); one that still does not load (the lowered names
// are the blob's first count lines, the cubin the rest) counts as invalid,
// and the failed call's error is cleared so no later check reports it.
int cached_module(const std::string &cache_key, gq_jit_module *m, int count)
{
  void *cached = nullptr;
  size_t cached_size = 0;
  const int found = gq_jit_cache_load(cache_key.c_str(), &cached, &cached_size);
  if (found != GQ_JIT_CACHE_OK)
    return found;
  const std::string blob(static_cast<char *>(cached), cached_size);
  free(cached);
  std::string names[gq::JIT_MAX_KERNELS];
  size_t pos = 0;
  for (int k = 0; k < count; k++) {
    const size_t nl = blob.find('\n', pos);
    if (nl == std::string::npos)
      return GQ_JIT_CACHE_INVALID;
    names[k] = blob.substr(pos, nl - pos);
    pos = nl + 1;
  }
  if (pos >= blob.size())
    return GQ_JIT_CACHE_INVALID;
  if (load_library(m, blob.substr(pos), names, count) != cudaSuccess) {
    cudaGetLastError();
    return GQ_JIT_CACHE_INVALID;
  }
  return GQ_JIT_CACHE_OK;
}

} // namespace

// The module for key: already loaded in this context, or from the disk
// cache, or compiled now from src.  The cache entry is keyed by the source,
// the kernel names (which carry the launch policy), the architecture and the
// versions of gpuquad and NVRTC.
int gq::jit_load(gq_cuda_state *st, const std::string &key, const std::string &src, const std::string *want,
                 int count, gq_jit_module **out, gq_grid_info *info)
{
  for (gq_jit_module *m = st->modules; m; m = m->next)
    if (m->key == key) {
      *out = m;
      info->jit = GQ_JIT_LOADED;
      info->compile_ms = 0.0;
      return GQ_SUCCESS;
    }
  if (count < 1 || count > JIT_MAX_KERNELS)
    return gq_fail(GQ_EINVAL, "jit_load: %d kernels", count);

  const double t0 = gq_wall_ms();
  int nvrtc_major = 0, nvrtc_minor = 0;
  nvrtcVersion(&nvrtc_major, &nvrtc_minor);
  char tag[160];
  snprintf(tag, sizeof tag, "\n// sm_%d%d gpuquad %s nvrtc %d.%d%s\n", st->cc_major, st->cc_minor, gq_version(),
           nvrtc_major, nvrtc_minor, jit_exact_module(src) ? " --fmad=false" : "");
  std::string cache_key = src + tag;
  for (int k = 0; k < count; k++)
    cache_key += "// " + want[k] + "\n";

  gq_jit_module *m = new (std::nothrow) gq_jit_module();
  if (!m)
    return gq_fail(GQ_ENOMEM, "cannot allocate a JIT module");
  m->key = key;
  std::string cubin, names[JIT_MAX_KERNELS];
  const int cache = st->jit_cache ? cached_module(cache_key, m, count) : GQ_JIT_CACHE_FAILED;
  int status = GQ_SUCCESS;
  if (cache == GQ_JIT_CACHE_OK) {
    info->jit = GQ_JIT_HIT;
  } else {
    status = jit_compile(st->cc_major, st->cc_minor, src, want, count, &cubin, names);
    if (status == GQ_SUCCESS)
      status = gq::cuda_status(load_library(m, cubin, names, count), "loading the compiled kernels");
    if (status != GQ_SUCCESS) {
      delete m;
      return status;
    }
    info->jit = !st->jit_cache                    ? GQ_JIT_OFF
                : cache == GQ_JIT_CACHE_UNSAFE  ? GQ_JIT_UNSAFE
                : cache == GQ_JIT_CACHE_INVALID ? GQ_JIT_REJECTED
                                                : GQ_JIT_MISS;
    if (st->jit_cache && cache != GQ_JIT_CACHE_UNSAFE) {
      std::string blob;
      for (int k = 0; k < count; k++)
        blob += names[k] + "\n";
      blob += cubin;
      gq_jit_cache_store(cache_key.c_str(), blob.data(), blob.size());
    }
  }
  m->next = st->modules;
  st->modules = m;
  *out = m;
  info->compile_ms = gq_wall_ms() - t0;
  return GQ_SUCCESS;
}

cudaKernel_t gq::jit_kernel(const gq_jit_module *m, int k) { return m->kernels[k]; }

// The module of f (jit_load under f's key) with f's parameter values
// written to its gq_params on the context's stream, so that the next
// launch on that stream reads them: one module for every value.
int gq::jit_load_integrand(gq_cuda_state *st, const gq_integrand *f, const char *kind, const std::string &src,
                           const std::string *want, int count, gq_jit_module **out, gq_grid_info *info)
{
  const int status = jit_load(st, std::string(gq_integrand_jit_key(f)) + kind, src, want, count, out, info);
  const double *values = nullptr;
  const int nparams = gq_integrand_gpu_params(f, &values);
  if (status != GQ_SUCCESS || nparams == 0)
    return status;
  gq_jit_module *m = *out;
  if (!m->d_params) {
    size_t size = 0;
    const cudaError_t e = cudaLibraryGetGlobal(&m->d_params, &size, m->library, "gq_params");
    if (e == cudaErrorSymbolNotFound) { // the compiler found g reads none: nothing to write
      cudaGetLastError();
      m->d_params = nullptr;
      return GQ_SUCCESS;
    }
    GQ_CUDA_TRY(e);
    if (size < (size_t)nparams * sizeof(double))
      return gq_fail(GQ_ECUDA, "the expression module's parameter array holds %zu bytes", size);
  }
  GQ_CUDA_TRY(cudaMemcpyAsync(m->d_params, values, (size_t)nparams * sizeof(double), cudaMemcpyHostToDevice,
                              st->stream));
  return GQ_SUCCESS;
}

namespace {

// Whether a grid request's fast sums rotate (the FAST kernel's shape and
// the module's key): never under --deterministic, whose module is its own.
bool fast_rotates(const gq_grid_sum *p) { return !p->deterministic && gq::jit_grid_rotates(p->f, p->precision); }

// The grid module of (expression, precision, deterministic): a
// deterministic context's module is its own (the fast one compiles no
// exact kernels).  rot: jit_grid_rotates, decided once by the caller.
int load(gq_cuda_state *st, const gq_grid_sum *p, bool rot, gq_jit_module **out, gq_grid_info *info)
{
  // "|rot": the fast sums rotate (their kernels' names differ)
  const std::string kind = std::string(p->precision == GQ_PRECISION_FLOAT ? "|grid|float" : "|grid|double") +
                           (p->deterministic ? "|exact" : rot ? "|rot" : "");
  std::string src, want[GRID_KERNELS];
  const int status = gq::jit_module_source(p->f, p->precision, &src);
  if (status != GQ_SUCCESS)
    return status;
  if (p->deterministic) {
    exact_grid_kernel_names(st->cc_major, p->precision, want);
    return gq::jit_load_integrand(st, p->f, kind.c_str(), GQ_JIT_EXACT_PREFIX + src, want, 2, out, info);
  }
  grid_kernel_names(st->cc_major, rot, p->precision, want);
  return gq::jit_load_integrand(st, p->f, kind.c_str(), src, want, GRID_KERNELS, out, info);
}

} // namespace

extern "C" int gq_jit_grid_sum(gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[GQ_GRID_KEYS], gq_grid_info *info)
{
  if (!p->f->g)
    return gq_fail(GQ_EINVAL, "the integrand has no expression to compile");
  gq_jit_module *m = nullptr;
  const bool rot = fast_rotates(p);
  int status = load(st, p, rot, &m, info);
  if (status != GQ_SUCCESS)
    return status;
  return gq::with_rows(st->cc_major, [&](auto rows) {
    using Rows = decltype(rows);
    using G = typename Rows::Grid;
    using S = typename Rows::GridSmall;
    if (p->deterministic)
      return gq::grid_exact_launch(st, (const void *)m->kernels[EXACT_SUM], G::BLOCK, G::ITEMS, p, &info->ms);
    using R = typename Rows::GridRot;
    const bool small = gq::grid_small<Rows>(p->last - p->first + 1);
    int s = small ? gq::grid_sum_launch(st, (const void *)m->kernels[FAST_SMALL], S::BLOCK, S::ITEMS, p, sums, &info->ms)
            : rot ? gq::grid_sum_launch(st, (const void *)m->kernels[FAST], R::BLOCK, R::ITEMS, p, sums, &info->ms)
                  : gq::grid_sum_launch(st, (const void *)m->kernels[FAST], G::BLOCK, G::ITEMS, p, sums, &info->ms);
    if (s != GQ_SUCCESS || gq::sums_finite(sums))
      return s;
    // Not finite: again with CUDA's own functions (see grid_sum.cu).
    const double first_ms = info->ms;
    s = gq::grid_sum_launch(st, (const void *)m->kernels[EXACT], G::BLOCK, G::ITEMS, p, sums, &info->ms);
    info->ms += first_ms;
    return s;
  });
}

extern "C" int gq_jit_grid_nonfinite(gq_cuda_state *st, const gq_grid_sum *p, uint64_t *count, uint64_t *first)
{
  gq_jit_module *m = nullptr;
  gq_grid_info info = {0, 0, GQ_JIT_NONE};
  // the sum's module (the same key), which the sum has loaded
  const int status = load(st, p, fast_rotates(p), &m, &info);
  if (status != GQ_SUCCESS)
    return status;
  return gq::with_rows(st->cc_major, [&](auto rows) {
    using G = typename decltype(rows)::Grid;
    return gq::grid_nonfinite_launch(st, (const void *)m->kernels[p->deterministic ? EXACT_SCAN : SCAN], G::BLOCK,
                                     G::ITEMS, p, count, first);
  });
}

void gq_jit_release(gq_cuda_state *st)
{
  for (gq_jit_module *m = st->modules, *next; m; m = next) {
    next = m->next;
    cudaLibraryUnload(m->library);
    delete m;
  }
  st->modules = nullptr;
}

// For tests without a GPU (NVRTC needs none): generate and compile the kernel
// of f for sm_<cc>, and report the cubin's size.
extern "C" int gq_jit_compile_only(const gq_integrand *f, int precision, int cc, size_t *cubin_size)
{
  std::string src, cubin, names[GRID_KERNELS], want[GRID_KERNELS];
  int status = gq::jit_module_source(f, precision, &src);
  grid_kernel_names(cc / 10, gq::jit_grid_rotates(f, precision), precision, want);
  if (status == GQ_SUCCESS)
    status = gq::jit_compile(cc / 10, cc % 10, src, want, GRID_KERNELS, &cubin, names);
  *cubin_size = cubin.size();
  return status;
}

// The same for the deterministic grid module (tests/t_exact_jit).
extern "C" int gq_jit_compile_exact_only(const gq_integrand *f, int precision, int cc, size_t *cubin_size)
{
  std::string src, cubin, names[2], want[2];
  int status = gq::jit_module_source(f, precision, &src);
  exact_grid_kernel_names(cc / 10, precision, want);
  if (status == GQ_SUCCESS)
    status = gq::jit_compile(cc / 10, cc % 10, GQ_JIT_EXACT_PREFIX + src, want, 2, &cubin, names);
  *cubin_size = cubin.size();
  return status;
}
