/* gauss.c — Gauss-Legendre rules, their embedded lower-order rules, and the
 * rule as a value (gq_rule_spec: parse, default nodes, degree).
 *
 * Nodes: the K roots of the Legendre polynomial P_K, found by Newton's
 * method on the three-term recurrence
 *   (j + 1) P_{j+1}(x) = (2j + 1) x P_j(x) - j P_{j-1}(x)
 * in long double (x87: a 64-bit significand, 11 bits beyond double), from
 * Tricomi's asymptotic start x ~ (1 - 1/(8K^2) + 1/(8K^3)) cos(pi (4i - 1) /
 * (4K + 2)), which lies in the root's basin for every K.  Weights:
 * w = 2 / ((1 - x^2) P_K'(x)^2), with P_K' = K (P_{K-1} - x P_K) / (1 - x^2)
 * and 1 - x^2 as (1 - x)(1 + x) (no cancellation near the ends).  Both are
 * rounded to double once, so each is the nearest double or next to it
 * (tests/t_gauss.c measures the distance from GSL's tables).  Only the
 * positive half is computed; the negative half is its mirror, so the rule is
 * symmetric to the bit.
 *
 * The lower-order rule of the error estimate uses the same nodes, so it
 * costs no evaluation of f: the interpolatory rule on the K - 1 nodes left
 * when node m is dropped.  Its weights follow exactly from the Gauss rule,
 * which integrates every Lagrange basis polynomial L'_j of the K - 1 nodes
 * (degree K - 2 <= 2K - 1) exactly:
 *   w'_j = integral of L'_j = sum_i w_i L'_j(x_i) = w_j + w_m L'_j(x_m).
 * It integrates degree K - 2 exactly and not K - 1: its error on a monic
 * polynomial of degree K - 1 is the integral of the node polynomial
 * P_K(x) / (k_K (x - x_m)), which is w_m P_K'(x_m) / k_K != 0 (k_K the
 * leading coefficient of P_K).  That error, 2 / ((1 - x_m^2) P_K'(x_m) k_K),
 * is smallest where |P_K'| (1 - x_m^2) is largest, at the middle of
 * [-1, 1]: m is the middle node for an odd K (x = 0, which also keeps the
 * lower rule symmetric) and the first node above 0 for an even K.  Its
 * weights are then positive for every K (tests/t_gauss.c checks), so the
 * lower rule is as stable as the Gauss rule itself.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "gauss.h"
#include "internal.h"

/* Rules for every K live in one table, K after K: rule K starts at
 * offset(K) = 2 + 3 + ... + (K - 1). */
#define OFFSET(K) ((K) * ((K) - 1) / 2 - 1)
enum { TABLE_SIZE = OFFSET(GQ_GL_MAX_NODES + 1) };

static struct {
  double x[TABLE_SIZE], w[TABLE_SIZE], w_lower[TABLE_SIZE];
} table;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

/* P_K(x) and P_K'(x) by the recurrence (|x| < 1). */
static void legendre(int K, long double x, long double *p, long double *dp)
{
  long double p0 = 1.0L, p1 = x;
  for (int j = 1; j < K; j++) {
    const long double p2 = ((2 * j + 1) * x * p1 - j * p0) / (j + 1);
    p0 = p1;
    p1 = p2;
  }
  *p = p1;
  *dp = K * (p0 - x * p1) / ((1.0L - x) * (1.0L + x));
}

/* Rule K into the table: nodes and weights from the long double roots,
 * then the lower rule's weights from those same roots. */
static void compute_rule(int K)
{
  long double x[GQ_GL_MAX_NODES], w[GQ_GL_MAX_NODES];
  const long double pi = 3.141592653589793238462643383279502884L;
  for (int i = 1; i <= K / 2; i++) { /* root i, from the largest down */
    long double r = (1.0L - 1.0L / (8.0L * K * K) + 1.0L / (8.0L * K * K * K)) *
                    cosl(pi * (4 * i - 1) / (4 * K + 2));
    long double p, dp;
    /* Newton converges quadratically from this start: a few steps reach
     * the long double root; the cap only bounds a loop that cannot spin. */
    for (int step = 0; step < 100; step++) {
      legendre(K, r, &p, &dp);
      const long double dx = p / dp;
      r -= dx;
      if (fabsl(dx) <= 4.0L * LDBL_EPSILON * fabsl(r))
        break;
    }
    legendre(K, r, &p, &dp);
    x[K - i] = r;
    x[i - 1] = -r;
    w[K - i] = w[i - 1] = 2.0L / ((1.0L - r) * (1.0L + r) * dp * dp);
  }
  if (K % 2) { /* the middle root, 0 */
    long double p, dp;
    legendre(K, 0.0L, &p, &dp);
    x[K / 2] = 0.0L;
    w[K / 2] = 2.0L / (dp * dp);
  }
  const int m = gq_gauss_legendre_dropped(K), at = OFFSET(K);
  for (int j = 0; j < K; j++) {
    long double basis = 1.0L; /* L'_j(x_m) */
    for (int i = 0; i < K; i++)
      if (i != j && i != m)
        basis *= (x[m] - x[i]) / (x[j] - x[i]);
    table.x[at + j] = (double)x[j];
    table.w[at + j] = (double)w[j];
    table.w_lower[at + j] = j == m ? 0.0 : (double)(w[j] + w[m] * basis);
  }
}

static void compute_table(void)
{
  for (int K = GQ_GL_MIN_NODES; K <= GQ_GL_MAX_NODES; K++)
    compute_rule(K);
}

static int valid_nodes(int K) { return K >= GQ_GL_MIN_NODES && K <= GQ_GL_MAX_NODES; }

int gq_gauss_legendre_dropped(int K) { return K / 2; }

int gq_gauss_legendre_lower_degree(int K) { return valid_nodes(K) ? K - 2 : -1; }

int gq_gauss_legendre(int K, double *x, double *w, double *w_lower)
{
  if (!x || !w)
    return gq_null_arg(__func__, x ? "w" : "x");
  if (!valid_nodes(K))
    return gq_fail(GQ_EINVAL, "Gauss-Legendre needs %d to %d nodes per panel, not %d", GQ_GL_MIN_NODES,
                   GQ_GL_MAX_NODES, K);
  pthread_once(&table_once, compute_table);
  memcpy(x, table.x + OFFSET(K), (size_t)K * sizeof *x);
  memcpy(w, table.w + OFFSET(K), (size_t)K * sizeof *w);
  if (w_lower)
    memcpy(w_lower, table.w_lower + OFFSET(K), (size_t)K * sizeof *w_lower);
  return GQ_SUCCESS;
}

/* 8 nodes: degree 15 per panel, so that analytic integrands reach double
 * precision with a few panels per feature, while the lower rule of the
 * estimate (degree 6) is still accurate enough for the estimate to be of
 * use; beyond that, more panels serve better than more nodes (they also
 * resolve features that a single high-degree panel misses). */
int gq_rule_default_nodes(void) { return 8; }

/* The forms a rule can take, for messages. */
static const char *forms(char *buf, size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  for (int r = GQ_RULE_TRAPEZOID; r <= GQ_RULE_GAUSS_LEGENDRE; r++) {
    const char *name = gq_rule_name((gq_rule)r);
    if (name && len < size)
      len += (size_t)snprintf(buf + len, size - len, "%s, ", name);
  }
  if (len < size)
    snprintf(buf + len, size - len, "or gauss-legendre:K with K from %d to %d", GQ_GL_MIN_NODES,
             GQ_GL_MAX_NODES);
  return buf;
}

int gq_rule_spec_parse(const char *text, gq_rule_spec *spec)
{
  if (!text || !spec)
    return gq_null_arg(__func__, text ? "spec" : "text");
  char valid[160];
  const char *colon = strchr(text, ':');
  const size_t len = colon ? (size_t)(colon - text) : strlen(text);
  for (int r = GQ_RULE_TRAPEZOID; r <= GQ_RULE_GAUSS_LEGENDRE; r++) {
    const char *name = gq_rule_name((gq_rule)r);
    if (!name || strlen(name) != len || strncmp(text, name, len) != 0)
      continue;
    const int gauss = r == GQ_RULE_GAUSS_LEGENDRE;
    int nodes = gauss ? gq_rule_default_nodes() : 0;
    if (colon && !gauss)
      return gq_fail(GQ_EINVAL, "rule '%.64s': only gauss-legendre takes nodes per panel (:K); expected %s",
                     text, forms(valid, sizeof valid));
    if (colon) {
      const char *digits = colon + 1;
      const size_t count = strspn(digits, "0123456789");
      nodes = 0;
      for (size_t k = 0; k < count && nodes <= GQ_GL_MAX_NODES; k++)
        nodes = 10 * nodes + (digits[k] - '0');
      if (count == 0 || digits[count] != '\0' || !valid_nodes(nodes))
        return gq_fail(GQ_EINVAL, "rule '%.64s': K in gauss-legendre:K must be a whole number from %d to %d",
                       text, GQ_GL_MIN_NODES, GQ_GL_MAX_NODES);
    }
    spec->rule = (gq_rule)r;
    spec->nodes = nodes;
    return GQ_SUCCESS;
  }
  return gq_fail(GQ_EINVAL, "unknown rule '%.64s' (expected %s)", text, forms(valid, sizeof valid));
}

int gq_rule_spec_degree(gq_rule_spec spec)
{
  if (spec.rule != GQ_RULE_GAUSS_LEGENDRE)
    return gq_rule_degree(spec.rule);
  const int K = spec.nodes ? spec.nodes : gq_rule_default_nodes();
  return valid_nodes(K) ? 2 * K - 1 : -1;
}
