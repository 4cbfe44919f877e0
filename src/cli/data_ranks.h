/* data_ranks.h — hist and scan under mpirun (issue 21): each rank takes a
 * share of the elements (gq_share_range: whole Philox quads of generated
 * data, single elements of a file, which gq_reader_slice seeks to), and the
 * ranks meet at the steps below, every rank at every step in the same order
 * whether or not its own part failed, so that none is left waiting.  With
 * one process each step is the identity. */
#ifndef GQ_CLI_DATA_RANKS_H
#define GQ_CLI_DATA_RANKS_H

#include "cli.h"

/* This rank's elements [*first, *first + *count) of n, in units of unit
 * (4 for generated data: whole Philox quads; 1 for files). */
void data_share(uint64_t n, uint64_t unit, uint64_t *first, uint64_t *count);

/* Whether path can be divided among the ranks (each reading its share of
 * the one file): not standard input, nor a pipe or other file that is not
 * a regular one (A.npz:NAME is the archive's).  EXIT_OK, or EXIT_USAGE after
 * a message. */
int data_divisible(const char *path);

/* After a step that may fail on one rank (reading, memory): rc, or where
 * this rank did not fail but another did, that rank's failure (its message
 * is the one shown, mpi.c). */
int data_agree(int rc);

/* The ranks' histograms (h on each, of one shape) merged in rank order by
 * gq_hist_merge, left in h on every rank: the counts, under, over and NaN
 * exactly (integers), the binned sums in rank order.  status: this rank's;
 * returns the group's. */
int data_hist_combine(gq_hist *h, int status);

/* One rank's part of a scan: its elements' total (the carry its scan from
 * zero ends with), its first and last values and how many it has. */
typedef struct {
  gq_scan_carry total;
  double first, last;
  uint64_t count;
} data_scan_part;

/* Every rank's part, in rank order (all: cli_mpi_ranks() entries).  status:
 * this rank's; returns the group's. */
int data_scan_gather(const data_scan_part *mine, data_scan_part *all, int status);

#endif
