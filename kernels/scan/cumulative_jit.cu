// cumulative_jit.cu — gq_cumulative_integral on a CUDA context: the
// expression's module (jit.cu's source, gq::jit_module_source) with
// cumulative.cuh appended, its two kernels the look-back scan over the
// grid's values (trapezoid) or Simpson items with the cumulative sink,
// compiled by NVRTC and cached like the
// grid's kernels (gq::jit_load), and launched here.  CUDA's own functions
// (Map<0>, the "exact" set): a cumulative integral is written once, with no
// fast pass to redo.
#include <stdio.h>

#include <string>

#include "../cuda_check.cuh"
#include "../jit_module.cuh"
#include "cumulative.cuh"
#include "scan_policy.cuh"
#include "scan_state.cuh"

#include "../../src/lib/scan_internal.h"

namespace {

using namespace gq::scan;

// The host's stand-in for the module's Map<0>: the problem's layout does not
// depend on the map (GridItems holds none).
struct HostMap {};
using Shape = CumulativeShape::type;
using Problem = ScanProblem<DoubleSum, GridItems<HostMap>, CumulativeSink>;
static_assert(sizeof(SimpsonItems<HostMap>) == sizeof(GridItems<HostMap>), "one problem layout for both rules");

enum { TRAPEZOID_KERNEL = 0, SIMPSON_KERNEL = 1, KERNELS = 2 };

void kernel_names(std::string want[KERNELS])
{
  const char *const items[KERNELS] = {"GridItems", "SimpsonItems"};
  for (int k = 0; k < KERNELS; k++) {
    char buf[256];
    snprintf(buf, sizeof buf,
             "&gq::scan::lookback_kernel<gq::scan::DoubleSum, gq::scan::%s<gq_jit::Map<0> >, "
             "gq::scan::CumulativeSink, %d, %d, %d>",
             items[k], Shape::BLOCK, Shape::ITEMS, Shape::MIN_BLOCKS);
    want[k] = buf;
  }
}

int module_source(const gq_integrand *f, std::string *src)
{
  const int status = gq::jit_module_source(f, GQ_PRECISION_DOUBLE, src);
  if (status == GQ_SUCCESS)
    *src += "#include \"cumulative.cuh\"\n";
  return status;
}

} // namespace

extern "C" int gq_cuda_cumulative(gq_cuda_state *st, const gq_cumulative_call *c, gq_grid_info *info)
{
  if (!c->f->g)
    return gq_fail(GQ_EINVAL, "the integrand has no expression to compile");
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  std::string src;
  int status = module_source(c->f, &src);
  if (status != GQ_SUCCESS)
    return status;
  std::string want[KERNELS];
  kernel_names(want);
  gq_jit_module *m = nullptr;
  status = gq::jit_load_integrand(st, c->f, "|cumulative|double", src, want, KERNELS, &m, info);
  if (status != GQ_SUCCESS)
    return status;
  constexpr int TILE = Shape::BLOCK * Shape::ITEMS;
  const unsigned long long points = c->points, tiles = (points + TILE - 1) / TILE;
  if (tiles > 0x7fffffffull)
    return gq_fail(GQ_EINVAL, "cumulative integral: %llu points are more tiles than one launch holds", points);
  status = gq_scan_reserve(st, tiles);
  if (status != GQ_SUCCESS)
    return status;
  Problem p{};
  p.src.a = c->a;
  p.src.h = c->h;
  p.src.b = c->b;
  p.src.last = (double)c->n;
  p.src.offset = c->first;
  p.sink.out = c->out;
  p.sink.hs = c->h * c->f->scale; // exact: the scale is a power of two
  p.sink.simpson = c->simpson;
  if (c->simpson)
    p.sink.hs /= 12.0;
  p.sink.n = c->n;
  p.sink.every = c->every;
  p.sink.fold_start = CUMULATIVE_FOLD_START;
  p.sink.warp_store = CUMULATIVE_WARP_STORE;
  p.sink.bulk_store = CUMULATIVE_BULK_STORE;
  p.sink.count = gq_cumulative_count(c->n, c->every);
  p.sink.offset = c->first;
  p.sink.out_base = c->first / c->every;
  p.n = points;
  p.tiles = tiles;
  gq_scan_bind(st, p);
  // a share's part starts from the earlier parts' prefix and may want its
  // total: both through the context's carry word (read before it is written)
  p.carry_in = nullptr;
  p.carry_out = nullptr;
  if (c->carry) {
    GQ_CUDA_TRY(cudaMemcpyAsync(st->scan->d_carry, c->carry, sizeof *c->carry, cudaMemcpyHostToDevice, st->stream));
    p.carry_in = static_cast<const gq_csum *>(st->scan->d_carry);
  }
  if (c->total)
    p.carry_out = static_cast<gq_csum *>(st->scan->d_carry);
  void *args[] = {&p};
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  const void *kernel = (const void *)gq::jit_kernel(m, c->simpson ? SIMPSON_KERNEL : TRAPEZOID_KERNEL);
  GQ_CUDA_TRY(cudaLaunchKernel(kernel, dim3((unsigned)tiles), dim3(Shape::BLOCK), args, 0, st->stream));
  st->scan->counted += tiles; // launched: its blocks take these numbers
  GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
  if (c->total)
    GQ_CUDA_TRY(cudaMemcpyAsync(c->total, st->scan->d_carry, sizeof *c->total, cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  float ms = 0.0f;
  GQ_CUDA_TRY(cudaEventElapsedTime(&ms, st->start, st->stop));
  info->ms = ms;
  return GQ_SUCCESS;
}

// For tests without a GPU: the cumulative module of f compiled for sm_<cc>.
extern "C" int gq_jit_cumulative_compile_only(const gq_integrand *f, int cc, size_t *cubin_size)
{
  std::string src, cubin, names[KERNELS], want[KERNELS];
  kernel_names(want);
  int status = module_source(f, &src);
  if (status == GQ_SUCCESS)
    status = gq::jit_compile(cc / 10, cc % 10, src, want, KERNELS, &cubin, names);
  *cubin_size = cubin.size();
  return status;
}
