// product.cu — product grids on the GPU: the engine's problem of a rule
// over a box (src/lib/product.c builds it) — the product source
// (engine/product_source.cuh: the points of D axes, two weights each) x the
// expression's map x two compensated sums (WeightedPair: the rule and its
// lower-order rule) x the fenced last block (fixed merge order: the same
// grid and device give the same bits).  The count of non-finite values runs
// after a sum that is not finite, as for the 1-D grid.
//
// Every integrand goes through the expression module (jit.cu: a built-in
// becomes the expression of its formula in product.c), whose product kernels
// are three: the sum with fast and with exact functions, and the count.
// Axis tables go to a device buffer of the context, grown on demand.
#include <stdio.h>

#include <string>
#include <type_traits>

#include "cuda_check.cuh"
#include "exact_launch.cuh"
#include "jit_module.cuh"
#include "engine/kernel.cuh"
#include "engine/launch.cuh"
#include "engine/product_source.cuh"
#include "engine/tile_accumulators.cuh"

namespace {

enum { FAST = 0, EXACT = 1, SCAN = 2 };

const char *real_name(int precision) { return precision == GQ_PRECISION_FLOAT ? "float" : "double"; }

unsigned panel_mask(int dims, bool gl) { return gl ? (1u << dims) - 1u : 0u; }

// The launch shape of a product grid of `dims` axes: fewer items in flight
// when a point's coordinates take many registers.
template <class Rows> struct ProductShape {
  template <class F> static auto with(int dims, F f)
  {
    return dims <= 3 ? f(typename Rows::Product()) : f(typename Rows::ProductWide());
  }
};

// Tables up to this size go to shared memory (product_source.cuh): what a
// block may take without opting in to more (less, in a deterministic
// kernel, its static exact words, 2 x 136 x 8 bytes (engine/exact_tile.cuh),
// with room for the block tree's partials).
constexpr size_t SHARED_TABLES = 48 * 1024;
size_t shared_tables(const gq_product_sum *p) { return p->deterministic ? SHARED_TABLES - 4096 : SHARED_TABLES; }
// A deterministic module's kernels: the exact pair and the scan.
constexpr int EXACT_SUM = 0, EXACT_SCAN = 1;

size_t table_bytes(const gq_product_sum *p)
{
  size_t total = 0;
  for (int d = 0; d < p->dims; d++)
    total += 4 * (size_t)p->K[d] * sizeof(double);
  return total;
}

// Runs of 4 points along axis 1 (product_source.cuh) where its table is plain
// and padded to a multiple of 32 x 4 points (product.c does so where that
// costs at most an eighth more points).
constexpr int RUN = 4;
int run_of(const gq_product_sum *p) { return !(p->panels & 1u) && p->K[0] % (32 * RUN) == 0 ? RUN : 1; }

// Items per thread and tile: the shape's points in flight, in runs (135
// registers and one block per SM with 4 runs of 4: H200, 501^3 trapezoid).
template <class S> int items_of(int run) { return run > S::ITEMS ? 1 : S::ITEMS / run; }

void kernel_names(int cc_major, int dims, unsigned panels, int shared, int run, int precision, bool deterministic,
                  std::string want[3])
{
  gq::with_rows(cc_major, [&](auto rows) {
    return ProductShape<decltype(rows)>::with(dims, [&](auto shape) {
      using S = decltype(shape);
      char source[160], thread[64];
      snprintf(source, sizeof source, "gq::ProductSource<%s, %d, %uu, %d, %s, %d>", real_name(precision), dims,
               panels, S::BLOCK, shared ? "true" : "false", run);
      const int items = items_of<S>(run);
      if (deterministic) {
        snprintf(thread, sizeof thread, "gq::PairExact<%d>", items * run);
        want[EXACT_SUM] = gq::jit_kernel_name(S::BLOCK, items, S::MIN_BLOCKS, 0, thread, source, "gq::ExactWords");
        want[EXACT_SCAN] = gq::jit_kernel_name(S::BLOCK, items, 1, 0, "gq::NonfiniteThread", source, "gq::LastBlock");
        return 0;
      }
      snprintf(thread, sizeof thread, "gq::WeightedPair<%d>", items * run);
      for (int fast = 0; fast <= 1; fast++)
        want[fast ? FAST : EXACT] =
            gq::jit_kernel_name(S::BLOCK, items, S::MIN_BLOCKS, fast, thread, source, "gq::LastBlock");
      want[SCAN] = gq::jit_kernel_name(S::BLOCK, items, 1, 0, "gq::NonfiniteThread", source, "gq::LastBlock");
      return 0;
    });
  });
}

int load(gq_cuda_state *st, const gq_product_sum *p, gq_jit_module **m, gq_grid_info *info)
{
  if (!p->f->g)
    return gq_fail(GQ_EINVAL, "the integrand has no expression to compile");
  const int shared = table_bytes(p) <= shared_tables(p);
  char kind[64];
  snprintf(kind, sizeof kind, "|product|%d|%u|%d|%d|%s%s", p->dims, p->panels, shared, run_of(p),
           real_name(p->precision), p->deterministic ? "|exact" : "");
  std::string src, want[3];
  const int status = gq::jit_module_source(p->f, p->precision, &src);
  if (status != GQ_SUCCESS)
    return status;
  kernel_names(st->cc_major, p->dims, p->panels, shared, run_of(p), p->precision, p->deterministic, want);
  if (p->deterministic)
    return gq::jit_load_integrand(st, p->f, kind, GQ_JIT_EXACT_PREFIX + src, want, 2, m, info);
  return gq::jit_load_integrand(st, p->f, kind, src, want, 3, m, info);
}

// The axis tables in device memory (4 K doubles per axis, one buffer).
int upload_tables(gq_cuda_state *st, const gq_product_sum *p, const double *d_table[GQ_MAX_DIM])
{
  const size_t bytes = table_bytes(p);
  if (bytes > st->tables_bytes) {
    if (st->d_tables)
      cudaFree(st->d_tables);
    st->d_tables = nullptr;
    st->tables_bytes = 0;
    GQ_CUDA_TRY(cudaMalloc(&st->d_tables, bytes));
    st->tables_bytes = bytes;
  }
  double *dst = static_cast<double *>(st->d_tables);
  for (int d = 0; d < p->dims; d++) {
    GQ_CUDA_TRY(cudaMemcpyAsync(dst, p->table[d], 4 * (size_t)p->K[d] * sizeof(double), cudaMemcpyHostToDevice,
                                st->stream));
    d_table[d] = dst;
    dst += 4 * (size_t)p->K[d];
  }
  return GQ_SUCCESS;
}

// The problem as the kernel takes it (its layout does not depend on Real).
template <int D, unsigned PANELS, int BLOCK, bool SHARED, int R, class Level>
gq::Problem<gq::ProductSource<double, D, PANELS, BLOCK, SHARED, R>, Level>
problem(gq_cuda_state *st, const gq_product_sum *p, const double *const d_table[GQ_MAX_DIM])
{
  using Src = gq::ProductSource<double, D, PANELS, BLOCK, SHARED, R>;
  gq::Problem<Src, Level> prob{};
  prob.src.n = p->n;
  int g = 0;
  for (int d = 0; d < D; d++) {
    prob.src.radix[g++] = p->K[d];
    if (PANELS & (1u << d))
      prob.src.radix[g++] = p->P[d];
    prob.src.table[d] = d_table[d];
    prob.src.shared_at[d] = (unsigned)(d_table[d] - d_table[0]);
    prob.src.H[d] = p->H[d];
  }
  unsigned long long rest = (unsigned long long)BLOCK * R; // a block's step in points
  for (int k = 0; k < Src::G; k++) {
    prob.src.block[k] = (unsigned)(rest % prob.src.radix[k]);
    rest /= prob.src.radix[k];
  }
  if constexpr (std::is_same<Level, gq::LastBlock>::value) { // ExactWords: exact_run fills it
    prob.out.scratch = st->d_partials;
    prob.out.counter = st->d_counter;
    prob.out.result = gq_result_slot(st, GQ_SLOT_CALL);
  }
  return prob;
}

// The deterministic launch: both sums exact into p->exact (where f was NaN
// or infinite, the sum of those values in both; share.c rounds them).
template <int D, unsigned PANELS, int BLOCK, bool SHARED, int R>
int exact_pair(gq_cuda_state *st, const gq_product_sum *p, const void *kernel, int items,
               const double *const d_table[GQ_MAX_DIM], size_t shared, double *ms)
{
  constexpr size_t WORDS = 2 * (size_t)GQ_SUPERACC_WORDS;
  auto prob = problem<D, PANELS, BLOCK, SHARED, R, gq::ExactWords>(st, p, d_table);
  prob.src.shared_doubles = (unsigned)(shared / sizeof(double));
  const unsigned long long tile = (unsigned long long)BLOCK * items * R;
  const unsigned grid = gq::exact_grid(st, kernel, BLOCK, (p->n + tile - 1) / tile, 2 * p->n);
  unsigned long long *h = static_cast<unsigned long long *>(malloc(WORDS * sizeof *h + sizeof(double)));
  if (!h)
    return gq_fail(GQ_ENOMEM, "cannot allocate the exact box sums");
  const int status = gq::exact_run<2, 1>(st, kernel, grid, BLOCK, prob, h, ms, shared);
  if (status == GQ_SUCCESS) {
    const double nonfinite = *reinterpret_cast<const double *>(h + WORDS);
    gq::exact_words_take(h, nonfinite, &p->exact[0]);
    gq::exact_words_take(h + GQ_SUPERACC_WORDS, nonfinite, &p->exact[1]);
  }
  free(h);
  return status;
}

// One launch over the grid, timed; the result slot's bytes into *out.
template <int D, unsigned PANELS, int BLOCK, bool SHARED, int R, class Out>
int run_shape(gq_cuda_state *st, const gq_product_sum *p, const void *kernel, int items, Out *out, double *ms)
{
  static_assert(sizeof(gq::ProductSource<double, D, PANELS, BLOCK, SHARED, R>) ==
                    sizeof(gq::ProductSource<float, D, PANELS, BLOCK, SHARED, R>),
                "one layout for every Real");
  static_assert(sizeof(Out) <= sizeof(gq_reduce_acc), "the result fits its slot");
  const double *d_table[GQ_MAX_DIM] = {};
  int status = upload_tables(st, p, d_table);
  if (status != GQ_SUCCESS)
    return status;
  const size_t shared = SHARED ? table_bytes(p) : 0;
  if constexpr (std::is_same<Out, gq::CsumPair>::value)
    if (p->deterministic)
      return exact_pair<D, PANELS, BLOCK, SHARED, R>(st, p, kernel, items, d_table, shared, ms);
  auto prob = problem<D, PANELS, BLOCK, SHARED, R, gq::LastBlock>(st, p, d_table);
  prob.src.shared_doubles = (unsigned)(shared / sizeof(double));
  // blocks per SM with this launch's shared memory (resident_grid's cache
  // knows none)
  int per_sm = 1;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, shared) != cudaSuccess || per_sm < 1) {
    cudaGetLastError();
    per_sm = 1;
  }
  const unsigned long long tile = (unsigned long long)BLOCK * items * R, tiles = (p->n + tile - 1) / tile;
  unsigned long long grid = (unsigned long long)per_sm * st->sms;
  grid = grid < tiles ? grid : tiles;
  grid = grid < (unsigned long long)gq::MAX_BLOCKS ? grid : gq::MAX_BLOCKS;
  return gq::launch_timed(st, kernel, (unsigned)grid, BLOCK, prob, out, ms, shared);
}

// The shape and instantiation for p's dimensions, kind of axes and place of
// the tables.
template <int D = 1, class Out>
int run(gq_cuda_state *st, const gq_product_sum *p, const void *kernel, Out *out, double *ms)
{
  if constexpr (D > gq::PRODUCT_MAX_DIM) {
    return gq_fail(GQ_EINVAL, "a product grid of %d dimensions (1 to %d)", p->dims, gq::PRODUCT_MAX_DIM);
  } else {
    if (p->dims != D)
      return run<D + 1>(st, p, kernel, out, ms);
    return gq::with_rows(st->cc_major, [&](auto rows) {
      return ProductShape<decltype(rows)>::with(D, [&](auto shape) {
        using S = decltype(shape);
        constexpr unsigned ALL = (1u << D) - 1u, OUTER = ALL & ~1u;
        const bool shared = table_bytes(p) <= shared_tables(p);
        const int run = run_of(p);
        auto go = [&](auto panels, auto r) {
          constexpr unsigned P = decltype(panels)::value;
          constexpr int R = decltype(r)::value;
          const int items = items_of<S>(R);
          return shared ? run_shape<D, P, S::BLOCK, true, R>(st, p, kernel, items, out, ms)
                        : run_shape<D, P, S::BLOCK, false, R>(st, p, kernel, items, out, ms);
        };
        using One = std::integral_constant<int, 1>;
        using Run = std::integral_constant<int, RUN>;
        // the layouts product.c makes: Newton-Cotes (axis 1 padded),
        // Gauss-Legendre with axis 1 expanded, or all in panels
        if (p->panels == 0)
          return run == RUN ? go(std::integral_constant<unsigned, 0u>(), Run())
                            : go(std::integral_constant<unsigned, 0u>(), One());
        if (D > 1 && p->panels == OUTER && run == RUN)
          return go(std::integral_constant<unsigned, OUTER>(), Run());
        if (p->panels == ALL && run == 1)
          return go(std::integral_constant<unsigned, ALL>(), One());
        // and a share's part (share.c): its last axis's panels expanded into
        // a table of the rank's points
        constexpr unsigned LAST = 1u << (D - 1), SHARE_OUTER = OUTER & ~LAST, SHARE_ALL = ALL & ~LAST;
        if (D > 2 && p->panels == SHARE_OUTER)
          return run == RUN ? go(std::integral_constant<unsigned, SHARE_OUTER>(), Run())
                            : go(std::integral_constant<unsigned, SHARE_OUTER>(), One());
        if (D > 1 && p->panels == SHARE_ALL && run == 1)
          return go(std::integral_constant<unsigned, SHARE_ALL>(), One());
        return gq_fail(GQ_EINVAL, "a product grid of an unknown layout (panels %#x, axis 1 of %u points)", p->panels,
                       p->K[0]);
      });
    });
  }
}

bool finite(const gq::CsumPair &s)
{
  const double t = gq_csum_value(s.hi) + gq_csum_value(s.lo);
  return t - t == 0.0;
}

} // namespace

static_assert(GQ_MAX_DIM == gq::PRODUCT_MAX_DIM, "the public limit is the source's");

extern "C" int gq_cuda_product_sum(gq_cuda_state *st, const gq_product_sum *p, gq_csum sums[2], gq_grid_info *info)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  gq_jit_module *m = nullptr;
  int status = load(st, p, &m, info);
  if (status != GQ_SUCCESS)
    return status;
  gq::CsumPair r{};
  // (a deterministic module's exact pair, at 0, has the exact functions)
  status = run(st, p, (const void *)gq::jit_kernel(m, p->deterministic ? EXACT_SUM : FAST), &r, &info->ms);
  if (status == GQ_SUCCESS && !p->deterministic && !finite(r)) {
    // Not finite: again with CUDA's own functions (as grid_sum.cu).
    const double first_ms = info->ms;
    status = run(st, p, (const void *)gq::jit_kernel(m, EXACT), &r, &info->ms);
    info->ms += first_ms;
  }
  sums[0] = r.hi;
  sums[1] = r.lo;
  return status;
}

extern "C" int gq_cuda_product_nonfinite(gq_cuda_state *st, const gq_product_sum *p, uint64_t *count,
                                         uint64_t *first)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  gq_jit_module *m = nullptr;
  gq_grid_info info = {0, 0, GQ_JIT_NONE};
  int status = load(st, p, &m, &info);
  if (status != GQ_SUCCESS)
    return status;
  gq::NonfiniteCount r{};
  status = run(st, p, (const void *)gq::jit_kernel(m, p->deterministic ? EXACT_SCAN : SCAN), &r, nullptr);
  *count = r.count;
  *first = r.count ? r.first : p->n;
  return status;
}

namespace {

// For tests without a GPU: generate and compile the product kernels of f
// (the deterministic module's, or the fast one's).
int compile_only(const gq_integrand *f, int precision, int dims, unsigned panels, int cc, bool deterministic,
                 size_t *cubin_size)
{
  std::string src, want[3], cubin, names[3];
  int status = gq::jit_module_source(f, precision, &src);
  kernel_names(cc / 10, dims, panel_mask(dims, panels != 0) & ~1u, 1, RUN, precision, deterministic, want);
  if (deterministic)
    src = GQ_JIT_EXACT_PREFIX + src;
  if (status == GQ_SUCCESS)
    status = gq::jit_compile(cc / 10, cc % 10, src, want, deterministic ? 2 : 3, &cubin, names);
  *cubin_size = cubin.size();
  return status;
}

} // namespace

extern "C" int gq_jit_product_compile_only(const gq_integrand *f, int precision, int dims, unsigned panels, int cc,
                                           size_t *cubin_size)
{
  return compile_only(f, precision, dims, panels, cc, false, cubin_size);
}

// tests/t_exact_jit
extern "C" int gq_jit_product_compile_exact_only(const gq_integrand *f, int precision, int dims, unsigned panels,
                                                 int cc, size_t *cubin_size)
{
  return compile_only(f, precision, dims, panels, cc, true, cubin_size);
}
