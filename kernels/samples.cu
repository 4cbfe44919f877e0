// samples.cu — the integral of sampled data as an engine problem: a stencil
// source (engine/stencil_source.cuh: an interval or a Simpson panel of y and
// x), a map that weighs it (src/lib/sampled.h's formulas, scipy's), the
// compensated sum's thread accumulator and the fenced last-block level.  One
// launch; the gq_sum_acc lands in the context's call slot and is copied back.
// Uniform trapezoid is not here: it is the plain sum of y (array_reduce.cu)
// with the ends corrected by the library (src/lib/samples.c).
#include <cstdint>

#include "cuda_check.cuh"
#include "cuda_state.cuh"
#include "engine/accumulators.cuh"
#include "engine/kernel.cuh"
#include "engine/launch.cuh"
#include "engine/stencil_source.cuh"
#include "../src/lib/internal.h"
#include "../src/lib/sampled.h"

namespace {

// The maps: one term per stencil.
struct TrapezoidInterval {
  template <class Item> __device__ __forceinline__ double operator()(const Item &s) const
  {
    return gq_trapezoid_term(s.x[0], s.x[1], s.y[0], s.y[1]);
  }
};
struct SimpsonPanelUniform {
  template <class Item> __device__ __forceinline__ double operator()(const Item &s) const
  {
    return gq_simpson_term_uniform(s.y[0], s.y[1], s.y[2]);
  }
};
struct SimpsonPanel {
  template <class Item> __device__ __forceinline__ double operator()(const Item &s) const
  {
    return gq_simpson_term(s.x[0], s.x[1], s.x[2], s.y[0], s.y[1], s.y[2]);
  }
};

// The one-array sum's row: the same accumulator (SumThread) over ITEMS
// independent loads per thread.  Not swept for stencils (scalar loads of 2
// or 3 samples per item); bench/gpu_data.sh times the problems.
template <class Rows, bool CLASSIFY, class Map, class Source>
int launch_sum(gq_cuda_state *st, const Source &src)
{
  using Shape = typename Rows::Sum;
  using Level = gq::LastBlock;
  constexpr int MIN_BLOCKS = CLASSIFY ? 1 : Shape::MIN_BLOCKS;
  const void *kernel = (const void *)gq::reduce_kernel<Shape::BLOCK, Shape::ITEMS, MIN_BLOCKS, CLASSIFY, Map,
                                                       gq::SumThread, Source, Level>;
  const unsigned grid = gq::resident_grid(st, kernel, Shape::BLOCK, gq::tiles<Shape>(src.vectors()));
  gq::Problem<Source, Level> p{};
  p.src = src;
  p.out.scratch = st->d_partials;
  p.out.counter = st->d_counter;
  p.out.result = gq_result_slot(st, GQ_SLOT_CALL);
  p.out.finished = nullptr;
  p.out.completion = gq::Completion{nullptr, nullptr};
  return gq::launch<true>(st, kernel, grid, Shape::BLOCK, p, st->stream);
}

template <class Rows, class Map, class Source> int by_pass(gq_cuda_state *st, const gq_sampled_problem *p, const Source &src)
{
  return p->classify ? launch_sum<Rows, true, Map>(st, src) : launch_sum<Rows, false, Map>(st, src);
}

template <class Rows, class T> int by_rule(gq_cuda_state *st, const gq_sampled_problem *p)
{
  const T *y = static_cast<const T *>(p->y), *x = static_cast<const T *>(p->x);
  if (!p->simpson)
    return by_pass<Rows, TrapezoidInterval>(st, p, gq::StencilSource<T, 2, 1, true>{y, x, p->panels});
  if (!x)
    return by_pass<Rows, SimpsonPanelUniform>(st, p, gq::StencilSource<T, 3, 2, false>{y, nullptr, p->panels});
  return by_pass<Rows, SimpsonPanel>(st, p, gq::StencilSource<T, 3, 2, true>{y, x, p->panels});
}

} // namespace

extern "C" int gq_cuda_sampled_sum(gq_cuda_state *st, const gq_sampled_problem *p, gq_sum_acc *out)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  if (p->panels == 0)
    return gq_fail(GQ_EINVAL, "sampled data: no panels");
  const int status = gq::with_rows(st->cc_major, [&](auto rows) {
    using Rows = decltype(rows);
    return p->is_float ? by_rule<Rows, float>(st, p) : by_rule<Rows, double>(st, p);
  });
  if (status != GQ_SUCCESS)
    return status;
  gq_reduce_acc *h_slot = static_cast<gq_reduce_acc *>(st->h_result) + GQ_SLOT_CALL;
  GQ_CUDA_TRY(cudaMemcpyAsync(h_slot, gq_result_slot(st, GQ_SLOT_CALL), sizeof(gq_sum_acc), cudaMemcpyDeviceToHost,
                              st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  *out = h_slot->sum;
  return GQ_SUCCESS;
}
