/* mpi.c — gpuquad under mpirun (mpi.h): ranks, devices, the combine step
 * the library calls at each partial result, and one exit for the group.
 *
 * Output: every rank's stderr and rank 0's stdout go to temporary files
 * while the command runs, the other ranks' stdout to /dev/null.  At the end
 * the ranks agree on the first one that failed; rank 0 shows that rank's
 * messages (its own when none failed) and its own stdout, with the ranks'
 * times appended, so the user sees one run's output and the cause of a
 * failure, not K copies or a "another rank failed" from the rest.
 *
 * The combine is an MPI_Allgather of each rank's status and partial, merged
 * in rank order on every rank by the library's merge: no rank waits on
 * another's decision, and every rank finishes with the same bits. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "cli.h"
#include "mpi.h"

/* A partial is an accumulator struct behind its rank's status: up to SLOT
 * bytes in the buffer kept for the run (gq_stats_acc, the largest of the
 * double-double ones, is 152), larger ones (an exact accumulator under
 * --deterministic, gq_exact_acc_size()) in a buffer of their own. */
enum { SLOT = 512, STATUS_BYTES = 8, MESSAGE_MAX = 1 << 16 };

static struct {
  int active;            /* MPI_Init was called                            */
  int rank, ranks, local_rank;
  int splitting;         /* every rank runs the command                     */
  int json, quiet;        /* --json: the times as a member; --quiet: none */
  double start_ms, wait_ms;
  char *gathered;        /* ranks * SLOT bytes for the combine              */
  FILE *err, *out;       /* captured stderr, rank 0's captured stdout       */
  int saved_err, saved_out;
  int origin;            /* the first rank a combine saw fail, or -1       */
} mpi = {.ranks = 1, .saved_err = -1, .saved_out = -1, .origin = -1};

int cli_mpi_rank(void) { return mpi.rank; }
int cli_mpi_ranks(void) { return mpi.ranks; }

/* Started by a launcher (Open MPI, MPICH's Hydra or PMIx, Slurm)?  A plain
 * gpuquad does not initialise MPI: its start-up stays as fast as before. */
static int launched(void)
{
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};
  for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++)
    if (getenv(vars[k]))
      return 1;
  return 0;
}

/* How often the words give option NAME, read by the commands' parser over
 * the options this file decides on (before any command has its table):
 * exact names, -h, -V and prefixes mean what they mean to the commands,
 * except a prefix that a command's table makes ambiguous, which that
 * command refuses. */
static int given(int argc, char **argv, const char *name)
{
  static const cli_option decides[] = {
    {"help", OPT_FLAG, NULL, NULL, 1}, {"version", OPT_FLAG, NULL, NULL, 1}, {"cumulative", OPT_FLAG, NULL, NULL, 1},
    {"json", OPT_FLAG, NULL, NULL, 1}, {"quiet", OPT_FLAG, NULL, NULL, 1},
  };
  return cli_peek(argc, argv, 1, decides, sizeof decides / sizeof decides[0], name, NULL);
}

/* The commands that divide their work (hist, scan and sampled data:
 * data_ranks.h; --cumulative: each rank its range of the values,
 * cumulative.c); the others run on rank 0 alone. */
static int splits(int argc, char **argv)
{
  static const char *const commands[] = {"integrate", "mc", "dot", "rms", "stats", "hist", "scan"};
  if (given(argc, argv, "help") || given(argc, argv, "version"))
    return 0;
  if (argc < 2 || argv[1][0] == '-')
    return 1; /* integrate, the default command */
  for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
    if (strcmp(argv[1], commands[k]) == 0)
      return 1;
  return 0;
}

/* fd into a new temporary file (kept open as *file); the old fd saved. */
static int capture(int fd, FILE **file, int *saved)
{
  *file = tmpfile();
  *saved = dup(fd);
  if (!*file || *saved < 0 || dup2(fileno(*file), fd) < 0)
    return -1;
  return 0;
}

static int discard(int fd)
{
  const int null = open("/dev/null", O_WRONLY);
  if (null < 0 || dup2(null, fd) < 0)
    return -1;
  close(null);
  return 0;
}

int cli_mpi_begin(int argc, char **argv)
{
  if (!launched())
    return 1;
  MPI_Init(NULL, NULL);
  mpi.active = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi.ranks);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mpi.rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &mpi.local_rank);
  MPI_Comm_free(&node);
  mpi.splitting = splits(argc, argv);
  mpi.start_ms = cli_wall_ms(); /* compute time: the command's, after the launch */
  mpi.json = given(argc, argv, "json") > 0;
  mpi.quiet = given(argc, argv, "quiet") > 0;
  /* one rank too: its output carries the times, as K ranks' does */
  mpi.gathered = malloc((size_t)mpi.ranks * SLOT);
  fflush(stdout);
  fflush(stderr);
  int failed = !mpi.gathered || capture(STDERR_FILENO, &mpi.err, &mpi.saved_err) != 0;
  if (mpi.rank > 0)
    failed |= discard(STDOUT_FILENO) != 0;
  else if (mpi.splitting)
    failed |= capture(STDOUT_FILENO, &mpi.out, &mpi.saved_out) != 0;
  if (failed) {
    /* nothing to combine with, or nowhere to say so: no rank goes on alone */
    fprintf(stderr, "gpuquad: rank %d: cannot set up its output or buffers\n", mpi.rank);
    MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
  }
  return mpi.rank == 0 || mpi.splitting;
}

int cli_mpi_device(const char *text, int device)
{
  if (mpi.ranks == 1 || !(strcmp(text, "auto") == 0 || strcmp(text, "cuda") == 0 || strcmp(text, "gpu") == 0))
    return device;
  const int count = gq_cuda_device_count();
  return count > 0 ? mpi.local_rank % count : device;
}

int cli_mpi_share(gq_context *ctx, int status)
{
  if (mpi.ranks == 1 || !mpi.splitting) /* rank 0 alone: nobody to combine with */
    return status;
  const gq_share share = {mpi.rank, mpi.ranks, cli_mpi_combine, NULL};
  if (status == GQ_SUCCESS)
    status = gq_context_set_share(ctx, &share);
  return cli_mpi_combine(NULL, 0, NULL, status, NULL);
}

int cli_mpi_combine(void *partial, size_t bytes, gq_merge_fn *merge, int status, void *user)
{
  (void)user;
  if (mpi.ranks == 1)
    return status;
  /* Every rank passes the same size (one command, one kind of partial), so
   * every rank takes the same branch and none is left waiting. */
  const size_t slot = bytes + STATUS_BYTES <= SLOT ? SLOT : bytes + STATUS_BYTES;
  char *mine = calloc(1, slot), *gathered = slot == SLOT ? mpi.gathered : malloc((size_t)mpi.ranks * slot);
  int ok = mine && gathered;
  /* whether every rank has its buffers, before any rank sends a partial */
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok) {
    free(mine);
    if (gathered != mpi.gathered)
      free(gathered);
    return GQ_ENOMEM;
  }
  memcpy(mine, &status, sizeof status);
  if (bytes)
    memcpy(mine + STATUS_BYTES, partial, bytes);
  const double t0 = cli_wall_ms();
  MPI_Allgather(mine, (int)slot, MPI_BYTE, gathered, (int)slot, MPI_BYTE, MPI_COMM_WORLD);
  mpi.wait_ms += cli_wall_ms() - t0;
  free(mine);
  int result = GQ_SUCCESS;
  for (int r = 0; r < mpi.ranks && result == GQ_SUCCESS; r++) {
    int theirs;
    memcpy(&theirs, gathered + (size_t)r * slot, sizeof theirs);
    if (theirs != GQ_SUCCESS) {
      if (mpi.origin < 0)
        mpi.origin = r;
      result = theirs;
    }
  }
  if (result == GQ_SUCCESS && bytes) { /* bytes == 0: agreeing on a status only */
    memcpy(partial, gathered + STATUS_BYTES, bytes);
    for (int r = 1; r < mpi.ranks; r++)
      merge(partial, gathered + (size_t)r * slot + STATUS_BYTES);
  }
  if (gathered != mpi.gathered)
    free(gathered);
  return result;
}

/* The captured file's first cap bytes. */
static size_t captured(FILE *f, char *buf, size_t cap)
{
  if (!f)
    return 0;
  fflush(f);
  rewind(f);
  return fread(buf, 1, cap, f);
}

/* The ranks' compute and wait times, as the table's last line or a JSON member. */
static void times(char *out, size_t cap, const double *t, int json)
{
  size_t at = (size_t)snprintf(out, cap, json ? ",\"mpi\":{\"ranks\":%d,\"compute_ms\":[" : "  mpi          %d ranks, compute ms:", mpi.ranks);
  for (int half = 0; half < 2 && at < cap; half++) {
    if (half)
      at += (size_t)snprintf(out + at, cap - at, json ? "],\"wait_ms\":[" : "; wait ms:");
    for (int r = 0; r < mpi.ranks && at < cap; r++)
      at += (size_t)snprintf(out + at, cap - at, json ? "%s%.6g" : "%s %.4g", json && r ? "," : "", t[2 * r + half]);
  }
  if (at < cap)
    snprintf(out + at, cap - at, json ? "]}" : "\n");
}

/* Rank 0's stdout as captured, with the times when t is given: a JSON
 * object gets an "mpi" member before its closing brace, a table a last
 * line.  (The captured output may be large, --cumulative's values: it is
 * copied as it is but for the splice.) */
static void write_output(const double *t)
{
  fflush(mpi.out);
  fseek(mpi.out, 0, SEEK_END); /* the captured fd's writes moved the shared offset */
  const long size = ftell(mpi.out);
  char *buf = size >= 0 ? malloc((size_t)size + 1) : NULL;
  const size_t line_cap = 64 + 40 * (size_t)mpi.ranks;
  char *line = malloc(line_cap);
  const size_t n = buf ? captured(mpi.out, buf, (size_t)size) : 0;
  if (!buf || !line) {
    free(buf);
    free(line);
    fputs("gpuquad: out of memory for rank 0's output\n", stderr);
    return;
  }
  buf[n] = '\0';
  char *brace = t && mpi.json && buf[0] == '{' ? strrchr(buf, '}') : NULL;
  if (t)
    times(line, line_cap, t, mpi.json);
  if (brace) {
    fwrite(buf, 1, (size_t)(brace - buf), stdout);
    fputs(line, stdout);
    fputs(brace, stdout);
  } else {
    fwrite(buf, 1, n, stdout);
    if (t && !mpi.json)
      fputs(line, stdout);
  }
  free(line);
  free(buf);
}

int cli_mpi_end(int status)
{
  if (!mpi.active)
    return status;
  fflush(stdout);
  fflush(stderr);
  const double mine[2] = {cli_wall_ms() - mpi.start_ms - mpi.wait_ms, mpi.wait_ms};
  /* the first rank that failed by itself (not by a combine's report of
   * another), and its status for all */
  int first = status == EXIT_OK ? mpi.ranks : mpi.origin >= 0 ? mpi.origin : mpi.rank;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int group = status;
  if (first < mpi.ranks)
    MPI_Bcast(&group, 1, MPI_INT, first, MPI_COMM_WORLD);
  double *t = mpi.rank == 0 ? malloc(2 * sizeof(double) * (size_t)mpi.ranks) : NULL;
  MPI_Gather(mine, 2, MPI_DOUBLE, t, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);

  /* that rank's messages (rank 0's when none failed) to rank 0 */
  const int speaker = first < mpi.ranks ? first : 0;
  static char message[MESSAGE_MAX];
  int length = 0;
  if (mpi.rank == speaker)
    length = (int)captured(mpi.err, message, sizeof message);
  if (speaker != 0 && mpi.rank == speaker) {
    MPI_Send(message, length, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
  } else if (speaker != 0 && mpi.rank == 0) {
    MPI_Status got;
    MPI_Recv(message, (int)sizeof message, MPI_CHAR, speaker, 0, MPI_COMM_WORLD, &got);
    MPI_Get_count(&got, MPI_CHAR, &length);
  }

  if (mpi.rank == 0) {
    dup2(mpi.saved_err, STDERR_FILENO);
    if (mpi.out) {
      dup2(mpi.saved_out, STDOUT_FILENO);
      /* rank 0's results, unless another rank failed first (a check that
       * fails fails on every rank: the results are the same) */
      if (speaker == 0)
        write_output((group == EXIT_OK || group == EXIT_CHECK) && !mpi.quiet ? t : NULL);
    }
    fwrite(message, 1, (size_t)length, stderr);
    fflush(stdout);
  }
  /* mpirun ends the job when a rank exits non-zero: no rank exits before
   * rank 0 has written */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  free(t);
  free(mpi.gathered);
  return group;
}
