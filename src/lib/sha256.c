/* sha256.c — SHA-256 as FIPS 180-4 specifies it (section 6.2), one 64-byte
 * block at a time; tests/t_jit_cache.c checks the standard's examples. */
#include "config.h"

#include <string.h>

#include "sha256.h"

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void compress(uint32_t state[8], const unsigned char block[64])
{
  uint32_t w[64];
  for (int t = 0; t < 16; t++)
    w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 | (uint32_t)block[4 * t + 2] << 8 |
           (uint32_t)block[4 * t + 3];
  for (int t = 16; t < 64; t++) {
    const uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int t = 0; t < 64; t++) {
    const uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + round_constants[t] + w[t];
    const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

void gq_sha256_init(gq_sha256_ctx *c)
{
  static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(c->state, initial, sizeof initial);
  c->length = 0;
  c->used = 0;
}

void gq_sha256_update(gq_sha256_ctx *c, const void *data, size_t size)
{
  const unsigned char *p = data;
  c->length += size;
  while (size > 0) {
    const size_t take = size < 64 - c->used ? size : 64 - c->used;
    memcpy(c->block + c->used, p, take);
    c->used += take;
    p += take;
    size -= take;
    if (c->used == 64) {
      compress(c->state, c->block);
      c->used = 0;
    }
  }
}

/* Padding (5.1.1): a 1 bit, zeros to 56 bytes mod 64, the length in bits as
 * a big-endian 64-bit number. */
void gq_sha256_final(gq_sha256_ctx *c, unsigned char digest[GQ_SHA256_BYTES])
{
  const uint64_t bits = c->length * 8;
  c->block[c->used++] = 0x80;
  if (c->used > 56) {
    memset(c->block + c->used, 0, 64 - c->used);
    compress(c->state, c->block);
    c->used = 0;
  }
  memset(c->block + c->used, 0, 56 - c->used);
  for (int k = 0; k < 8; k++)
    c->block[56 + k] = (unsigned char)(bits >> (56 - 8 * k));
  compress(c->state, c->block);
  for (int k = 0; k < 8; k++) {
    digest[4 * k] = (unsigned char)(c->state[k] >> 24);
    digest[4 * k + 1] = (unsigned char)(c->state[k] >> 16);
    digest[4 * k + 2] = (unsigned char)(c->state[k] >> 8);
    digest[4 * k + 3] = (unsigned char)c->state[k];
  }
}

void gq_sha256(const void *data, size_t size, unsigned char digest[GQ_SHA256_BYTES])
{
  gq_sha256_ctx c;
  gq_sha256_init(&c);
  gq_sha256_update(&c, data, size);
  gq_sha256_final(&c, digest);
}
