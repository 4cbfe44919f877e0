// jacobi.cu — Jacobi iteration for the 2-D Poisson equation on the GPU,
// stopped by libgpuquad's convergence check.
//
//   -(u_xx + u_yy) = 2 pi^2 sin(pi x) sin(pi y) on the unit square, u = 0 on
//   the boundary; the solution is u = sin(pi x) sin(pi y).
//
// Every k iterations gq_rms_diff compares successive iterates on the device
// (one pass: rms, max |a - b| and the relative change) and the loop stops when
// the rms change falls below the tolerance.  Prints the iterations, the final
// change, the error against the analytic solution, and the time per iteration
// with and without the check.
//
//   nvcc -O3 jacobi.cu $(pkg-config --cflags --libs gpuquad) -o jacobi && ./jacobi [N] [k] [tol]
#include <gpuquad.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "jacobi: %s: %s\n", #call, cudaGetErrorString(e_));                \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

// One sweep over the interior of an (N+2) x (N+2) grid.
__global__ void sweep(const double *u, double *v, const double *h2f, int N)
{
  const int i = blockIdx.y * blockDim.y + threadIdx.y + 1, j = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (i > N || j > N)
    return;
  const int w = N + 2, c = i * w + j;
  v[c] = 0.25 * (u[c - w] + u[c + w] + u[c - 1] + u[c + 1] + h2f[c]);
}

int main(int argc, char **argv)
{
  const int N = argc > 1 ? atoi(argv[1]) : 128, k = argc > 2 ? atoi(argv[2]) : 50;
  const double tol = argc > 3 ? atof(argv[3]) : 1e-13;
  if (N < 4 || k < 1 || !(tol > 0)) {
    fprintf(stderr, "usage: jacobi [N >= 4] [k >= 1] [tol > 0]\n");
    return 2;
  }
  gq_context *ctx = gq_context_create(0);
  if (!ctx) {
    fprintf(stderr, "jacobi: %s\n", gq_last_error());
    return 77; // no GPU: nothing to show
  }
  const int w = N + 2;
  const size_t cells = (size_t)w * w;
  const double h = 1.0 / (N + 1), pi = 3.14159265358979323846;
  std::vector<double> h_f(cells, 0.0), h_u(cells);
  for (int i = 1; i <= N; i++)
    for (int j = 1; j <= N; j++)
      h_f[(size_t)i * w + j] = h * h * 2 * pi * pi * sin(pi * i * h) * sin(pi * j * h);
  double *u, *v, *h2f;
  CHECK(cudaMalloc(&u, cells * sizeof(double)));
  CHECK(cudaMalloc(&v, cells * sizeof(double)));
  CHECK(cudaMalloc(&h2f, cells * sizeof(double)));
  CHECK(cudaMemcpy(h2f, h_f.data(), cells * sizeof(double), cudaMemcpyHostToDevice));
  const dim3 block(32, 8), grid((N + 31) / 32, (N + 7) / 8);
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  gq_context_set_stream(ctx, stream); // the check runs in order with the sweeps

  // 1. solve: iterate until the rms change of a sweep is below tol
  CHECK(cudaMemset(u, 0, cells * sizeof(double)));
  CHECK(cudaMemset(v, 0, cells * sizeof(double)));
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  CHECK(cudaEventRecord(t0, stream));
  long it = 0;
  gq_rms_result change = {NAN, NAN, NAN, 0, 0, 0};
  const long max_it = 50L * N * N;
  while (it < max_it) {
    sweep<<<grid, block, 0, stream>>>(u, v, h2f, N);
    std::swap(u, v);
    if (++it % k == 0) {
      if (gq_rms_diff(ctx, cells, u, v, &change) != GQ_SUCCESS) {
        fprintf(stderr, "jacobi: gq_rms_diff: %s\n", gq_last_error());
        return 1;
      }
      if (change.rms < tol)
        break;
    }
  }
  CHECK(cudaEventRecord(t1, stream));
  CHECK(cudaEventSynchronize(t1));
  float solve_ms = 0;
  CHECK(cudaEventElapsedTime(&solve_ms, t0, t1));
  CHECK(cudaMemcpy(h_u.data(), u, cells * sizeof(double), cudaMemcpyDeviceToHost));
  double err = 0;
  for (int i = 1; i <= N; i++)
    for (int j = 1; j <= N; j++)
      err = fmax(err, fabs(h_u[(size_t)i * w + j] - sin(pi * i * h) * sin(pi * j * h)));

  // 2. the same number of sweeps without the check: what the check costs
  CHECK(cudaEventRecord(t0, stream));
  for (long s = 0; s < it; s++) {
    sweep<<<grid, block, 0, stream>>>(u, v, h2f, N);
    std::swap(u, v);
  }
  CHECK(cudaEventRecord(t1, stream));
  CHECK(cudaEventSynchronize(t1));
  float plain_ms = 0;
  CHECK(cudaEventElapsedTime(&plain_ms, t0, t1));

  // The discretisation error of the 5-point stencil is about pi^2 h^2 / 12.
  const double expected = pi * pi * h * h / 12.0;
  const int ok = change.rms < tol && err < 4 * expected;
  printf("jacobi N=%d: %ld iterations (check every %d), rms change %.3g, max change %.3g, relative %.3g\n", N, it,
         k, change.rms, change.max_abs, change.relative);
  printf("max error vs sin(pi x) sin(pi y): %.3g (discretisation ~%.3g): %s\n", err, expected,
         ok ? "ok" : "FAILED");
  printf("time per iteration: %.3f us with the check every %d, %.3f us without (%s)\n", 1e3 * solve_ms / it, k,
         1e3 * plain_ms / it, gq_context_device_name(ctx));
  cudaFree(u);
  cudaFree(v);
  cudaFree(h2f);
  cudaStreamDestroy(stream);
  gq_context_free(ctx);
  return ok ? 0 : 1;
}
