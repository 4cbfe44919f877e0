/* readvec.c — test driver for the vector reader (used by stdin.sh and for
 * timing).  Not part of the installed program.
 *
 *   readvec [--format=npy|raw|text] [--dtype=f64|f32] [--offset=BYTES]
 *           [--col=K] [--chunk=ELEMS] [--time] PATH|-
 *       reads everything in chunks (default 8 Mi elements: 64 MiB of f64)
 *       and prints "count=N dtype=T length=L hash=H" where H is an FNV-1a
 *       hash of the delivered bytes; --time prints throughput instead of H.
 *   readvec --write-npy N PATH | --write-npy32 N PATH | --write-raw N PATH
 *         | --write-text N PATH
 *       writes the test vector x_i = 0.37 i - 5 with NaN/Inf sprinkled in.
 *
 * Exit status: 0 success, 1 reader error (message on stderr), 2 usage.
 */
#include "lib/io/reader.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double value(size_t i)
{
  if (i % 11 == 5)
    return NAN;
  if (i % 13 == 7)
    return INFINITY;
  if (i % 17 == 3)
    return -INFINITY;
  return (double)i * 0.37 - 5.0;
}

static int usage(void)
{
  fprintf(stderr, "usage: readvec [--format=F] [--dtype=D] [--offset=B] [--col=K] "
                  "[--chunk=N] [--time] PATH\n"
                  "       readvec --write-npy|--write-npy32|--write-raw|--write-text N PATH\n");
  return 2;
}

static int write_vector(const char *how, size_t n, const char *path)
{
  char msg[512];
  int st = GQ_SUCCESS;
  if (strcmp(how, "--write-text") == 0 || strcmp(how, "--write-raw") == 0) {
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
    if (!f) {
      perror(path);
      return 1;
    }
    for (size_t i = 0; i < n; i++) {
      double x = value(i);
      if (how[8] == 't')
        fprintf(f, isnan(x) ? "nan\n" : "%.17g\n", x);
      else
        fwrite(&x, sizeof x, 1, f);
    }
    if (f != stdout && fclose(f) != 0) {
      perror(path);
      return 1;
    }
    return 0;
  }
  if (strcmp(how, "--write-npy") == 0) {
    double *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
      v[i] = value(i);
    st = gq_npy_write_f64(path, v, n, msg, sizeof msg);
    free(v);
  } else {
    float *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
      v[i] = (float)value(i);
    st = gq_npy_write_f32(path, v, n, msg, sizeof msg);
    free(v);
  }
  if (st) {
    fprintf(stderr, "readvec: %s\n", msg);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  gq_reader_opts o = {.format = GQ_FORMAT_AUTO};
  size_t chunk = (size_t)8 << 20;
  int timing = 0;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--write-", 8) == 0) {
      if (i + 2 >= argc)
        return usage();
      return write_vector(a, (size_t)strtoull(argv[i + 1], NULL, 10), argv[i + 2]);
    } else if (strncmp(a, "--format=", 9) == 0) {
      a += 9;
      o.format = !strcmp(a, "npy") ? GQ_FORMAT_NPY : !strcmp(a, "raw") ? GQ_FORMAT_RAW
                 : !strcmp(a, "text") ? GQ_FORMAT_TEXT : (gq_format)-1;
      if ((int)o.format < 0)
        return usage();
    } else if (strncmp(a, "--dtype=", 8) == 0) {
      o.raw_dtype = !strcmp(a + 8, "f64") ? GQ_DTYPE_F64 : !strcmp(a + 8, "f32") ? GQ_DTYPE_F32
                                                                                 : GQ_DTYPE_NONE;
      if (o.raw_dtype == GQ_DTYPE_NONE)
        return usage();
    } else if (strncmp(a, "--offset=", 9) == 0) {
      o.offset = strtoull(a + 9, NULL, 10);
    } else if (strncmp(a, "--col=", 6) == 0) {
      o.column = atoi(a + 6);
    } else if (strncmp(a, "--chunk=", 8) == 0) {
      chunk = (size_t)strtoull(a + 8, NULL, 10);
    } else if (strcmp(a, "--time") == 0) {
      timing = 1;
    } else if (a[0] == '-' && a[1] != '\0') {
      return usage();
    } else {
      path = a;
    }
  }
  if (!path || chunk == 0)
    return usage();

  char msg[512];
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  gq_reader *r;
  int st = gq_reader_open(path, &o, &r, msg, sizeof msg);
  if (st) {
    fprintf(stderr, "readvec: %s\n", msg);
    return 1;
  }
  size_t es = gq_dtype_size(gq_reader_dtype(r));
  unsigned char *buf = malloc(chunk * es);
  if (!buf) {
    fprintf(stderr, "readvec: out of memory\n");
    return 1;
  }
  uint64_t hash = 1469598103934665603ull, count = 0;
  for (;;) {
    size_t got;
    st = gq_reader_read(r, buf, chunk, &got, msg, sizeof msg);
    if (st) {
      fprintf(stderr, "readvec: %s\n", msg);
      break;
    }
    if (got == 0)
      break;
    count += got;
    if (!timing)
      for (size_t i = 0; i < got * es; i++)
        hash = (hash ^ buf[i]) * 1099511628211ull;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (st == GQ_SUCCESS) {
    if (timing) {
      double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
      double bytes = (double)count * (double)es;
      printf("count=%llu bytes=%.0f seconds=%.4f GB/s=%.3f Melem/s=%.1f\n",
             (unsigned long long)count, bytes, s, bytes / s * 1e-9, (double)count / s * 1e-6);
    } else {
      printf("count=%llu dtype=%s length=%lld hash=%016llx\n", (unsigned long long)count,
             es == 8 ? "f64" : "f32", (long long)gq_reader_length(r),
             (unsigned long long)hash);
    }
  }
  free(buf);
  gq_reader_close(r);
  return st ? 1 : 0;
}
