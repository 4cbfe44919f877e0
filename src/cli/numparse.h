/* numparse.h — how the command line reads numbers. */
#ifndef GQ_NUMPARSE_H
#define GQ_NUMPARSE_H

#include <stddef.h>
#include <stdint.h>

/* A positive whole count: 1000000000, 1e9, 1.5e9, 2^30, 10^9, 1G (SI: k M G T P
 * = 10^3..10^15), 1Gi (binary: Ki Mi Gi Ti Pi = 2^10..2^50), 1_000_000.  Exact:
 * no rounding through double.  Returns 0, or -1 with a reason in err
 * ("is not a whole number", ...) and nothing in *out.  max bounds the value. */
int gq_parse_count(const char *text, uint64_t max, uint64_t *out, char *err, size_t errlen);

/* A finite real: anything strtod reads, with the whole text consumed, or pi,
 * -pi, e.  nan and inf are refused. */
int gq_parse_real(const char *text, double *out, char *err, size_t errlen);

#endif
