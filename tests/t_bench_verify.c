/* t_bench_verify.c — the checks `gpuquad bench` applies before it times a
 * method (src/cli/bench_verify.c), without a GPU. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../src/cli/bench_verify.h"
#include "tap.h"

static int verify(const gqb_reference *ref, gqb_op op, gqb_value got, uint64_t depth)
{
  double error, bound;
  return gqb_verify(ref, op, &got, depth, &error, &bound);
}

static void test_triangular(void)
{
  tap_ok(gqb_triangular(1) == 1 && gqb_triangular(4) == 10 && gqb_triangular(5) == 15, "N(N+1)/2 for 1, 4, 5");
  tap_ok(gqb_triangular(UINT64_C(1) << 28) == UINT64_C(36028797153181696), "N(N+1)/2 for N = 2^28");
  /* 2^32 (2^32 + 1) / 2 = 2^63 + 2^31: the product itself would overflow. */
  tap_ok(gqb_triangular(UINT64_C(1) << 32) == (UINT64_C(1) << 63) + (UINT64_C(1) << 31),
         "N(N+1)/2 for N = 2^32 without overflow");
}

/* 1..n in the order (i * 7919 + 3) mod n: a permutation when gcd(7919, n) = 1,
 * like the int64 data of the bench. */
static void test_int64_permutation(void)
{
  const size_t n = 1000003;
  int64_t *x = malloc(n * sizeof *x);
  for (size_t i = 0; i < n; i++)
    x[i] = (int64_t)((i * 7919 + 3) % n) + 1;
  gqb_reference ref;
  gqb_reference_compute(GQB_INT64, x, n, &ref);
  tap_ok(ref.sum_bits == gqb_triangular(n), "int64 reference of a permutation of 1..N is N(N+1)/2");
  tap_ok(verify(&ref, GQB_SUM, (gqb_value){.i = (int64_t)gqb_triangular(n)}, 0), "the exact int64 sum passes");
  tap_ok(!verify(&ref, GQB_SUM, (gqb_value){.i = (int64_t)gqb_triangular(n) - 1}, 0),
         "an int64 sum that lost the element 1 fails");
  tap_ok(verify(&ref, GQB_MIN, (gqb_value){.i = 1}, 0) && verify(&ref, GQB_MAX, (gqb_value){.i = (int64_t)n}, 0),
         "int64 min 1 and max N pass");
  tap_ok(!verify(&ref, GQB_MAX, (gqb_value){.i = (int64_t)n - 1}, 0), "an int64 max one short fails");
  free(x);
}

static void test_int32_wraps(void)
{
  const int32_t x[3] = {INT32_MAX, 1, -7};
  gqb_reference ref;
  gqb_reference_compute(GQB_INT32, x, 3, &ref);
  /* A wrapping 32-bit sum: INT32_MAX + 1 - 7 = INT32_MIN - 7 + 2^32. */
  tap_ok(verify(&ref, GQB_SUM, (gqb_value){.i = INT32_MAX - 6}, 0), "int32 sum is checked modulo 2^32");
  tap_ok(!verify(&ref, GQB_SUM, (gqb_value){.i = (int64_t)INT32_MAX - 6 + (INT64_C(1) << 32)}, 0),
         "an int32 result that is not sign-extended fails");
  tap_ok(verify(&ref, GQB_MIN, (gqb_value){.i = -7}, 0) && !verify(&ref, GQB_MIN, (gqb_value){.i = 1}, 0),
         "int32 min is exact");
}

static void test_double_sum(void)
{
  const double x[3] = {1e16, 1.0, -1e16};
  gqb_reference ref;
  gqb_reference_compute(GQB_DOUBLE, x, 3, &ref);
  tap_ok(ref.sum == 1.0, "compensated reference of {1e16, 1, -1e16} is 1 (plain summation gives 0)");
  tap_ok(ref.abs_sum >= 2e16, "sum |x| is not below the exact 2e16 + 1");
  double error, bound;
  gqb_value got = {.f = 0.0};
  const int passed = gqb_verify(&ref, GQB_SUM, &got, 2, &error, &bound);
  tap_ok(passed && error == 1.0 && bound >= 1.0, "the plain sum 0 is within gamma_2 * sum|x| (bound %g)", bound);
  tap_ok(!verify(&ref, GQB_SUM, (gqb_value){.f = NAN}, 2), "NaN fails");
}

/* 100000 values near 1 in float: the float sum a tree of height 17 gives
 * passes, the same sum without one element fails. */
static void test_float_bound(void)
{
  const size_t n = 100000;
  float *x = malloc(n * sizeof *x);
  for (size_t i = 0; i < n; i++)
    x[i] = 0.5f + (float)(i % 1024) / 1024.0f;
  gqb_reference ref;
  gqb_reference_compute(GQB_FLOAT, x, n, &ref);
  /* pairwise float sum: height ceil(log2 n) = 17 */
  float *t = malloc(n * sizeof *t);
  size_t m = n;
  for (size_t i = 0; i < n; i++)
    t[i] = x[i];
  while (m > 1) {
    for (size_t i = 0; i < m / 2; i++)
      t[i] = t[2 * i] + t[2 * i + 1];
    if (m % 2)
      t[m / 2] = t[m - 1];
    m = (m + 1) / 2;
  }
  tap_ok(verify(&ref, GQB_SUM, (gqb_value){.f = t[0]}, 17), "a pairwise float sum passes with depth 17");
  tap_ok(!verify(&ref, GQB_SUM, (gqb_value){.f = t[0] - x[5]}, 17), "the same sum less one element fails");
  tap_ok(!verify(&ref, GQB_SUM, (gqb_value){.f = t[0]}, UINT64_C(1) << 24),
         "depth 2^24 in float gives no bound: not verified");
  tap_ok(isinf(gqb_gamma(UINT64_C(1) << 24, gqb_unit_roundoff(GQB_FLOAT))) &&
         fabs(gqb_gamma(10, 0x1p-53) / (10 * 0x1p-53) - 1.0) < 1e-14, "gamma_h");
  free(t);
  free(x);
}

static void test_min_max_argmax(void)
{
  const double x[6] = {2.5, -1.0, 7.0, 3.0, 7.0, -1.0};
  gqb_reference ref;
  gqb_reference_compute(GQB_DOUBLE, x, 6, &ref);
  tap_ok(verify(&ref, GQB_MIN, (gqb_value){.f = -1.0}, 0) && verify(&ref, GQB_MAX, (gqb_value){.f = 7.0}, 0),
         "double min and max");
  tap_ok(verify(&ref, GQB_ARGMAX, (gqb_value){.f = 7.0, .index = 2}, 0), "argmax takes the first of equal maxima");
  tap_ok(!verify(&ref, GQB_ARGMAX, (gqb_value){.f = 7.0, .index = 4}, 0), "argmax with the later index fails");
  const float y[1] = {0.1f};
  gqb_reference_compute(GQB_FLOAT, y, 1, &ref);
  tap_ok(verify(&ref, GQB_MAX, (gqb_value){.f = (double)0.1f}, 0) && !verify(&ref, GQB_MAX, (gqb_value){.f = 0.1}, 0),
         "float max is the float value exactly, n = 1");
}

int main(void)
{
  test_triangular();
  test_int64_permutation();
  test_int32_wraps();
  test_double_sum();
  test_float_bound();
  test_min_max_argmax();
  return tap_done();
}
