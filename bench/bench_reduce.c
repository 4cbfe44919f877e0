/* bench_reduce.c — gpuquad's data reductions against cuBLAS and CUB, in the
 * same run, on vectors generated in device memory (2^10, 2^20, 2^28
 * doubles), and the streamed file case.
 *
 * Every call is timed as a user sees it: host clock around one synchronous
 * call that returns the result to the host (gpuquad: one kernel + one small
 * copy; cuBLAS: cublasDdot in host pointer mode; CUB: DeviceReduce + copy).
 * Medians of REPS after 20 ms of warm-up calls.  Each result is checked against the
 * peer's before it is timed.
 * Usage: bench_reduce [REPS [NPY_PATH [GIB]]]   (20; no file case; 4 GiB) */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuquad.h"
#include "lib/io/reader.h"
#include "peers.h"

static double now_ms(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int reps = 20;
static double times[1000];

/* Median time of `call` (an expression statement) in microseconds, after
 * 20 ms of warm-up calls: with only a couple, the first rows of a process
 * read up to 1.5 us higher than the same calls later in it (the probe rows,
 * BENCHMARKS.md). */
#define TIME_US(call, out)                                                   \
  do {                                                                       \
    const double w0_ = now_ms();                                             \
    for (int w_ = 0; w_ < 2 || now_ms() - w0_ < 20.0; w_++) {                \
      call;                                                                  \
    }                                                                        \
    for (int r_ = 0; r_ < reps; r_++) {                                      \
      const double t0_ = now_ms();                                           \
      call;                                                                  \
      times[r_] = (now_ms() - t0_) * 1e3;                                    \
    }                                                                        \
    qsort(times, (size_t)reps, sizeof *times, cmp);                          \
    out = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]); \
  } while (0)

static void row(const char *what, long long n, double us, double bytes, double peer_us, const char *peer,
                double diff)
{
  printf("%-22s n=2^%-2d %10.2f us %8.1f GB/s", what, (int)log2((double)n), us, bytes / (us * 1e3));
  if (peer_us > 0)
    printf("   %-18s %10.2f us  ratio %.3f  |diff| %.2e", peer, peer_us, peer_us / us, diff);
  printf("\n");
}

static int sizes_case(gq_context *ctx, long long n)
{
  double *a, *b;
  float *af;
  if (gq_alloc(ctx, (size_t)n * 8, (void **)&a) || gq_alloc(ctx, (size_t)n * 8, (void **)&b) ||
      gq_alloc(ctx, (size_t)n * 4, (void **)&af))
    return fprintf(stderr, "bench_reduce: %s\n", gq_last_error()), 1;
  gq_generate(ctx, GQ_GEN_UNIFORM, (size_t)n, 1, a);
  gq_generate(ctx, GQ_GEN_UNIFORM, (size_t)n, 2, b);
  gq_generate_f(ctx, GQ_GEN_UNIFORM, (size_t)n, 3, af);
  double g, p, us, peer_us;
  double rp[3];
  gq_rms_result rr;
  gq_stats_result s;

  gq_dot(ctx, (size_t)n, a, b, &g);
  peer_cublas_ddot(a, b, n, &p);
  TIME_US(gq_dot(ctx, (size_t)n, a, b, &g), us);
  TIME_US(peer_cublas_ddot(a, b, n, &p), peer_us);
  row("gq_dot", n, us, 16.0 * n, peer_us, "cublasDdot", fabs(g - p));

  gq_sum(ctx, (size_t)n, a, &g);
  peer_cub_sum(a, n, &p);
  TIME_US(gq_sum(ctx, (size_t)n, a, &g), us);
  TIME_US(peer_cub_sum(a, n, &p), peer_us);
  row("gq_sum", n, us, 8.0 * n, peer_us, "cub Sum", fabs(g - p));

  TIME_US(gq_stats(ctx, (size_t)n, a, &s), us);
  row("gq_stats (one pass)", n, us, 8.0 * n, peer_us, "cub Sum", fabs(s.sum - p));

  TIME_US(gq_rms_diff(ctx, (size_t)n, a, b, &rr), us);
  TIME_US(peer_three_pass_rms(a, b, n, rp), peer_us);
  row("gq_rms_diff (one pass)", n, us, 16.0 * n, peer_us, "3-pass cub/cublas", fabs(rr.rms - rp[0]));
  if (rr.max_abs != rp[1] || fabs(rr.relative - rp[2]) > 1e-12 * rp[2])
    printf("  !! rms disagrees with the three-pass peer: max %.17g vs %.17g, relative %.17g vs %.17g\n",
           rr.max_abs, rp[1], rr.relative, rp[2]);

  TIME_US(gq_sum_f(ctx, (size_t)n, af, &g), us);
  row("gq_sum_f (float)", n, us, 4.0 * n, 0, "", 0);
  TIME_US(gq_stats_f(ctx, (size_t)n, af, &s), us);
  row("gq_stats_f (float)", n, us, 4.0 * n, 0, "", 0);
  gq_free(ctx, a);
  gq_free(ctx, b);
  gq_free(ctx, af);
  return 0;
}

/* gq_dot and gq_rms_diff at 2^20 alone: before the peers are set up (no
 * cuBLAS handle, no 2^28 buffers) and after every size, to show whether the
 * peers' state moves the library's latency. */
static int probe(gq_context *ctx, const char *when)
{
  const size_t n = (size_t)1 << 20;
  double *a, *b, g, us_dot, us_rms;
  gq_rms_result rr;
  if (gq_alloc(ctx, n * 8, (void **)&a) || gq_alloc(ctx, n * 8, (void **)&b))
    return fprintf(stderr, "bench_reduce: %s\n", gq_last_error()), 1;
  gq_generate(ctx, GQ_GEN_UNIFORM, n, 1, a);
  gq_generate(ctx, GQ_GEN_UNIFORM, n, 2, b);
  TIME_US(gq_dot(ctx, n, a, b, &g), us_dot);
  TIME_US(gq_rms_diff(ctx, n, a, b, &rr), us_rms);
  printf("probe %-28s n=2^20: gq_dot %.2f us, gq_rms_diff %.2f us\n", when, us_dot, us_rms);
  gq_free(ctx, a);
  gq_free(ctx, b);
  return 0;
}

static int file_case(gq_context *ctx, const char *path, double gib)
{
  char msg[512];
  const size_t n = (size_t)(gib * (double)(1u << 30) / 8);
  gq_reader *r;
  if (gq_reader_open(path, NULL, &r, msg, sizeof msg) != GQ_SUCCESS ||
      gq_reader_length(r) != (int64_t)n) {
    if (r)
      gq_reader_close(r);
    gq_context *cpu = gq_context_create(GQ_DEVICE_CPU);
    double *h = malloc(n * sizeof *h);
    if (!h || !cpu)
      return fprintf(stderr, "bench_reduce: no memory for the %g GiB file\n", gib), 1;
    gq_generate(cpu, GQ_GEN_NORMAL, n, 4, h);
    if (gq_npy_write_f64(path, h, n, msg, sizeof msg) != GQ_SUCCESS)
      return fprintf(stderr, "bench_reduce: %s\n", msg), 1;
    free(h);
    gq_context_free(cpu);
  } else {
    gq_reader_close(r);
  }
  const double h2d = peer_h2d_gbps((size_t)1 << 28);
  for (int k = 0; k < 3; k++) { /* the first run also warms the page cache */
    gq_stats_acc acc;
    gq_stats_acc_init(&acc);
    gq_stream_info info;
    if (gq_reader_open(path, NULL, &r, msg, sizeof msg) != GQ_SUCCESS)
      return fprintf(stderr, "bench_reduce: %s\n", msg), 1;
    const int st = gq_stats_stream(ctx, r, &acc, &info);
    gq_reader_close(r);
    if (st != GQ_SUCCESS)
      return fprintf(stderr, "bench_reduce: %s\n", gq_last_error()), 1;
    printf("stats stream %s (%.2f GiB) run %d: %.1f ms, %.2f GB/s end to end; read %.1f ms, copy %.1f ms, "
           "reduce %.1f ms: bound by %s; pinned H2D measured %.2f GB/s\n",
           path, info.bytes / (double)(1u << 30), k + 1, info.wall_ms, info.bytes / (info.wall_ms * 1e6),
           info.read_ms, info.copy_ms, info.compute_ms, info.bound, h2d);
  }
  return 0;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    reps = atoi(argv[1]);
  if (reps < 1 || reps > 1000)
    return fprintf(stderr, "usage: bench_reduce [REPS [NPY_PATH [GIB]]]\n"), 2;
  gq_context *ctx = gq_context_create(0);
  if (!ctx)
    return fprintf(stderr, "bench_reduce: %s\n", gq_last_error()), 1;
  const long long sizes[] = {1LL << 10, 1LL << 20, 1LL << 28};
  if (probe(ctx, "before the peers' setup"))
    return 1;
  if (peer_reduce_setup(sizes[2]) != 0)
    return fprintf(stderr, "bench_reduce: cannot set up cuBLAS/CUB\n"), 1;
  printf("device: %s, %d multiprocessors; host-clock medians of %d synchronous calls after 20 ms of warm-up calls\n",
         gq_context_device_name(ctx), gq_context_threads(ctx), reps);
  for (int k = 0; k < 3; k++)
    if (sizes_case(ctx, sizes[k]))
      return 1;
  if (probe(ctx, "after every size"))
    return 1;
  peer_reduce_teardown();
  if (argc > 2 && file_case(ctx, argv[2], argc > 3 ? atof(argv[3]) : 4.0))
    return 1;
  gq_context_free(ctx);
  return 0;
}
