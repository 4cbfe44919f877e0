// jit_module.cuh — the NVRTC modules of a context, shared by the kinds of
// generated kernels (jit.cu: the trapezoid grid; mc.cu: Monte Carlo): one
// compiler call, one on-disk cache, one list of loaded libraries.
#ifndef GQ_JIT_MODULE_CUH
#define GQ_JIT_MODULE_CUH

#include <string>

#include "cuda_state.cuh"
#include "../src/lib/internal.h"

namespace gq {

constexpr int JIT_MAX_KERNELS = 4;

// NVRTC: src -> cubin for sm_<major><minor>; names[k] receives the lowered
// name of the kernel the name expression want[k] denotes.  No GPU needed.
int jit_compile(int cc_major, int cc_minor, const std::string &src, const std::string *want, int count,
                std::string *cubin, std::string *names);

// The module for key (loaded in this context, from the disk cache, or
// compiled from src now), its kernels in the order of want.  info->jit and
// info->compile_ms say which.
int jit_load(gq_cuda_state *st, const std::string &key, const std::string &src, const std::string *want, int count,
             gq_jit_module **out, gq_grid_info *info);

cudaKernel_t jit_kernel(const gq_jit_module *m, int k);

// The opening of a generated translation unit: namespace gq_jit { with the
// emitted g in gq_jit::fast (device_math's fast sqrt) and gq_jit::exact
// (CUDA's); the caller adds its Map and closes the namespace.
std::string jit_g_namespaces(const char *g);

} // namespace gq
#endif
