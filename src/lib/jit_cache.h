/* jit_cache.h — the on-disk cache of GPU kernels compiled at run time.
 *
 * Nothing read back is trusted: an entry is loaded only if it is a regular
 * file of the user's, in a folder of the user's that no one else can write,
 * whose SHA-256 matches and which holds the very key asked for.  Anything
 * else is compiled again and replaced; an unsafe folder is not used at all. */
#ifndef GQ_JIT_CACHE_H
#define GQ_JIT_CACHE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a load or a store came to. */
enum {
  GQ_JIT_CACHE_OK = 0,      /* loaded a verified entry / stored one            */
  GQ_JIT_CACHE_ABSENT = 1,  /* no entry for the key (or no folder yet)         */
  GQ_JIT_CACHE_INVALID = 2, /* an entry that failed verification: damaged,
                               truncated, another key, not a regular file, not
                               the user's; a store replaces it                  */
  GQ_JIT_CACHE_UNSAFE = 3,  /* the folder is another user's, or its group or
                               others may write to it: neither read nor written */
  GQ_JIT_CACHE_FAILED = 4   /* no folder can be named or made, out of memory,
                               an I/O error: go on without the cache            */
};

/* Entries larger than this are neither written nor read. */
#define GQ_JIT_CACHE_MAX_ENTRY ((size_t)1 << 28)

/* The cache folder: $GPUQUAD_CACHE_DIR, else $XDG_CACHE_HOME/gpuquad, else
 * $HOME/.cache/gpuquad.  Written into buf; returns 0, or -1 if none can be
 * named (no HOME). */
int gq_jit_cache_dir(char *buf, size_t size);

/* The path of key's entry (the folder, then 32 hex digits of the SHA-256 of
 * the key, ".cubin").  Returns 0, or -1 as gq_jit_cache_dir. */
int gq_jit_cache_entry_path(const char *key, char *buf, size_t size);

/* The binary stored for key (the whole source with the architecture and
 * versions appended), verified, in a malloc'd buffer.  GQ_JIT_CACHE_*; on
 * anything but OK, *binary is NULL. */
int gq_jit_cache_load(const char *key, void **binary, size_t *size);

/* Store binary for key: written to a temporary file in the folder (created
 * 0700 if missing) and renamed over the entry, so a reader sees the old entry
 * or the new one, never a mix.  GQ_JIT_CACHE_OK, UNSAFE or FAILED; the cache
 * is an optimisation, so callers go on either way. */
int gq_jit_cache_store(const char *key, const void *binary, size_t size);

/* The bytes of an entry: "GQJIT2\n\0", the key's and the binary's sizes (8
 * bytes each, little-endian), the key, the binary, and the SHA-256 of all
 * that precedes it.  encode returns 0 or -1 (out of memory, too large);
 * decode returns 0 when the sizes add up and the digest matches, and points
 * into entry (the key is not NUL-terminated there), else -1. */
int gq_jit_cache_encode(const char *key, const void *binary, size_t size, unsigned char **entry,
                        size_t *entry_size);
int gq_jit_cache_decode(const unsigned char *entry, size_t entry_size, const char **key, size_t *key_size,
                        const unsigned char **binary, size_t *binary_size);

#ifdef __cplusplus
}
#endif
#endif
