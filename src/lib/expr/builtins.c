/* builtins.c — the named integrands (gpuquad --f=circle ...).
 *
 * Each is an ordinary expression, parsed like user input, so it takes every
 * path the user's would.  Exact values come from an antiderivative rather
 * than a number so that they hold for any limits the user gives. */
#include "expr_internal.h"

#include <math.h>
#include <string.h>

#include "../../gpuquad.h"

static const gq_expr_builtin builtins[] = {
  {"circle", "4*sqrt(1-x^2)", 0.0, 1.0, "2*(x*sqrt(1-x^2)+asin(x))",
   "quarter circle, 4*sqrt(1-x^2); integral over [0,1] is pi"},
  {"atan", "4/(1+x^2)", 0.0, 1.0, "4*atan(x)",
   "4/(1+x^2); integral over [0,1] is pi"},
  {"gauss", "exp(-x^2)", -3.0, 3.0, "sqrt(pi)/2*erf(x)",
   "Gaussian exp(-x^2); integral over [-3,3] is sqrt(pi)*erf(3)"},
  {"sin", "sin(x)", 0.0, GQ_EXPR_PI, "-cos(x)",
   "sin(x); integral over [0,pi] is 2"},
  {"exp", "exp(x)", 0.0, 1.0, "exp(x)",
   "exp(x); integral over [0,1] is e-1"},
  {"runge", "1/(1+25*x^2)", -1.0, 1.0, "atan(5*x)/5",
   "Runge's function 1/(1+25*x^2), hard for equispaced rules"},
  {"poly", "x^5 - 3*x^3 + 2*x - 1", -1.0, 2.0, "x^6/6 - 3*x^4/4 + x^2 - x",
   "quintic polynomial; integral over [-1,2] is -3/4"},
};

#define NBUILTINS (sizeof builtins / sizeof builtins[0])

size_t gq_expr_builtin_count(void) { return NBUILTINS; }

const gq_expr_builtin *gq_expr_builtin_at(size_t i)
{
  return i < NBUILTINS ? &builtins[i] : NULL;
}

const gq_expr_builtin *gq_expr_builtin_find(const char *name)
{
  if (!name) return NULL;
  for (size_t i = 0; i < NBUILTINS; i++)
    if (strcmp(builtins[i].name, name) == 0) return &builtins[i];
  return NULL;
}

int gq_expr_builtin_exact(const gq_expr_builtin *bi, double a, double b,
                          double *exact)
{
  gq_expr *F;
  int status;
  if (!exact) return GQ_EINVAL;
  *exact = NAN;
  if (!bi) return GQ_EINVAL;
  if (!bi->antiderivative) return GQ_EUNSUP;
  status = gq_expr_parse(bi->antiderivative, NULL, 1, &F, NULL);
  if (status != GQ_SUCCESS) return status;
  *exact = gq_expr_eval(F, &b) - gq_expr_eval(F, &a);
  gq_expr_free(F);
  return GQ_SUCCESS;
}
