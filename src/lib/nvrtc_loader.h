/* nvrtc_loader.h — NVRTC, opened on first use instead of linked.
 *
 * NVRTC is ~100 MB of shared library that only expressions compiled for a GPU
 * need; linking it made every gpuquad process, `--version` included, map it
 * before main.  nvrtc_loader.c defines the NVRTC functions kernels/jit.cu
 * calls (same names and prototypes as <nvrtc.h>), each forwarding to the
 * library dlopen()ed on the first call.  When it cannot be opened every call
 * returns NVRTC_ERROR_INTERNAL_ERROR and nvrtcGetErrorString() names the
 * library and why, so a JIT compile fails with one line (GQ_ECUDA). */
#ifndef GQ_NVRTC_LOADER_H
#define GQ_NVRTC_LOADER_H

/* Opens NVRTC once per process: the file named by GPUQUAD_NVRTC if set, else
 * the toolkit's soname found at configure time (the dynamic loader's search),
 * else that soname in the toolkit's library folder.  GQ_SUCCESS, or GQ_EUNSUP
 * with a message (gq_last_error) naming the library. */
int gq_nvrtc_load(void);

#endif
