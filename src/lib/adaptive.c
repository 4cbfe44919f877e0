/* adaptive.c — globally adaptive cubature (gq_integrate_adaptive): the host
 * driver shared by both backends, whose only per-backend step is "evaluate
 * these regions" (adaptive_internal.h; the rules are adaptive_rule.h).
 *
 * The region store holds centre, half-widths, estimate, error and split axis
 * of every live region, new ones at the end.  A pass:
 *   1. the backend evaluates the new regions;
 *   2. the estimate and error are the finished sums plus the live regions'
 *      (compensated, in store order: the same on any thread count); done
 *      when error <= tol = max(epsabs, epsrel |I|);
 *   3. live regions with err <= RETIRE tol vol/V (their share of the
 *      volume V, halved exactly by each bisection) are retired: their
 *      estimate and error move to the finished sums, so memory holds only
 *      the regions still worth cutting (PAGANI's "finished" regions,
 *      Sakiotis et al., SC21);
 *   4. the regions with the largest errors are bisected, as many as cover
 *      the excess err - TARGET tol (no more: twice the excess splits every
 *      live region each pass when one region, at a singularity, holds
 *      nearly all the error),
 *      found in O(n) by binning the errors by binary exponent, within the
 *      region store and the evaluation budget.  A pass that can split
 *      nothing stops, and says why: max-evals, max-regions, or roundoff
 *      (regions too narrow to cut).
 * Regions that leave the store (split or retired) are replaced by its last
 * ones and the new halves appended, so the regions to evaluate are one
 * contiguous range and a pass moves only the regions that change; the
 * O(held) work left is three scans of the errors (the sums, the retired,
 * the choice), the first two in parallel parts fixed by the count held.
 *
 * Under a context's share (gq_context_set_share) every rank runs this
 * driver on the same store and only step 1 is divided, each pass's new
 * regions in contiguous slices (adaptive_share.c): every decision is the
 * host's, on the same numbers, so K ranks give one process's bits.
 *
 * The first pass cuts the box into m^D equal regions, m^D <= FIRST_REGIONS,
 * so that even the first launch has work for a GPU; both backends start
 * alike.  Infinite limits are the box rules' change of variables
 * (gq_box_change_of), on which no rule point ever lands on a pole. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adaptive_internal.h"
#include "adaptive_rule.h"
#include "expr/expr.h"

enum {
  FIRST_REGIONS = 1024,
  EXP_BINS = 2048,   /* the exponent field of a double */
  SCAN_CHUNK = 32768, /* regions per part of the scans over the store, */
  MAX_PARTS = 64      /* at most this many parts: a function of the count held alone */
};
/* The share of the tolerance the retired regions may take, spread by volume. */
#define RETIRE 0.25
/* The splits of a pass aim at this fraction of the tolerance: aiming at the
 * tolerance itself ends in a tail of passes that each split a handful of
 * regions while the error hovers just above it (35 of 51 passes on a 5-D
 * product peak), each pass scanning every region held. */
#define TARGET 0.5

enum { KEEP = 0, SPLIT = 1, RETIRED = 2 };

typedef struct {
  int D;
  size_t cap, held;
  double *centre, *half, *est, *err; /* cap D, cap D, cap, cap */
  double *share;                     /* of the whole volume: halved by each bisection */
  unsigned char *axis, *action;
  double *child_centre, *child_half, *child_share; /* a pass' new regions, before they join the store */
  struct scan_part *part;            /* MAX_PARTS */
  double *bin_err;                   /* EXP_BINS: the errors per binary exponent, and their count */
  uint64_t *bin_count;
} region_store;

/* One part of a scan over the store: sums of its regions (compensated), and
 * for the choice its retired regions' sums and its live errors by bin. */
struct scan_part {
  gq_csum est, err;
  double live_err;
  size_t live;
  uint64_t retired;
  double bin_err[EXP_BINS];
  uint64_t bin_count[EXP_BINS];
};

static void store_free(region_store *s)
{
  free(s->centre);
  free(s->half);
  free(s->est);
  free(s->err);
  free(s->share);
  free(s->axis);
  free(s->action);
  free(s->child_centre);
  free(s->child_half);
  free(s->child_share);
  free(s->part);
  free(s->bin_err);
  free(s->bin_count);
}

static int store_alloc(region_store *s, int D, size_t cap)
{
  memset(s, 0, sizeof *s);
  s->D = D;
  s->cap = cap;
  const size_t vec = cap * (size_t)D * sizeof(double), one = cap * sizeof(double);
  s->centre = malloc(vec);
  s->half = malloc(vec);
  s->est = malloc(one);
  s->err = malloc(one);
  s->share = malloc(one);
  s->axis = malloc(cap);
  s->action = malloc(cap);
  s->child_centre = malloc(vec);
  s->child_half = malloc(vec);
  s->child_share = malloc(one);
  s->part = malloc(MAX_PARTS * sizeof *s->part);
  s->bin_err = malloc(EXP_BINS * sizeof *s->bin_err);
  s->bin_count = malloc(EXP_BINS * sizeof *s->bin_count);
  if (s->centre && s->half && s->est && s->err && s->share && s->axis && s->action && s->child_centre &&
      s->child_half && s->child_share && s->part && s->bin_err && s->bin_count)
    return GQ_SUCCESS;
  store_free(s);
  return gq_fail(GQ_ENOMEM, "cannot allocate a store of %zu regions in %d dimensions", cap, D);
}

const char *gq_adaptive_stop_name(gq_adaptive_stop stop)
{
  switch (stop) {
  case GQ_ADAPTIVE_REACHED: return "reached";
  case GQ_ADAPTIVE_MAX_EVALS: return "max-evals";
  case GQ_ADAPTIVE_MAX_REGIONS: return "max-regions";
  case GQ_ADAPTIVE_ROUNDOFF: return "roundoff";
  }
  return NULL;
}

int gq_adaptive_options_init(gq_adaptive_options *opt)
{
  if (!opt)
    return gq_null_arg(__func__, "opt");
  memset(opt, 0, sizeof *opt);
  opt->dims = 1;
  for (int d = 0; d < GQ_ADAPTIVE_MAX_DIM; d++)
    opt->b[d] = 1.0;
  opt->epsrel = 1e-6;
  opt->max_evals = GQ_ADAPTIVE_DEFAULT_MAX_EVALS;
  opt->max_regions = 0; /* the backend's default */
  return GQ_SUCCESS;
}

/* The backend of a context for one integral. */
typedef struct {
  gq_context *ctx;
  gq_cuda_adaptive *cuda;
} backend;

/* m: the pieces per axis of the first pass. */
static size_t first_pieces(int D)
{
  size_t m = 1;
  for (;;) {
    size_t p = 1;
    for (int d = 0; d < D; d++)
      p *= m + 1;
    if (p > FIRST_REGIONS)
      return m;
    m++;
  }
}

static size_t ipow(size_t m, int D)
{
  size_t p = 1;
  for (int d = 0; d < D; d++)
    p *= m;
  return p;
}

/* The store's first regions: [lo, hi] cut into m equal pieces per axis. */
static void first_regions(region_store *s, const double *lo, const double *hi, size_t m)
{
  const int D = s->D;
  const size_t n = ipow(m, D);
  for (size_t r = 0; r < n; r++) {
    size_t k = r;
    for (int d = 0; d < D; d++) {
      const size_t i = k % m;
      k /= m;
      const double h = (hi[d] - lo[d]) / (double)m / 2.0;
      s->half[r * D + d] = h;
      s->centre[r * D + d] = i + 1 == m ? hi[d] - h : fma(2.0 * (double)i + 1.0, h, lo[d]);
    }
    s->share[r] = 1.0 / (double)n;
  }
  s->held = n;
}

/* The bin of e > 0: its exponent field (subnormals share bin 0). */
static int exp_bin(double e)
{
  uint64_t bits;
  memcpy(&bits, &e, sizeof bits);
  return (int)(bits >> 52 & 0x7ff);
}

/* Can region r be cut along its axis (both halves' centres distinct)? */
static int splittable(const region_store *s, size_t r)
{
  const int a = s->axis[r];
  const double c = s->centre[r * s->D + a], q = s->half[r * s->D + a] / 2.0;
  return q > 0.0 && c - q != c && c + q != c && c - q != c + q;
}

/* The parts of a scan over the held regions: fixed by the count held, so
 * that their sums, merged in order, do not depend on the thread count. */
static int scan_parts(const region_store *s)
{
  const size_t parts = s->held / SCAN_CHUNK + 1;
  return parts < MAX_PARTS ? (int)parts : MAX_PARTS;
}

static size_t part_begin(const region_store *s, int k, int parts) { return s->held / (size_t)parts * (size_t)k +
                                                                             s->held % (size_t)parts * (size_t)k / (size_t)parts; }

/* Step 2: the sums of the held regions' estimates and errors. */
static void held_sums(region_store *s, gq_csum *est, gq_csum *err)
{
  const int parts = scan_parts(s), threads = gq_cpu_threads(), team = threads < parts ? threads : parts;
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int k = 0; k < parts; k++) {
    struct scan_part *p = &s->part[k];
    p->est = p->err = gq_csum_zero();
    for (size_t r = part_begin(s, k, parts), end = part_begin(s, k + 1, parts); r < end; r++) {
      gq_csum_add(&p->est, s->est[r]);
      gq_csum_add(&p->err, s->err[r]);
    }
  }
  for (int k = 0; k < parts; k++) {
    gq_csum_merge(est, s->part[k].est);
    gq_csum_merge(err, s->part[k].err);
  }
}

/* Step 3, and the bins of step 4: each region retired or kept; the retired
 * ones' sums into fin_est, fin_err; the live errors by bin into the store's
 * bins.  Returns the live count, their errors' sum in *live_err. */
static size_t retire(region_store *s, double tol, gq_csum *fin_est, gq_csum *fin_err, uint64_t *retired,
                     double *live_err)
{
  const int parts = scan_parts(s), threads = gq_cpu_threads(), team = threads < parts ? threads : parts;
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int k = 0; k < parts; k++) {
    struct scan_part *p = &s->part[k];
    p->est = p->err = gq_csum_zero();
    p->live_err = 0.0;
    p->live = 0;
    p->retired = 0;
    memset(p->bin_err, 0, sizeof p->bin_err);
    memset(p->bin_count, 0, sizeof p->bin_count);
    for (size_t r = part_begin(s, k, parts), end = part_begin(s, k + 1, parts); r < end; r++) {
      const double e = s->err[r];
      if (e <= RETIRE * tol * s->share[r]) {
        s->action[r] = RETIRED;
        gq_csum_add(&p->est, s->est[r]);
        gq_csum_add(&p->err, e);
        p->retired++;
        continue;
      }
      s->action[r] = KEEP;
      p->bin_err[exp_bin(e)] += e;
      p->bin_count[exp_bin(e)]++;
      p->live_err += e;
      p->live++;
    }
  }
  memset(s->bin_err, 0, EXP_BINS * sizeof *s->bin_err);
  memset(s->bin_count, 0, EXP_BINS * sizeof *s->bin_count);
  size_t live = 0;
  *live_err = 0.0;
  for (int k = 0; k < parts; k++) {
    const struct scan_part *p = &s->part[k];
    gq_csum_merge(fin_est, p->est);
    gq_csum_merge(fin_err, p->err);
    *retired += p->retired;
    *live_err += p->live_err;
    live += p->live;
    for (int b = 0; b < EXP_BINS; b++) {
      s->bin_err[b] += p->bin_err[b];
      s->bin_count[b] += p->bin_count[b];
    }
  }
  return live;
}

/* Step 4's plan, from the live errors by bin: whole bins from the top
 * while they fit (the bins >= lowest), then part of one (cut, whose errors
 * are to cover rest, within room more regions); taken: the regions of the
 * whole bins.  cover: the error to cover; max_split: the most regions. */
typedef struct {
  int lowest, cut;
  double rest;
  uint64_t room, taken;
} split_plan;

static void plan_split(const double *bin_err, const uint64_t *bin_count, double cover, uint64_t max_split,
                       split_plan *p)
{
  p->lowest = EXP_BINS;
  p->cut = -1;
  p->rest = 0.0;
  p->room = p->taken = 0;
  for (int b = EXP_BINS - 1; b >= 0 && cover > 0.0 && p->taken < max_split; b--) {
    if (bin_count[b] == 0)
      continue;
    if (bin_err[b] < cover && p->taken + bin_count[b] <= max_split) {
      cover -= bin_err[b];
      p->taken += bin_count[b];
      p->lowest = b;
      continue;
    }
    p->cut = b;
    p->rest = cover;
    p->room = max_split - p->taken;
    break;
  }
}

/* Steps 3 and 4: the action of every region (retired ones added to the
 * finished sums); errors and tolerances in units of g.  Returns the number
 * to split, at most the room left by the store and by max_split; *stop says
 * why none could be when it returns 0. */
static size_t choose(region_store *s, double tol, double excess, uint64_t max_split,
                     gq_csum *fin_est, gq_csum *fin_err, uint64_t *retired, gq_adaptive_stop *stop)
{
  double live_err;
  const size_t live = retire(s, tol, fin_est, fin_err, retired, &live_err);
  /* a split turns one live region into two */
  if ((uint64_t)(s->cap - live) < max_split)
    max_split = s->cap - live;
  if (max_split == 0) {
    *stop = s->cap == live ? GQ_ADAPTIVE_MAX_REGIONS : GQ_ADAPTIVE_MAX_EVALS;
    return 0;
  }
  /* whole bins from the top while they fit; then part of one, in store
   * order, until its errors cover the rest or its room is used */
  split_plan p;
  plan_split(s->bin_err, s->bin_count, excess < live_err ? excess : live_err, max_split, &p);
  double rest = p.rest;
  uint64_t room = p.room;
  size_t split = 0;
  for (size_t r = 0; r < s->held; r++) {
    if (s->action[r] != KEEP)
      continue;
    const int b = exp_bin(s->err[r]);
    if (b < p.lowest && !(b == p.cut && rest > 0.0 && room > 0))
      continue;
    if (b == p.cut) {
      rest -= s->err[r];
      room--;
    }
    if (!splittable(s, r)) { /* final as it is: its error stays in the sum */
      s->action[r] = RETIRED;
      gq_csum_add(fin_est, s->est[r]);
      gq_csum_add(fin_err, s->err[r]);
      ++*retired;
      continue;
    }
    s->action[r] = SPLIT;
    split++;
  }
  if (split == 0)
    *stop = GQ_ADAPTIVE_ROUNDOFF;
  return split;
}

/* The actions: the halves of the regions split go to the child buffers,
 * every region that leaves (split or retired) takes the store's last one
 * (working down, so what moves was kept), and the halves are appended:
 * the new regions are one range, and the work is proportional to the
 * regions that change, not to those held.  Returns the first new region. */
static size_t apply(region_store *s)
{
  const size_t D = (size_t)s->D;
  size_t children = 0;
  for (size_t r = 0; r < s->held; r++) {
    if (s->action[r] != SPLIT)
      continue;
    const int a = s->axis[r];
    const double *c = s->centre + r * D, *h = s->half + r * D, q = h[a] / 2.0;
    double *lo = s->child_centre + children * D, *hi = lo + D;
    memcpy(lo, c, D * sizeof(double));
    memcpy(hi, c, D * sizeof(double));
    memcpy(s->child_half + children * D, h, D * sizeof(double));
    memcpy(s->child_half + (children + 1) * D, h, D * sizeof(double));
    lo[a] = c[a] - q;
    hi[a] = c[a] + q;
    s->child_half[children * D + a] = s->child_half[(children + 1) * D + a] = q;
    s->child_share[children] = s->child_share[children + 1] = s->share[r] / 2.0;
    children += 2;
  }
  for (size_t r = s->held; r-- > 0;) {
    if (s->action[r] == KEEP)
      continue;
    const size_t last = --s->held;
    if (r == last)
      continue;
    memcpy(s->centre + r * D, s->centre + last * D, D * sizeof(double));
    memcpy(s->half + r * D, s->half + last * D, D * sizeof(double));
    s->est[r] = s->est[last];
    s->err[r] = s->err[last];
    s->share[r] = s->share[last];
    s->axis[r] = s->axis[last];
    s->action[r] = KEEP;
  }
  const size_t first = s->held;
  memcpy(s->centre + first * D, s->child_centre, children * D * sizeof(double));
  memcpy(s->half + first * D, s->child_half, children * D * sizeof(double));
  memcpy(s->share + first, s->child_share, children * sizeof(double));
  s->held += children;
  return first;
}

/* GQ_EDOM naming the first region of [first, held) whose estimate or error
 * is not finite. */
static int nonfinite_region(const region_store *s, size_t first, size_t *where)
{
  for (size_t r = first; r < s->held; r++)
    if (!(s->est[r] - s->est[r] == 0.0) || !(s->err[r] - s->err[r] == 0.0)) {
      *where = r;
      return 1;
    }
  return 0;
}

static int report_nonfinite_at(int D, const double *centre, const double *half, int changed)
{
  char text[GQ_ADAPTIVE_MAX_DIM * 56 + 8] = "";
  size_t at = 0;
  for (int d = 0; d < D; d++)
    at += (size_t)snprintf(text + at, sizeof text - at, "%s[%.17g, %.17g]", d ? " x " : "", centre[d] - half[d],
                           centre[d] + half[d]);
  return gq_fail(GQ_EDOM, "f is not finite at a point of the region %s%s", text,
                 changed ? " (in the variables t of the change of variables)" : "");
}

static int report_nonfinite(const region_store *s, size_t r, int changed)
{
  return report_nonfinite_at(s->D, s->centre + r * s->D, s->half + r * s->D, changed);
}

static int check_options(const gq_integrand *f, const gq_adaptive_options *o)
{
  if (o->dims < 1 || o->dims > GQ_ADAPTIVE_MAX_DIM)
    return gq_fail(GQ_EINVAL, "adaptive cubature takes 1 to %d dimensions (got %d)", GQ_ADAPTIVE_MAX_DIM, o->dims);
  const int used = gq_integrand_dims(f) == 1 && gq_integrand_is_builtin(f) ? 1 : gq_expr_dims_used(f->expr);
  if (used > o->dims)
    return gq_fail(GQ_EINVAL, "the integrand uses x%d but the box has %d dimension%s", used, o->dims,
                   o->dims == 1 ? "" : "s");
  if (!(o->epsrel >= 0.0) || !(o->epsabs >= 0.0) || isinf(o->epsrel) || isinf(o->epsabs))
    return gq_fail(GQ_EINVAL, "epsrel and epsabs must be finite and >= 0 (got %g, %g)", o->epsrel, o->epsabs);
  if (o->epsrel == 0.0 && o->epsabs == 0.0)
    return gq_fail(GQ_EINVAL, "epsrel and epsabs are both 0: give a tolerance");
  if (o->epsrel > 0.0 && o->epsrel < 50.0 * GQ_ADAPT_EPS && o->epsabs == 0.0)
    return gq_fail(GQ_EINVAL, "epsrel = %g is below 50 eps = %.3g, which no double sum can reach", o->epsrel,
                   50.0 * GQ_ADAPT_EPS);
  for (int d = 0; d < o->dims; d++) {
    if (isnan(o->a[d]) || isnan(o->b[d]))
      return gq_fail(GQ_EINVAL, "axis %d: the limits must be numbers (a = %g, b = %g)", d + 1, o->a[d], o->b[d]);
    if (isinf(o->a[d]) && o->a[d] == o->b[d])
      return gq_fail(GQ_EINVAL, "axis %d: the interval [%g, %g] is empty: no change of variables maps it onto "
                     "a finite one (give a finite limit)", d + 1, o->a[d], o->b[d]);
    if (isfinite(o->a[d]) && isfinite(o->b[d]) && !isfinite(o->b[d] - o->a[d]))
      return gq_fail(GQ_EINVAL, "axis %d: b - a overflows a double (a = %g, b = %g)", d + 1, o->a[d], o->b[d]);
  }
  const uint64_t first = (uint64_t)ipow(first_pieces(o->dims), o->dims);
  const uint64_t per = (uint64_t)gq_adapt_points(o->dims);
  if (o->max_regions < first)
    return gq_fail(GQ_EINVAL, "max_regions = %llu: the first pass alone holds %llu regions",
                   (unsigned long long)o->max_regions, (unsigned long long)first);
  if (o->max_regions > (uint64_t)(SIZE_MAX / 2 / (GQ_ADAPTIVE_MAX_DIM * sizeof(double))))
    return gq_fail(GQ_EINVAL, "max_regions = %llu: more than memory can address",
                   (unsigned long long)o->max_regions);
  if (o->max_evals < first * per)
    return gq_fail(GQ_EINVAL, "max_evals = %llu: the first pass alone takes %llu evaluations (%llu regions of %llu "
                   "points)", (unsigned long long)o->max_evals, (unsigned long long)(first * per),
                   (unsigned long long)first, (unsigned long long)per);
  return GQ_SUCCESS;
}

/* g, the expression the backends evaluate, over the finite box [lo, hi]
 * (t-limits on changed axes; *sign the product of reversed axes). */
static int finite_problem(const gq_integrand *f, const gq_adaptive_options *o, gq_integrand **g, double *lo,
                          double *hi, double *sign, int *changed)
{
  char texts[GQ_ADAPTIVE_MAX_DIM][3][96];
  const char *phi[GQ_ADAPTIVE_MAX_DIM] = {NULL}, *dphi[GQ_ADAPTIVE_MAX_DIM] = {NULL},
             *guard[GQ_ADAPTIVE_MAX_DIM] = {NULL};
  *sign = 1.0;
  *changed = 0;
  *g = NULL;
  for (int d = 0; d < o->dims; d++) {
    double a = o->a[d], b = o->b[d];
    if (isinf(a) || isinf(b)) {
      gq_axis_change c;
      gq_box_change_of(a, b, d, &c, texts[d]);
      phi[d] = c.phi;
      dphi[d] = c.dphi;
      guard[d] = c.guard;
      lo[d] = c.t0;
      hi[d] = c.t1;
      *sign *= c.sign;
      *changed = 1;
      continue;
    }
    if (b < a) {
      *sign = -*sign;
      const double t = a;
      a = b;
      b = t;
    }
    lo[d] = a;
    hi[d] = b;
  }
  if (*changed)
    return gq_integrand_changed_axes(f, o->dims, phi, dphi, guard, g);
  if (f->id >= 0) /* a built-in: the expression of its formula */
    return gq_integrand_parse(f->formula, NULL, 0, o->dims, g, NULL);
  return GQ_SUCCESS;
}

static void blank(gq_adaptive_result *r, const gq_context *ctx, int dims)
{
  memset(r, 0, sizeof *r);
  r->estimate = r->abserr = r->tolerance = NAN;
  r->stop = GQ_ADAPTIVE_MAX_EVALS;
  r->dims = dims;
  r->rule = dims == 1 ? "gauss-kronrod G7-K15" : "genz-malik 7-5";
  r->change = "";
  r->backend = ctx->backend;
}

/* Step 2's outcome, shared by both stores: the estimate, error and
 * regions of r from the sums (in units of g, times scale); *tol the
 * tolerance.  Returns 1 where the tolerance is reached (r says so). */
static int pass_outcome(gq_adaptive_result *r, const gq_adaptive_options *o, gq_csum est, gq_csum err,
                        double scale, uint64_t regions, double *tol)
{
  const double I = gq_csum_value(est) * scale, E = gq_csum_value(err) * fabs(scale);
  r->estimate = I;
  r->abserr = E;
  r->regions = regions;
  *tol = fmax(o->epsabs, o->epsrel * fabs(I));
  r->tolerance = *tol;
  if (E > *tol)
    return 0;
  r->reached = 1;
  r->stop = GQ_ADAPTIVE_REACHED;
  return 1;
}

/* The pass loop over an open backend. */
static int subdivide(backend *be, const gq_integrand *g, double scale, const gq_adaptive_options *o,
                     const double *lo, const double *hi, int changed, gq_adaptive_result *r)
{
  const int D = o->dims;
  const uint64_t per = (uint64_t)gq_adapt_points(D);
  region_store s;
  int status = store_alloc(&s, D, (size_t)o->max_regions);
  if (status != GQ_SUCCESS)
    return status;
  first_regions(&s, lo, hi, first_pieces(D));
  gq_csum fin_est = gq_csum_zero(), fin_err = gq_csum_zero();
  uint64_t retired = 0;
  size_t first_new = 0;
  for (;;) {
    gq_adaptive_batch b = {g, D, s.held - first_new, s.centre + first_new * D, s.half + first_new * D,
                           s.est + first_new, s.err + first_new, s.axis + first_new};
    double ms = 0.0;
    status = gq_shared_adaptive_evaluate(be->ctx, be->cuda, &b, &ms);
    if (status != GQ_SUCCESS)
      break;
    r->kernel_ms += ms;
    r->passes++;
    r->evaluations += (uint64_t)b.n * per;
    gq_progress(be->ctx, r->evaluations, 0, "evaluations"); /* total: unknown until it stops */
    if (s.held > r->max_held)
      r->max_held = s.held;
    size_t bad;
    if (nonfinite_region(&s, first_new, &bad)) {
      status = report_nonfinite(&s, bad, changed);
      r->estimate = r->abserr = NAN;
      break;
    }
    gq_csum est = fin_est, err = fin_err;
    held_sums(&s, &est, &err);
    double tol;
    if (pass_outcome(r, o, est, err, scale, retired + s.held, &tol))
      break;
    const double E = r->abserr;
    /* a split costs two regions' evaluations */
    const uint64_t max_split = (o->max_evals - r->evaluations) / (2 * per);
    gq_adaptive_stop stop = GQ_ADAPTIVE_ROUNDOFF;
    const size_t split =
        choose(&s, tol / fabs(scale), (E - TARGET * tol) / fabs(scale), max_split, &fin_est, &fin_err, &retired, &stop);
    if (split == 0) {
      r->stop = stop;
      break;
    }
    first_new = apply(&s);
  }
  store_free(&s);
  if (status == GQ_SUCCESS)
    gq_progress(be->ctx, r->evaluations, r->evaluations, "evaluations");
  return status;
}

/* The pass loop over the device's store (kernels/adaptive/store.cu): the
 * same steps and decisions as subdivide's, the regions never leaving the
 * device.  The part of the cut bin is its first regions in the store's
 * fixed order, as many as its mean error says cover the rest.  Step 3
 * retires by the previous pass's tolerance (none in the first pass), so
 * that the live errors' bins come back with the sums, in one wait for the
 * device instead of two (from the second pass: an integral that ends in
 * its first pass asks for no bins): the tolerance follows |I|, which moves by far less
 * than RETIRE between passes, and the retired regions' errors stay in the
 * error sum whatever the threshold. */
static int subdivide_device(backend *be, const gq_integrand *g, double scale, const gq_adaptive_options *o,
                            const double *lo, const double *hi, int changed, gq_adaptive_result *r)
{
  (void)g;
  const int D = o->dims;
  const uint64_t per = (uint64_t)gq_adapt_points(D);
  const size_t m = first_pieces(D);
  region_store first;
  gq_cuda_store *ds = NULL;
  int status = store_alloc(&first, D, ipow(m, D));
  if (status == GQ_SUCCESS) {
    first_regions(&first, lo, hi, m);
    status = gq_cuda_store_open(be->cuda, D, o->max_regions, first.held, first.centre, first.half, first.share, &ds);
    store_free(&first);
  }
  double *bin_err = malloc(EXP_BINS * sizeof *bin_err);
  uint64_t *bin_count = malloc(EXP_BINS * sizeof *bin_count);
  if (status == GQ_SUCCESS && !(bin_err && bin_count))
    status = gq_fail(GQ_ENOMEM, "cannot allocate the error bins");
  int full = 0;
  status = gq_shared_store_agree(be->ctx, status, &full); /* every rank's store open, or none goes on */
  gq_csum fin_est = gq_csum_zero(), fin_err = gq_csum_zero();
  uint64_t retired = 0;
  gq_store_report rep = {0};
  rep.held = ipow(m, D); /* the first pass: all new */
  double retire = 0.0;   /* step 3's threshold, in units of g: the last pass's RETIRE tol */
  int first_pass = 1;
  /* A pass's steps run in the do-while(0); every way out of it (the
   * decisions' stops, a step's failure) reaches the pass's agreement, so
   * ranks stop together (gq_shared_store_agree). */
  int done = status != GQ_SUCCESS;
  while (!done) {
    full = 0; /* this rank's store could not grow */
    do {
      const uint64_t n = rep.held - rep.first;
      status = gq_shared_store_evaluate(be->ctx, ds, n);
      if (status == GQ_SUCCESS)
        status = gq_cuda_store_sums(ds, retire, !first_pass, &rep);
      if (status != GQ_SUCCESS)
        break;
      r->kernel_ms += rep.eval_ms;
      r->passes++;
      r->evaluations += n * per;
      gq_progress(be->ctx, r->evaluations, 0, "evaluations");
      if (rep.held > r->max_held)
        r->max_held = rep.held;
      if (rep.bad != UINT64_MAX) {
        double c[GQ_ADAPTIVE_MAX_DIM], h[GQ_ADAPTIVE_MAX_DIM];
        status = gq_cuda_store_region(ds, rep.bad, c, h);
        if (status == GQ_SUCCESS)
          status = report_nonfinite_at(D, c, h, changed);
        r->estimate = r->abserr = NAN;
        done = 1;
        break;
      }
      gq_csum est = fin_est, err = fin_err;
      gq_csum_merge(&est, rep.est);
      gq_csum_merge(&err, rep.err);
      double tol;
      if (pass_outcome(r, o, est, err, scale, retired + rep.held, &tol)) {
        done = 1;
        break;
      }
      const double E = r->abserr;
      if (first_pass) /* its sums came without the bins */
        status = gq_cuda_store_count(ds, retire);
      first_pass = 0;
      if (status != GQ_SUCCESS)
        break;
      gq_cuda_store_bins(ds, bin_err, bin_count);
      uint64_t live = 0;
      double live_err = 0.0;
      for (int b = 0; b < EXP_BINS; b++) {
        live += bin_count[b];
        live_err += bin_err[b];
      }
      uint64_t max_split = (o->max_evals - r->evaluations) / (2 * per);
      if (o->max_regions - live < max_split)
        max_split = o->max_regions - live;
      if (max_split == 0) {
        r->stop = o->max_regions == live ? GQ_ADAPTIVE_MAX_REGIONS : GQ_ADAPTIVE_MAX_EVALS;
        done = 1;
        break;
      }
      const double excess = (E - TARGET * tol) / fabs(scale);
      split_plan p;
      plan_split(bin_err, bin_count, excess < live_err ? excess : live_err, max_split, &p);
      uint64_t take = 0;
      if (p.cut >= 0 && p.rest > 0.0 && p.room > 0) {
        const double mean = bin_err[p.cut] / (double)bin_count[p.cut], want = ceil(p.rest / mean);
        take = want >= (double)p.room ? p.room : (uint64_t)want;
        if (take > bin_count[p.cut])
          take = bin_count[p.cut];
        if (take == 0)
          take = 1;
      }
      status = gq_cuda_store_apply(ds, retire, p.lowest, p.cut, take, p.taken + take, &rep);
      if (status == GQ_ENOMEM) { /* the device's memory is full: a stop like the store's */
        gq_clear_error();
        status = GQ_SUCCESS;
        full = 1;
        break;
      }
      if (status != GQ_SUCCESS)
        break;
      gq_csum_merge(&fin_est, rep.est);
      gq_csum_merge(&fin_err, rep.err);
      retired += rep.retired;
      retire = RETIRE * tol / fabs(scale);
      if (rep.split == 0) {
        r->stop = GQ_ADAPTIVE_ROUNDOFF;
        done = 1;
      }
    } while (0);
    status = gq_shared_store_agree(be->ctx, status, &full);
    if (status == GQ_SUCCESS && full) { /* here or on another rank: every rank stops so */
      r->stop = GQ_ADAPTIVE_MAX_REGIONS;
      done = 1;
    }
    if (status != GQ_SUCCESS)
      done = 1;
  }
  free(bin_err);
  free(bin_count);
  gq_cuda_store_close(ds);
  if (status == GQ_SUCCESS)
    gq_progress(be->ctx, r->evaluations, r->evaluations, "evaluations");
  return status;
}

int gq_integrate_adaptive(gq_context *ctx, const gq_integrand *f, const gq_adaptive_options *opt,
                          gq_adaptive_result *r)
{
  if (!r)
    return gq_null_arg(__func__, "r");
  memset(r, 0, sizeof *r);
  if (!ctx)
    return gq_null_arg(__func__, "ctx");
  if (!f)
    return gq_null_arg(__func__, "f");
  if (!opt)
    return gq_null_arg(__func__, "opt");
  blank(r, ctx, opt->dims);
  gq_adaptive_options resolved = *opt;
  if (resolved.max_regions == 0) /* the backend's: the device's store grows on demand */
    resolved.max_regions =
        ctx->backend == GQ_BACKEND_CUDA ? GQ_ADAPTIVE_DEFAULT_MAX_REGIONS_GPU : GQ_ADAPTIVE_DEFAULT_MAX_REGIONS;
  opt = &resolved;
  int status = check_options(f, opt);
  if (status != GQ_SUCCESS)
    return status;
  double lo[GQ_ADAPTIVE_MAX_DIM], hi[GQ_ADAPTIVE_MAX_DIM], sign;
  int changed;
  gq_integrand *own = NULL;
  status = finite_problem(f, opt, &own, lo, hi, &sign, &changed);
  if (status != GQ_SUCCESS)
    return status;
  const gq_integrand *g = own ? own : f;
  if (changed)
    r->change = "x = c + t/(1-t), c - t/(1-t) or t/(1-t^2) on each infinite axis";
  backend be = {ctx, NULL};
  if (ctx->backend == GQ_BACKEND_CUDA) {
    gq_grid_info info = {0.0, 0.0, GQ_JIT_NONE};
    status = gq_cuda_adaptive_open(ctx->cuda, g, opt->dims, &be.cuda, &info);
    r->compile_ms = info.compile_ms;
    r->jit = info.jit;
  }
  if (status == GQ_SUCCESS)
    status = be.cuda ? subdivide_device(&be, g, sign * g->scale, opt, lo, hi, changed, r)
                     : subdivide(&be, g, sign * g->scale, opt, lo, hi, changed, r);
  if (be.cuda)
    gq_cuda_adaptive_close(be.cuda);
  gq_integrand_free(own);
  if (status == GQ_SUCCESS)
    gq_clear_error();
  return status;
}
