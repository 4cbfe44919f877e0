/* sha256.h — SHA-256 (FIPS 180-4), for checking what the library reads back
 * from its own files (the kernel cache).  Not for secrets: no constant-time
 * promises, no key handling. */
#ifndef GQ_SHA256_H
#define GQ_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { GQ_SHA256_BYTES = 32 };

typedef struct {
  uint32_t state[8];
  uint64_t length;        /* bytes hashed so far */
  unsigned char block[64]; /* the partial block */
  size_t used;            /* bytes in block */
} gq_sha256_ctx;

void gq_sha256_init(gq_sha256_ctx *c);
void gq_sha256_update(gq_sha256_ctx *c, const void *data, size_t size);
void gq_sha256_final(gq_sha256_ctx *c, unsigned char digest[GQ_SHA256_BYTES]);

/* The digest of size bytes at data, in one call. */
void gq_sha256(const void *data, size_t size, unsigned char digest[GQ_SHA256_BYTES]);

#ifdef __cplusplus
}
#endif
#endif
