/* t_reduce_gpu.c — the CUDA data reductions against the exact references
 * (reduce_ref.h) and against the CPU backend: sizes around the vector width,
 * the tile and the grid, misaligned starts (vector and scalar sources), float
 * and double, NaN/Inf classification, streamed chunks, generation, and
 * (issue 13) overflow, underflow and correctly rounded statistics.
 * Output structs are poisoned before every call.  Exits 77 (skipped) where
 * there is no CUDA device. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../src/lib/io/reader.h"
#include "reduce_ref.h"

static gq_context *gpu, *cpu;

/* n elements of x and y at element offsets ox, oy of device buffers. */
static void run_case(size_t n, size_t ox, size_t oy, int is_float)
{
  const size_t esize = is_float ? sizeof(float) : sizeof(double), cap = n + 4;
  double *hx = malloc(cap * sizeof *hx), *hy = malloc(cap * sizeof *hy);
  void *hostx = malloc(cap * esize), *hosty = malloc(cap * esize);
  gq_generate(cpu, GQ_GEN_NORMAL, cap, 21, hx);
  gq_generate(cpu, GQ_GEN_UNIFORM, cap, 22, hy);
  for (size_t i = 0; i < cap; i++) {
    hx[i] += 2.0;
    if (is_float) {
      ((float *)hostx)[i] = (float)hx[i];
      ((float *)hosty)[i] = (float)hy[i];
      hx[i] = ((float *)hostx)[i];
      hy[i] = ((float *)hosty)[i];
    } else {
      ((double *)hostx)[i] = hx[i];
      ((double *)hosty)[i] = hy[i];
    }
  }
  void *dx, *dy;
  gq_alloc(gpu, cap * esize, &dx);
  gq_alloc(gpu, cap * esize, &dy);
  gq_copy_to(gpu, dx, hostx, cap * esize);
  gq_copy_to(gpu, dy, hosty, cap * esize);
  char label[64];
  snprintf(label, sizeof label, "gpu %s +%zu/+%zu", is_float ? "float" : "double", ox, oy);
  const void *xd = (const char *)dx + ox * esize, *yd = (const char *)dy + oy * esize;
  const void *hostx_at = (const char *)hostx + ox * esize;
  lite_rms = 1;
  check_reductions(gpu, label, is_float, n, xd, yd, hx + ox, hy + oy);

  /* GPU and CPU backends agree (stats bit for bit where exact). */
  gq_stats_result g, c;
  POISON(g);
  POISON(c);
  is_float ? gq_stats_f(gpu, n, xd, &g) : gq_stats(gpu, n, xd, &g);
  is_float ? gq_stats_f(cpu, n, hostx_at, &c) : gq_stats(cpu, n, hostx_at, &c);
  /* Both merge double-double moments exactly (reduce_acc.h): the mean, the
   * variances and L1 are the same to an ulp (the same bits but for ties),
   * whatever the grid and the thread count. */
  tap_ok(g.min == c.min && g.argmin == c.argmin && g.max == c.max && g.argmax == c.argmax &&
             within_ulps(g.mean, c.mean, 1) && within_ulps(g.sum, c.sum, 1) && within_ulps(g.l1, c.l1, 1) &&
             ((isnan(g.var_sample) && isnan(c.var_sample)) || /* n = 1: no sample variance */
              within_ulps(g.var_sample, c.var_sample, 1)) &&
             within_ulps(g.var_population, c.var_population, 1),
         "%s n=%zu: GPU and CPU stats agree to an ulp (mean %.17g / %.17g, var %.17g / %.17g)", label, n, g.mean,
         c.mean, g.var_sample, c.var_sample);
  gq_free(gpu, dx);
  gq_free(gpu, dy);
  free(hx); free(hy); free(hostx); free(hosty);
}

static void nonfinite(void)
{
  const size_t n = 1000003;
  double *h = malloc(n * sizeof *h);
  for (size_t i = 0; i < n; i++)
    h[i] = (double)(i % 1000);
  h[777777] = NAN;
  h[5] = INFINITY;
  h[999999] = -INFINITY;
  double *d;
  gq_alloc(gpu, n * sizeof *d, (void **)&d);
  gq_copy_to(gpu, d, h, n * sizeof *d);
  gq_stats_acc a;
  gq_stats_acc_init(&a);
  const int st = gq_stats_accumulate(gpu, &a, n, d);
  tap_ok(st == GQ_SUCCESS && a.nan_count == 1 && a.first_nan == 777777 && a.posinf_count == 1 &&
             a.first_posinf == 5 && a.neginf_count == 1 && a.first_neginf == 999999 && a.n == n - 3,
         "gpu classifying pass: NaN at 777777, +Inf at 5, -Inf at 999999");
  gq_stats_result s;
  gq_stats_finish(&a, GQ_NAN_OMIT, &s);
  tap_ok(s.min == 0.0 && s.argmin == 0 && s.max == 999.0 && s.argmax == 999, "gpu omit: min 0@0, max 999@999");
  gq_sum_acc sa;
  gq_sum_acc_init(&sa);
  gq_dot_accumulate(gpu, &sa, n, d, d);
  tap_ok(sa.nan_count == 1 && sa.posinf_count == 2 && sa.n == n - 3, "gpu dot of x with itself: 1 NaN, 2 +Inf terms");
  gq_free(gpu, d);
  free(h);
}

static void streamed(void)
{
  /* Three CUDA chunks and a partial one, through a file. */
  const size_t n = ((size_t)1 << 23) * 3 + 12345;
  double *h = malloc(n * sizeof *h);
  gq_generate(cpu, GQ_GEN_NORMAL, n, 3, h);
  char path[] = "/tmp/gq-stream-XXXXXX";
  const int fd = mkstemp(path);
  if (fd >= 0)
    close(fd);
  char msg[512];
  gq_npy_write_f64(path, h, n, msg, sizeof msg);
  gq_reader *r = NULL;
  gq_reader_open(path, NULL, &r, msg, sizeof msg);
  gq_stats_acc a;
  gq_stats_acc_init(&a);
  gq_stream_info info;
  const int st = gq_stats_stream(gpu, r, &a, &info);
  gq_reader_close(r);
  gq_stats_result s, c;
  gq_stats_finish(&a, GQ_NAN_PROPAGATE, &s);
  gq_stats(cpu, n, h, &c);
  tap_ok(st == GQ_SUCCESS && s.total == n && s.argmin == c.argmin && s.argmax == c.argmax &&
             within_ulps(s.mean, c.mean, 1) && within_ulps(s.var_sample, c.var_sample, 1),
         "streamed stats over %zu elements (4 chunks): argmin %llu, mean %.17g vs CPU %.17g; %.3g GB/s, bound by %s",
         n, (unsigned long long)s.argmin, s.mean, c.mean, info.bytes / (info.wall_ms * 1e6), info.bound);
  unlink(path);
  free(h);
}

int main(void)
{
  if (gq_cuda_device_count() == 0) {
    printf("1..0 # SKIP no CUDA device\n");
    return 77;
  }
  gpu = gq_context_create(0);
  cpu = gq_context_create(GQ_DEVICE_CPU);
  if (!tap_ok(gpu != NULL, "CUDA context: %s", gpu ? gq_context_device_name(gpu) : gq_last_error()))
    return tap_done();
  const size_t sizes[] = {1, 2, 3, 5, 31, 1023, 1024, 1025, 1000003, ((size_t)1 << 20) + 3};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    for (int f = 0; f < 2; f++) {
      run_case(sizes[k], 0, 0, f);
      run_case(sizes[k], 1, 1, f); /* misaligned head, vector body */
      run_case(sizes[k], 1, 0, f); /* different alignments: scalar source */
    }
  nonfinite();
  streamed();
  /* Issue 13: overflow and underflow scaled in the classifying kernels, and
   * correctly rounded statistics, on the device. */
  check_overflow(gpu, "gpu");
  check_exact_stats(gpu, "gpu", 10, 0.0);
  check_exact_stats(gpu, "gpu", 1000, 1e7);
  check_exact_stats(gpu, "gpu", 100003, 0.5);
  check_exact_stats(gpu, "gpu", 3000017, 3.0);
  double *d;
  gq_alloc(gpu, 1000 * sizeof *d, (void **)&d);
  tap_ok(gq_generate(gpu, GQ_GEN_LINSPACE, 1000, 0, d) == GQ_SUCCESS, "gq_generate linspace on the device");
  gq_stats_result s;
  gq_stats(gpu, 1000, d, &s);
  tap_ok(s.min == 0.0 && s.max == 1.0 && s.argmax == 999 && fabs(s.mean - 0.5) <= 4 * U,
         "linspace: 0 .. 1, mean 0.5 (%.17g)", s.mean);
  /* The asynchronous forms leave in device memory what the synchronous ones return. */
  {
    const size_t n = ((size_t)1 << 20) + 3;
    double *x, *y, *d_out, sync_sum, sync_dot, async_vals[2];
    gq_rms_result sync_rms, async_rms, *d_rms;
    gq_alloc(gpu, n * sizeof *x, (void **)&x);
    gq_alloc(gpu, n * sizeof *y, (void **)&y);
    gq_alloc(gpu, 2 * sizeof *d_out, (void **)&d_out);
    gq_alloc(gpu, sizeof *d_rms, (void **)&d_rms);
    gq_generate(gpu, GQ_GEN_NORMAL, n, 11, x);
    gq_generate(gpu, GQ_GEN_UNIFORM, n, 12, y);
    gq_sum(gpu, n, x, &sync_sum);
    gq_dot(gpu, n, x, y, &sync_dot);
    gq_rms_diff(gpu, n, x, y, &sync_rms);
    const int s1 = gq_sum_async(gpu, n, x, d_out);
    const int s2 = gq_dot_async(gpu, n, x, y, d_out + 1);
    const int s3 = gq_rms_diff_async(gpu, n, x, y, d_rms);
    gq_copy_from(gpu, async_vals, d_out, sizeof async_vals);
    gq_copy_from(gpu, &async_rms, d_rms, sizeof async_rms);
    tap_ok(s1 == GQ_SUCCESS && async_vals[0] == sync_sum, "gq_sum_async %.17g = gq_sum %.17g", async_vals[0], sync_sum);
    tap_ok(s2 == GQ_SUCCESS && async_vals[1] == sync_dot, "gq_dot_async %.17g = gq_dot %.17g", async_vals[1], sync_dot);
    tap_ok(s3 == GQ_SUCCESS && async_rms.rms == sync_rms.rms && async_rms.max_abs == sync_rms.max_abs &&
           async_rms.relative == sync_rms.relative && async_rms.n == n,
           "gq_rms_diff_async (%.17g, %.17g, %.17g) = gq_rms_diff", async_rms.rms, async_rms.max_abs,
           async_rms.relative);
    /* n = 0 is the identity (t_empty), not an error */
    tap_ok(gq_dot_async(gpu, n, x, NULL, d_out) == GQ_EINVAL, "asynchronous forms: a NULL input is EINVAL");
    gq_free(gpu, x);
    gq_free(gpu, y);
    gq_free(gpu, d_out);
    gq_free(gpu, d_rms);
  }
  tap_ok(gq_generate(gpu, GQ_GEN_NORMAL, 999, 7, d) == GQ_SUCCESS, "gq_generate normal, odd length");
  gq_stats(gpu, 999, d, &s);
  tap_ok(fabs(s.mean) < 0.2 && fabs(s.sd_sample - 1.0) < 0.1 && s.nan_count == 0, "normal: mean %.3g, sd %.3g",
         s.mean, s.sd_sample);
  gq_free(gpu, d);
  gq_context_free(gpu);
  gq_context_free(cpu);
  return tap_done();
}
