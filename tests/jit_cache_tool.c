/* jit_cache_tool.c — damages kernel-cache entries for tests/jit_cache.gpu:
 *   size FILE                 the entry's size in bytes
 *   flips SEED COUNT SIZE     COUNT "position mask" lines, reproducible from SEED
 *   flip FILE POS MASK        XOR the byte at POS with MASK (in place)
 *   forge-image FILE          a verified entry whose cubin the driver refuses
 *   forge-names FILE          a verified entry whose kernel names do not exist
 * The forged entries pass every check of jit_cache.c (the digest is
 * recomputed), so only the loader can refuse them.  Exit 0, or 1 with a
 * message. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/lib/jit_cache.h"

static int fail(const char *what, const char *path)
{
  fprintf(stderr, "jit_cache_tool: %s: %s\n", path, what);
  return 1;
}

static unsigned char *slurp(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  unsigned char *buf = NULL;
  size_t cap = 0, n = 0, got;
  do {
    if (n == cap) {
      cap = cap ? 2 * cap : 1 << 16;
      unsigned char *grown = realloc(buf, cap);
      if (!grown) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = grown;
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  fclose(f);
  *size = n;
  return buf;
}

static int spill(const char *path, const unsigned char *data, size_t size)
{
  FILE *f = fopen(path, "wb");
  if (!f)
    return -1;
  const int ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok ? 0 : -1;
}

static int forge(const char *path, int names)
{
  size_t size, key_size, binary_size;
  unsigned char *entry = slurp(path, &size);
  const char *key;
  const unsigned char *binary;
  if (!entry || gq_jit_cache_decode(entry, size, &key, &key_size, &binary, &binary_size) != 0)
    return fail("not a valid entry", path);
  char *key_copy = malloc(key_size + 1);
  unsigned char *changed = malloc(binary_size);
  memcpy(key_copy, key, key_size);
  key_copy[key_size] = '\0';
  memcpy(changed, binary, binary_size);
  if (names) {
    changed[0] = '#'; /* the first lowered name ("_Z...") names nothing */
  } else {
    unsigned char *elf = NULL;
    for (size_t k = 0; k + 4 <= binary_size && !elf; k++)
      if (memcmp(changed + k, "\177ELF", 4) == 0)
        elf = changed + k;
    if (!elf)
      return fail("no ELF image in the entry", path);
    memset(elf, 0, 64); /* the ELF header: no loader takes it */
  }
  unsigned char *out;
  size_t out_size;
  if (gq_jit_cache_encode(key_copy, changed, binary_size, &out, &out_size) != 0 || spill(path, out, out_size) != 0)
    return fail("cannot write", path);
  free(out);
  free(changed);
  free(key_copy);
  free(entry);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc == 3 && strcmp(argv[1], "size") == 0) {
    size_t size;
    unsigned char *entry = slurp(argv[2], &size);
    if (!entry)
      return fail("cannot read", argv[2]);
    printf("%zu\n", size);
    free(entry);
    return 0;
  }
  if (argc == 5 && strcmp(argv[1], "flips") == 0) {
    uint64_t state = strtoull(argv[2], NULL, 10);
    const long count = strtol(argv[3], NULL, 10);
    const uint64_t size = strtoull(argv[4], NULL, 10);
    for (long k = 0; k < count && size > 0; k++) {
      /* splitmix64 */
      uint64_t z = (state += UINT64_C(0x9e3779b97f4a7c15));
      z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
      z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
      z ^= z >> 31;
      const uint64_t position = (z >> 8) % size;
      const unsigned mask = 1 + (unsigned)(z % 255); /* 1..255: always a change */
      printf("%llu %u\n", (unsigned long long)position, mask);
    }
    return 0;
  }
  if (argc == 5 && strcmp(argv[1], "flip") == 0) {
    size_t size;
    unsigned char *entry = slurp(argv[2], &size);
    const size_t position = strtoull(argv[3], NULL, 10);
    if (!entry || position >= size)
      return fail("cannot read, or position past the end", argv[2]);
    entry[position] ^= (unsigned char)strtoul(argv[4], NULL, 10);
    const int status = spill(argv[2], entry, size);
    free(entry);
    return status == 0 ? 0 : fail("cannot write", argv[2]);
  }
  if (argc == 3 && strcmp(argv[1], "forge-image") == 0)
    return forge(argv[2], 0);
  if (argc == 3 && strcmp(argv[1], "forge-names") == 0)
    return forge(argv[2], 1);
  fprintf(stderr, "usage: jit_cache_tool size FILE | flips SEED COUNT SIZE | flip FILE POS MASK | "
                  "forge-image FILE | forge-names FILE\n");
  return 2;
}
