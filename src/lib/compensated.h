/* compensated.h — error-free transformations and compensated sums, shared by
 * the CPU backend (C11) and the CUDA kernels (included from .cu files).
 *
 * A compensated sum keeps (s, c) with the exact value being s + c to within
 * rounding of c alone.  Adding v uses Knuth's TwoSum, which is branch-free
 * (so it vectorises on the CPU and does not diverge on the GPU) and exact for
 * any ordering of magnitudes, unlike Fast2Sum.  Merging two compensated sums
 * TwoSums the leading parts and adds both compensations, so partials from
 * lanes, threads, blocks and atomics combine without losing what each
 * accumulated: this is what keeps a 1e9-term sum within 1-2 ulp of exact.
 *
 * Order of operations matters: these lines must not be reassociated or
 * contracted. The CPU code is compiled with -ffp-contract=off and without
 * -ffast-math; nvcc never reassociates additions and TwoSum has no a*b+c
 * pattern for it to contract.
 */
#ifndef GQ_COMPENSATED_H
#define GQ_COMPENSATED_H

#if defined(__CUDACC__)
#define GQ_HD __host__ __device__ __forceinline__
#else
#define GQ_HD static inline
#endif

/* What an unwritten word of a partial or a result holds, where a reader
 * spins until the writer's word arrives (mapped host memory, the lite
 * partials' scratch, last_block.cuh): a signalling NaN, which no arithmetic
 * produces (a NaN it makes is quiet) and no count reaches.  One definition
 * for the host code that poisons and the device code that waits. */
#define GQ_POISON 0x7ff4dead5eed0001ULL

typedef struct gq_csum {
  double s; /* leading part        */
  double c; /* accumulated errors  */
} gq_csum;

/* TwoSum: s = fl(a + b) and *err = (a + b) - s exactly. */
GQ_HD double gq_two_sum(double a, double b, double *err)
{
  double s = a + b;
  double bp = s - a;
  double ap = s - bp;
  *err = (a - ap) + (b - bp);
  return s;
}

GQ_HD gq_csum gq_csum_zero(void)
{
  gq_csum z = {0.0, 0.0};
  return z;
}

/* Add one value. */
GQ_HD void gq_csum_add(gq_csum *acc, double v)
{
  double e;
  acc->s = gq_two_sum(acc->s, v, &e);
  acc->c += e;
}

/* Merge another compensated sum into acc. */
GQ_HD void gq_csum_merge(gq_csum *acc, gq_csum other)
{
  double e;
  acc->s = gq_two_sum(acc->s, other.s, &e);
  acc->c += e + other.c;
}

/* The best double estimate of the sum. */
GQ_HD double gq_csum_value(gq_csum acc)
{
  return acc.s + acc.c;
}

#endif /* GQ_COMPENSATED_H */
