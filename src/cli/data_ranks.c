/* data_ranks.c — the meeting points of hist and scan under mpirun
 * (data_ranks.h), all of them the combine of mpi.c: a status, or a partial
 * as bytes with the merge that joins two. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data_ranks.h"
#include "mpi.h"

void data_share(uint64_t n, uint64_t unit, uint64_t *first, uint64_t *count)
{
  gq_share_range(n, unit, cli_mpi_rank(), cli_mpi_ranks(), first, count);
}

int data_divisible(const char *path)
{
  struct stat st;
  if (strcmp(path, "-") != 0 && (stat(path, &st) != 0 || S_ISREG(st.st_mode)))
    return EXIT_OK; /* a file, or no such path (A.npz:NAME; the reader's message) */
  return cli_error(EXIT_USAGE, "%s: under mpirun every rank reads its share of one file: standard input and "
                               "pipes cannot be divided (save the data to a .npy or raw file)",
                   strcmp(path, "-") == 0 ? "<stdin>" : path);
}

int data_agree(int rc)
{
  const int group = cli_mpi_combine(NULL, 0, NULL, rc, NULL);
  return rc != EXIT_OK ? rc : group;
}

/* ---- histograms: the struct, then its counts, sums and their errors ---- */
static size_t hist_bytes(const gq_hist *h)
{
  const size_t per_cell = sizeof *h->counts + (h->kind != GQ_HIST_COUNTS ? 2 * sizeof(double) : 0);
  return sizeof *h + h->cells * per_cell;
}

/* The histogram laid out at flat, its arrays pointing into it (the struct's
 * own pointers are another process's). */
static gq_hist hist_view(void *flat)
{
  gq_hist v;
  memcpy(&v, flat, sizeof v);
  char *at = (char *)flat + sizeof v;
  v.counts = (uint64_t *)at;
  v.sums = v.sums_err = NULL;
  if (v.kind != GQ_HIST_COUNTS) {
    v.sums = (double *)(at + v.cells * sizeof *v.counts);
    v.sums_err = v.sums + v.cells;
  }
  return v;
}

static void merge_hist(void *acc, const void *other)
{
  gq_hist a = hist_view(acc), b = hist_view((void *)other);
  gq_hist_merge(&a, &b); /* the arrays in place; the totals back into acc's struct */
  memcpy(acc, &a, sizeof a);
}

int data_hist_combine(gq_hist *h, int status)
{
  if (cli_mpi_ranks() == 1)
    return status;
  const size_t bytes = hist_bytes(h);
  char *flat = malloc(bytes);
  if (!flat) /* every rank still meets the others, saying so */
    return cli_mpi_combine(NULL, 0, NULL, GQ_ENOMEM, NULL);
  memcpy(flat, h, sizeof *h);
  gq_hist v = hist_view(flat);
  memcpy(v.counts, h->counts, h->cells * sizeof *h->counts);
  if (h->sums) {
    memcpy(v.sums, h->sums, h->cells * sizeof *h->sums);
    memcpy(v.sums_err, h->sums_err, h->cells * sizeof *h->sums_err);
  }
  const int group = cli_mpi_combine(flat, bytes, merge_hist, status, NULL);
  if (group == GQ_SUCCESS) {
    v = hist_view(flat);
    memcpy(h->counts, v.counts, h->cells * sizeof *h->counts);
    if (h->sums) {
      memcpy(h->sums, v.sums, h->cells * sizeof *h->sums);
      memcpy(h->sums_err, v.sums_err, h->cells * sizeof *h->sums_err);
    }
    h->under = v.under;
    h->over = v.over;
    h->nan = v.nan;
    h->total = v.total;
    h->kernel_ms = v.kernel_ms;
  }
  free(flat);
  return group;
}

/* ---- scans: a table of every rank's part, each rank filling its row ---- */
typedef struct {
  uint64_t filled;
  data_scan_part part;
} scan_row;

/* rows[0].filled holds the number of ranks; row r + 1 is rank r's. */
static void merge_rows(void *acc, const void *other)
{
  scan_row *a = acc;
  const scan_row *b = other;
  for (uint64_t r = 1; r <= a[0].filled; r++)
    if (b[r].filled)
      a[r] = b[r];
}

int data_scan_gather(const data_scan_part *mine, data_scan_part *all, int status)
{
  const int ranks = cli_mpi_ranks();
  if (ranks == 1) {
    all[0] = *mine;
    return status;
  }
  const size_t bytes = ((size_t)ranks + 1) * sizeof(scan_row);
  scan_row *rows = calloc((size_t)ranks + 1, sizeof *rows);
  if (!rows)
    return cli_mpi_combine(NULL, 0, NULL, GQ_ENOMEM, NULL);
  rows[0].filled = (uint64_t)ranks;
  rows[cli_mpi_rank() + 1] = (scan_row){1, *mine};
  const int group = cli_mpi_combine(rows, bytes, merge_rows, status, NULL);
  for (int r = 0; group == GQ_SUCCESS && r < ranks; r++)
    all[r] = rows[r + 1].part;
  free(rows);
  return group;
}
