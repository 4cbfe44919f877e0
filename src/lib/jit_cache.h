/* jit_cache.h — the on-disk cache of GPU kernels compiled at run time. */
#ifndef GQ_JIT_CACHE_H
#define GQ_JIT_CACHE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The cache folder: $GPUQUAD_CACHE_DIR, else $XDG_CACHE_HOME/gpuquad, else
 * $HOME/.cache/gpuquad.  Written into buf; returns 0, or -1 if none can be
 * named (no HOME). */
int gq_jit_cache_dir(char *buf, size_t size);

/* The binary stored for key (the whole source with the architecture and
 * versions appended), in a malloc'd buffer.  The file name is a hash of the
 * key and the file holds the key itself, so a hash collision is a miss, not a
 * wrong kernel.  Returns 0 on a hit, -1 on a miss or any error. */
int gq_jit_cache_load(const char *key, void **binary, size_t *size);

/* Store binary for key (atomically: a temporary file renamed into place).
 * Returns 0, or -1 (the cache is an optimisation: callers go on). */
int gq_jit_cache_store(const char *key, const void *binary, size_t size);

#ifdef __cplusplus
}
#endif
#endif
