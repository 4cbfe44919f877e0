/* genz.h — Genz's six test families on [0, 1]^D (A. Genz, "Testing
 * multidimensional integration routines", 1984; PAGANI's test set): the
 * expression gpuquad integrates, the same function in C for a host peer
 * (hcubature), and the exact integral.  Each family has a difficulty c_i =
 * scale (1 + i/8) and a shift w_i = shift + step i.  Used by
 * bench/bench_adaptive.c and tests/t_adaptive.c. */
#ifndef GQ_BENCH_GENZ_H
#define GQ_BENCH_GENZ_H

#include <math.h>
#include <stdio.h>

typedef enum { GENZ_OSCILLATORY, GENZ_PRODUCT_PEAK, GENZ_CORNER_PEAK, GENZ_GAUSSIAN, GENZ_C0, GENZ_DISCONTINUOUS,
               GENZ_FAMILIES } genz_family;
static const char *const genz_name[GENZ_FAMILIES] = {"oscillatory", "product peak", "corner peak",
                                                     "gaussian",    "c0",           "discontinuous"};

typedef struct {
  genz_family k;
  int D;
  double scale, shift, step;
} genz_problem;

static inline double genz_c(const genz_problem *p, int i) { return p->scale * (1.0 + 0.125 * i); }
static inline double genz_w(const genz_problem *p, int i) { return p->shift + p->step * i; }

/* The expression, in x1..xD. */
static inline void genz_text(const genz_problem *p, char *text, size_t size)
{
  size_t at = 0;
#define GENZ_ADD(...) at += (size_t)snprintf(text + at, at < size ? size - at : 0, __VA_ARGS__)
  switch (p->k) {
  case GENZ_OSCILLATORY:
    GENZ_ADD("cos(%.17g", 2.0 * M_PI * genz_w(p, 0));
    for (int i = 0; i < p->D; i++)
      GENZ_ADD("+%.17g*x%d", genz_c(p, i), i + 1);
    GENZ_ADD(")");
    break;
  case GENZ_PRODUCT_PEAK:
    for (int i = 0; i < p->D; i++)
      GENZ_ADD("%s1/(%.17g+(x%d-%.17g)^2)", i ? "*" : "", 1.0 / (genz_c(p, i) * genz_c(p, i)), i + 1, genz_w(p, i));
    break;
  case GENZ_CORNER_PEAK:
    GENZ_ADD("(1");
    for (int i = 0; i < p->D; i++)
      GENZ_ADD("+%.17g*x%d", genz_c(p, i), i + 1);
    GENZ_ADD(")^(-%d)", p->D + 1);
    break;
  case GENZ_GAUSSIAN:
    GENZ_ADD("exp(-(0");
    for (int i = 0; i < p->D; i++)
      GENZ_ADD("+%.17g*(x%d-%.17g)^2", genz_c(p, i) * genz_c(p, i), i + 1, genz_w(p, i));
    GENZ_ADD("))");
    break;
  case GENZ_C0:
    GENZ_ADD("exp(-(0");
    for (int i = 0; i < p->D; i++)
      GENZ_ADD("+%.17g*abs(x%d-%.17g)", genz_c(p, i), i + 1, genz_w(p, i));
    GENZ_ADD("))");
    break;
  default: /* 0 where x1 > w1 or x2 > w2 */
    GENZ_ADD("if(x1<%.17g,if(x2<%.17g,exp(0", genz_w(p, 0), genz_w(p, 1));
    for (int i = 0; i < p->D; i++)
      GENZ_ADD("+%.17g*x%d", genz_c(p, i), i + 1);
    GENZ_ADD("),0),0)");
    break;
  }
#undef GENZ_ADD
}

/* The same function in C (with the same constants as the text). */
static inline double genz_eval(const genz_problem *p, const double *x)
{
  double s = 0.0, v = 1.0;
  switch (p->k) {
  case GENZ_OSCILLATORY:
    s = 2.0 * M_PI * genz_w(p, 0);
    for (int i = 0; i < p->D; i++)
      s += genz_c(p, i) * x[i];
    return cos(s);
  case GENZ_PRODUCT_PEAK:
    for (int i = 0; i < p->D; i++) {
      const double c = genz_c(p, i), d = x[i] - genz_w(p, i);
      v *= 1.0 / (1.0 / (c * c) + d * d);
    }
    return v;
  case GENZ_CORNER_PEAK:
    s = 1.0;
    for (int i = 0; i < p->D; i++)
      s += genz_c(p, i) * x[i];
    return pow(s, -(p->D + 1));
  case GENZ_GAUSSIAN:
    for (int i = 0; i < p->D; i++) {
      const double c = genz_c(p, i), d = x[i] - genz_w(p, i);
      s += c * c * d * d;
    }
    return exp(-s);
  case GENZ_C0:
    for (int i = 0; i < p->D; i++)
      s += genz_c(p, i) * fabs(x[i] - genz_w(p, i));
    return exp(-s);
  default:
    if (x[0] > genz_w(p, 0) || x[1] > genz_w(p, 1))
      return 0.0;
    for (int i = 0; i < p->D; i++)
      s += genz_c(p, i) * x[i];
    return exp(s);
  }
}

/* The exact integral over [0, 1]^D, in long double. */
static inline double genz_exact(const genz_problem *p)
{
  long double v = 1.0L;
  const int D = p->D;
  switch (p->k) {
  case GENZ_OSCILLATORY: { /* Re e^{i 2 pi w1} prod (e^{i c} - 1)/(i c) */
    long double re = cosl(2.0L * M_PI * genz_w(p, 0)), im = sinl(2.0L * M_PI * genz_w(p, 0));
    for (int i = 0; i < D; i++) {
      const long double c = genz_c(p, i), fr = sinl(c) / c, fi = (1.0L - cosl(c)) / c;
      const long double nr = re * fr - im * fi, ni = re * fi + im * fr;
      re = nr;
      im = ni;
    }
    return (double)re;
  }
  case GENZ_PRODUCT_PEAK:
    for (int i = 0; i < D; i++) {
      const long double c = genz_c(p, i), w = genz_w(p, i);
      v *= c * (atanl(c * (1.0L - w)) + atanl(c * w));
    }
    return (double)v;
  case GENZ_CORNER_PEAK: { /* sum over the vertices of (-1)^|v| / (1 + c.v), over D! prod c */
    long double sum = 0.0L, den = 1.0L;
    for (unsigned m = 0; m < 1u << D; m++) {
      long double cv = 1.0L;
      int bits = 0;
      for (int i = 0; i < D; i++)
        if (m >> i & 1) {
          cv += genz_c(p, i);
          bits++;
        }
      sum += (bits % 2 ? -1.0L : 1.0L) / cv;
    }
    for (int i = 0; i < D; i++)
      den *= (i + 1) * (long double)genz_c(p, i);
    return (double)(sum / den);
  }
  case GENZ_GAUSSIAN:
    for (int i = 0; i < D; i++) {
      const double c = genz_c(p, i), w = genz_w(p, i);
      v *= (long double)sqrt(M_PI) / (2.0L * c) * ((long double)erf(c * (1.0 - w)) + (long double)erf(c * w));
    }
    return (double)v;
  case GENZ_C0:
    for (int i = 0; i < D; i++) {
      const long double c = genz_c(p, i), w = genz_w(p, i);
      v *= (2.0L - expl(-c * w) - expl(-c * (1.0L - w))) / c;
    }
    return (double)v;
  default:
    for (int i = 0; i < D; i++) {
      const long double c = genz_c(p, i), top = i < 2 ? genz_w(p, i) : 1.0L;
      v *= (expl(c * top) - 1.0L) / c;
    }
    return (double)v;
  }
}

#endif
