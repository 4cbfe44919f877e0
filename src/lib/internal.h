/* internal.h — what the library's modules share and the public header hides. */
#ifndef GQ_INTERNAL_H
#define GQ_INTERNAL_H

#include "gpuquad.h"
#include "compensated.h"

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

struct gq_integrand {
  int id;
  const char *name, *formula, *description;
  double a, b;
  double scale;                  /* f = scale * g, scale a power of two: the
                                    backends sum g (integrands.def)     */
  double (*eval)(double x);      /* host, double: f  */
  float (*eval_f)(float x);      /* host, float   */
  double (*antiderivative)(double x);
};

struct gq_cuda_state; /* kernels/: device, stream, events, scratch */

struct gq_context {
  int backend;
  int threads;                 /* OpenMP threads, or multiprocessors */
  char device_name[256];
  struct gq_cuda_state *cuda;  /* NULL for the CPU backend */
};

/* Record a failure (message formatted like printf), call the error handler,
 * and return status, so that `return gq_fail(GQ_EINVAL, "...")` reads well. */
int gq_fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
void gq_clear_error(void);

/* The grid x_i = fma(i, h, a), evaluated in `precision`, summed over the
 * interior indices [first, last] split by index parity: sums[p] holds the
 * compensated sum of g(x_i) over the i with i % 2 == p (f = scale * g).  Both backends
 * implement this one reduction; the trapezoid module assembles T(h) and T(2h). */
typedef struct {
  int integrand;   /* GQ_F_* */
  int precision;   /* gq_precision */
  double a, h;
  uint64_t first, last; /* inclusive, first <= last */
} gq_grid_sum;

int gq_cpu_grid_sum(const gq_context *ctx, const gq_grid_sum *p, gq_csum sums[2], double *ms);
int gq_cpu_threads(void);

/* CUDA backend (kernels/ when built with CUDA, src/lib/no_cuda.c otherwise). */
int gq_cuda_count(void);
int gq_cuda_open(int device, struct gq_cuda_state **st, char *name, size_t namelen, int *sms);
void gq_cuda_close(struct gq_cuda_state *st);
int gq_cuda_grid_sum(struct gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[2], double *ms);

/* Monotonic wall clock in milliseconds. */
double gq_wall_ms(void);

#ifdef __cplusplus
}
#endif
#endif /* GQ_INTERNAL_H */
