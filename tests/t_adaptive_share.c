/* t_adaptive_share.c — adaptive cubature under a share (gq_context_set_share,
 * src/lib/adaptive_share.c) without MPI: K ranks simulated by K threads of
 * one process on CPU contexts, whose combine is an all-gather in memory (a
 * barrier, every rank merging every partial in rank order, a barrier), as
 * mpirun's ranks do through MPI_Allgather.  Threads, not t_share.c's replay
 * of recorded partials: which regions a pass evaluates depends on the
 * previous passes' assembled results, so every rank must see them.
 * Checked: every rank's result bitwise one process's (estimate, error,
 * evaluations, regions, passes, the most held, why it stopped) for 2, 3 and
 * 5 ranks in 1 (Gauss-Kronrod) and 2, 3, 5 (Genz-Malik) dimensions, a run
 * stopped by max_evals, a pass of more regions than one combine's window;
 * every combine given the same size by every rank; a failure on one rank
 * returned by every rank, each having made the same combines. */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "tap.h"

enum { MAX_RANKS = 5, FULL_WINDOW = 24 + 17 * 65536 /* adaptive_share.c's header and WINDOW records */ };

typedef struct {
  int ranks;
  pthread_barrier_t barrier;
  void *partial[MAX_RANKS];
  size_t bytes[MAX_RANKS];
  int status[MAX_RANKS], calls[MAX_RANKS];
  int fail_rank, fail_call, fail_status; /* rank fail_rank reports fail_status at its combine fail_call */
  int uneven;                            /* a combine whose ranks gave different sizes */
  int full_windows;                      /* combines of a whole window (the pass went on past it) */
} group;

typedef struct {
  group *g;
  int rank;
  const gq_integrand *f;
  const gq_adaptive_options *opt;
  gq_adaptive_result r;
  int status;
} rank_run;

static int threads_combine(void *partial, size_t bytes, gq_merge_fn *merge, int status, void *user)
{
  rank_run *me = user;
  group *g = me->g;
  const int r = me->rank, call = g->calls[r]++;
  if (r == g->fail_rank && call == g->fail_call)
    status = g->fail_status;
  g->partial[r] = partial;
  g->bytes[r] = bytes;
  g->status[r] = status;
  pthread_barrier_wait(&g->barrier);
  int result = GQ_SUCCESS;
  for (int k = 0; k < g->ranks && result == GQ_SUCCESS; k++)
    result = g->status[k];
  int uneven = 0;
  for (int k = 1; k < g->ranks; k++)
    uneven |= g->bytes[k] != g->bytes[0];
  if (uneven)
    result = GQ_EINVAL;
  if (r == 0) { /* the group's counts: one writer */
    g->uneven |= uneven;
    g->full_windows += bytes == FULL_WINDOW;
  }
  unsigned char *acc = result == GQ_SUCCESS && bytes ? malloc(bytes) : NULL;
  if (acc) {
    memcpy(acc, g->partial[0], bytes);
    for (int k = 1; k < g->ranks; k++)
      merge(acc, g->partial[k]);
  }
  pthread_barrier_wait(&g->barrier); /* every rank has read the others' partials */
  if (acc)
    memcpy(partial, acc, bytes);
  else if (result == GQ_SUCCESS && bytes)
    result = GQ_ENOMEM;
  free(acc);
  return result;
}

static void *rank_main(void *arg)
{
  rank_run *me = arg;
  gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
  const gq_share share = {me->rank, me->g->ranks, threads_combine, me};
  me->status = gq_context_set_share(ctx, &share);
  if (me->status == GQ_SUCCESS)
    me->status = gq_integrate_adaptive(ctx, me->f, me->opt, &me->r);
  gq_context_free(ctx);
  return NULL;
}

/* The integral on K threads as ranks; run[k] each rank's outcome. */
static int on_ranks(group *g, int ranks, const gq_integrand *f, const gq_adaptive_options *opt, rank_run *run)
{
  memset(g->calls, 0, sizeof g->calls);
  g->ranks = ranks;
  g->uneven = g->full_windows = 0;
  pthread_barrier_init(&g->barrier, NULL, (unsigned)ranks);
  pthread_t t[MAX_RANKS];
  int started = 1;
  for (int k = 0; k < ranks; k++) {
    run[k] = (rank_run){.g = g, .rank = k, .f = f, .opt = opt, .status = GQ_SUCCESS};
    started &= pthread_create(&t[k], NULL, rank_main, &run[k]) == 0;
  }
  for (int k = 0; k < ranks; k++)
    pthread_join(t[k], NULL);
  pthread_barrier_destroy(&g->barrier);
  return started;
}

static int same(const gq_adaptive_result *a, const gq_adaptive_result *b)
{
  return memcmp(&a->estimate, &b->estimate, sizeof a->estimate) == 0 &&
         memcmp(&a->abserr, &b->abserr, sizeof a->abserr) == 0 && a->evaluations == b->evaluations &&
         a->regions == b->regions && a->passes == b->passes && a->max_held == b->max_held && a->stop == b->stop &&
         a->reached == b->reached;
}

static gq_integrand *parse(const char *text, int dims)
{
  gq_integrand *f = NULL;
  if (gq_integrand_parse(text, NULL, 0, dims, &f, NULL) != GQ_SUCCESS)
    tap_ok(0, "parse %s: %s", text, gq_last_error());
  return f;
}

/* One process's result, then 2, 3, 5 ranks': bitwise on every rank.
 * Returns the most full windows one run of ranks combined. */
static int compare(const char *text, int dims, double epsrel, uint64_t max_evals, gq_adaptive_stop want)
{
  gq_integrand *f = parse(text, dims);
  if (!f)
    return 0;
  gq_adaptive_options opt;
  gq_adaptive_options_init(&opt);
  opt.dims = dims;
  opt.epsrel = epsrel;
  if (max_evals)
    opt.max_evals = max_evals;
  gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
  gq_adaptive_result one;
  const int st1 = gq_integrate_adaptive(ctx, f, &opt, &one);
  gq_context_free(ctx);
  tap_ok(st1 == GQ_SUCCESS && one.stop == want && one.passes > 2 && one.estimate != 0.0,
         "%s in %d-D, one process: %s after %llu passes, %llu regions, estimate %.17g", text, dims,
         gq_adaptive_stop_name(one.stop), (unsigned long long)one.passes, (unsigned long long)one.regions,
         one.estimate);
  static group g = {.fail_rank = -1};
  int full = 0;
  for (int ranks = 2; ranks <= MAX_RANKS; ranks += ranks == 3 ? 2 : 1) {
    rank_run run[MAX_RANKS];
    int ok = on_ranks(&g, ranks, f, &opt, run) && !g.uneven;
    for (int k = 0; k < ranks; k++)
      if (run[k].status != GQ_SUCCESS || !same(&run[k].r, &one) || g.calls[k] != g.calls[0]) {
        diag("rank %d: status %d, estimate %.17g, error %.17g, %llu passes, %d combines", k, run[k].status,
             run[k].r.estimate, run[k].r.abserr, (unsigned long long)run[k].r.passes, g.calls[k]);
        ok = 0;
      }
    tap_ok(ok, "%s in %d-D on %d ranks: every rank bitwise one process's (estimate %.17g, error %.17g, %llu "
               "evaluations)", text, dims, ranks, run[0].r.estimate, run[0].r.abserr,
           (unsigned long long)run[0].r.evaluations);
    full = g.full_windows > full ? g.full_windows : full;
  }
  gq_integrand_free(f);
  return full;
}

/* Rank fail_rank reports a failure at its combine at; every rank must
 * return it, having made the same combines. */
static void failure(int ranks, int fail_rank, int at)
{
  gq_integrand *f = parse("1/((x1-0.3)^2+(x2-0.6)^2+0.0001)", 2);
  if (!f)
    return;
  gq_adaptive_options opt;
  gq_adaptive_options_init(&opt);
  opt.dims = 2;
  opt.epsrel = 1e-10;
  static group g;
  g.fail_rank = fail_rank;
  g.fail_call = at;
  g.fail_status = GQ_ECUDA;
  rank_run run[MAX_RANKS];
  int ok = on_ranks(&g, ranks, f, &opt, run);
  for (int k = 0; k < ranks; k++)
    ok &= run[k].status == GQ_ECUDA && g.calls[k] == g.calls[0];
  tap_ok(ok, "rank %d of %d failing at its combine %d: every rank returns its status after %d combines", fail_rank,
         ranks, at, g.calls[0]);
  gq_integrand_free(f);
}

int main(void)
{
  compare("log(x)*cos(20*x)", 1, 1e-12, 0, GQ_ADAPTIVE_REACHED);
  compare("sqrt(x)", 1, 1e-11, 0, GQ_ADAPTIVE_REACHED);
  compare("1/((x1-0.3)^2+(x2-0.6)^2+0.0001)", 2, 1e-10, 0, GQ_ADAPTIVE_REACHED);
  compare("1/((x1-0.3)^2+(x2-0.6)^2+(x3-0.5)^2+0.01)", 3, 1e-6, 0, GQ_ADAPTIVE_REACHED);
  compare("exp(-10*((x1-0.4)^2+(x2-0.4)^2+(x3-0.4)^2+(x4-0.4)^2+(x5-0.4)^2))", 5, 1e-6, 0, GQ_ADAPTIVE_REACHED);
  compare("1/((x1-0.3)^2+(x2-0.6)^2+(x3-0.5)^2+0.001)", 3, 1e-9, 2000000, GQ_ADAPTIVE_MAX_EVALS);
  const int full = compare("exp(-30*((x1-0.5)^2+(x2-0.5)^2+(x3-0.5)^2+(x4-0.5)^2))", 4, 1e-9, 60000000,
                           GQ_ADAPTIVE_MAX_EVALS);
  tap_ok(full > 0, "a pass of more regions than one combine's window (%d full windows)", full);
  failure(3, 1, 0); /* at the first pass' agreement */
  failure(3, 2, 3); /* in a later pass */
  failure(2, 0, 5);
  return tap_done();
}
