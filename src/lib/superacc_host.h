/* superacc_host.h — the host arithmetic of the exact accumulator
 * (superacc.c): rounding once, the quotient by a count, and the exact
 * products that the finishes of the deterministic reductions need. */
#ifndef GQ_SUPERACC_HOST_H
#define GQ_SUPERACC_HOST_H

#include "superacc.h"

/* The value times 2^-shift, rounded to the nearest double (ties to even;
 * +-Inf beyond DBL_MAX, subnormals where IEEE 754 has them). */
double gq_superacc_round(const gq_superacc *a, int shift);
/* value / n rounded once to the nearest double (NaN for n = 0). */
double gq_superacc_div_round(const gq_superacc *a, uint64_t n);
/* -1, 0 or 1. */
int gq_superacc_sign(const gq_superacc *a);
/* The exponent of the leading bit of |value| (GQ_SUPERACC_LSB - 1 for 0). */
int gq_superacc_top(const gq_superacc *a);
/* value 2^-shift as hi + lo: hi rounded to nearest, lo the rest rounded to
 * nearest (106 bits where neither underflows). */
void gq_superacc_to_dd(const gq_superacc *a, int shift, double *hi, double *lo);
/* a += -+ n x y, exactly (finite x, y). */
void gq_superacc_add_product_n(gq_superacc *a, double x, double y, uint64_t n, int negate);
/* a += -+ 2^shift x b, exactly (finite x; b's nonzero bits and x's product
 * stay inside the accumulator's range). */
void gq_superacc_add_scaled(gq_superacc *a, const gq_superacc *b, double x, int shift, int negate);

#endif
