/* t_jit_cache.c — the GPU kernel cache's checks, without a GPU: SHA-256
 * against FIPS 180-4's examples; entries that round-trip; every single-byte
 * change and every truncation of an entry rejected; an entry of another key,
 * a FIFO, a symbolic link, a directory or another user's file at the entry's
 * path rejected (and replaced by the next store); a folder others can write,
 * or another user's, not used at all.  A hang fails through alarm(). */
#define _POSIX_C_SOURCE 200809L /* openat, O_NOFOLLOW, O_DIRECTORY, O_CLOEXEC, mkfifo */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/lib/jit_cache.h"
#include "../src/lib/sha256.h"
#include "tap.h"

static char cache_dir[4096];

static void hex(const unsigned char *d, char out[65])
{
  for (int k = 0; k < GQ_SHA256_BYTES; k++)
    snprintf(out + 2 * k, 3, "%02x", d[k]);
}

static void sha256_vectors(void)
{
  /* FIPS 180-4 / its example document (one block, two blocks, long), and
   * lengths on either side of the padding boundaries (55, 56, 64 bytes). */
  static const struct {
    const char *message;
    size_t repeat;
    const char *digest;
  } vectors[] = {
      {"", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
       1, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
      {"a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
      {"a", 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {"a", 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {"a", 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {"a", 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {"a", 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
      {"a", 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {"a", 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
  };
  for (size_t v = 0; v < sizeof vectors / sizeof vectors[0]; v++) {
    gq_sha256_ctx c;
    unsigned char d[GQ_SHA256_BYTES];
    char got[65];
    gq_sha256_init(&c);
    for (size_t r = 0; r < vectors[v].repeat; r++)
      gq_sha256_update(&c, vectors[v].message, strlen(vectors[v].message));
    gq_sha256_final(&c, d);
    hex(d, got);
    tap_ok(strcmp(got, vectors[v].digest) == 0, "sha256 of \"%.20s\"%s x %zu = %.16s...", vectors[v].message,
           strlen(vectors[v].message) > 20 ? "..." : "", vectors[v].repeat, got);
  }
  /* the same bytes fed in two pieces, split anywhere, give the same digest */
  unsigned char msg[200], whole[GQ_SHA256_BYTES], pieces[GQ_SHA256_BYTES];
  for (size_t k = 0; k < sizeof msg; k++)
    msg[k] = (unsigned char)(k * 37 + 11);
  int same = 1;
  for (size_t n = 0; n <= sizeof msg; n += 7)
    for (size_t split = 0; split <= n; split++) {
      gq_sha256_ctx c;
      gq_sha256(msg, n, whole);
      gq_sha256_init(&c);
      gq_sha256_update(&c, msg, split);
      gq_sha256_update(&c, msg + split, n - split);
      gq_sha256_final(&c, pieces);
      same = same && memcmp(whole, pieces, sizeof whole) == 0;
    }
  tap_ok(same, "sha256: updates split anywhere give the one-call digest");
}

static int read_whole(const char *path, unsigned char **data, size_t *size)
{
  FILE *f = fopen(path, "rb");
  *data = NULL;
  *size = 0;
  if (!f)
    return -1;
  unsigned char buf[65536];
  const size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  *data = malloc(n ? n : 1);
  memcpy(*data, buf, n);
  *size = n;
  return 0;
}

static int write_whole(const char *path, const unsigned char *data, size_t size)
{
  unlink(path);
  FILE *f = fopen(path, "wb");
  if (!f)
    return -1;
  const int ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok ? 0 : -1;
}

/* load(key) gives exactly binary */
static int loads(const char *key, const char *binary)
{
  void *got = NULL;
  size_t size = 0;
  const int status = gq_jit_cache_load(key, &got, &size);
  const int ok = status == GQ_JIT_CACHE_OK && size == strlen(binary) && memcmp(got, binary, size) == 0;
  free(got);
  return ok;
}

/* load(key) gives the status want, and no binary */
static int refused(const char *key, int want)
{
  void *got = (void *)&got;
  size_t size = 1;
  const int status = gq_jit_cache_load(key, &got, &size);
  if (status != want)
    diag("load: status %d, wanted %d", status, want);
  return status == want && got == NULL && size == 0;
}

/* Entries in the folder other than "."/"..": temporaries must not linger. */
static int files_in(const char *dir)
{
  DIR *d = opendir(dir);
  int n = 0;
  if (!d)
    return -1;
  for (struct dirent *e; (e = readdir(d));)
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n;
}

static const char key_a[] = "// x*x+7 sm_90 gpuquad test\n// &kernel<256>\n";
static const char key_b[] = "// x*x sm_90 gpuquad test\n// &kernel<256>\n";
static const char bin_a[] = "name_a\n\177ELF cubin of x*x+7";
static const char bin_b[] = "name_b\n\177ELF cubin of x*x..";

static void round_trip(void)
{
  char path[4300];
  tap_ok(refused(key_a, GQ_JIT_CACHE_ABSENT), "no folder yet: absent");
  tap_ok(gq_jit_cache_store(key_a, bin_a, strlen(bin_a)) == GQ_JIT_CACHE_OK, "store");
  struct stat st;
  const int dir_found = stat(cache_dir, &st) == 0;
  tap_ok(dir_found && (st.st_mode & 077) == 0, "the folder is created private (mode %03o)",
         (unsigned)(st.st_mode & 0777));
  tap_ok(loads(key_a, bin_a), "load gives back the binary stored");
  gq_jit_cache_entry_path(key_a, path, sizeof path);
  const int entry_found = stat(path, &st) == 0;
  tap_ok(entry_found && S_ISREG(st.st_mode) && (st.st_mode & 077) == 0,
         "the entry is a private regular file (mode %03o)", (unsigned)(st.st_mode & 0777));
  tap_ok(refused(key_b, GQ_JIT_CACHE_ABSENT), "another key: absent");
  tap_ok(gq_jit_cache_store(key_a, bin_b, strlen(bin_b)) == GQ_JIT_CACHE_OK && loads(key_a, bin_b) &&
             files_in(cache_dir) == 1,
         "a second store replaces the entry, leaving no temporary file");
  gq_jit_cache_store(key_a, bin_a, strlen(bin_a));
}

static void every_byte(void)
{
  char path[4300];
  unsigned char *entry;
  size_t size;
  gq_jit_cache_entry_path(key_a, path, sizeof path);
  gq_jit_cache_store(key_a, bin_a, strlen(bin_a));
  read_whole(path, &entry, &size);
  tap_ok(size == 24 + strlen(key_a) + strlen(bin_a) + 32, "the entry is header, key, binary and digest (%zu bytes)",
         size);

  /* every byte, each of three ways: every bit flipped, the lowest, the highest */
  static const unsigned char masks[] = {0xff, 0x01, 0x80};
  size_t accepted = 0, first_accepted = 0;
  for (size_t pos = 0; pos < size; pos++)
    for (size_t m = 0; m < sizeof masks; m++) {
      entry[pos] ^= masks[m];
      write_whole(path, entry, size);
      if (!refused(key_a, GQ_JIT_CACHE_INVALID) && accepted++ == 0)
        first_accepted = pos;
      entry[pos] ^= masks[m];
    }
  tap_ok(accepted == 0, "each of %zu single-byte changes is rejected (%zu accepted, the first at byte %zu)",
         3 * size, accepted, first_accepted);
  tap_ok(gq_jit_cache_store(key_a, bin_a, strlen(bin_a)) == GQ_JIT_CACHE_OK && loads(key_a, bin_a),
         "and the next store replaces the damaged entry");

  size_t truncated = 0;
  for (size_t len = 0; len < size; len++) {
    write_whole(path, entry, len);
    truncated += refused(key_a, GQ_JIT_CACHE_INVALID);
  }
  tap_ok(truncated == size, "each of %zu truncations is rejected", size);
  unsigned char *longer = malloc(size + 1);
  memcpy(longer, entry, size);
  longer[size] = 0;
  write_whole(path, longer, size + 1);
  tap_ok(refused(key_a, GQ_JIT_CACHE_INVALID), "a byte appended is rejected");
  free(longer);

  /* a file larger than any entry is refused before it is read (sparse) */
  const int fd = open(path, O_WRONLY | O_TRUNC);
  const int grown = fd >= 0 && ftruncate(fd, (off_t)GQ_JIT_CACHE_MAX_ENTRY + 1) == 0;
  if (fd >= 0)
    close(fd);
  tap_ok(grown && refused(key_a, GQ_JIT_CACHE_INVALID), "a file larger than the limit is rejected");
  write_whole(path, entry, size);
  tap_ok(loads(key_a, bin_a), "the original bytes load again");
  free(entry);
}

static void other_keys(void)
{
  char path_a[4300], path_b[4300];
  unsigned char *entry_a, *entry_b;
  size_t size_a, size_b;
  gq_jit_cache_entry_path(key_a, path_a, sizeof path_a);
  gq_jit_cache_entry_path(key_b, path_b, sizeof path_b);
  gq_jit_cache_store(key_a, bin_a, strlen(bin_a));
  gq_jit_cache_store(key_b, bin_b, strlen(bin_b));
  read_whole(path_a, &entry_a, &size_a);
  read_whole(path_b, &entry_b, &size_b);

  /* the file of one key under the name of another: what a collision of
   * names, or a copied file, looks like */
  write_whole(path_b, entry_a, size_a);
  tap_ok(refused(key_b, GQ_JIT_CACHE_INVALID), "a verified entry of another key at the key's name is rejected");
  tap_ok(loads(key_a, bin_a), "the other key's own entry is untouched");
  tap_ok(gq_jit_cache_store(key_b, bin_b, strlen(bin_b)) == GQ_JIT_CACHE_OK && loads(key_b, bin_b),
         "and the next store replaces it");

  /* the right key, another expression's kernel (same size, so every length
   * agrees): the digest no longer matches */
  unsigned char *spliced = malloc(size_b);
  memcpy(spliced, entry_b, size_b);
  memcpy(spliced + 24 + strlen(key_b), bin_a, strlen(bin_a));
  write_whole(path_b, spliced, size_b);
  tap_ok(strlen(bin_a) == strlen(bin_b) && refused(key_b, GQ_JIT_CACHE_INVALID),
         "the right key holding another kernel is rejected");
  /* ... and with the digest recomputed the stored key still differs */
  unsigned char *forged;
  size_t forged_size;
  gq_jit_cache_encode(key_a, bin_b, strlen(bin_b), &forged, &forged_size);
  write_whole(path_b, forged, forged_size);
  tap_ok(refused(key_b, GQ_JIT_CACHE_INVALID), "a well-formed entry for another key is rejected");
  gq_jit_cache_store(key_b, bin_b, strlen(bin_b));
  free(forged);
  free(spliced);
  free(entry_a);
  free(entry_b);
}

static void odd_files(const char *tmp)
{
  char path[4300], target[4300];
  gq_jit_cache_entry_path(key_a, path, sizeof path);

  unlink(path);
  tap_ok(mkfifo(path, 0600) == 0 && refused(key_a, GQ_JIT_CACHE_INVALID),
         "a FIFO at the entry's path is rejected without blocking");
  tap_ok(gq_jit_cache_store(key_a, bin_a, strlen(bin_a)) == GQ_JIT_CACHE_OK && loads(key_a, bin_a),
         "and the next store replaces it with a regular file");

  /* a link to a perfectly good entry: links are not followed at all */
  unsigned char *entry;
  size_t size;
  read_whole(path, &entry, &size);
  snprintf(target, sizeof target, "%s/elsewhere.cubin", tmp);
  write_whole(target, entry, size);
  unlink(path);
  tap_ok(symlink(target, path) == 0 && refused(key_a, GQ_JIT_CACHE_INVALID),
         "a symbolic link at the entry's path is rejected, even to a valid entry");
  struct stat st;
  tap_ok(gq_jit_cache_store(key_a, bin_b, strlen(bin_b)) == GQ_JIT_CACHE_OK && lstat(path, &st) == 0 &&
             S_ISREG(st.st_mode) && loads(key_a, bin_b),
         "the next store replaces the link itself");
  unsigned char *after;
  size_t after_size;
  read_whole(target, &after, &after_size);
  tap_ok(after_size == size && memcmp(after, entry, size) == 0, "and leaves the link's target alone");
  free(after);
  free(entry);
  unlink(target);

  unlink(path);
  const int before = files_in(cache_dir);
  tap_ok(mkdir(path, 0700) == 0 && refused(key_a, GQ_JIT_CACHE_INVALID), "a directory at the entry's path is rejected");
  tap_ok(gq_jit_cache_store(key_a, bin_a, strlen(bin_a)) == GQ_JIT_CACHE_FAILED && files_in(cache_dir) == before + 1,
         "a store cannot replace it, and leaves no temporary file");
  rmdir(path);

  if (geteuid() == 0) {
    /* root can make a file of another user's; the check is for anyone's but ours */
    gq_jit_cache_store(key_a, bin_a, strlen(bin_a));
    tap_ok(chown(path, 65534, 65534) == 0 && refused(key_a, GQ_JIT_CACHE_INVALID),
           "an entry of another user's is rejected");
    tap_ok(gq_jit_cache_store(key_a, bin_a, strlen(bin_a)) == GQ_JIT_CACHE_OK && stat(path, &st) == 0 &&
               st.st_uid == geteuid() && loads(key_a, bin_a),
           "and the next store replaces it with the user's own");
  } else {
    tap_ok(1, "an entry of another user's is rejected # SKIP needs root to chown");
    tap_ok(1, "and the next store replaces it # SKIP needs root to chown");
  }
  gq_jit_cache_store(key_a, bin_a, strlen(bin_a));
}

static void unsafe_folders(const char *tmp)
{
  char path[4300];
  gq_jit_cache_entry_path(key_a, path, sizeof path);
  gq_jit_cache_store(key_a, bin_a, strlen(bin_a));
  static const mode_t modes[] = {0777, 0770, 0702, 0720, 01777};
  for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
    chmod(cache_dir, modes[k]);
    unlink(path);
    const int store = gq_jit_cache_store(key_a, bin_a, strlen(bin_a));
    tap_ok(store == GQ_JIT_CACHE_UNSAFE && access(path, F_OK) != 0,
           "a folder of mode %04o is not written (status %d)", (unsigned)modes[k], store);
    chmod(cache_dir, 0700);
    gq_jit_cache_store(key_a, bin_a, strlen(bin_a));
    chmod(cache_dir, modes[k]);
    tap_ok(refused(key_a, GQ_JIT_CACHE_UNSAFE), "nor read");
  }
  chmod(cache_dir, 0755);
  tap_ok(loads(key_a, bin_a), "a folder others may read but not write (0755) is used");
  chmod(cache_dir, 0700);

  if (geteuid() == 0) {
    tap_ok(chown(cache_dir, 65534, 65534) == 0 && refused(key_a, GQ_JIT_CACHE_UNSAFE) &&
               gq_jit_cache_store(key_a, bin_a, strlen(bin_a)) == GQ_JIT_CACHE_UNSAFE,
           "a folder of another user's is neither read nor written");
    chown(cache_dir, geteuid(), getegid());
  } else {
    tap_ok(1, "a folder of another user's is refused # SKIP needs root to chown");
  }

  /* the folder named through a link: the folder the link leads to is checked */
  char link[4300], shared[4300];
  snprintf(link, sizeof link, "%s/link", tmp);
  symlink(cache_dir, link);
  setenv("GPUQUAD_CACHE_DIR", link, 1);
  tap_ok(loads(key_a, bin_a), "a link to a private folder is followed");
  snprintf(shared, sizeof shared, "%s/shared", tmp);
  mkdir(shared, 0700);
  chmod(shared, 0777);
  unlink(link);
  symlink(shared, link);
  tap_ok(refused(key_a, GQ_JIT_CACHE_UNSAFE) && gq_jit_cache_store(key_a, bin_a, strlen(bin_a)) == GQ_JIT_CACHE_UNSAFE,
         "a link to a folder others can write is refused");

  /* a folder that is not one */
  char file[4300], fifo[4300];
  snprintf(file, sizeof file, "%s/plain", tmp);
  write_whole(file, (const unsigned char *)"x", 1);
  setenv("GPUQUAD_CACHE_DIR", file, 1);
  tap_ok(refused(key_a, GQ_JIT_CACHE_FAILED) && gq_jit_cache_store(key_a, bin_a, strlen(bin_a)) == GQ_JIT_CACHE_FAILED,
         "a regular file as the folder: the cache fails, nothing else");
  snprintf(fifo, sizeof fifo, "%s/fifo", tmp);
  mkfifo(fifo, 0600);
  setenv("GPUQUAD_CACHE_DIR", fifo, 1);
  tap_ok(refused(key_a, GQ_JIT_CACHE_FAILED) && gq_jit_cache_store(key_a, bin_a, strlen(bin_a)) == GQ_JIT_CACHE_FAILED,
         "a FIFO as the folder: the cache fails without blocking");
  setenv("GPUQUAD_CACHE_DIR", cache_dir, 1);
  tap_ok(loads(key_a, bin_a), "the private folder is still used");
}

int main(void)
{
  alarm(60); /* a blocking open would hang: the default action of SIGALRM fails the test */
  umask(022);
  sha256_vectors();

  char tmp[] = "/tmp/gpuquad-t_jit_cache.XXXXXX";
  if (!mkdtemp(tmp)) {
    printf("Bail out! mkdtemp: %s\n", strerror(errno));
    return 99;
  }
  snprintf(cache_dir, sizeof cache_dir, "%s/cache/gpuquad", tmp);
  setenv("GPUQUAD_CACHE_DIR", cache_dir, 1);
  round_trip();
  every_byte();
  other_keys();
  odd_files(tmp);
  unsafe_folders(tmp);

  unsigned char *entry;
  size_t entry_size;
  tap_ok(gq_jit_cache_encode(key_a, bin_a, GQ_JIT_CACHE_MAX_ENTRY, &entry, &entry_size) == -1 && entry == NULL,
         "an entry over the limit is not encoded");

  char command[4200];
  snprintf(command, sizeof command, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", tmp, tmp);
  if (system(command) != 0)
    diag("could not remove %s", tmp);
  return tap_done();
}
