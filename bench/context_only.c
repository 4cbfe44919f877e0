/* context_only.c — a process that only creates a CUDA context (cudaFree(0)):
 * the floor bench/startup.sh sets gpuquad's whole-process times against. */
#include <stdio.h>

#include <cuda_runtime.h>

int main(void)
{
  const cudaError_t e = cudaFree(0);
  if (e != cudaSuccess) {
    fprintf(stderr, "context_only: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
