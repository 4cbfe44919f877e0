/* builtins.c — the table of built-in integrands and their host evaluators
 * (double and float), expanded from integrands.def. */
#include "config.h"

#include <string.h>
#include <tgmath.h>

#include "internal.h"

/* Host evaluators.  R(c) casts a constant to the type of x; <tgmath.h> picks
 * sqrtf for a float argument, so the float forms compute in float as the
 * CUDA kernels do. */
#define R(c) ((__typeof__(x))(c))
#define GQ_BUILTIN(ID, name, formula, scale, fx, a, b, Fx, desc) \
  static double eval_##ID(double x) { return scale * (fx); }          \
  static float eval_f_##ID(float x) { return (float)(scale) * (fx); } \
  static double antiderivative_##ID(double x) { return Fx; }
#include "integrands.def"
#undef GQ_BUILTIN
#undef R

static const struct gq_integrand builtins[GQ_F_COUNT] = {
#define GQ_BUILTIN(ID, name, formula, scale, fx, a, b, Fx, desc) \
  {GQ_F_##ID, name, formula, desc, a, b, scale, eval_##ID, eval_f_##ID, antiderivative_##ID, \
   NULL, NULL, NULL, 1, NULL, NULL, 0, NULL},
#include "integrands.def"
#undef GQ_BUILTIN
};

const gq_integrand *gq_integrand_builtin_at(size_t k)
{
  return k < GQ_F_COUNT ? &builtins[k] : NULL;
}

const gq_integrand *gq_integrand_builtin(const char *name)
{
  if (!name)
    return NULL;
  for (size_t k = 0; k < GQ_F_COUNT; k++)
    if (strcmp(builtins[k].name, name) == 0)
      return &builtins[k];
  return NULL;
}

const char *gq_integrand_name(const gq_integrand *f)
{
  return f ? f->name : (gq_null_arg(__func__, "f"), "");
}
const char *gq_integrand_formula(const gq_integrand *f)
{
  return f ? f->formula : (gq_null_arg(__func__, "f"), "");
}
const char *gq_integrand_description(const gq_integrand *f)
{
  return f ? f->description : (gq_null_arg(__func__, "f"), "");
}

void gq_integrand_limits(const gq_integrand *f, double *a, double *b)
{
  if (!f)
    gq_null_arg(__func__, "f");
  if (a) *a = f ? f->a : NAN;
  if (b) *b = f ? f->b : NAN;
}

