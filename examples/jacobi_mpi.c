/* jacobi_mpi.c — Jacobi iteration for the 2-D Poisson equation split across
 * MPI ranks, stopped by a global convergence check built from libgpuquad's
 * accumulators.
 *
 *   -(u_xx + u_yy) = 2 pi^2 sin(pi x) sin(pi y) on the unit square, u = 0 on
 *   the boundary; the solution is u = sin(pi x) sin(pi y).
 *
 * Each rank owns a band of rows (gq_share_range) with one halo row above and
 * below, exchanged with its neighbours before every sweep.  Every k sweeps
 * each rank accumulates the change of its own rows (gq_rms_accumulate: the
 * rms, max |a - b| and relative change of the data, compensated), the ranks
 * gather their accumulators and merge them in rank order (gq_rms_acc_merge),
 * and every rank finishes the same global result: the same decision to stop,
 * on every rank, for any number of ranks.  A CPU context on host arrays; on
 * GPUs the same calls take device pointers.
 *
 *   mpicc -O2 jacobi_mpi.c $(pkg-config --cflags --libs gpuquad) -o jacobi_mpi
 *   mpirun -np 4 ./jacobi_mpi [N] [k] [tol]
 */
#include <gpuquad.h>
#include <mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The global change of the last sweep: the ranks' accumulators merged in rank order. */
static int global_change(gq_context *ctx, size_t cells, const double *u, const double *v, gq_rms_acc *all,
                         int ranks, gq_rms_result *change)
{
  gq_rms_acc mine;
  gq_rms_acc_init(&mine);
  int status = cells ? gq_rms_accumulate(ctx, &mine, cells, u, v) : GQ_SUCCESS;
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
  gq_rms_acc total = all[0];
  for (int r = 1; r < ranks; r++)
    gq_rms_acc_merge(&total, &all[r]);
  if (status == GQ_SUCCESS)
    status = gq_rms_finish(&total, GQ_NAN_PROPAGATE, change);
  return status;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int N = argc > 1 ? atoi(argv[1]) : 48, k = argc > 2 ? atoi(argv[2]) : 20;
  const double tol = argc > 3 ? atof(argv[3]) : 1e-12;
  if (N < 4 || k < 1 || !(tol > 0)) {
    if (rank == 0)
      fprintf(stderr, "usage: jacobi_mpi [N >= 4] [k >= 1] [tol > 0]\n");
    MPI_Finalize();
    return 2;
  }
  gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
  if (!ctx) {
    fprintf(stderr, "jacobi_mpi: %s\n", gq_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  /* rows [first, first + rows) of the interior rows 1..N, stored at local
   * rows 1..rows of a (rows + 2) x (N + 2) band */
  uint64_t first, count;
  gq_share_range((uint64_t)N, 1, rank, ranks, &first, &count);
  const int rows = (int)count, w = N + 2;
  const size_t band = (size_t)(rows + 2) * w;
  double *u = calloc(band, sizeof *u), *v = calloc(band, sizeof *v), *h2f = calloc(band, sizeof *h2f);
  gq_rms_acc *all = malloc((size_t)ranks * sizeof *all);
  if (!u || !v || !h2f || !all) {
    fprintf(stderr, "jacobi_mpi: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const double h = 1.0 / (N + 1), pi = 3.14159265358979323846;
  for (int i = 1; i <= rows; i++)
    for (int j = 1; j <= N; j++)
      h2f[(size_t)i * w + j] = h * h * 2 * pi * pi * sin(pi * (double)(first + i) * h) * sin(pi * j * h);
  /* neighbours that own rows (a rank with none passes nothing on) */
  const int above = rank > 0 && first > 0 ? rank - 1 : MPI_PROC_NULL;
  const int below = rank + 1 < ranks && first + count < (uint64_t)N ? rank + 1 : MPI_PROC_NULL;

  long it = 0;
  const long max_it = 50L * N * N;
  gq_rms_result change = {NAN, NAN, NAN, 0, 0, 0};
  int status = GQ_SUCCESS;
  while (it < max_it) { /* every rank, rows or none: the collectives need all */
    /* halos: my first row up, my last row down, theirs into rows 0 and rows + 1 */
    MPI_Sendrecv(u + w, w, MPI_DOUBLE, above, 0, u + (size_t)(rows + 1) * w, w, MPI_DOUBLE, below, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(u + (size_t)rows * w, w, MPI_DOUBLE, below, 1, u, w, MPI_DOUBLE, above, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 1; i <= rows; i++)
      for (int j = 1; j <= N; j++) {
        const size_t c = (size_t)i * w + j;
        v[c] = 0.25 * (u[c - w] + u[c + w] + u[c - 1] + u[c + 1] + h2f[c]);
      }
    double *t = u;
    u = v;
    v = t;
    if (++it % k == 0) {
      status = global_change(ctx, (size_t)rows * w, u + w, v + w, all, ranks, &change);
      if (status != GQ_SUCCESS || change.rms < tol)
        break;
    }
  }
  double err = 0;
  for (int i = 1; i <= rows; i++)
    for (int j = 1; j <= N; j++)
      err = fmax(err, fabs(u[(size_t)i * w + j] - sin(pi * (double)(first + i) * h) * sin(pi * j * h)));
  MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

  /* The discretisation error of the 5-point stencil is about pi^2 h^2 / 12. */
  const double expected = pi * pi * h * h / 12.0;
  const int ok = status == GQ_SUCCESS && change.rms < tol && err < 4 * expected;
  if (rank == 0) {
    if (status != GQ_SUCCESS)
      fprintf(stderr, "jacobi_mpi: %s\n", gq_last_error());
    printf("jacobi_mpi N=%d on %d ranks: %ld iterations (check every %d), rms change %.3g, relative %.3g\n", N,
           ranks, it, k, change.rms, change.relative);
    printf("max error vs sin(pi x) sin(pi y): %.3g (discretisation ~%.3g): %s\n", err, expected,
           ok ? "ok" : "FAILED");
  }
  free(u);
  free(v);
  free(h2f);
  free(all);
  gq_context_free(ctx);
  MPI_Finalize();
  return ok ? 0 : 1;
}
