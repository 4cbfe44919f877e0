/* no_cuda.c — the CUDA entry points of a CPU-only build (configure found no
 * CUDA toolkit, or --without-cuda): there is no device to open. */
#include "config.h"

#include "internal.h"
#include "adaptive_internal.h"
#include "hist_internal.h"
#include "sampled.h"
#include "exact.h"
#include "packed.h"

int gq_cuda_count(void) { return 0; }
void gq_cuda_warm(int device) { (void)device; }
int gq_nvrtc_preload(void) { return 0; }

int gq_cuda_open(int device, struct gq_cuda_state **st, char *name, size_t namelen, int *sms)
{
  (void)device; (void)name; (void)namelen; (void)sms;
  *st = NULL;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

void gq_cuda_close(struct gq_cuda_state *st) { (void)st; }

int gq_cuda_grid_sum(struct gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[GQ_GRID_KEYS], gq_grid_info *info)
{
  (void)st; (void)p; (void)sums; (void)info;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_grid_nonfinite(struct gq_cuda_state *st, const gq_grid_sum *p, uint64_t *count, uint64_t *first)
{
  (void)st; (void)p; (void)count; (void)first;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_grid_sum_batch(struct gq_cuda_state *st, const gq_grid_batch *b, gq_csum (*sums)[GQ_GRID_KEYS],
                           gq_grid_info *info, int *packed)
{
  (void)st; (void)b; (void)sums; (void)info;
  *packed = 0;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

void gq_cuda_set_jit_cache(struct gq_cuda_state *st, int enabled) { (void)st; (void)enabled; }

void gq_cuda_set_stream(struct gq_cuda_state *st, void *stream) { (void)st; (void)stream; }
int gq_cuda_array_reduce(struct gq_cuda_state *st, const gq_array_reduce *p, gq_reduce_acc *out, double *ms)
{
  (void)st; (void)p; (void)out; (void)ms;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_generate(struct gq_cuda_state *st, gq_gen_kind kind, size_t n, size_t first, size_t count,
                     uint64_t seed, double *xd, float *xf)
{
  (void)st; (void)kind; (void)n; (void)first; (void)count; (void)seed; (void)xd; (void)xf;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_alloc(struct gq_cuda_state *st, size_t bytes, void **ptr)
{
  (void)st; (void)bytes;
  *ptr = NULL;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

void gq_cuda_free(struct gq_cuda_state *st, void *ptr) { (void)st; (void)ptr; }

int gq_cuda_copy_to(struct gq_cuda_state *st, void *dst, const void *src, size_t bytes)
{
  (void)st; (void)dst; (void)src; (void)bytes;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_copy_from(struct gq_cuda_state *st, void *dst, const void *src, size_t bytes)
{
  (void)st; (void)dst; (void)src; (void)bytes;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_stream(struct gq_cuda_state *st, gq_reduce_kind kind, gq_stream_src *src,
                   gq_reduce_acc *acc, gq_stream_info *info)
{
  (void)st; (void)kind; (void)src; (void)acc; (void)info;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_array_async(struct gq_cuda_state *st, const gq_array_reduce *p, void *d_finished)
{
  (void)st; (void)p; (void)d_finished;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_write_identity(struct gq_cuda_state *st, void *d_dst, const void *value, size_t bytes)
{
  (void)st; (void)d_dst; (void)value; (void)bytes;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_array_finish(struct gq_cuda_state *st, const gq_array_reduce *p, void *out)
{
  (void)st; (void)p; (void)out;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

/* gpuquad mc */
int gq_cuda_mc_batch(struct gq_cuda_state *st, const gq_mc_batch *p, gq_mc_moments *out, gq_grid_info *info)
{
  (void)st; (void)p; (void)out; (void)info;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_product_sum(struct gq_cuda_state *st, const gq_product_sum *p, gq_csum sums[2], gq_grid_info *info)
{
  (void)st; (void)p; (void)sums; (void)info;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_product_nonfinite(struct gq_cuda_state *st, const gq_product_sum *p, uint64_t *count, uint64_t *first)
{
  (void)st; (void)p; (void)count; (void)first;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

/* gq_integrate_samples' stencils */
int gq_cuda_sampled_sum(struct gq_cuda_state *st, const gq_sampled_problem *p, gq_sum_acc *out)
{
  (void)st; (void)p; (void)out;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_hist(struct gq_cuda_state *st, const gq_hist_problem *p, gq_hist_out *out)
{
  (void)st; (void)p; (void)out;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_hist_method_for(struct gq_cuda_state *st, uint32_t keys, int sum)
{
  (void)st; (void)keys; (void)sum;
  return GQ_HIST_GLOBAL;
}

/* adaptive cubature's regions */
int gq_cuda_adaptive_open(struct gq_cuda_state *st, const gq_integrand *g, int dims,
                          gq_cuda_adaptive **out, gq_grid_info *info)
{
  (void)st; (void)g; (void)dims; (void)info;
  *out = NULL;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

int gq_cuda_adaptive_evaluate(gq_cuda_adaptive *s, const gq_adaptive_batch *b, double *ms)
{
  (void)s; (void)b; (void)ms;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

void gq_cuda_adaptive_close(gq_cuda_adaptive *s) { (void)s; }
int gq_cuda_adaptive_launch(gq_cuda_adaptive *s, const gq_adaptive_batch *device_batch)
{
  (void)s; (void)device_batch;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}
struct gq_cuda_state *gq_cuda_adaptive_state(gq_cuda_adaptive *s) { (void)s; return NULL; }
int gq_cuda_store_open(gq_cuda_adaptive *a, int dims, uint64_t cap, uint64_t n, const double *centre,
                       const double *half, const double *share, gq_cuda_store **out)
{
  (void)a; (void)dims; (void)cap; (void)n; (void)centre; (void)half; (void)share;
  *out = NULL;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}
int gq_cuda_store_evaluate(gq_cuda_store *s, uint64_t first, uint64_t count)
{
  (void)s; (void)first; (void)count;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}
int gq_cuda_store_results(gq_cuda_store *s, int to_host, uint64_t first, uint64_t count, double *estimate,
                          double *error, unsigned char *axis)
{
  (void)s; (void)to_host; (void)first; (void)count; (void)estimate; (void)error; (void)axis;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}
int gq_cuda_store_sums(gq_cuda_store *s, double retire, int bins, gq_store_report *rep)
{
  (void)s; (void)retire; (void)bins; (void)rep;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}
int gq_cuda_store_count(gq_cuda_store *s, double retire)
{
  (void)s; (void)retire;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}
void gq_cuda_store_bins(const gq_cuda_store *s, double *bin_err, uint64_t *bin_count)
{
  (void)s; (void)bin_err; (void)bin_count;
}
int gq_cuda_store_apply(gq_cuda_store *s, double retire, int lowest, int cut, uint64_t take, uint64_t most_split,
                        gq_store_report *rep)
{
  (void)s; (void)retire; (void)lowest; (void)cut; (void)take; (void)most_split; (void)rep;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}
int gq_cuda_store_region(gq_cuda_store *s, uint64_t r, double *centre, double *half)
{
  (void)s; (void)r; (void)centre; (void)half;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}
void gq_cuda_store_close(gq_cuda_store *s) { (void)s; }
int gq_cuda_vegas_pass(struct gq_cuda_state *st, const gq_vegas_pass *p, gq_grid_info *info)
{
  (void)st; (void)p; (void)info;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}
int gq_cuda_vegas_open(struct gq_cuda_state *st, const gq_vegas_pass *p, uint64_t per_pass, double beta,
                       gq_cuda_vegas **out, gq_grid_info *info)
{
  (void)st; (void)p; (void)per_pass; (void)beta; (void)info;
  *out = NULL;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}
int gq_cuda_vegas_sample(gq_cuda_vegas *v, const gq_vegas_pass *p, gq_vegas_totals *t, gq_grid_info *info)
{
  (void)v; (void)p; (void)t; (void)info;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}
int gq_cuda_vegas_next(gq_cuda_vegas *v, const gq_vegas_pass *p)
{
  (void)v; (void)p;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}
void gq_cuda_vegas_close(gq_cuda_vegas *v) { (void)v; }
int gq_cuda_exact_reduce(struct gq_cuda_state *st, const gq_array_reduce *p, int magnitudes, struct gq_exact_acc *out)
{
  (void)st; (void)p; (void)magnitudes; (void)out;
  return gq_fail(GQ_ENODEV, "this gpuquad was built without CUDA");
}

void gq_cuda_exact_force_shape(unsigned blocks, unsigned threads) { (void)blocks; (void)threads; }
