/* main.c — gpuquad: argv -> command. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_MALLOPT
#include <malloc.h>
#endif

#include <gsl/gsl_errno.h>

#include "batch.h" /* gpuquad batch (issue 23) */
#include "cli.h"
#include "mpi.h"

static void usage(FILE *out)
{
  fputs("Usage: gpuquad [COMMAND] [OPTION]...\n"
        "Estimate integrals and statistics with GPU reductions, checked against GSL.\n"
        "\n"
        "Commands:\n"
        "  integrate   composite trapezoid, Simpson or Boole rule (the default command)\n"
        "  integrate DATA  samples, as scipy's trapezoid/simpson (--dx, --x, --x-col)\n"
        "  bench       every reduction method, verified and timed side by side (GPU)\n"
        "  dot A B     dot product of two vectors (files, or --gen)\n"
        "  rms A B     rms, max and relative size of a - b\n"
        "  stats A     one-pass statistics of a vector\n"
        "  hist A      histogram with numpy's bins, binned sums, 2-D histogram\n"
        "  mc          Monte Carlo mean and integral over a box or N(0, I)\n"
        "  scan A      prefix sums of a vector (files streamed, or --gen)\n"
        "  batch FILE  many integrals in one process: one JSON problem per line\n"
        "\n"
        "Run 'gpuquad COMMAND --help' (or -h, or 'gpuquad help COMMAND') for the options\n"
        "of a command; -V is --version.\n"
        "Started by mpirun -np K (built --with-mpi), integrate, mc, dot, rms and stats\n"
        "divide their work between the ranks, one GPU each (gpuquad(1), OPEN MPI).\n"
        "\n",
        out);
  usage_integrate(out);
  fputs("\nExample: gpuquad --f=circle --n=1e9\n", out);
}

static void version(void)
{
  printf("gpuquad %s\n"
         "CUDA backend: %s\n"
         "Open MPI: %s\n"
         "zlib: %s\n"
         "Copyright (C) 2026 the gpuquad developers.\n"
         "This is free software: you are free to change and redistribute it.\n"
         "There is NO WARRANTY, to the extent permitted by law.\n",
         gq_version(),
#ifdef HAVE_CUDA
         "built in"
#else
         "not built (CPU only)"
#endif
         ,
#ifdef HAVE_MPI
         "built in (mpirun -np K divides the work)"
#else
         "not built"
#endif
         ,
#ifdef HAVE_ZLIB
         "built in (deflated .npz members)"
#else
         "not built (stored .npz members only)"
#endif
  );
}

void usage_or_version(int first, int help)
{
  if (!help)
    version();
  else if (first == 1)
    usage(stdout);
  else
    usage_integrate(stdout);
}

static int run_command(int argc, char **argv, double t0);

static const char *const commands[] = {"integrate", "bench", "dot", "rms", "stats", "mc", "hist", "scan", "batch"};

static int is_command(const char *word)
{
  for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
    if (strcmp(word, commands[k]) == 0)
      return 1;
  return 0;
}

/* gpuquad --list-options [COMMAND] (hidden; completion/gpuquad reads
 * it): the commands, or COMMAND's options as its own parser has them, so that
 * completion cannot drift from the tables.  integrate lists its three tables
 * (points, DATA, --rule=adaptive), bench its two (--hist). */
static int list_options(int argc, char **argv, double t0)
{
  if (argc == 2) {
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
      puts(commands[k]);
    puts("help");
    return EXIT_OK;
  }
  if (argc > 3 || !is_command(argv[2]))
    return cli_error(EXIT_USAGE, "--list-options: expected one command (see 'gpuquad --help')");
  char *again[] = {argv[0], argv[2], NULL};
  cli_list_options = 1;
  int rc = run_command(2, again, t0);
  if (rc == EXIT_OK && strcmp(argv[2], "integrate") == 0) {
    rc = cmd_integrate_data(2, again, 2, t0);
    if (rc == EXIT_OK)
      rc = cmd_integrate_adaptive(2, again, 2, t0);
  }
  if (rc == EXIT_OK && strcmp(argv[2], "bench") == 0)
    rc = cmd_bench_hist(2, again, 2);
  return rc;
}

/* gpuquad help [COMMAND]: the usage, or COMMAND --help; anything else is a
 * usage error, never the general usage printed as if it answered. */
static int help_command(int argc, char **argv, double t0)
{
  if (argc == 2 || (argc == 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0))) {
    usage(stdout);
    return EXIT_OK;
  }
  if (argc > 3)
    return cli_error(EXIT_USAGE, "help: unexpected argument '%s' (gpuquad help [COMMAND])", argv[3]);
  if (is_command(argv[2])) {
    char help_flag[] = "--help";
    char *again[] = {argv[0], argv[2], help_flag, NULL};
    return run_command(3, again, t0);
  }
  return cli_error(EXIT_USAGE, "help: unknown command '%s' (see 'gpuquad --help')", argv[2]);
}

static int run_command(int argc, char **argv, double t0)
{
  int first = 1;
  if (argc > 1 && argv[1][0] != '-') {
    if (strcmp(argv[1], "integrate") == 0)
      first = 2;
    else if (strcmp(argv[1], "bench") == 0) /* gpuquad bench */
      return cmd_bench(argc, argv, 2);
    /* data reductions */
    else if (strcmp(argv[1], "dot") == 0)
      return cmd_dot(argc, argv, 2, t0);
    else if (strcmp(argv[1], "rms") == 0)
      return cmd_rms(argc, argv, 2, t0);
    else if (strcmp(argv[1], "stats") == 0)
      return cmd_stats(argc, argv, 2, t0);
    else if (strcmp(argv[1], "mc") == 0) /* gpuquad mc (issue 4) */
      return cmd_mc(argc, argv, 2, t0);
    else if (strcmp(argv[1], "hist") == 0) /* gpuquad hist (issue 18) */
      return cmd_hist(argc, argv, 2, t0);
    else if (strcmp(argv[1], "scan") == 0) /* gpuquad scan (issue 19) */
      return cmd_scan(argc, argv, 2, t0);
    else if (strcmp(argv[1], "batch") == 0) /* gpuquad batch (issue 23) */
      return cmd_batch(argc, argv, 2, t0);
    else if (strcmp(argv[1], "help") == 0)
      return help_command(argc, argv, t0);
    else
      return cli_error(EXIT_USAGE, "unknown command '%s' (see 'gpuquad --help')", argv[1]);
  }
  return cmd_integrate(argc, argv, first, t0);
}

/* Set when main returns: an exit() before it came from a library (libgomp
 * exits with status 1, "check failed", when it cannot start its threads). */
static int main_returned;

static void exit_from_library(void)
{
  if (!main_returned) {
    cli_error(EXIT_RUNTIME, "the computation failed: a library ended the program");
    _exit(EXIT_RUNTIME);
  }
}

int main(int argc, char **argv)
{
  const double t0 = cli_wall_ms();
#if defined(HAVE_MALLOPT) && defined(M_TRIM_THRESHOLD)
  /* A sweep frees its problems by the thousand and then makes as many again
   * (batch_run.c, 16384 at a time): the heap keeps what they freed instead of
   * returning it to the kernel and faulting it back in, which cost ~40% of
   * each problem's setup.  At most 64 MiB are kept. */
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
  cli_guard_streams();
  atexit(exit_from_library);
  /* GSL's default handler aborts, out of memory included; every GSL status
   * the program depends on is checked instead. */
  gsl_set_error_handler_off();
  /* under mpirun: every rank runs a command that divides its work, rank 0 the others */
  int ran = EXIT_OK;
  if (argc > 1 && strcmp(argv[1], "--list-options") == 0)
    ran = list_options(argc, argv, t0);
  else if (cli_mpi_begin(argc, argv))
    ran = run_command(argc, argv, t0);
  gq_context_prestart_wait(); /* a context begun but never opened (cli_prestart) */
  const int status = cli_close_output(cli_mpi_end(ran));
  main_returned = 1;
  return status;
}
