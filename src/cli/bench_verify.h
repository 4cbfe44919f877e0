/* bench_verify.h — what `gpuquad bench` checks a method's result against,
 * before it times it.  Pure C, unit-tested without a GPU (tests/t_bench_verify).
 *
 * Integers are checked exactly.  Sums are modulo 2^w for a w-bit type: integer
 * addition modulo 2^w is associative, so every order of a correct method gives
 * the same bits.  Minimum and maximum are exact for every type.
 *
 * A floating-point sum is checked against a compensated (TwoSum) host sum:
 * a method whose additions form a tree of height h, in a type of unit roundoff
 * u, errs by at most gamma_h * sum|x_i|, gamma_h = h u / (1 - h u) (Higham,
 * Accuracy and Stability, 2nd ed., eq. 4.3 for any order of summation).  The
 * method reports h from its launch shape; the reference's own error (Ogita,
 * Rump and Oishi's bound for Sum2) is added. */
#ifndef GQ_BENCH_VERIFY_H
#define GQ_BENCH_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "bench.h"

typedef struct {
  gqb_type type;
  uint64_t n;
  uint64_t sum_bits;  /* integer types: the sum modulo 2^64 (int32: use the low 32 bits) */
  int64_t imin, imax; /* integer types                                               */
  double sum;         /* floating types: compensated sum of the values (exact in double) */
  double sum_err;     /* a bound on |sum - exact sum|                                 */
  double abs_sum;     /* sum |x_i|, rounded up: the scale of any summation's error    */
  double fmin, fmax;  /* floating types                                               */
  uint64_t argmax;    /* the smallest index of the largest value                      */
} gqb_reference;

/* The reference for x[0..n-1] of `type` (n >= 1). */
void gqb_reference_compute(gqb_type type, const void *x, size_t n, gqb_reference *ref);

/* n (n + 1) / 2 modulo 2^64, computed without overflowing the product. */
uint64_t gqb_triangular(uint64_t n);

/* Unit roundoff of a floating type (2^-24, 2^-53); 0 for integer types. */
double gqb_unit_roundoff(gqb_type type);

/* gamma_h = h u / (1 - h u); +inf when h u >= 1 (no bound). */
double gqb_gamma(uint64_t h, double u);

/* The tree height assumed for a method whose insides we cannot see (CUB,
 * cuBLAS, the production path): a first level of at least one warp per
 * multiprocessor, each thread folding its elements one after another, then at
 * most 64 levels.  CUB's first level has 256 threads or more per
 * multiprocessor.  gqb_run reports depth 0 for these. */
uint64_t gqb_opaque_depth(uint64_t n, int sms);

/* 1 if `got` is the right result of `op` for `ref`, else 0.  For floating sums
 * *error = |got - ref->sum| and *bound is the tolerance for a tree of height
 * depth; for everything else both are 0. */
int gqb_verify(const gqb_reference *ref, gqb_op op, const gqb_value *got, uint64_t depth,
               double *error, double *bound);

#endif
