/* jit_cache.c — cubins compiled by NVRTC, kept on disk between runs.
 *
 * A cached cubin is machine code that is loaded into the GPU and run, so a
 * damaged or substituted entry could crash the process or, worse, compute a
 * wrong number.  Hence (as ccache and pip do) the folder must be the user's
 * and writable by no one else, and every entry is checked before use: a
 * regular file (opened without following links or blocking), the user's, of
 * a plausible size, its SHA-256 intact and its key the one asked for.  Every
 * byte of an entry is covered by one of these checks.  The digest guards
 * against damage, not against the user's own hand: a folder no one else can
 * write is what keeps others' kernels out. */
#define _POSIX_C_SOURCE 200809L /* openat, O_NOFOLLOW, O_DIRECTORY, O_CLOEXEC, mkfifo */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jit_cache.h"
#include "sha256.h"

static const unsigned char entry_magic[8] = "GQJIT2\n";
enum { HEADER_BYTES = 24, NAME_DIGEST_BYTES = 16 };

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

/* 32 hex digits of the key's SHA-256, ".cubin": a name collision would take
 * 2^64 keys, and even then the key stored in the entry tells them apart. */
static void entry_name(const char *key, char name[64])
{
  unsigned char digest[GQ_SHA256_BYTES];
  gq_sha256(key, strlen(key), digest);
  for (int k = 0; k < NAME_DIGEST_BYTES; k++)
    snprintf(name + 2 * k, 3, "%02x", digest[k]);
  strcpy(name + 2 * NAME_DIGEST_BYTES, ".cubin");
}

int gq_jit_cache_entry_path(const char *key, char *buf, size_t size)
{
  char dir[4096], name[64];
  if (gq_jit_cache_dir(dir, sizeof dir) != 0)
    return -1;
  entry_name(key, name);
  return snprintf(buf, size, "%s/%s", dir, name) < (int)size ? 0 : -1;
}

static void put_u64(unsigned char *p, uint64_t v)
{
  for (int k = 0; k < 8; k++)
    p[k] = (unsigned char)(v >> (8 * k));
}

static uint64_t get_u64(const unsigned char *p)
{
  uint64_t v = 0;
  for (int k = 0; k < 8; k++)
    v |= (uint64_t)p[k] << (8 * k);
  return v;
}

int gq_jit_cache_encode(const char *key, const void *binary, size_t size, unsigned char **entry,
                        size_t *entry_size)
{
  *entry = NULL;
  *entry_size = 0;
  const size_t key_size = strlen(key);
  const size_t limit = GQ_JIT_CACHE_MAX_ENTRY - HEADER_BYTES - GQ_SHA256_BYTES;
  if (key_size > limit || size > limit - key_size)
    return -1;
  const size_t total = HEADER_BYTES + key_size + size + GQ_SHA256_BYTES;
  unsigned char *e = malloc(total);
  if (!e)
    return -1;
  memcpy(e, entry_magic, 8);
  put_u64(e + 8, key_size);
  put_u64(e + 16, size);
  memcpy(e + HEADER_BYTES, key, key_size);
  if (size > 0)
    memcpy(e + HEADER_BYTES + key_size, binary, size);
  gq_sha256(e, total - GQ_SHA256_BYTES, e + total - GQ_SHA256_BYTES);
  *entry = e;
  *entry_size = total;
  return 0;
}

int gq_jit_cache_decode(const unsigned char *entry, size_t entry_size, const char **key, size_t *key_size,
                        const unsigned char **binary, size_t *binary_size)
{
  if (entry_size < HEADER_BYTES + GQ_SHA256_BYTES || entry_size > GQ_JIT_CACHE_MAX_ENTRY ||
      memcmp(entry, entry_magic, 8) != 0)
    return -1;
  /* Both sizes are at most the entry's (2^28), so the sum cannot wrap. */
  const uint64_t ksize = get_u64(entry + 8), bsize = get_u64(entry + 16);
  if (ksize > entry_size || bsize > entry_size ||
      HEADER_BYTES + ksize + bsize + GQ_SHA256_BYTES != (uint64_t)entry_size)
    return -1;
  unsigned char digest[GQ_SHA256_BYTES];
  gq_sha256(entry, entry_size - GQ_SHA256_BYTES, digest);
  if (memcmp(digest, entry + entry_size - GQ_SHA256_BYTES, GQ_SHA256_BYTES) != 0)
    return -1;
  *key = (const char *)entry + HEADER_BYTES;
  *key_size = (size_t)ksize;
  *binary = entry + HEADER_BYTES + ksize;
  *binary_size = (size_t)bsize;
  return 0;
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

/* The folder, opened (the descriptor, not the name, is used from here on, so
 * it cannot be swapped after the check) and checked: a directory of the
 * user's that neither group nor others may write. */
static int open_cache_dir(int create, int *dir_fd)
{
  char dir[4096];
  *dir_fd = -1;
  if (gq_jit_cache_dir(dir, sizeof dir) != 0 || (create && make_dirs(dir) != 0))
    return GQ_JIT_CACHE_FAILED;
  const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? GQ_JIT_CACHE_ABSENT : GQ_JIT_CACHE_FAILED;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
    close(fd);
    return GQ_JIT_CACHE_FAILED;
  }
  if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    close(fd);
    return GQ_JIT_CACHE_UNSAFE;
  }
  *dir_fd = fd;
  return GQ_JIT_CACHE_OK;
}

/* The whole of a regular file of the user's, of a size an entry can have;
 * NULL (and *size 0) for anything else. */
static unsigned char *read_entry(int fd, size_t *size)
{
  struct stat st;
  *size = 0;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      st.st_size < HEADER_BYTES + GQ_SHA256_BYTES || (uint64_t)st.st_size > GQ_JIT_CACHE_MAX_ENTRY)
    return NULL;
  const size_t want = (size_t)st.st_size;
  unsigned char *buf = malloc(want);
  size_t got = 0;
  while (buf && got < want) {
    const ssize_t r = read(fd, buf + got, want - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    got += (size_t)r;
  }
  if (got != want) {
    free(buf);
    return NULL;
  }
  *size = want;
  return buf;
}

int gq_jit_cache_load(const char *key, void **binary, size_t *size)
{
  *binary = NULL;
  *size = 0;
  int dir_fd;
  const int status = open_cache_dir(0, &dir_fd);
  if (status != GQ_JIT_CACHE_OK)
    return status;
  char name[64];
  entry_name(key, name);
  const int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  const int open_errno = errno;
  close(dir_fd);
  if (fd < 0)
    return open_errno == ENOENT ? GQ_JIT_CACHE_ABSENT : GQ_JIT_CACHE_INVALID;
  size_t entry_size;
  unsigned char *entry = read_entry(fd, &entry_size);
  close(fd);
  const char *stored_key;
  const unsigned char *stored;
  size_t key_size, stored_size;
  if (!entry || gq_jit_cache_decode(entry, entry_size, &stored_key, &key_size, &stored, &stored_size) != 0 ||
      key_size != strlen(key) || memcmp(stored_key, key, key_size) != 0 || stored_size == 0) {
    free(entry);
    return GQ_JIT_CACHE_INVALID;
  }
  void *out = malloc(stored_size);
  if (!out) {
    free(entry);
    return GQ_JIT_CACHE_FAILED;
  }
  memcpy(out, stored, stored_size);
  free(entry);
  *binary = out;
  *size = stored_size;
  return GQ_JIT_CACHE_OK;
}

static int write_all(int fd, const unsigned char *p, size_t size)
{
  while (size > 0) {
    const ssize_t w = write(fd, p, size);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    size -= (size_t)w;
  }
  return 0;
}

/* A new file "<entry>.<16 hex digits>" in the folder, 0600, never an existing
 * one (O_EXCL) nor through a link; its name in tmp. */
static int create_temporary(int dir_fd, const char *name, char tmp[96])
{
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  uint64_t seed = (uint64_t)now.tv_nsec * UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)now.tv_sec ^
                  ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)tmp;
  for (int attempt = 0; attempt < 64; attempt++) {
    seed = seed * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    snprintf(tmp, 96, "%s.%016llx", name, (unsigned long long)seed);
    const int fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST)
      return fd;
  }
  return -1;
}

/* No fsync before the rename: after a crash the entry may be torn, but it is
 * verified when read and then compiled again, so durability buys nothing. */
int gq_jit_cache_store(const char *key, const void *binary, size_t size)
{
  unsigned char *entry;
  size_t entry_size;
  if (gq_jit_cache_encode(key, binary, size, &entry, &entry_size) != 0)
    return GQ_JIT_CACHE_FAILED;
  int dir_fd;
  int status = open_cache_dir(1, &dir_fd);
  if (status != GQ_JIT_CACHE_OK) {
    free(entry);
    return status == GQ_JIT_CACHE_ABSENT ? GQ_JIT_CACHE_FAILED : status;
  }
  char name[64], tmp[96];
  entry_name(key, name);
  const int fd = create_temporary(dir_fd, name, tmp);
  status = GQ_JIT_CACHE_FAILED;
  if (fd >= 0) {
    const int written = write_all(fd, entry, entry_size) == 0;
    if (close(fd) == 0 && written && renameat(dir_fd, tmp, dir_fd, name) == 0)
      status = GQ_JIT_CACHE_OK;
    else
      unlinkat(dir_fd, tmp, 0);
  }
  close(dir_fd);
  free(entry);
  return status;
}
