/* internal.h — what the library's modules share and the public header hides. */
#ifndef GQ_INTERNAL_H
#define GQ_INTERNAL_H

#include "gpuquad.h"
#include "compensated.h"
#include "mc_moments.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Built-in integrand ids, in integrands.def order. */
enum {
#define GQ_BUILTIN(ID, name, formula, scale, fx, a, b, Fx, desc) GQ_F_##ID,
#include "integrands.def"
#undef GQ_BUILTIN
  GQ_F_COUNT
};

typedef struct gq_expr gq_expr; /* lib/expr/expr.h */

/* An integrand: a built-in row of integrands.def (id >= 0, compiled ahead of
 * time for both backends) or a parsed expression (id < 0: the CPU runs its
 * bytecode, the GPU compiles it with NVRTC).  Either way f = scale * g with
 * scale a power of two, and the backends sum g. */
struct gq_integrand {
  int id;                        /* GQ_F_*, or -1 for an expression  */
  const char *name, *formula, *description;
  double a, b;                   /* default limits                   */
  double scale;
  double (*eval)(double x);      /* built-ins: f in double           */
  float (*eval_f)(float x);      /* built-ins: f in float            */
  double (*antiderivative)(double x); /* built-ins; NULL if unknown  */
  /* expressions (id < 0) */
  gq_expr *expr;                 /* f                                */
  gq_expr *g;                    /* f / scale (== expr when scale 1) */
  char *canonical;               /* parenthesised text: the JIT key  */
  int dims;                      /* variables the expression may use */
  /* With parameters (issue 23): g with the parameters as run-time values
   * (expr.h, symbolic), which the GPU compiles once for every value, and
   * its JIT key; NULL where g's scale differs from it (then the GPU
   * compiles g, the values baked in). */
  gq_expr *gpu_g;
  char *gpu_key;
  /* An integrand instantiated from a template: gpu_g and gpu_key are the
   * template's (not freed with f), and the module reads gpu_values, kept
   * after the struct in f's own allocation. */
  int gpu_shared;
  double *gpu_values;
};

/* The JIT key of f's GPU module, and the source of its g (the symbolic
 * form when f has one); gq_integrand_gpu_params gives the values the module
 * reads (count, *values), 0 without. */
const char *gq_integrand_jit_key(const gq_integrand *f);
int gq_integrand_gpu_params(const gq_integrand *f, const double **values);

/* An integrand template (issue 23): the text of gq_integrand_parse with
 * its parameters parsed once, at the values params give; then the
 * integrand that gq_integrand_parse would give for the same text and names
 * at other values (one per parameter, in the order of params), the same
 * to the bit (expression, canonical text, scale, GPU module key and
 * values), without parsing again: gq_integrand_instantiate fails only where
 * that parse would on the values alone (expr.h: gq_expr_rebind) or for
 * memory.  A built-in is itself at every value.  Free each integrand with
 * gq_integrand_free, the template with gq_integrand_template_free. */
typedef struct gq_integrand_template gq_integrand_template;
int gq_integrand_template_parse(const char *text, const char *const *params, size_t nparams, int dims,
                                gq_integrand_template **t, gq_parse_error *err);
int gq_integrand_instantiate(const gq_integrand_template *t, const double *values, gq_integrand **f,
                             gq_parse_error *err);
void gq_integrand_template_free(gq_integrand_template *t);

/* f(x) in the given precision (the host side of every backend). */
double gq_integrand_eval_in(const gq_integrand *f, int precision, double x);

/* The integrand 2^-k f (k >= 1), exact barring underflow: where a sum of
 * finite f(x_i) overflows, the sum of 2^-k f(x_i) does not once 2^k is at
 * least twice the number of terms (gq_sum_headroom).  A built-in becomes
 * the expression of its formula.  Free with gq_integrand_free. */
int gq_integrand_scaled(const gq_integrand *f, int k, gq_integrand **out);

/* A change of variables x = phi(t) of an infinite interval onto a finite
 * one (rules.c documents the three). */
typedef enum { GQ_CHANGE_NONE, GQ_CHANGE_UPPER, GQ_CHANGE_LOWER, GQ_CHANGE_LINE } gq_change_kind;

/* The integrand g(t) = f(phi(t)) phi'(t) of a change of variables: phi and
 * dphi are expression texts in x (standing for t), and guard a condition in
 * x that holds inside the open t-interval; g is 0 where it does not, at the
 * poles of phi.  A built-in becomes the expression of its formula.  Free with
 * gq_integrand_free. */
int gq_integrand_changed(const gq_integrand *f, const char *phi, const char *dphi, const char *guard,
                         gq_integrand **out);
/* The same for a box: axis d changed by (phi[d], dphi[d], guard[d]), texts
 * in x<d+1>, or kept where phi[d] is NULL. */
int gq_integrand_changed_axes(const gq_integrand *f, int dims, const char *const *phi, const char *const *dphi,
                              const char *const *guard, gq_integrand **out);
static inline int gq_sum_headroom(uint64_t terms)
{
  int k = 1; /* 2^(k-1) >= terms */
  while (k < 64 && ((uint64_t)1 << (k - 1)) < terms)
    k++;
  return k;
}

struct gq_cuda_state; /* kernels/: device, stream, events, scratch */

struct gq_context {
  int backend;
  int jit_cache;               /* use the on-disk cubin cache (default 1) */
  int threads;                 /* OpenMP threads, or multiprocessors */
  int deterministic;           /* exact data reductions (issue 20, exact.c) */
  char device_name[256];
  struct gq_cuda_state *cuda;  /* NULL for the CPU backend */
  gq_share share;              /* ranks 0: the whole work (share.c) */
  struct gq_packed *packed;    /* the packed sums of a batch (packed.h), */
  size_t packed_index;         /* and the problem running now            */
  gq_progress_fn *progress;    /* NULL, or told of long work (progress.c) */
  void *progress_user;
};

/* Tell ctx's progress callback, if any (progress.c): see gpuquad.h. */
static inline void gq_progress(const gq_context *ctx, uint64_t done, uint64_t total, const char *unit)
{
  if (ctx && ctx->progress)
    ctx->progress(done, total, unit, ctx->progress_user);
}

/* Record a failure (message formatted like printf), call the error handler,
 * and return status, so that `return gq_fail(GQ_EINVAL, "...")` reads well. */
int gq_fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
void gq_clear_error(void);

/* Argument checks of the public functions: "FUNCTION: ARGUMENT is NULL",
 * GQ_EINVAL; `if (!ctx) return gq_null_arg(__func__, "ctx");`. */
int gq_null_arg(const char *function, const char *argument);

/* Can n elements of `size` bytes starting at p be one object?  None is
 * larger than PTRDIFF_MAX bytes (malloc refuses more; pointer differences
 * could not span it) and none wraps past the end of the address space.  A
 * count beyond that is a caller's mistake, usually an n * size that
 * overflowed, and must fail rather than run past the buffer. */
static inline int gq_span_fits(const void *p, size_t n, size_t size)
{
  if (size != 0 && n > (size_t)PTRDIFF_MAX / size)
    return 0;
  return (uintptr_t)p <= UINTPTR_MAX - n * size;
}
/* gq_span_fits or GQ_EINVAL: "FUNCTION: N elements of SIZE bytes (ARGUMENT)
 * are more than one object can hold". */
int gq_check_span(const char *function, const char *argument, const void *p, size_t n, size_t size);

/* The grid x_i = fma(i, h, a), evaluated in `precision`, summed over the
 * interior indices [first, last] by index class: sums[k] holds the
 * compensated sum of g(x_i) over the i with i % GQ_GRID_KEYS == k (f = scale
 * * g).  Both backends implement this one reduction (the GPU engine's keyed
 * sums, kernels/grid.cuh; cpu/driver.c); a rule weighs the classes (rules.c):
 * four classes hold Boole's weights 14, 32, 12, 32 and every coarser rule of
 * the same pass (T(2h), S(2h), S(h) under B(h)). */
#define GQ_GRID_KEYS 4
typedef struct {
  const gq_integrand *f;
  int precision;   /* gq_precision */
  double a, h;
  uint64_t first, last; /* inclusive, first <= last */
  int deterministic;     /* the GPU sums exactly (kernels/engine/exact_tile.cuh) */
  /* deterministic: where either backend leaves the classes' exact sums
   * (GQ_GRID_KEYS, exact_sum.h) instead of rounding them into sums;
   * share.c merges the ranks' and rounds once */
  struct gq_exact_sum *exact;
} gq_grid_sum;

/* What the backends report besides the sums. */
typedef struct {
  double ms;         /* reduction time                                      */
  double compile_ms; /* JIT compilation (or cache load) time, 0 if none     */
  int jit;           /* GQ_JIT_*                                            */
} gq_grid_info;

int gq_cpu_grid_sum(const gq_context *ctx, const gq_grid_sum *p, gq_csum sums[GQ_GRID_KEYS], gq_grid_info *info);
/* The parts gq_cpu_grid_sum splits a grid of `points` into (1: one thread
 * runs it; the split depends on the points alone). */
uint64_t gq_cpu_grid_parts(uint64_t points);
/* The team size of every CPU parallel region (context.c): OpenMP's choice,
 * capped at GQ_CPU_THREADS_PER_PROC per processor and GQ_CPU_MAX_THREADS. */
#define GQ_CPU_THREADS_PER_PROC 4
#define GQ_CPU_MAX_THREADS 1024
int gq_cpu_threads(void);

/* Points of the grid where g is not finite: how many, and the first index. */
int gq_cpu_grid_nonfinite(const gq_context *ctx, const gq_grid_sum *p, uint64_t *count, uint64_t *first);

/* CUDA backend (kernels/ when built with CUDA, src/lib/no_cuda.c otherwise). */
int gq_cuda_count(void);
/* The CUDA runtime started and device's primary context made, nothing
 * reported (prestart.c's background thread: gq_cuda_open checks again). */
void gq_cuda_warm(int device);
/* NVRTC opened, nothing reported: 1 if it could be (prestart.c). */
int gq_nvrtc_preload(void);
int gq_cuda_open(int device, struct gq_cuda_state **st, char *name, size_t namelen, int *sms);
void gq_cuda_close(struct gq_cuda_state *st);
int gq_cuda_grid_sum(struct gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[GQ_GRID_KEYS], gq_grid_info *info);
int gq_cuda_grid_nonfinite(struct gq_cuda_state *st, const gq_grid_sum *p, uint64_t *count, uint64_t *first);
void gq_cuda_set_jit_cache(struct gq_cuda_state *st, int enabled);
void gq_cuda_set_stream(struct gq_cuda_state *st, void *stream);

/* gq_integrate_rule in one dimension for the Newton-Cotes rules (rules.c's
 * index classes); gq_integrate_box comes here for them. */
int gq_rule_line(gq_context *ctx, const gq_integrand *f, gq_rule rule, double a, double b, uint64_t n,
                 gq_precision precision, gq_rule_result *out);

/* A product grid (product.c builds it; kernels/product.cu and
 * cpu/product.c sum it): axis d has K[d] table entries, and P[d] panels
 * on a Gauss-Legendre axis (panels = 1 elsewhere), so m_d = K[d] P[d]
 * points; table[d] holds K[d] entries of 4 doubles: the rule's weight, the
 * lower rule's, the point (node k of panel 0), 0; point (k, p) of the axis is
 * x = fma(p, H[d], node[k]).  sums[0] = sum of wh g(x), sums[1] = sum of
 * wl g(x), wh (wl) the product of the axes' rule (lower rule) weights;
 * the flat index runs over k_1, (p_1,) k_2, ... fastest first. */
typedef struct {
  const gq_integrand *f;
  int precision;    /* gq_precision */
  int dims;
  unsigned panels;  /* bit d: axis d is Gauss-Legendre (two digits) */
  uint32_t K[GQ_MAX_DIM], P[GQ_MAX_DIM];
  double H[GQ_MAX_DIM];
  const double *table[GQ_MAX_DIM]; /* host tables; the CUDA backend copies them */
  uint64_t n;       /* points: the product of K[d] P[d] */
  int deterministic; /* the GPU sums exactly (kernels/engine/exact_tile.cuh) */
  /* deterministic: the pair's exact sums (2, exact_sum.h; a non-finite f
   * goes to both), left by either backend instead of sums */
  struct gq_exact_sum *exact;
} gq_product_sum;

int gq_cpu_product_sum(const gq_context *ctx, const gq_product_sum *p, gq_csum sums[2], gq_grid_info *info);
int gq_cpu_product_nonfinite(const gq_context *ctx, const gq_product_sum *p, uint64_t *count, uint64_t *first);
int gq_cuda_product_sum(struct gq_cuda_state *st, const gq_product_sum *p, gq_csum sums[2], gq_grid_info *info);
int gq_cuda_product_nonfinite(struct gq_cuda_state *st, const gq_product_sum *p, uint64_t *count, uint64_t *first);
/* Axis d (0-based) of a box with an infinite limit: the change of variables
 * (texts in x<d+1>, written to texts) of gq_integrand_changed_axes, its
 * t-interval and the sign of reversed limits (product.c; also adaptive.c). */
typedef struct {
  const char *phi, *dphi, *guard;
  double t0, t1, sign;
} gq_axis_change;
int gq_box_change_of(double a, double b, int d, gq_axis_change *c, char texts[3][96]);
/* kernels/product.cu: compile f's product-grid kernels for sm_<cc> (tests). */
int gq_jit_product_compile_only(const gq_integrand *f, int precision, int dims, unsigned panels, int cc,
                                size_t *cubin_size);

/* kernels/jit.cu: compile f's expression kernel for sm_<cc> with NVRTC
 * without loading it (tests; no GPU needed). */
int gq_jit_compile_only(const gq_integrand *f, int precision, int cc, size_t *cubin_size);

/* ---- data reductions (reduce.c dispatches to a backend) ---------------- */
#include "reduce_acc.h"

typedef enum { GQ_REDUCE_SUM = 0, GQ_REDUCE_DOT, GQ_REDUCE_RMS, GQ_REDUCE_STATS } gq_reduce_kind;

/* One array reduction: x (and y for dot and rms), n elements of double or
 * float.  The fast pass (classify = 0) assumes finite terms; reduce.c
 * reruns with classify = 1 when its result shows a NaN or Inf, and that
 * pass counts and leaves out the non-finite terms.  Stats indices are
 * 0-based within the array. */
typedef struct {
  gq_reduce_kind kind;
  int is_float;
  int classify;
  size_t n;
  const void *x, *y;
} gq_array_reduce;

typedef union {
  gq_sum_acc sum;
  gq_rms_acc rms;
  gq_stats_acc stats;
} gq_reduce_acc;

int gq_cpu_array_reduce(const gq_array_reduce *p, gq_reduce_acc *out, double *ms);
int gq_cuda_array_reduce(struct gq_cuda_state *st, const gq_array_reduce *p, gq_reduce_acc *out, double *ms);
/* Enqueue only; the finished value (a double, or a gq_rms_result) goes to d_finished. */
int gq_cuda_array_async(struct gq_cuda_state *st, const gq_array_reduce *p, void *d_finished);
/* An empty reduction's result (bytes: whole 8-byte words, at most 64) into
 * device memory at d_dst, on the context's stream (kernels/identity.cu). */
int gq_cuda_write_identity(struct gq_cuda_state *st, void *d_dst, const void *value, size_t bytes);
/* One-shot sum or dot (out: a double) or rms (out: a gq_rms_result), finished
 * on the device without classifying: a NaN or Inf propagates into out. */
int gq_cuda_array_finish(struct gq_cuda_state *st, const gq_array_reduce *p, void *out);
/* Both passes (fast, then classify if needed) on either backend. */
int gq_array_reduce_run(gq_context *ctx, const gq_array_reduce *p, gq_reduce_acc *out, double *ms);
/* Merge a chunk's result into acc (stats indices rebased past acc's). */
void gq_reduce_acc_merge_chunk(gq_reduce_kind kind, gq_reduce_acc *acc, gq_reduce_acc *chunk);
/* 1 when a pass's result shows a NaN, an Inf, an overflow or squares near
 * underflow: rerun it classifying (and scaling). */
int gq_reduce_acc_needs_classify(gq_reduce_kind kind, const gq_reduce_acc *a);

/* Elements [first, first + count) of the vector of n (first a multiple of 4) into xd or xf. */
void gq_cpu_generate(gq_gen_kind kind, size_t n, size_t first, size_t count, uint64_t seed, double *xd, float *xf);
int gq_cuda_generate(struct gq_cuda_state *st, gq_gen_kind kind, size_t n, size_t first, size_t count,
                     uint64_t seed, double *xd, float *xf);
int gq_cuda_alloc(struct gq_cuda_state *st, size_t bytes, void **ptr);
void gq_cuda_free(struct gq_cuda_state *st, void *ptr);
int gq_cuda_copy_to(struct gq_cuda_state *st, void *dst, const void *src, size_t bytes);
int gq_cuda_copy_from(struct gq_cuda_state *st, void *dst, const void *src, size_t bytes);

/* Streaming (stream.c): read the next chunk of one or two inputs into
 * xbuf/ybuf (cap elements each, in the dtype given, widening f32 input when
 * want_float is 0).  *got = 0 at the end.  Checks the lengths agree. */
typedef struct {
  gq_reader *x, *y;
  int want_float;     /* deliver float (all inputs are f32)               */
  void *widen;        /* scratch for widening, cap floats                 */
  uint64_t delivered; /* elements so far, per input                       */
  double bytes;       /* bytes read                                       */
  double read_ms;
  struct gq_data_ref_ *observer; /* NULL, or fed every chunk (check/check.h) */
  const gq_context *progress;    /* told of the bytes read, or NULL               */
  uint64_t total_bytes;          /* what the inputs hold, 0 when a length is unknown */
} gq_stream_src;
/* Elements per chunk (per input) when streaming to a CUDA device: 64 MiB of
 * f64, large enough that a chunk's copy and kernel dwarf their launch costs. */
#define GQ_CUDA_STREAM_CHUNK ((size_t)1 << 23)
int gq_stream_src_init(gq_stream_src *s, gq_reader *x, gq_reader *y, size_t cap);
int gq_stream_src_next(gq_stream_src *s, void *xbuf, void *ybuf, size_t cap, size_t *got);
void gq_stream_src_free(gq_stream_src *s);
int gq_cuda_stream(struct gq_cuda_state *st, gq_reduce_kind kind, gq_stream_src *src,
                   gq_reduce_acc *acc, gq_stream_info *info);
/* ---- Monte Carlo (mc.c, cpu/driver.c, kernels/mc.cu) ----------------------
 * One batch: samples [first, first + count) of the Philox layout of
 * philox.h (first a multiple of 4), x = a + w u (uniform) or Box-Muller
 * normals, g (f = scale * g) at each, shifted sums around `shift` of g.
 * With sampler GQ_SAMPLER_SOBOL, u is point `first + k` of the Sobol
 * sequence (uniform only), dimension d scrambled by scramble[d] (sobol.h). */
enum { GQ_SAMPLER_PHILOX = 0, GQ_SAMPLER_SOBOL = 1 };
typedef struct {
  const gq_integrand *f; /* an expression (built-ins are parsed from their formula) */
  int dims, dist, precision;
  double a[GQ_MC_MAX_DIMS], w[GQ_MC_MAX_DIMS]; /* x_d = a_d + w_d u  */
  double shift;          /* K of mc_moments.h, for g             */
  uint64_t seed;
  uint64_t first, count;
  unsigned blocks;
  int sampler;                              /* GQ_SAMPLER_*             */
  unsigned int scramble[GQ_MC_MAX_DIMS];    /* Sobol: gq_sobol_seed's   */
  int deterministic;     /* the GPU sums exactly (kernels/engine/exact_tile.cuh) */
  /* deterministic: s1 and s2 exactly (2, exact_sum.h; a non-finite d goes
   * to exact[0].nonfinite), left by either backend instead of out */
  struct gq_exact_sum *exact;
} gq_mc_batch;

/* x[d][k] = coordinate d of sample first + k, k < count, as the CPU backend
 * draws them (first a multiple of 4; also used for the pilot shift). */
void gq_mc_points(const gq_mc_batch *p, uint64_t first, int count, double *const *x);
int gq_cpu_mc_batch(const gq_mc_batch *p, gq_mc_moments *out, gq_grid_info *info);
int gq_cuda_mc_batch(struct gq_cuda_state *st, const gq_mc_batch *p, gq_mc_moments *out, gq_grid_info *info);
/* mc.c, shared with sobol.c and vegas.c: the options' verdict, and the shift
 * K (the mean of g over the first samples of p's stream). */
int gq_mc_validate(const gq_integrand *f, const gq_mc_options *o);
double gq_mc_pilot_shift(const gq_mc_batch *p, uint64_t n);
/* r before a run: NaN estimates, the options' seed and precision. */
void gq_mc_result_start(gq_mc_result *r, const gq_context *ctx, const gq_mc_options *o);
/* *f as an expression: a built-in is parsed from its formula into *parsed
 * (to be freed; NULL when f already is one). */
int gq_mc_expression(const gq_integrand **f, gq_integrand **parsed);
/* r's volume, integral and integral_se from its mean and se over o's box;
 * GQ_EDOM when the integral overflows. */
int gq_mc_box_integral(gq_mc_result *r, const gq_mc_options *o);

/* ---- VEGAS+ (vegas.c, cpu/vegas.c, kernels/vegas/) ------------------------
 * One pass (iteration) over the hypercubes: counts[h] >= 2 samples in
 * hypercube h (vegas_map.h's stream and map), v = g(a + w x) J at each; out:
 * sum[h] and sum2[h], the sums of v and v^2 over the hypercube, and
 * train[d * bins + k], the sum of v^2 / counts[h] over the samples whose
 * coordinate d fell in bin k, and train_weight[d * bins + k] the sum of
 * 1 / counts[h] over them (the grid's training data: their ratio, the mean
 * of (g J)^2 over the bin's slab, each sample weighted by the inverse of its
 * hypercube's sampling density, so that a constant g J trains a constant). */
typedef struct {
  const gq_integrand *f; /* an expression                                */
  int dims, precision, bins, strata; /* strata per axis: strata^dims hypercubes */
  uint32_t hcubes;
  double a[GQ_MC_MAX_DIMS], w[GQ_MC_MAX_DIMS];
  uint64_t seed;
  unsigned int pass;
  const double *edges;       /* dims x (bins + 1), from 0 up to 1           */
  const uint64_t *counts;    /* hcubes                                      */
  const uint64_t *first_quad; /* hcubes + 1: sum of ceil(counts / 4) before h */
  double *sum, *sum2;        /* hcubes each                                 */
  double *train, *train_weight; /* dims x bins each                         */
  int bins_method;           /* GPU: GQ_VEGAS_BINS_*                        */
  /* CPU, a share's pass (vegas_share.c): with part_cells set, only parts
   * [part_first, part_first + part_count) of gq_cpu_vegas_parts(hcubes) run,
   * and each part's cells (train, then train_weight: 2 dims x bins doubles)
   * go to part_cells instead of train and train_weight. */
  uint32_t part_first, part_count;
  double *part_cells;
} gq_vegas_pass;
/* How the GPU accumulates train and train_weight (kernels/vegas/vegas.cuh):
 * AUTO is SHARED where their 2 x dims x bins doubles fit in 48 KiB of shared
 * memory, else WARP. */
enum { GQ_VEGAS_BINS_AUTO = 0, GQ_VEGAS_BINS_WARP = 1, GQ_VEGAS_BINS_SHARED = 2 };
int gq_cpu_vegas_pass(const gq_vegas_pass *p, gq_grid_info *info);
/* The CPU pass's parts: contiguous ranges of hypercubes, whose cells are
 * summed in part order (gq_vegas_sum_parts: part s's cells at train + s
 * stride and weight + s stride), so that the cells do not depend on the
 * number of threads, nor of ranks. */
uint32_t gq_cpu_vegas_parts(uint32_t hcubes);
void gq_vegas_sum_parts(const double *train, const double *weight, uint32_t parts, size_t stride, size_t cells,
                        double *train_out, double *weight_out);
/* vegas_share.c: pass p divided among the ranks of ctx's share, every rank
 * left with the whole pass's sums and cells (the CUDA backend's share of the
 * hypercubes through gq_cuda_vegas_pass). */
int gq_vegas_shared_pass(gq_context *ctx, const gq_vegas_pass *p, gq_grid_info *info);
/* The CUDA backend keeps a run on the device (kernels/vegas/vegas.cu): open
 * loads the module and sends p's first tables (edges, counts, first_quad);
 * each sample is pass p->pass, returning the pass's totals (pass_estimate's
 * estimate and variance over the unit cube, and the samples drawn) and the
 * training cells into p->train and p->train_weight; next sends p->edges and
 * computes the next pass's counts on the device from the pass's spreads
 * (vegas_alloc.h's rule, per_pass samples, sigma^beta); close frees (NULL
 * is fine; also after a failed open, which may leave *out set).
 * gq_cuda_vegas_pass is one pass over p's own tables, sums and cells back. */
typedef struct gq_cuda_vegas gq_cuda_vegas;
typedef struct {
  double estimate, variance;
  uint64_t samples;
} gq_vegas_totals;
int gq_cuda_vegas_open(struct gq_cuda_state *st, const gq_vegas_pass *p, uint64_t per_pass, double beta,
                       gq_cuda_vegas **out, gq_grid_info *info);
int gq_cuda_vegas_sample(gq_cuda_vegas *v, const gq_vegas_pass *p, gq_vegas_totals *t, gq_grid_info *info);
int gq_cuda_vegas_next(gq_cuda_vegas *v, const gq_vegas_pass *p);
void gq_cuda_vegas_close(gq_cuda_vegas *v);
int gq_cuda_vegas_pass(struct gq_cuda_state *st, const gq_vegas_pass *p, gq_grid_info *info);
/* check/integral.c: the integral of (|f| / norm)^power over [lo, hi], or its mean
 * under the standard normal density (line != 0), by QAGS/QAGI; GQ_EDOM with
 * GSL's verdict in words when it does not converge (check/vegas.c, for f's mean
 * and variance). */
int gq_abs_moment(const gq_integrand *f, int line, double lo, double hi, int power, double norm,
                  double *value);
/* check/integral.c: the power of two to divide a huge f by before GSL integrates
 * it (1 for an f of ordinary size); gq_abs_moment's norm. */
double gq_size_norm(const gq_integrand *f, int line, double lo, double hi);
/* mc.c: the volume of a box (the product of its widths) as mantissa * 2^exponent,
 * which never overflows, and x * volume from it (+-Inf when that overflows). */
void gq_mc_volume(const double *width, int dims, double *mantissa, int *exponent);
double gq_mc_times_volume(double x, double mantissa, int exponent);
/* kernels/mc.cu: compile the Monte Carlo module of f without loading it (tests);
 * dist GQ_MC_SOBOL_COMPILE: the Sobol sampler's kernels. */
enum { GQ_MC_SOBOL_COMPILE = 100 };
int gq_jit_mc_compile_only(const gq_integrand *f, int dims, int dist, int precision, int cc, size_t *cubin_size);
/* kernels/vegas/vegas.cu: compile the VEGAS module of f without loading it (tests). */
int gq_jit_vegas_compile_only(const gq_integrand *f, int dims, int precision, int cc, size_t *cubin_size);

/* Monotonic wall clock in milliseconds. */
double gq_wall_ms(void);

#ifdef __cplusplus
}
#endif
/* ---- shares (share.c): the backend dispatch of each partial sum, cut to
 * the context's share and combined over the ranks when one is set --------- */
/* The most table entries a rank expands a Gauss-Legendre axis's panels into
 * (32 bytes each); beyond it rank 0 sums the whole grid. */
#define GQ_SHARE_MAX_TABLE (UINT64_C(1) << 24)
int gq_shared_grid_sum(gq_context *ctx, const gq_grid_sum *p, gq_csum sums[GQ_GRID_KEYS], gq_grid_info *info);
int gq_shared_grid_nonfinite(gq_context *ctx, const gq_grid_sum *p, uint64_t *count, uint64_t *first);
int gq_shared_product_sum(gq_context *ctx, const gq_product_sum *p, gq_csum sums[2], gq_grid_info *info);
int gq_shared_product_nonfinite(gq_context *ctx, const gq_product_sum *p, uint64_t *count, uint64_t *first);
int gq_shared_mc_batch(gq_context *ctx, const gq_mc_batch *p, gq_mc_moments *out, gq_grid_info *info);
/* The share's combine for a partial of another module (adaptive_share.c):
 * the group's status, "another rank failed" on the ranks that did not. */
int gq_shared_combine(gq_context *ctx, void *partial, size_t bytes, gq_merge_fn *merge, int status);
/* The group's status alone (a combine of no bytes): where one rank may fail
 * before a combine whose partials must be the same size on every rank. */
int gq_shared_agree(gq_context *ctx, int status);

#endif /* GQ_INTERNAL_H */
