/* adaptive_rule.h — the rules of adaptive cubature (adaptive.c), one copy
 * for the CPU backend (C11), the CUDA kernels (nvcc) and NVRTC: where the
 * points of a region are, what each weighs, how the error is estimated and
 * which axis a region is bisected along.
 *
 * A region is a box with centre c and half-widths h; its points are
 * c + h u with u in (-1, 1)^D, so no rule here evaluates f on a face (an
 * integrable singularity on the boundary, 1/sqrt(x) at 0, is fine).
 *
 * 1-D: the Gauss-Kronrod pair G7-K15 (QUADPACK's qk15 nodes and weights,
 * to the digits GSL carries) with QUADPACK's error estimate: |K15 - G7|
 * scaled by resasc (the integral of |f - mean|) as
 * resasc min(1, (200 |K - G| / resasc)^1.5), and never below 50 eps resabs
 * (the rounding of the sum).  The split is a bisection.
 *
 * D >= 2: Genz and Malik's degree-7 rule (A. C. Genz, A. A. Malik, J.
 * Comput. Appl. Math. 6 (1980) 295-302; the form of Steven Johnson's
 * cubature, rule75genzmalik), 1 + 4D + 2D(D - 1) + 2^D points:
 *   class 0  the centre
 *   class 1  c +- lambda2 h_i e_i
 *   class 2  c +- lambda4 h_i e_i
 *   class 3  c +- lambda4 h_i e_i +- lambda4 h_j e_j  (i < j)
 *   class 4  c + lambda5 (+-h_1, ..., +-h_D)
 * lambda2 = sqrt(9/70), lambda4 = sqrt(9/10), lambda5 = sqrt(9/19); the
 * embedded degree-5 rule uses classes 0-3 with its own weights; the error
 * is |I7 - I5| (hcubature's) sharpened where a sequence of null rules says
 * f is resolved (gq_gm_error), at least 50 eps times the rule applied to
 * |f|.  The split axis is the one with the largest fourth difference
 * |f(+l2) + f(-l2) - 2 f0 - (l2^2/l4^2)(f(+l4) + f(-l4) - 2 f0)| along it,
 * the widest of near ties (a polynomial of degree <= 3 along every axis has
 * none: the region is then cut across its longest side). */
#ifndef GQ_ADAPTIVE_RULE_H
#define GQ_ADAPTIVE_RULE_H

#if defined(__CUDACC__)
#define GQ_ADAPT_HD __host__ __device__ __forceinline__
#else
#include <math.h>
#define GQ_ADAPT_HD static inline
#endif

#define GQ_ADAPT_EPS 2.220446049250313080847e-16 /* DBL_EPSILON, also under NVRTC */
#define GQ_ADAPT_MAX_DIM 8
#define GQ_GK15_POINTS 15
#define GQ_GM_MAX_POINTS 401 /* D = 8: 1 + 32 + 112 + 256 */

#define GQ_GM_LAMBDA2 0.358568582800318091991
#define GQ_GM_LAMBDA4 0.9486832980505137996
#define GQ_GM_LAMBDA5 0.688247201611685297722

/* Points of the rule in D dimensions (1: Gauss-Kronrod). */
GQ_ADAPT_HD int gq_adapt_points(int D) { return D == 1 ? GQ_GK15_POINTS : 1 + 4 * D + 2 * D * (D - 1) + (1 << D); }

/* Point p (0 <= p < 15) of G7-K15 on [-1, 1]: its node u and the Kronrod and
 * Gauss weights (0 where the node is Kronrod's alone). */
GQ_ADAPT_HD void gq_gk15_point(int p, double *u, double *wk, double *wg)
{
  const double xgk[8] = {0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
                         0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
                         0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
                         0.207784955007898467600689403773245, 0.0};
  const double wgk[8] = {0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
                         0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
                         0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
                         0.204432940075298892414161999234649, 0.209482141084727828012999174891714};
  const double wgauss[4] = {0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
                            0.381830050505118944950369775488975, 0.417959183673469387755102040816327};
  const int j = p == 0 ? 7 : (p - 1) / 2; /* p = 0 the centre, then +-x_j */
  *u = (p & 1) ? xgk[j] : -xgk[j];
  *wk = wgk[j];
  *wg = j % 2 ? wgauss[j / 2] : 0.0; /* the Gauss nodes: x_1, x_3, x_5 and the centre x_7 */
}

/* QUADPACK's error of a G7-K15 region (GSL's rescale_error): every sum
 * already times the half-width. */
GQ_ADAPT_HD double gq_gk15_error(double resk, double resg, double resabs, double resasc)
{
  double err = fabs(resk - resg);
  if (resasc != 0.0 && err != 0.0) {
    const double scale = pow(200.0 * err / resasc, 1.5);
    err = scale < 1.0 ? resasc * scale : resasc;
  }
  if (resabs > 2.2250738585072014e-308 / (50.0 * GQ_ADAPT_EPS) && err < 50.0 * GQ_ADAPT_EPS * resabs)
    err = 50.0 * GQ_ADAPT_EPS * resabs;
  return err;
}

/* The weights of the degree-7 (w7) and degree-5 (w5) rules per class, for
 * a region of volume 1 (the caller multiplies by the volume). */
GQ_ADAPT_HD void gq_gm_weights(int D, double w7[5], double w5[5])
{
  const double d = (double)D;
  w7[0] = (12824.0 - 9120.0 * d + 400.0 * d * d) / 19683.0;
  w7[1] = 980.0 / 6561.0;
  w7[2] = (1820.0 - 400.0 * d) / 19683.0;
  w7[3] = 200.0 / 19683.0;
  w7[4] = 6859.0 / 19683.0 / (double)(1 << D);
  w5[0] = (729.0 - 950.0 * d + 50.0 * d * d) / 729.0;
  w5[1] = 245.0 / 486.0;
  w5[2] = (265.0 - 100.0 * d) / 1458.0;
  w5[3] = 25.0 / 729.0;
  w5[4] = 0.0;
}

/* Two degree-3 rules on the same points, for the error (gq_gm_error): the
 * centre and the +-lambda2 axis points (w3a) or the +-lambda4 ones (w3b),
 * each exact for 1 and x_i^2 on a region of volume 1. */
GQ_ADAPT_HD void gq_gm_low_weights(int D, double w3a[5], double w3b[5])
{
  const double a = 1.0 / (6.0 * GQ_GM_LAMBDA2 * GQ_GM_LAMBDA2), b = 1.0 / (6.0 * GQ_GM_LAMBDA4 * GQ_GM_LAMBDA4);
  for (int k = 0; k < 5; k++)
    w3a[k] = w3b[k] = 0.0;
  w3a[0] = 1.0 - 2.0 * D * a;
  w3a[1] = a;
  w3b[0] = 1.0 - 2.0 * D * b;
  w3b[2] = b;
}

/* Point p (0 <= p < gq_adapt_points(D)) of Genz-Malik in D >= 2
 * dimensions, described without an array: its class cls; the coordinates
 * u_d (gq_gm_coordinate) are vi on axis i, vj on axis j (classes 1 to 3;
 * -1 where unused), +-lambda5 by the bits of `bits` (class 4: bit d set
 * for -), else 0; for classes 1 and 2 its slot 4 i + k among the axis points
 * (k: +l2, -l2, +l4, -l4), else -1.  A GPU thread computes each u_d in a
 * register from this: writing u[i] at a run-time i would put u in local
 * memory. */
typedef struct {
  int cls, i, j, slot;
  unsigned bits;
  double vi, vj;
} gq_gm_pt;

GQ_ADAPT_HD gq_gm_pt gq_gm_describe(int D, int p)
{
  gq_gm_pt q = {0, -1, -1, -1, 0u, 0.0, 0.0};
  if (p == 0)
    return q;
  p -= 1;
  if (p < 4 * D) {
    const int k = p % 4;
    q.i = p / 4;
    q.vi = (k & 1 ? -1.0 : 1.0) * (k < 2 ? GQ_GM_LAMBDA2 : GQ_GM_LAMBDA4);
    q.slot = p;
    q.cls = k < 2 ? 1 : 2;
    return q;
  }
  p -= 4 * D;
  if (p < 2 * D * (D - 1)) {
    int pair = p / 4, i = 0;
    while (pair >= D - 1 - i) { /* pair -> (i, j), i < j, row by row */
      pair -= D - 1 - i;
      i++;
    }
    q.i = i;
    q.j = i + 1 + pair;
    q.vi = (p & 1 ? -1.0 : 1.0) * GQ_GM_LAMBDA4;
    q.vj = (p & 2 ? -1.0 : 1.0) * GQ_GM_LAMBDA4;
    q.cls = 3;
    return q;
  }
  q.bits = (unsigned)(p - 2 * D * (D - 1));
  q.cls = 4;
  return q;
}

/* Coordinate d of the point q describes. */
GQ_ADAPT_HD double gq_gm_coordinate(const gq_gm_pt *q, int d)
{
  if (q->cls == 4)
    return (q->bits >> d & 1 ? -1.0 : 1.0) * GQ_GM_LAMBDA5;
  return d == q->i ? q->vi : d == q->j ? q->vj : 0.0;
}

/* Point p as an array u[0..D-1]: its class, and its slot as above. */
GQ_ADAPT_HD int gq_gm_point(int D, int p, double *u, int *slot)
{
  const gq_gm_pt q = gq_gm_describe(D, p);
  for (int d = 0; d < D; d++)
    u[d] = gq_gm_coordinate(&q, d);
  *slot = q.slot;
  return q.cls;
}

/* The error of a Genz-Malik region from its rules (all times the volume):
 * r7 and r5, the degree-3 rules r3a and r3b, the centre's value times the
 * volume r1, and the degree-7 rule applied to |f|.  The differences are null
 * rules of falling degree: n1 = |r7 - r5| (degree 5), n2 the larger
 * |r5 - r3| (degree 3), n3 the larger |r3 - r1| (degree 1).  Where f is
 * resolved they fall geometrically with the degree, by r = max(n1/n2, n2/n3)
 * a step (Berntsen, Espelid and Genz's test, DCUHRE); the degree-7 rule's
 * error is then about r n1, and n1 alone (|I7 - I5|, the degree-5 rule's
 * error) overstates it by 1/r.  Only below GQ_GM_RATIO_CRITICAL is the
 * regime trusted, and even there the error is n1 r / GQ_GM_RATIO_CRITICAL:
 * the critical ratio is the safety factor, measured (BENCHMARKS.md) on the
 * corner peak, whose derivatives grow factorially with their order so that
 * the ratios understate the next step.  Elsewhere n1 as it is.  Never below
 * 50 eps times the rule applied to |f|. */
#define GQ_GM_RATIO_CRITICAL 0.05
GQ_ADAPT_HD double gq_gm_error(double r7, double r5, double r3a, double r3b, double r1, double rabs)
{
  const double n1 = fabs(r7 - r5), n2 = fmax(fabs(r5 - r3a), fabs(r5 - r3b));
  const double n3 = fmax(fabs(r3a - r1), fabs(r3b - r1)), floor = 50.0 * GQ_ADAPT_EPS * rabs;
  double err = n1;
  if (n2 > 0.0 && n3 > 0.0) {
    const double r = fmax(n1 / n2, n2 / n3);
    if (r < GQ_GM_RATIO_CRITICAL)
      err = n1 * (r / GQ_GM_RATIO_CRITICAL);
  }
  return err > floor ? err : floor;
}

/* The fourth difference along axis i from its four axis points (slots
 * 4 i .. 4 i + 3) and the centre. */
GQ_ADAPT_HD double gq_gm_fourth_difference(const double *axis_f, double f0)
{
  const double ratio = (GQ_GM_LAMBDA2 * GQ_GM_LAMBDA2) / (GQ_GM_LAMBDA4 * GQ_GM_LAMBDA4);
  return fabs(axis_f[0] + axis_f[1] - 2.0 * f0 - ratio * (axis_f[2] + axis_f[3] - 2.0 * f0));
}

/* Of two axes (difference, half-width), is (d, h) the better one to split
 * than (best_d, best_h)?  Differences within a relative 1e-10 tie, and a tie
 * goes to the wider axis (the first of equals). */
GQ_ADAPT_HD int gq_gm_axis_better(double d, double h, double best_d, double best_h)
{
  const double tie = 1e-10 * (d > best_d ? d : best_d);
  if (d > best_d + tie)
    return 1;
  return d >= best_d - tie && h > best_h;
}

#endif
