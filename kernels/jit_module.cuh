// jit_module.cuh — the NVRTC modules of a context: one module source per
// expression and precision, whose kernels each problem names (jit.cu: the
// grid problems; mc.cu: Monte Carlo); one compiler call, one on-disk cache,
// one list of loaded libraries.
#ifndef GQ_JIT_MODULE_CUH
#define GQ_JIT_MODULE_CUH

#include <string>

#include "cuda_state.cuh"
#include "../src/lib/internal.h"

namespace gq {

constexpr int JIT_MAX_KERNELS = 4;

// The source of every deterministic module begins with this line: such a
// module is compiled without contracting a * b + c into an FMA
// (--fmad=false), so that its terms f(x) are what the CPU's evaluator,
// compiled with -ffp-contract=off, computes wherever f uses only correctly
// rounded operations; their exact sums then have the same bits on either
// backend (issue 20).
#define GQ_JIT_EXACT_PREFIX "#include \"exact_tile.cuh\"\n"
inline bool jit_exact_module(const std::string &src) { return src.rfind(GQ_JIT_EXACT_PREFIX, 0) == 0; }

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

// jit_load for integrand f, under its key (gq_integrand_jit_key) + kind,
// with f's parameter values (gq_integrand_gpu_params) written to the
// module's gq_params on the context's stream: every problem's load.
int jit_load_integrand(gq_cuda_state *st, const gq_integrand *f, const char *kind, const std::string &src,
                       const std::string *want, int count, gq_jit_module **out, gq_grid_info *info);

// The module source of f in precision: every problem's kernels are
// reduce_kernel instantiations over its map gq_jit::Map<FAST>.  A batch
// module's g reads each block's parameters from shared memory, which
// Map::load(values, count) fills (engine/batch_kernel.cuh).
int jit_module_source(const gq_integrand *f, int precision, std::string *src, bool batch = false);

// Whether f's fast grid sums in precision rotate its sines, cosines and
// exponentials (engine/grid_rot_source.cuh): double precision, one
// variable, at least one term (lib/expr/trig.c), GPUQUAD_GRID_ROTATION not
// 0.  A call decides it once; module keys carry it, since kernel names
// follow it.
bool jit_grid_rotates(const gq_integrand *f, int precision);

// The source type of the fast grid sums, as kernel names spell it:
// gq::GridRotSource<gq_jit::fast::Trig> where they rotate, else
// gq::GridSource<Real>.  The single launch and the packed one
// (grid_batch.cu) both take it, so their bits stay one.
std::string jit_grid_source(bool rotates, int precision);

// The name expression of reduce_kernel<block, items, min_blocks, false,
// gq_jit::Map<fast>, thread, source, level>.
std::string jit_kernel_name(int block, int items, int min_blocks, int fast, const std::string &thread,
                            const std::string &source, const char *level);

} // namespace gq
#endif
