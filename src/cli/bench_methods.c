/* bench_methods.c — the reductions `gpuquad bench` compares: names, what each
 * changes relative to the one before, and where one does not apply. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gpuquad.h"

static const gqb_method methods[GQB_NMETHODS] = {
  {1, "interleaved-divergent", "interleaved addressing, tid % (2s) == 0: divergent warps; one pass per block level"},
  {2, "interleaved-strided", "interleaved addressing with index 2*s*tid: no divergence, shared-memory bank conflicts"},
  {3, "sequential", "sequential addressing (stride s = block/2 down to 1): conflict-free"},
  {4, "first-add", "the first add during the global load: two elements per thread, half the blocks"},
  {5, "last-warp", "the last warp finished with __shfl_down_sync instead of __syncthreads steps"},
  {6, "unrolled", "completely unrolled: the block size is a compile-time constant"},
  {7, "grid-stride", "many elements per thread: grid-stride loop, resident grid, then one block"},
  {8, "block-reduce", "modular gq::warp_reduce + gq::block_reduce (kernels/*.cuh), then one block"},
  {9, "atomic-warp", "one launch: one atomic per warp into the result (identity set first)"},
  {10, "atomic-block", "one atomic per block after block_reduce (gpuquad's default shape)"},
  {11, "multi-pass", "no atomics: block reductions of whole tiles relaunched until one block remains"},
  {12, "host-finish", "per-block partials copied to the host and combined there"},
  {13, "spin-lock", "a global spin lock (atomicCAS + __threadfence) around a generic combine"},
  {14, "last-block", "single pass: __threadfence + a ticket; the last block to finish combines the partials"},
  {15, "cooperative", "one cooperative kernel: partials, grid.sync(), block 0 combines"},
  {16, "butterfly", "method 9 with the __shfl_xor_sync butterfly instead of __shfl_down_sync"},
  {17, "cub", "cub::DeviceReduce::Sum / Min / Max / ArgMax (CUDA toolkit)"},
  {18, "cublas", "cublasSasum / cublasDasum of the (positive) data, result in device memory"},
  {19, "production", "libgpuquad's double sum as a solver calls it: gq_sum_async on the bench's stream (CUDA events)"},
};

const gqb_method *gqb_method_at(int id)
{
  return id >= 1 && id <= GQB_NMETHODS ? &methods[id - 1] : NULL;
}

const gqb_method *gqb_method_find(const char *text)
{
  char *end;
  const long k = strtol(text, &end, 10);
  if (end != text && *end == '\0')
    return gqb_method_at(k >= 1 && k <= GQB_NMETHODS ? (int)k : 0);
  for (int id = 1; id <= GQB_NMETHODS; id++)
    if (strcmp(methods[id - 1].name, text) == 0)
      return &methods[id - 1];
  return NULL;
}

const char *gqb_method_not_applicable(int id, gqb_type type, gqb_op op)
{
  const int floating = type == GQB_FLOAT || type == GQB_DOUBLE;
  if (op == GQB_ARGMAX && type != GQB_DOUBLE)
    return "argmax is measured on double data only";
  if (id == GQB_PRODUCTION) {
#ifdef GQ_HAVE_SUM
    if (type != GQB_DOUBLE || op != GQB_SUM)
      return "gq_sum() sums doubles only";
    return NULL;
#else
    return "this gpuquad has no gq_sum() (GQ_HAVE_SUM is not defined)";
#endif
  }
  if (id == 18) {
#ifndef HAVE_CUBLAS
    return "this gpuquad was built without cuBLAS";
#endif
    if (!floating)
      return "cuBLAS has no integer reductions";
    if (op != GQB_SUM)
      return "cuBLAS has no min/max of values (I?amax returns an index of max |x|)";
    return NULL;
  }
  if (op == GQB_ARGMAX && (id < 12 || id > 15) && id != 17)
    return "argmax (no native atomic) is built for the generic combines 12-15 and CUB only";
  if ((id == 9 || id == 10 || id == 16) && floating && op != GQB_SUM)
    return "no native atomicMin/atomicMax for float or double (method 13 combines any operator)";
  return NULL;
}

/* ---- types and operators --------------------------------------------------- */
static const char *const type_names[GQB_NTYPES] = {"int32", "int64", "float", "double"};
static const size_t type_sizes[GQB_NTYPES] = {4, 8, 4, 8};
static const char *const op_names[GQB_NOPS] = {"sum", "min", "max", "argmax"};

size_t gqb_type_size(gqb_type type) { return type_sizes[type]; }
const char *gqb_type_name(gqb_type type) { return type_names[type]; }
const char *gqb_op_name(gqb_op op) { return op_names[op]; }

static int find_name(const char *const *names, int count, const char *text)
{
  for (int k = 0; k < count; k++)
    if (strcmp(names[k], text) == 0)
      return k;
  return -1;
}

int gqb_type_parse(const char *text) { return find_name(type_names, GQB_NTYPES, text); }
int gqb_op_parse(const char *text) { return find_name(op_names, GQB_NOPS, text); }
