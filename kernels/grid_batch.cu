// grid_batch.cu — many grid sums of one expression in one launch (issue 23):
// the batch module of the expression (jit.cu's module source with each
// block's parameters in shared memory, and engine/batch_kernel.cuh's
// kernel), launched over chunks of problems.
//
// A problem is packed only when its single launch (grid_sum.cu) would take
// one block per tile: tiles <= multiprocessors, for then the resident grid
// is the tile count whatever the kernel's occupancy, and the packed kernel
// gives each problem exactly as many blocks.  The launch shape is the
// single launch's: policy.cuh's GridSmall for a grid of at most one large
// tile (grid_small), Grid otherwise; a sweep's problems share their count of
// points, so one module serves the sweep.  Only the fast functions run
// here: a problem whose sums come out NaN or Inf is left to its single run,
// which reruns it with CUDA's own functions as it always does.
#include <stdlib.h>
#include <string.h>

#include <string>

#include "grid.cuh"
#include "jit_module.cuh"
#include "engine/batch_kernel.cuh"
#include "engine/grid_source.cuh"
#include "engine/launch.cuh"
#include "engine/tile_accumulators.cuh"

#include "../src/lib/expr/expr.h"
extern "C" {
#include "../src/lib/packed.h"
}

namespace {

// Problems per launch: a chunk's sums, limits and parameters stay below
// ~80 MB of device memory, and its grid below 2^31 blocks.
constexpr size_t CHUNK = (size_t)1 << 20;

// Blocks per multiprocessor the batch kernel is compiled to keep resident
// (__launch_bounds__; the single launch's shape otherwise: the results do
// not change).  A packed block has little work (a tiny problem's block
// evaluates at most two points a thread), so its latency is hidden by
// other blocks.  H200, 2026-11-24, bench_batch (10,000 x 10^5 device ms;
// 2*10^5 problems of 10^3 points against one of 2*10^8, throughput):
// 1: 4.71 ms, 16.4%; 2: 3.39, 26.9%; 3: 3.23, 33.1%; 4: 3.29, 34.6%.
// GridSmall's blocks carry its own MIN_BLOCKS.
#ifndef GQ_BATCH_MIN_BLOCKS
#define GQ_BATCH_MIN_BLOCKS 3
#endif
constexpr int BATCH_MIN_BLOCKS = GQ_BATCH_MIN_BLOCKS; // -DGQ_BATCH_MIN_BLOCKS=N: a sweep build's

struct DeviceBuffers {
  void *base = nullptr;
  ~DeviceBuffers() { cudaFree(base); }
};

// The name of the batch kernel of Shape.
template <class Shape> std::string batch_kernel_name(int min_blocks, const std::string &source)
{
  char name[320];
  snprintf(name, sizeof name, "&gq::batch_grid_kernel<%d, %d, %d, gq_jit::Map<1>, gq::TileCsum<%d, %d>, %s >",
           Shape::BLOCK, Shape::ITEMS, min_blocks, gq::GRID_KEYS, Shape::ITEMS, source.c_str());
  return name;
}

// The batch module of f for the large or the small shape: its source and
// the name of its one kernel.
int batch_module(int cc_major, const gq_integrand *f, int precision, bool small, bool rot, std::string *src,
                 std::string want[1])
{
  const int status = gq::jit_module_source(f, precision, src, true);
  if (status != GQ_SUCCESS)
    return status;
  *src = "#include \"batch_kernel.cuh\"\n" + *src;
  return gq::with_rows(cc_major, [&](auto rows) {
    using Rows = decltype(rows);
    using S = typename Rows::GridSmall;
    const std::string source = gq::jit_grid_source(rot, precision); // the single launch's (jit.cu)
    using R = typename Rows::GridRot; // the rotating grid's own registers (policy.cuh)
    want[0] = small ? batch_kernel_name<S>(S::MIN_BLOCKS, source)
              : rot ? batch_kernel_name<R>(R::MIN_BLOCKS, source)
                    : batch_kernel_name<typename Rows::Grid>(BATCH_MIN_BLOCKS, source);
    return GQ_SUCCESS;
  });
}

} // namespace

// For tests without a GPU (NVRTC needs none): the batch module of f for
// sm_<cc> and the large or small shape, compiled, and its cubin's size.
extern "C" int gq_jit_batch_compile_only(const gq_integrand *f, int precision, int small, int cc, size_t *cubin_size)
{
  std::string src, want[1], cubin, names[1];
  int status = batch_module(cc / 10, f, precision, small != 0, gq::jit_grid_rotates(f, precision), &src, want);
  if (status == GQ_SUCCESS)
    status = gq::jit_compile(cc / 10, cc % 10, src, want, 1, &cubin, names);
  *cubin_size = cubin.size();
  return status;
}

extern "C" int gq_cuda_grid_sum_batch(gq_cuda_state *st, const gq_grid_batch *b, gq_csum (*sums)[GQ_GRID_KEYS],
                                      gq_grid_info *info, int *packed)
{
  *packed = 0;
  info->ms = info->compile_ms = 0.0;
  info->jit = GQ_JIT_NONE;
  const gq_grid_sum *p = &b->grid;
  if (!p->f->g || p->deterministic || b->count == 0 || b->nparams < 0 || b->nparams > GQ_EXPR_MAX_PARAMS)
    return GQ_SUCCESS;
  return gq::with_rows(st->cc_major, [&](auto rows) -> int {
    using Rows = decltype(rows);
    const unsigned long long points = p->last - p->first + 1;
    const bool small = gq::grid_small<Rows>(points);
    // the single launch's shape (jit.cu): small, rotating or the grid's
    const bool rot = gq::jit_grid_rotates(p->f, p->precision);
    const int block = small ? Rows::GridSmall::BLOCK : rot ? Rows::GridRot::BLOCK : Rows::Grid::BLOCK,
              items = small ? Rows::GridSmall::ITEMS : rot ? Rows::GridRot::ITEMS : Rows::Grid::ITEMS;
    const unsigned long long tiles = (points + (unsigned long long)block * items - 1) / ((unsigned long long)block * items);
    if (tiles > (unsigned long long)st->sms)
      return GQ_SUCCESS; // a large problem: its own launch, in turn
    std::string src, want[1];
    int status = batch_module(st->cc_major, p->f, p->precision, small, rot, &src, want);
    if (status != GQ_SUCCESS)
      return status;
    gq_jit_module *m = nullptr;
    status = gq::jit_load(st, std::string(gq_integrand_jit_key(p->f)) + "|batch|" +
                                  (p->precision == GQ_PRECISION_FLOAT ? "float" : "double") + (small ? "|small" : "") +
                                  (rot ? "|rot" : ""),
                          src, want, 1, &m, info);
    if (status != GQ_SUCCESS)
      return status;
    const void *kernel = (const void *)gq::jit_kernel(m, 0);

    const size_t chunk = b->count < CHUNK ? b->count : CHUNK;
    const size_t sums_bytes = chunk * gq::GRID_KEYS * sizeof(gq_csum), ah_bytes = chunk * 2 * sizeof(double);
    const size_t params_bytes = chunk * (size_t)b->nparams * sizeof(double);
    DeviceBuffers d;
    GQ_CUDA_TRY(cudaSetDevice(st->device));
    GQ_CUDA_TRY(cudaMalloc(&d.base, sums_bytes + ah_bytes + params_bytes));
    gq_csum *d_sums = static_cast<gq_csum *>(d.base);
    double *d_ah = reinterpret_cast<double *>(static_cast<char *>(d.base) + sums_bytes);
    double *d_params = reinterpret_cast<double *>(static_cast<char *>(d.base) + sums_bytes + ah_bytes);

    gq::BatchProblem<gq::GridSource<double>> prob{};
    static_assert(sizeof(gq::GridSource<double>) == sizeof(gq::GridSource<float>), "one layout for every Real");
    prob.src.first = (double)p->first;
    prob.src.n = points;
    prob.ah = d_ah;
    prob.params = d_params;
    prob.sums = d_sums;
    prob.per_problem = (unsigned)tiles;
    prob.nparams = (unsigned)b->nparams;
    const unsigned long long rotate = p->first % gq::GRID_KEYS;
    for (size_t done = 0; done < b->count; done += chunk) {
      const size_t here = b->count - done < chunk ? b->count - done : chunk;
      GQ_CUDA_TRY(cudaMemcpyAsync(d_ah, b->ah + 2 * done, here * 2 * sizeof(double), cudaMemcpyHostToDevice,
                                  st->stream));
      if (b->nparams > 0)
        GQ_CUDA_TRY(cudaMemcpyAsync(d_params, b->params + done * (size_t)b->nparams,
                                    here * (size_t)b->nparams * sizeof(double), cudaMemcpyHostToDevice, st->stream));
      GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
      GQ_CUDA_TRY(cudaMemsetAsync(d_sums, 0, here * gq::GRID_KEYS * sizeof(gq_csum), st->stream));
      status = gq::launch<false>(st, kernel, (unsigned)(here * tiles), block, prob, st->stream);
      if (status != GQ_SUCCESS)
        return status;
      GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
      GQ_CUDA_TRY(cudaMemcpyAsync(sums + done, d_sums, here * gq::GRID_KEYS * sizeof(gq_csum), cudaMemcpyDeviceToHost,
                                  st->stream));
      GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
      float elapsed = 0.0f;
      GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, st->start, st->stop));
      info->ms += elapsed;
      // key k summed the indices first + k (mod KEYS), as grid_sum_launch's
      for (size_t i = done; i < done + here; i++) {
        gq_csum raw[gq::GRID_KEYS];
        memcpy(raw, sums[i], sizeof raw);
        for (unsigned k = 0; k < gq::GRID_KEYS; k++)
          sums[i][(rotate + k) % gq::GRID_KEYS] = raw[k];
      }
    }
    *packed = 1;
    return GQ_SUCCESS;
  });
}
