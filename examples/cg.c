/* cg.c — conjugate gradient on a sparse SPD system with libgpuquad's dot
 * products, checked against GSL's Cholesky solve of the same system.
 *
 * The system is the 1-D Laplacian with a shift, A = tridiag(-1, 2 + s, -1),
 * n unknowns, b_i = 1 (n = 200 by default so that the dense GSL solve stays
 * small).  Every inner product of CG goes through gq_dot, compensated, on the
 * context's memory: host arrays on a CPU context (this example), device
 * arrays on a CUDA context.
 *
 *   cc -std=c11 cg.c $(pkg-config --cflags --libs gpuquad) -o cg && ./cg [n]
 */
#include <gpuquad.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const double shift = 0.01;

static void apply(size_t n, const double *x, double *y) /* y = A x */
{
  for (size_t i = 0; i < n; i++)
    y[i] = (2 + shift) * x[i] - (i > 0 ? x[i - 1] : 0) - (i + 1 < n ? x[i + 1] : 0);
}

static double dot(gq_context *ctx, size_t n, const double *x, const double *y)
{
  double r;
  if (gq_dot(ctx, n, x, y, &r) != GQ_SUCCESS) {
    fprintf(stderr, "cg: gq_dot: %s\n", gq_last_error());
    exit(1);
  }
  return r;
}

int main(int argc, char **argv)
{
  const size_t n = argc > 1 ? (size_t)atol(argv[1]) : 200;
  if (n < 2 || n > 5000) {
    fprintf(stderr, "usage: cg [2 <= n <= 5000]\n");
    return 2;
  }
  gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
  double *x = calloc(n, sizeof *x), *r = malloc(n * sizeof *r), *p = malloc(n * sizeof *p),
         *ap = malloc(n * sizeof *ap);
  for (size_t i = 0; i < n; i++)
    r[i] = p[i] = 1.0; /* b = 1, x0 = 0 */
  double rr = dot(ctx, n, r, r);
  const double stop = 1e-24 * rr;
  size_t it = 0;
  for (; it < 10 * n && rr > stop; it++) {
    apply(n, p, ap);
    const double alpha = rr / dot(ctx, n, p, ap);
    for (size_t i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * ap[i];
    }
    const double rr_new = dot(ctx, n, r, r);
    for (size_t i = 0; i < n; i++)
      p[i] = r[i] + rr_new / rr * p[i];
    rr = rr_new;
  }

  /* GSL: dense Cholesky of the same matrix */
  gsl_matrix *a = gsl_matrix_calloc(n, n);
  gsl_vector *b = gsl_vector_alloc(n), *xs = gsl_vector_alloc(n);
  for (size_t i = 0; i < n; i++) {
    gsl_matrix_set(a, i, i, 2 + shift);
    if (i > 0)
      gsl_matrix_set(a, i, i - 1, -1);
    if (i + 1 < n)
      gsl_matrix_set(a, i, i + 1, -1);
    gsl_vector_set(b, i, 1.0);
  }
  gsl_linalg_cholesky_decomp1(a);
  gsl_linalg_cholesky_solve(a, b, xs);
  double diff = 0, scale = 0;
  for (size_t i = 0; i < n; i++) {
    diff = fmax(diff, fabs(x[i] - gsl_vector_get(xs, i)));
    scale = fmax(scale, fabs(gsl_vector_get(xs, i)));
  }
  const int ok = diff <= 1e-9 * scale;
  printf("cg n=%zu: %zu iterations, |r| = %.3g; max |x - x_gsl| = %.3g of max |x| = %.3g: %s\n", n, it, sqrt(rr),
         diff, scale, ok ? "ok" : "FAILED");
  gsl_matrix_free(a);
  gsl_vector_free(b);
  gsl_vector_free(xs);
  free(x);
  free(r);
  free(p);
  free(ap);
  gq_context_free(ctx);
  return ok ? 0 : 1;
}
