/* jit_cache.c — cubins compiled by NVRTC, kept on disk between runs.
 *
 * File: "GQJIT1\n", the key length and key, the binary length and binary
 * (lengths as 8-byte integers in native order: the cache is per machine).
 * Name: 16 hex digits of the 64-bit FNV-1a hash of the key. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit_cache.h"

static const char magic[8] = "GQJIT1\n";

int gq_jit_cache_dir(char *buf, size_t size)
{
  const char *dir = getenv("GPUQUAD_CACHE_DIR");
  if (dir && *dir)
    return snprintf(buf, size, "%s", dir) < (int)size ? 0 : -1;
  const char *xdg = getenv("XDG_CACHE_HOME");
  if (xdg && *xdg)
    return snprintf(buf, size, "%s/gpuquad", xdg) < (int)size ? 0 : -1;
  const char *home = getenv("HOME");
  if (home && *home)
    return snprintf(buf, size, "%s/.cache/gpuquad", home) < (int)size ? 0 : -1;
  return -1;
}

static uint64_t fnv1a(const char *s)
{
  uint64_t h = UINT64_C(14695981039346656037);
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= UINT64_C(1099511628211);
  }
  return h;
}

static int entry_path(const char *key, char *buf, size_t size)
{
  char dir[4096];
  if (gq_jit_cache_dir(dir, sizeof dir) != 0)
    return -1;
  return snprintf(buf, size, "%s/%016llx.cubin", dir, (unsigned long long)fnv1a(key)) < (int)size ? 0 : -1;
}

/* mkdir -p, private to the user */
static int make_dirs(const char *path)
{
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
    return -1;
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
        return -1;
      *p = '/';
    }
  return mkdir(tmp, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

int gq_jit_cache_load(const char *key, void **binary, size_t *size)
{
  char path[4200];
  *binary = NULL;
  *size = 0;
  if (entry_path(key, path, sizeof path) != 0)
    return -1;
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  char m[8];
  uint64_t klen = 0, blen = 0;
  const size_t want = strlen(key);
  int ok = fread(m, 1, 8, f) == 8 && memcmp(m, magic, 8) == 0 && fread(&klen, 8, 1, f) == 1 && klen == want;
  char *k = ok ? malloc(want + 1) : NULL;
  ok = ok && k && fread(k, 1, want, f) == want && memcmp(k, key, want) == 0;
  free(k);
  ok = ok && fread(&blen, 8, 1, f) == 1 && blen > 0 && blen < ((uint64_t)1 << 31);
  void *b = ok ? malloc((size_t)blen) : NULL;
  ok = ok && b && fread(b, 1, (size_t)blen, f) == blen;
  fclose(f);
  if (!ok) {
    free(b);
    return -1;
  }
  *binary = b;
  *size = (size_t)blen;
  return 0;
}

int gq_jit_cache_store(const char *key, const void *binary, size_t size)
{
  char dir[4096], path[4200], tmp[4300];
  if (gq_jit_cache_dir(dir, sizeof dir) != 0 || make_dirs(dir) != 0 || entry_path(key, path, sizeof path) != 0)
    return -1;
  snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
  const int fd = mkstemp(tmp);
  if (fd < 0)
    return -1;
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    close(fd);
    unlink(tmp);
    return -1;
  }
  const uint64_t klen = strlen(key), blen = size;
  int ok = fwrite(magic, 1, 8, f) == 8 && fwrite(&klen, 8, 1, f) == 1 && fwrite(key, 1, klen, f) == klen &&
           fwrite(&blen, 8, 1, f) == 1 && fwrite(binary, 1, size, f) == size;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    unlink(tmp);
    return -1;
  }
  return 0;
}
