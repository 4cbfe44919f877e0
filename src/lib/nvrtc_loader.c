/* nvrtc_loader.c — NVRTC opened with dlopen on the first call (see nvrtc_loader.h). */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvrtc.h>

#include "internal.h"
#include "nvrtc_loader.h"

/* The entry points kernels/jit.cu uses that return an nvrtcResult, as
 * X(name, (parameters), (arguments)); each becomes a pointer filled by dlsym
 * and a definition of the same name that forwards to it.  <nvrtc.h> declares
 * the same names, so the compiler checks every prototype here against the
 * toolkit's. */
#define GQ_NVRTC_ENTRIES(X)                                                                                  \
  X(nvrtcVersion, (int *major, int *minor), (major, minor))                                                \
  X(nvrtcCreateProgram,                                                                                      \
    (nvrtcProgram * prog, const char *src, const char *name, int numHeaders, const char *const *headers,   \
     const char *const *includeNames),                                                                      \
    (prog, src, name, numHeaders, headers, includeNames))                                                   \
  X(nvrtcDestroyProgram, (nvrtcProgram * prog), (prog))                                                     \
  X(nvrtcCompileProgram, (nvrtcProgram prog, int numOptions, const char *const *options),                   \
    (prog, numOptions, options))                                                                            \
  X(nvrtcAddNameExpression, (nvrtcProgram prog, const char *const name_expression), (prog, name_expression)) \
  X(nvrtcGetLoweredName, (nvrtcProgram prog, const char *const name_expression, const char **lowered_name), \
    (prog, name_expression, lowered_name))                                                                  \
  X(nvrtcGetProgramLogSize, (nvrtcProgram prog, size_t *logSizeRet), (prog, logSizeRet))                    \
  X(nvrtcGetProgramLog, (nvrtcProgram prog, char *log), (prog, log))                                        \
  X(nvrtcGetCUBINSize, (nvrtcProgram prog, size_t *cubinSizeRet), (prog, cubinSizeRet))                     \
  X(nvrtcGetCUBIN, (nvrtcProgram prog, char *cubin), (prog, cubin))

#define GQ_NVRTC_POINTER(name, params, args) nvrtcResult(*name) params;
static struct {
  GQ_NVRTC_ENTRIES(GQ_NVRTC_POINTER)
  const char *(*nvrtcGetErrorString)(nvrtcResult result);
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char why[512];       /* the dynamic loader's reasons, when NVRTC could not be opened */
static char message[600];   /* and the one line that reports them */

/* Opens `file`, or returns NULL and appends dlerror()'s line to why. */
static void *try_open(const char *file)
{
  /* RTLD_LOCAL: NVRTC's symbols stay out of the global namespace, where they
   * would meet the forwarding definitions below. */
  void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *e = dlerror();
    const size_t used = strlen(why);
    snprintf(why + used, sizeof why - used, "%s%s", used ? "; " : "", e ? e : file);
  }
  return handle;
}

/* dlsym's void * to a function pointer: POSIX guarantees the conversion. */
#define GQ_NVRTC_LOOKUP(name, params, args) *(void **)&api.name = dlsym(handle, #name);
#define GQ_NVRTC_FOUND(name, params, args) &&api.name

static void open_nvrtc(void)
{
  const char *env = getenv("GPUQUAD_NVRTC");
  const char *file = env && *env ? env : GQ_NVRTC_SONAME;
  void *handle = try_open(file);
  if (!handle && file != env)
    handle = try_open(file = GQ_CUDA_LIBDIR "/" GQ_NVRTC_SONAME);
  if (!handle) {
    snprintf(message, sizeof message, "cannot load NVRTC: %s", why);
    return;
  }
  GQ_NVRTC_ENTRIES(GQ_NVRTC_LOOKUP)
  *(void **)&api.nvrtcGetErrorString = dlsym(handle, "nvrtcGetErrorString");
  if (!(api.nvrtcGetErrorString GQ_NVRTC_ENTRIES(GQ_NVRTC_FOUND))) {
    snprintf(message, sizeof message, "cannot load NVRTC: %s lacks a function gpuquad calls", file);
    dlclose(handle);
    return;
  }
  loaded = 1;
}

static int ready(void)
{
  pthread_once(&once, open_nvrtc);
  return loaded;
}

int gq_nvrtc_preload(void) { return ready(); }

int gq_nvrtc_load(void)
{
  return ready() ? GQ_SUCCESS : gq_fail(GQ_EUNSUP, "%s", message);
}

#define GQ_NVRTC_FORWARD(name, params, args)                                                                \
  nvrtcResult name params { return ready() ? api.name args : NVRTC_ERROR_INTERNAL_ERROR; }
GQ_NVRTC_ENTRIES(GQ_NVRTC_FORWARD)

/* Without NVRTC every call above failed for one reason: the library. */
const char *nvrtcGetErrorString(nvrtcResult result)
{
  return ready() ? api.nvrtcGetErrorString(result) : message;
}
