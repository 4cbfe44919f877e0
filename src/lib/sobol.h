/* sobol.h — Owen-scrambled Sobol points, shared by the CPU backend (C11) and
 * the CUDA kernels (nvcc and NVRTC, which embeds this file).
 *
 * Point i of the sequence, coordinate d, is the xor of the direction numbers
 * (sobol_directions.h) picked by the bits of gray(i) = i ^ (i >> 1): Antonov
 * and Saleev's Gray-code order, the order of Joe and Kuo's published points
 * and of cuRAND's and SciPy's generators.  Any 2^m consecutive points from
 * 0 form a (t, m, s)-net whatever the order, and computing a point from its
 * index alone (rather than from its predecessor) lets any thread draw any
 * point.
 *
 * The scrambling is Owen's nested uniform scrambling in the hash form of
 * B. Burley, "Practical hash-based Owen scrambling" (JCGT 9, 2020): reverse
 * the bits, so that bit k depends on the higher bits only, apply the
 * Laine-Karras permutation, whose every output bit depends only on the input
 * bits below it, and reverse back.  Each (scrambling, dimension) takes its own
 * 32-bit seed (gq_sobol_seed), so R scramblings are R independent randomized
 * nets: each one's mean is unbiased, and their spread is an honest error. */
#ifndef GQ_SOBOL_H
#define GQ_SOBOL_H

#include "sobol_directions.h"
#include "philox.h"

/* The largest number of points one scrambling supplies: indices are 32 bits. */
#define GQ_SOBOL_MAX_POINTS (1ULL << 32)

GQ_PHILOX_HD unsigned int gq_sobol_reverse_bits(unsigned int x)
{
#if defined(__CUDA_ARCH__)
  return __brev(x);
#else
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
  return (x >> 16) | (x << 16);
#endif
}

/* Coordinate d (0-based) of unscrambled point i < 2^32, as a 32-bit fraction.
 * Every bit is visited, set or not, so that the lanes of a warp read the same
 * table word together.  Under CUDA the table is the device's constant
 * memory, so this is device code only. */
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
__device__ __forceinline__
#else
static inline
#endif
unsigned int gq_sobol_word(unsigned long long i, int d)
{
  const unsigned int gray = (unsigned int)(i ^ (i >> 1));
  unsigned int x = 0u;
  for (int b = 0; b < GQ_SOBOL_BITS; b++)
    x ^= gq_sobol_directions[d][b] & (0u - ((gray >> b) & 1u));
  return x;
}

/* Point i + 1 from point i (i + 1 < 2^32): gray(i + 1) differs from gray(i)
 * in the bit of i + 1's trailing zeros, so one xor walks the sequence. */
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
__device__ __forceinline__
#else
static inline
#endif
unsigned int gq_sobol_next(unsigned int word, unsigned long long next_index, int d)
{
  int zeros = 0;
  while (!((next_index >> zeros) & 1ull))
    zeros++;
  return word ^ gq_sobol_directions[d][zeros];
}

/* Burley's nested uniform scramble of a 32-bit fraction. */
GQ_PHILOX_HD unsigned int gq_sobol_scramble(unsigned int x, unsigned int seed)
{
  x = gq_sobol_reverse_bits(x);
  x += seed;
  x ^= x * 0x6c50b47cu;
  x ^= x * 0xb82f1e52u;
  x ^= x * 0xc7afe638u;
  x ^= x * 0x8d22f6e6u;
  return gq_sobol_reverse_bits(x);
}

/* The seed of dimension d of scrambling r under the run's seed: a Philox word
 * of a counter no Monte Carlo stream uses (c3 = 0x50B01), so the seeds of all
 * (r, d) are independent and none repeats a sample's word. */
GQ_PHILOX_HD unsigned int gq_sobol_seed(unsigned long long seed, unsigned int r, int d)
{
  return gq_philox4x32_10(r, (unsigned int)d, 0u, 0x50B01u, (unsigned int)seed, (unsigned int)(seed >> 32)).v[0];
}

#endif /* GQ_SOBOL_H */
