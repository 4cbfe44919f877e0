// generate.cu — the bench's data, made on the device, and the copy kernel that
// measures the memory bandwidth in the same run.
//
// Values (never zero; positive where cuBLAS's sum of |x| must equal the sum):
//   int32   1..7 from a hash of the index; for n >= 3 a unique -1000 at n/3
//           and a unique 1000 near 2n/3 (the sum fits int32 up to n = 2^28;
//           beyond, it wraps, and the check is modulo 2^32)
//   int64   a permutation of 1..n: 1 + ((i + n/3) * p mod n) for a prime p
//           that does not divide n, so the sum is n (n + 1) / 2
//   float   [0.5, 1.5) from the hash (exact multiples of 2^-24); for n >= 3
//   double  a unique 0.25 at n/3 and a unique 2.0 near 2n/3 (one argmax)
#include "job.cuh"

namespace gqb {
namespace {

__device__ __forceinline__ unsigned long long mix(unsigned long long z) // SplitMix64's finaliser
{
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class T> __device__ __forceinline__ T hashed(long long i);
template <> __device__ __forceinline__ int hashed<int>(long long i) { return 1 + (int)(mix(i) % 7); }
template <> __device__ __forceinline__ float hashed<float>(long long i)
{
  return 0.5f + (float)(mix(i) >> 40) * 0x1p-24f;
}
template <> __device__ __forceinline__ double hashed<double>(long long i)
{
  return 0.5 + (double)(mix(i) >> 11) * 0x1p-53;
}

template <class T> __global__ void fill_hashed(T *x, long long n, T low, T high)
{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] = n >= 3 && i == n / 3 ? low : n >= 3 && i == 2 * (n / 3) + n % 3 ? high : hashed<T>(i);
}

__global__ void fill_permutation(long long *x, long long n, long long prime)
{
  const long long shift = n / 3;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] = 1 + (long long)(((unsigned long long)(i + shift) * (unsigned long long)prime) % (unsigned long long)n);
}

__global__ void copy_kernel(const double2 *__restrict__ in, double2 *__restrict__ out, long long count)
{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x)
    out[i] = in[i];
}

unsigned blocks_for(long long n, int sms)
{
  const long long most = 32LL * sms, need = (n + BLOCK - 1) / BLOCK;
  return (unsigned)(need < most ? need : most);
}

} // namespace

Error generate(gqb_type type, void *d_x, long long n, int sms, cudaStream_t stream)
{
  const unsigned grid = blocks_for(n, sms);
  switch (type) {
  case GQB_INT32:
    fill_hashed<int><<<grid, BLOCK, 0, stream>>>(static_cast<int *>(d_x), n, -1000, 1000);
    break;
  case GQB_INT64: {
    const long long primes[] = {1000003, 998244353, 2147483647};
    long long p = primes[0];
    for (long long q : primes)
      if (n % q != 0) {
        p = q;
        break;
      }
    fill_permutation<<<grid, BLOCK, 0, stream>>>(static_cast<long long *>(d_x), n, p);
    break;
  }
  case GQB_FLOAT:
    fill_hashed<float><<<grid, BLOCK, 0, stream>>>(static_cast<float *>(d_x), n, 0.25f, 2.0f);
    break;
  case GQB_DOUBLE:
    fill_hashed<double><<<grid, BLOCK, 0, stream>>>(static_cast<double *>(d_x), n, 0.25, 2.0);
    break;
  default:
    return "unknown type";
  }
  GQB_LAUNCHED();
  return nullptr;
}

Error copy(const void *d_in, void *d_out, size_t bytes, int sms, cudaStream_t stream)
{
  const long long count = (long long)(bytes / sizeof(double2));
  copy_kernel<<<blocks_for(count, sms), BLOCK, 0, stream>>>(static_cast<const double2 *>(d_in), static_cast<double2 *>(d_out), count);
  GQB_LAUNCHED();
  return nullptr;
}

} // namespace gqb
