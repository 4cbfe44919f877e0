/* mpi.h — gpuquad started by mpirun -np K (issue 21): the process-level
 * split and combine, kept out of the library (which only takes a share and
 * a combine step on its context, gpuquad.h) and out of the commands but for
 * a call or two each.
 *
 * integrate (every rule, sampled data, --cumulative), mc (plain, VEGAS,
 * Sobol), dot, rms, stats, hist and scan run on every rank, each on its
 * share; the other commands (bench, batch) run on rank 0 alone.  Only rank 0 writes: the other
 * ranks' output goes nowhere, and the messages of the first rank that failed
 * are the ones shown.  Every rank exits with that rank's status.  Built
 * without MPI (or not started by a launcher) the functions below do nothing
 * and there is one rank. */
#ifndef GQ_CLI_MPI_H
#define GQ_CLI_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "gpuquad.h"

#ifdef HAVE_MPI
/* Before the command: MPI_Init when a launcher started the program, the
 * ranks' devices, rank 0's captured output.  Returns 1 when this rank runs
 * the command (argv names it; 0: rank 0 runs it alone). */
int cli_mpi_begin(int argc, char **argv);
/* After it: the group's exit status (the first failing rank's), its
 * messages on rank 0's stderr, each rank's compute and wait times appended
 * to rank 0's output, MPI_Finalize. */
int cli_mpi_end(int status);
int cli_mpi_rank(void);
int cli_mpi_ranks(void);
/* The device of this rank for --device=TEXT: auto, cuda and gpu take the
 * GPU of the node-local rank modulo the node's GPUs; anything else stays. */
int cli_mpi_device(const char *text, int device);
/* After every rank opened its context (status: this rank's gq_context_open):
 * the group's status, and with GQ_SUCCESS the context holds this rank's
 * share (gq_context_set_share).  A rank whose device failed is thus heard
 * at once, not waited for at the first combine. */
int cli_mpi_share(gq_context *ctx, int status);
/* gq_combine_fn over the ranks: partials gathered, merged in rank order. */
int cli_mpi_combine(void *partial, size_t bytes, gq_merge_fn *merge, int status, void *user);
#else
static inline int cli_mpi_begin(int argc, char **argv) { (void)argc; (void)argv; return 1; }
static inline int cli_mpi_end(int status) { return status; }
static inline int cli_mpi_rank(void) { return 0; }
static inline int cli_mpi_ranks(void) { return 1; }
static inline int cli_mpi_device(const char *text, int device) { (void)text; return device; }
static inline int cli_mpi_share(gq_context *ctx, int status) { (void)ctx; return status; }
static inline int cli_mpi_combine(void *partial, size_t bytes, gq_merge_fn *merge, int status, void *user)
{
  (void)partial; (void)bytes; (void)merge; (void)user;
  return status;
}
#endif

#endif /* GQ_CLI_MPI_H */
