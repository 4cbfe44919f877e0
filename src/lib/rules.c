/* rules.c — the composite Newton-Cotes rules (trapezoid, Simpson, Boole) and
 * their error estimates, as weights over the backends' class sums.
 *
 * The backend sums the interior points x_1 .. x_{n-1} by index class
 * i mod 4 (GQ_GRID_KEYS), which costs nothing extra per point.  Every rule,
 * and a coarser rule of the same pass for its error estimate, is then a
 * combination of the four class sums and f(a), f(b) (the table below):
 *   T(h)  = h     (f(a)/2 + S0 + S1 + S2 + S3 + f(b)/2)
 *   T(2h) = 2h    (f(a)/2 + S0 + S2 + f(b)/2)              n even
 *   S(h)  = h/3   (f(a) + 2 S0 + 4 S1 + 2 S2 + 4 S3 + f(b)) n even
 *   S(2h) = 2h/3  (f(a) + 2 S0 + 4 S2 + f(b))              n % 4 == 0
 *   B(h)  = 2h/45 (7 f(a) + 14 S0 + 32 S1 + 12 S2 + 32 S3 + 7 f(b))
 * Error estimates: for the trapezoid, err T(h) = |T(h) - T(2h)| / (2^p - 1)
 * <= |T(h) - T(2h)| for any convergence order p >= 1 (a singularity brings p
 * down to 1.5 for the circle), the bound the check uses; the Richardson
 * estimate for smooth f (p = 2) is a third of it.  Simpson and Boole are
 * Richardson extrapolations of the rule below them, R(h) = (2^q R'(h) -
 * R'(2h)) / (2^q - 1): S from T (q = 2), B from S (q = 4).  B(2h) would need
 * classes mod 8, so each is compared with R'(2h): the difference
 * |R(h) - R'(2h)| = 2^q / (2^q - 1) |R'(h) - R'(2h)| bounds the error of
 * R'(h) for every p >= 1, and so that of R(h), which is never much worse;
 * the estimate |R'(h) - R'(2h)| / (2^q - 1) = difference / 2^q is R'(h)'s
 * Richardson estimate, an upper bound for the finer R(h) on smooth f.
 * Simpson on n % 4 == 0 is compared with S(2h) (q = 4, divided by 15).
 *
 * Accuracy: each class sum is compensated (compensated.h); a weight times a
 * sum is an exact product (fma) added to one compensated total, and the
 * factor h num / den is applied to that double-double, so the result is the
 * rule's sum of the computed f(x_i) to 1-2 ulp.
 *
 * Infinite limits: the rule is applied to g(t) = f(phi(t)) phi'(t) over a
 * finite t-interval (as GSL's qagiu, qagil and qagi do, with other maps):
 *   [c, inf)    x = c + t/(1-t),  dx = dt/(1-t)^2,                 t in [0, 1]
 *   (-inf, c]   x = c - t/(1-t),  dx = dt/(1-t)^2,                 t in [0, 1]
 *   (-inf, inf) x = t/((1-t)(1+t)), dx = (1+t^2)/((1-t)(1+t))^2 dt, t in [-1, 1]
 * ((1-t)(1+t), not 1-t^2: 1-t is exact near t = 1, so phi carries no
 * cancellation noise into the Richardson estimates).  g is built as an
 * expression (gq_integrand_changed), so both backends, the JIT and the
 * checks see an ordinary integrand over a finite interval.  At an infinite
 * end phi has a pole: there g(t) is taken as its value at the next point
 * inside (the next double, or float in float precision), its limit for
 * every f with f(x) x^2 tending to a finite limit L as x -> inf (g's limit
 * is L: 0 for f that decays faster than 1/x^2, 1 for 1/(1+x^2)).  For an f
 * that decays more slowly that value is huge (1/(1+|x|) gives about 2^53),
 * or not finite (GQ_EDOM): the result is then far off and its error
 * estimate as large, and the check fails or, GSL failing too, cannot be
 * made; never a silent pass.  Grid points that round onto the pole (float
 * precision, n beyond about 2^24) count 0.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define eval_in gq_integrand_eval_in

/* The change of variables of an infinite interval (the table above). */
typedef struct {
  gq_change_kind kind;
  double c; /* the finite limit */
} change;

static const change NO_CHANGE = {GQ_CHANGE_NONE, 0.0};

static double phi_of(const change *cv, double t)
{
  switch (cv->kind) {
  case GQ_CHANGE_UPPER: return cv->c + t / (1.0 - t);
  case GQ_CHANGE_LOWER: return cv->c - t / (1.0 - t);
  case GQ_CHANGE_LINE: return t / ((1.0 - t) * (1.0 + t));
  default: return t;
  }
}

/* Whether the rule's end t (a: at_b = 0) is a pole of phi. */
static int open_end(const change *cv, int at_b)
{
  return cv->kind == GQ_CHANGE_LINE || (cv->kind != GQ_CHANGE_NONE && at_b);
}

/* The point next to the end t towards `toward`, as the backends round it. */
static double inside(double t, double toward, gq_precision precision)
{
  if (precision == GQ_PRECISION_FLOAT)
    return (double)nextafterf((float)t, (float)toward);
  return nextafter(t, toward);
}

/* A rule as data: value = h * num / den * (end (f(a) + f(b)) + sum_k w[k] S_k),
 * S_k the sum of f(x_i) over the interior i with i % GQ_GRID_KEYS == k. */
typedef struct {
  double w[GQ_GRID_KEYS];
  double end, num, den;
} weights;

_Static_assert(GQ_GRID_KEYS == 4, "the weights are given for the four classes mod 4");
static const weights T_H = {{1, 1, 1, 1}, 0.5, 1, 1};
static const weights T_2H = {{1, 0, 1, 0}, 0.5, 2, 1};
static const weights S_H = {{2, 4, 2, 4}, 1, 1, 3};
static const weights S_2H = {{2, 0, 4, 0}, 1, 2, 3};
static const weights B_H = {{14, 32, 12, 32}, 7, 2, 45};

static const struct {
  const char *name;
  int degree;
  uint64_t multiple;   /* n must be a multiple of this                       */
  int weight_log2;     /* ceil(log2) of the largest weight: headroom on overflow */
  const char *need;    /* what n must be, in words                           */
} rules[] = {
  [GQ_RULE_TRAPEZOID] = {"trapezoid", 1, 1, 0, "any n"},
  [GQ_RULE_SIMPSON] = {"simpson", 3, 2, 2, "an even n"},
  [GQ_RULE_BOOLE] = {"boole", 5, 4, 5, "an n that is a multiple of 4"},
  /* n panels of K nodes (product.c); the degree is K's (gq_rule_degree) */
  [GQ_RULE_GAUSS_LEGENDRE] = {"gauss-legendre", -1, 1, 1, "any n"},
};
enum { RULES = sizeof rules / sizeof rules[0] };

static int known(gq_rule rule) { return (unsigned)rule < RULES; }

const char *gq_rule_name(gq_rule rule) { return known(rule) ? rules[rule].name : NULL; }

int gq_rule_degree(gq_rule rule)
{
  if (rule == GQ_RULE_GAUSS_LEGENDRE)
    return 2 * gq_rule_default_nodes() - 1;
  return known(rule) ? rules[rule].degree : -1;
}

int gq_rule_parse(const char *name, gq_rule *rule)
{
  if (!name || !rule)
    return gq_null_arg(__func__, name ? "rule" : "name");
  for (int k = 0; k < RULES; k++)
    if (strcmp(name, rules[k].name) == 0) {
      *rule = (gq_rule)k;
      return GQ_SUCCESS;
    }
  return gq_fail(GQ_EINVAL, "unknown rule (expected trapezoid, simpson, boole or gauss-legendre)");
}

int gq_rule_check_n(gq_rule rule, uint64_t n)
{
  if (!known(rule))
    return gq_fail(GQ_EINVAL, "unknown rule %d", (int)rule);
  const uint64_t m = rules[rule].multiple, below = n - n % m, above = below + m;
  if (n % m == 0)
    return GQ_SUCCESS;
  /* GQ_TRAPEZOID_MAX_N is a multiple of every m: above never passes it */
  if (below == 0)
    return gq_fail(GQ_EINVAL, "%s needs %s; nearest: %llu", rules[rule].name, rules[rule].need,
                   (unsigned long long)above);
  return gq_fail(GQ_EINVAL, "%s needs %s; nearest: %llu or %llu", rules[rule].name, rules[rule].need,
                 (unsigned long long)below, (unsigned long long)above);
}

/* Say where f is not finite: an endpoint, or how many grid points and the
 * first one. */
static int report_nonfinite(gq_context *ctx, const gq_integrand *f, gq_precision precision,
                            const change *cv, double a, double b, double h, uint64_t n, double fa,
                            double fb, gq_rule_result *out)
{
  if (!isfinite(fa) || !isfinite(fb)) {
    const int at_a = !isfinite(fa);
    out->nonfinite_count = (uint64_t)!isfinite(fa) + (uint64_t)!isfinite(fb);
    out->nonfinite_x = phi_of(cv, at_a ? a : b);
    if (open_end(cv, !at_a)) {
      out->nonfinite_x = at_a == (cv->kind != GQ_CHANGE_LOWER) ? -INFINITY : INFINITY;
      return gq_fail(GQ_EDOM,
                     "f(x) x^2 does not tend to a finite limit as x -> %g (f(x(t)) x'(t) = %g next "
                     "to the end): the change of variables needs f to decay like 1/x^2 or faster",
                     out->nonfinite_x, at_a ? fa : fb);
    }
    return gq_fail(GQ_EDOM,
                   "f is not finite at the endpoint %s = %.17g (f = %g); the %s rule "
                   "evaluates both endpoints, so move the limit off the singularity",
                   at_a ? "a" : "b", out->nonfinite_x, at_a ? fa : fb, rules[out->rule].name);
  }
  uint64_t count = 0, first = 0;
  if (n >= 2) {
    gq_grid_sum p = {f, precision, a, h, 1, n - 1, ctx->deterministic, NULL};
    const int status = gq_shared_grid_nonfinite(ctx, &p, &count, &first);
    if (status != GQ_SUCCESS)
      return status;
  }
  if (count == 0) /* every point finite: the integral itself overflows */
    return gq_fail(GQ_EDOM, "the integral overflows a double (f is finite at every point but the "
                   "rule gives %g)", out->result);
  out->nonfinite_count = count;
  out->nonfinite_x = phi_of(cv, fma((double)first, h, a));
  return gq_fail(GQ_EDOM, "f is not finite at %llu of the %llu interior points; the first is x = %.17g",
                 (unsigned long long)count, (unsigned long long)(n - 1), out->nonfinite_x);
}

/* acc += w * v exactly: the product's rounding error (fma) is added too. */
static void add_product(gq_csum *acc, double w, double v)
{
  const double p = w * v;
  gq_csum_add(acc, p);
  acc->c += fma(w, v, -p);
}

/* The rule W over the class sums and the endpoint values.  Weights of 1
 * merge a class sum as it is (the trapezoid then sums as it always did);
 * others multiply both of its parts.  The factor h num / den is applied to
 * the double-double total: (h s) exactly by fma, then a division by den
 * corrected by its exact remainder. */
static double weigh(const weights *W, const gq_csum sums[GQ_GRID_KEYS], double fa, double fb, double h)
{
  gq_csum acc = gq_csum_zero();
  for (int k = 0; k < GQ_GRID_KEYS; k++) {
    if (W->w[k] == 1.0) {
      gq_csum_merge(&acc, sums[k]);
    } else if (W->w[k] != 0.0) {
      add_product(&acc, W->w[k], sums[k].s);
      acc.c += W->w[k] * sums[k].c;
    }
  }
  add_product(&acc, W->end, fa);
  add_product(&acc, W->end, fb);
  if (W->den == 1.0)
    return W->num * h * gq_csum_value(acc); /* num a power of two: exact */
  const double s = gq_csum_value(acc), ds = (acc.s - s) + acc.c;
  const double hn = W->num * h; /* exact */
  const double p = hn * s, e = fma(hn, s, -p) + hn * ds;
  const double q = p / W->den, r = fma(-q, W->den, p); /* p = q den + r exactly */
  return q + (r + e) / W->den;
}

/* A result with nothing computed yet: NaN values, the rule and n. */
static void blank(gq_rule_result *out, const gq_context *ctx, gq_rule rule, uint64_t n)
{
  memset(out, 0, sizeof *out);
  out->result = out->coarse = out->abserr = out->difference = out->nonfinite_x = NAN;
  out->n = n;
  out->backend = ctx->backend;
  out->rule = rule;
  out->error_formula = out->change = "";
}

static int rule_sum(gq_context *ctx, const gq_integrand *f, gq_rule rule, double a, double b, uint64_t n,
                    gq_precision precision, const change *cv, gq_rule_result *out)
{
  blank(out, ctx, rule, n);
  if (!known(rule))
    return gq_fail(GQ_EINVAL, "unknown rule %d", (int)rule);
  if (!isfinite(a) || !isfinite(b))
    return gq_fail(GQ_EINVAL, "the limits must be numbers (a = %g, b = %g)", a, b);
  if (n < 1 || n > GQ_TRAPEZOID_MAX_N)
    return gq_fail(GQ_EINVAL, "the number of intervals must be between 1 and 2^53");
  int status = gq_rule_check_n(rule, n);
  if (status != GQ_SUCCESS)
    return status;
  if (precision != GQ_PRECISION_DOUBLE && precision != GQ_PRECISION_FLOAT)
    return gq_fail(GQ_EINVAL, "unknown precision %d", (int)precision);
  const double h = (b - a) / (double)n;
  if (!isfinite(h))
    return gq_fail(GQ_EINVAL, "b - a overflows a double (a = %g, b = %g)", a, b);
  /* Points closer than two doubles apart cannot be told apart: x_i would
   * repeat and the rule would not be the one asked for. */
  const double widest = fmax(fabs(a), fabs(b));
  if (a != b && fabs(h) < 2.0 * (nextafter(widest, INFINITY) - widest))
    return gq_fail(GQ_EINVAL,
                   "the interval [%.17g, %.17g] is too small to divide into %llu parts in double precision",
                   a, b, (unsigned long long)n);

  const double fa = eval_in(f, precision, open_end(cv, 0) ? inside(a, b, precision) : a);
  const double fb = eval_in(f, precision, open_end(cv, 1) ? inside(b, a, precision) : b);
  gq_csum sums[GQ_GRID_KEYS];
  for (int k = 0; k < GQ_GRID_KEYS; k++)
    sums[k] = gq_csum_zero();
  gq_grid_info info = {0.0, 0.0, GQ_JIT_NONE};
  if (n >= 2) {
    gq_grid_sum p = {f, precision, a, h, 1, n - 1, ctx->deterministic, NULL};
    status = gq_shared_grid_sum(ctx, &p, sums, &info);
    if (status != GQ_SUCCESS)
      return status;
  }
  out->kernel_ms = info.ms;
  out->compile_ms = info.compile_ms;
  out->jit = info.jit;
  for (int k = 0; k < GQ_GRID_KEYS; k++) { /* exact: the scale is a power of two */
    sums[k].s *= f->scale;
    sums[k].c *= f->scale;
  }

  switch (rule) {
  case GQ_RULE_TRAPEZOID:
    out->result = weigh(&T_H, sums, fa, fb, h);
    out->error_formula = "|T(h) - T(2h)|/3";
    if (n == 1) {
      /* One interval: compare with the finer rule T(h/2); for p >= 1 the
       * error of T(h) is at most 2 |T(h) - T(h/2)|. */
      const double fmid = eval_in(f, precision, a + 0.5 * (b - a));
      out->coarse = h * (0.25 * fa + 0.5 * fmid + 0.25 * fb); /* halves first: no overflow */
      out->difference = 2.0 * fabs(out->result - out->coarse);
      out->error_formula = "2 |T(h) - T(h/2)|/3";
    } else if (n % 2 == 0) {
      out->coarse = weigh(&T_2H, sums, fa, fb, h);
    } else {
      /* Spacing 2h over [x_0, x_{n-1}] (the even indices; x_{n-1} is in an
       * even class with weight 1, and ends the coarse rule with 1/2), then
       * the last interval [x_{n-1}, b] with spacing h. */
      const double fm = eval_in(f, precision, fma((double)(n - 1), h, a));
      gq_csum even = sums[0];
      gq_csum_merge(&even, sums[2]);
      gq_csum_add(&even, 0.5 * fa);
      gq_csum_add(&even, -0.5 * fm);
      out->coarse = 2.0 * h * gq_csum_value(even) + h * (0.5 * fm + 0.5 * fb);
    }
    if (n >= 2)
      out->difference = fabs(out->result - out->coarse);
    out->abserr = out->difference / 3.0;
    break;
  case GQ_RULE_SIMPSON:
    out->result = weigh(&S_H, sums, fa, fb, h);
    if (n % 4 == 0) {
      out->coarse = weigh(&S_2H, sums, fa, fb, h);
      out->difference = fabs(out->result - out->coarse);
      out->abserr = out->difference / 15.0;
      out->error_formula = "|S(h) - S(2h)|/15";
    } else {
      out->coarse = weigh(&T_2H, sums, fa, fb, h);
      out->difference = fabs(out->result - out->coarse);
      out->abserr = out->difference / 4.0;
      out->error_formula = "|S(h) - T(2h)|/4";
    }
    break;
  default: /* boole (gq_rule_line refuses gauss-legendre) */
    out->result = weigh(&B_H, sums, fa, fb, h);
    out->coarse = weigh(&S_2H, sums, fa, fb, h);
    out->difference = fabs(out->result - out->coarse);
    out->abserr = out->difference / 16.0;
    out->error_formula = "|B(h) - S(2h)|/16";
    break;
  }

  if (!isfinite(out->result))
    return report_nonfinite(ctx, f, precision, cv, a, b, h, n, fa, fb, out);
  gq_clear_error();
  return GQ_SUCCESS;
}

static int rule_value(gq_context *ctx, const gq_integrand *f, gq_rule rule, double a, double b, uint64_t n,
                      gq_precision precision, const change *cv, gq_rule_result *out)
{
  int status = rule_sum(ctx, f, rule, a, b, n, precision, cv, out);
  if (status != GQ_EDOM || out->nonfinite_count != 0)
    return status;
  /* Every f(x_i) is finite but a sum of them overflowed (1e308 + x): the
   * rule for 2^-k f, 2^k >= 2n times the largest weight so that no weighted
   * sum of n finite values overflows, times 2^k (exact), which overflows
   * only if the integral does. */
  const int k = gq_sum_headroom(n) + rules[rule].weight_log2;
  gq_integrand *small = NULL;
  const gq_rule_result first = *out;
  if (gq_integrand_scaled(f, k, &small) != GQ_SUCCESS) {
    *out = first;
    return status;
  }
  status = rule_sum(ctx, small, rule, a, b, n, precision, cv, out);
  gq_integrand_free(small);
  out->result = ldexp(out->result, k);
  out->coarse = ldexp(out->coarse, k);
  out->difference = ldexp(out->difference, k);
  out->abserr = ldexp(out->abserr, k);
  out->kernel_ms += first.kernel_ms;
  out->compile_ms += first.compile_ms;
  if (status == GQ_SUCCESS && !isfinite(out->result))
    return gq_fail(GQ_EDOM, "the integral overflows a double (f is finite at every point)");
  return status;
}

/* An infinite limit: the rule for g(t) = f(phi(t)) phi'(t) over the
 * t-interval (the table at the top), negated for reversed limits. */
static int infinite(gq_context *ctx, const gq_integrand *f, gq_rule rule, double a, double b, uint64_t n,
                    gq_precision precision, gq_rule_result *out)
{
  static const struct {
    const char *phi, *dphi, *guard;
    const char *text[2]; /* a <= b, a > b: the finite limit is the other one */
    double t0;
  } maps[] = {
    [GQ_CHANGE_UPPER] = {"+x/(1-x)", "1/(1-x)^2", "x<1",
                         {"x = a + t/(1-t), t in [0, 1]", "x = b + t/(1-t), t in [0, 1]"}, 0.0},
    [GQ_CHANGE_LOWER] = {"-x/(1-x)", "1/(1-x)^2", "x<1",
                         {"x = b - t/(1-t), t in [0, 1]", "x = a - t/(1-t), t in [0, 1]"}, 0.0},
    [GQ_CHANGE_LINE] = {"x/((1-x)*(1+x))", "(1+x^2)/((1-x)*(1+x))^2", "abs(x)<1",
                        {"x = t/(1-t^2), t in [-1, 1]", "x = t/(1-t^2), t in [-1, 1]"}, -1.0},
  };
  blank(out, ctx, rule, n);
  if (a == b)
    return gq_fail(GQ_EINVAL, "the interval [%g, %g] is empty: no change of variables maps it onto a "
                   "finite one (give a finite limit)", a, b);
  const double lo = fmin(a, b), hi = fmax(a, b);
  const change cv = {isinf(lo) && isinf(hi) ? GQ_CHANGE_LINE : isinf(hi) ? GQ_CHANGE_UPPER : GQ_CHANGE_LOWER,
                     isinf(hi) ? lo : hi};
  char phi[64];
  if (cv.kind == GQ_CHANGE_LINE || cv.c == 0.0) /* x/(1-x), not 0+x/(1-x) */
    snprintf(phi, sizeof phi, "%s%s", cv.kind == GQ_CHANGE_LOWER ? "-" : "",
             maps[cv.kind].phi + (cv.kind != GQ_CHANGE_LINE));
  else
    snprintf(phi, sizeof phi, "%.17g%s", cv.c, maps[cv.kind].phi);
  gq_integrand *g = NULL;
  int status = gq_integrand_changed(f, phi, maps[cv.kind].dphi, maps[cv.kind].guard, &g);
  if (status != GQ_SUCCESS)
    return status;
  status = rule_value(ctx, g, rule, maps[cv.kind].t0, 1.0, n, precision, &cv, out);
  gq_integrand_free(g);
  out->change = maps[cv.kind].text[a > b];
  if (a > b) {
    out->result = -out->result;
    out->coarse = -out->coarse;
  }
  return status;
}

int gq_rule_line(gq_context *ctx, const gq_integrand *f, gq_rule rule, double a, double b, uint64_t n,
                 gq_precision precision, gq_rule_result *out)
{
  if (!ctx || !f || !out)
    return gq_fail(GQ_EINVAL, "gq_integrate_rule: NULL argument");
  if (rule == GQ_RULE_GAUSS_LEGENDRE)
    return gq_fail(GQ_EINVAL, "gauss-legendre is a product rule (gq_integrate_box)");
  if ((isinf(a) || isinf(b)) && !isnan(a) && !isnan(b))
    return infinite(ctx, f, rule, a, b, n, precision, out);
  return rule_value(ctx, f, rule, a, b, n, precision, &NO_CHANGE, out);
}

/* The one-dimensional box: Newton-Cotes comes back to gq_rule_line. */
int gq_integrate_rule(gq_context *ctx, const gq_integrand *f, gq_rule rule, double a, double b, uint64_t n,
                      gq_precision precision, gq_rule_result *out)
{
  if (!ctx || !f || !out)
    return gq_fail(GQ_EINVAL, "gq_integrate_rule: NULL argument");
  gq_box box = {1, {a}, {b}, {n}};
  const gq_rule_spec spec = {rule, 0};
  return gq_integrate_box(ctx, f, spec, &box, precision, out);
}

int gq_integrate_trapezoid(gq_context *ctx, const gq_integrand *f, double a, double b,
                           uint64_t n, gq_precision precision, gq_trapezoid_result *out)
{
  if (!ctx || !f || !out)
    return gq_fail(GQ_EINVAL, "gq_integrate_trapezoid: NULL argument");
  return gq_integrate_rule(ctx, f, GQ_RULE_TRAPEZOID, a, b, n, precision, out);
}
