/* t_device_math.c — gq::fast_sqrt on the GPU against the IEEE sqrt: faithful
 * (within 1 ulp) for every positive normal argument, and not finite (the
 * signal to redo a sum exactly) for everything else.  Exits 77 without a GPU. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "tap.h"

int run_fast_sqrt(const double *v, double *fast, double *ieee, long long n);

static int64_t ulp_distance(double a, double b)
{
  int64_t x, y;
  memcpy(&x, &a, 8);
  memcpy(&y, &b, 8);
  return x > y ? x - y : y - x;
}

static uint64_t state = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

int main(void)
{
  if (gq_cuda_device_count() == 0) {
    printf("1..0 # SKIP no CUDA device\n");
    return 77;
  }
  enum { N = 1 << 22 };
  double *v = malloc(3 * N * sizeof *v), *fast = v + N, *ieee = v + 2 * N;
  /* random mantissas, exponents from 2^-1022 to 2^1023, plus [0,1) densely */
  for (int i = 0; i < N; i++) {
    const double m = 1.0 + (double)(next() >> 11) * 0x1p-53;
    v[i] = i % 2 ? ldexp(m, (int)(next() % 2046) - 1022) : (double)(next() >> 11) * 0x1p-53 + 0x1p-60;
  }
  if (!tap_ok(run_fast_sqrt(v, fast, ieee, N) == 0, "kernel ran"))
    return tap_done();
  int64_t worst = 0;
  long wrong_rounding = 0, vs_host = 0;
  for (int i = 0; i < N; i++) {
    const int64_t d = ulp_distance(fast[i], ieee[i]);
    if (d > worst)
      worst = d;
    wrong_rounding += d != 0;
    vs_host += ieee[i] != sqrt(v[i]);
  }
  tap_ok(worst <= 1, "faithful over %d arguments: worst %lld ulp, %ld (%.2g%%) not correctly rounded", N,
         (long long)worst, wrong_rounding, 100.0 * (double)wrong_rounding / N);
  tap_ok(vs_host == 0, "CUDA's sqrt equals the host's (%ld differ)", vs_host);

  const double edges[] = {0x1p-1022, 0x1.fffffffffffffp-1022, 0x1.8p-1000, 0x1.fffffffffffffp+1023, 1.0, 4.0, 0x1.0000000000001p0, 0x1.fffffffffffffp-1};
  const int ne = sizeof edges / sizeof edges[0];
  run_fast_sqrt(edges, fast, ieee, ne);
  for (int i = 0; i < ne; i++)
    tap_ok(ulp_distance(fast[i], sqrt(edges[i])) <= 1, "fast_sqrt(%a) = %a (IEEE %a)", edges[i], fast[i],
           sqrt(edges[i]));
  tap_ok(fast[4] == 1.0 && fast[5] == 2.0, "exact squares stay exact");

  /* Outside the fast range: not finite, the signal to redo the sum with CUDA's sqrt. */
  const double outside[] = {0.0, -0.0, INFINITY, -1.0, -INFINITY, NAN, 0x1p-1030, 4.9406564584124654e-324,
                            0x0.fffffffffffffp-1022, -0x1p-1030};
  const int no = sizeof outside / sizeof outside[0];
  run_fast_sqrt(outside, fast, ieee, no);
  for (int i = 0; i < no; i++)
    tap_ok(!isfinite(fast[i]), "fast_sqrt(%a) = %a is not finite", outside[i], fast[i]);
  free(v);
  return tap_done();
}
