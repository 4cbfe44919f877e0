/* exact.h — the deterministic reductions inside the library: one array's
 * exact accumulator on either backend, and the streamed form the checked
 * command line uses. */
#ifndef GQ_EXACT_H
#define GQ_EXACT_H

#include "internal.h"
#include "exact_acc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The exact accumulator of one array (stats indices 0-based in it);
 * magnitudes as the accumulator's field (exact_acc.h). */
int gq_cpu_exact_reduce(const gq_array_reduce *p, int magnitudes, struct gq_exact_acc *out);
/* The same for arrays in a context's memory, on its backend. */
int gq_exact_reduce_run(gq_context *ctx, const gq_array_reduce *p, int magnitudes, struct gq_exact_acc *out);
/* The CUDA backend's (kernels/exact_reduce.cu; no_cuda.c without CUDA), and
 * the launch shape it must use (tests: 0, 0 for its own; threads a power of
 * two up to 256).  The blocks also hold for the deterministic grid, box and
 * Monte Carlo sums (kernels/grid.cuh), whose block size is compiled in. */
int gq_cuda_exact_reduce(struct gq_cuda_state *st, const gq_array_reduce *p, int magnitudes, struct gq_exact_acc *out);
void gq_cuda_exact_force_shape(unsigned blocks, unsigned threads);
/* NVRTC compiles the deterministic grid (Monte Carlo, product grid) kernels
 * of f for sm_<cc> (CUDA builds only: kernels/jit.cu, mc.cu, product.cu;
 * tests/t_exact_jit). */
int gq_jit_compile_exact_only(const gq_integrand *f, int precision, int cc, size_t *cubin_size);
int gq_jit_mc_compile_exact_only(const gq_integrand *f, int dims, int dist, int precision, int cc,
                                 size_t *cubin_size);
int gq_jit_product_compile_exact_only(const gq_integrand *f, int precision, int dims, unsigned panels, int cc,
                                      size_t *cubin_size);
/* Merge chunk (indices from 0) after acc's elements. */
void gq_exact_acc_merge_chunk(struct gq_exact_acc *acc, struct gq_exact_acc *chunk);
/* gq_exact_stream with every chunk also fed to observer (NULL: none). */
int gq_exact_stream_observed(gq_context *ctx, gq_reader *x, gq_reader *y, struct gq_exact_acc *acc,
                             gq_stream_info *info, struct gq_data_ref_ *observer);
/* gq_sum, gq_dot (out: a double), gq_rms_diff (a gq_rms_result) and
 * gq_stats (a gq_stats_result) on a deterministic context. */
int gq_exact_one_shot(gq_context *ctx, gq_reduce_kind kind, int is_float, size_t n, const void *x, const void *y,
                      void *out);

#ifdef __cplusplus
}
#endif
#endif
