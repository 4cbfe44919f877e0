/* numparse.h — how the command line reads numbers: one grammar for whole
 * numbers and one for reals, shared by every option of every command
 * (gpuquad(1), NUMBERS). */
#ifndef GQ_NUMPARSE_H
#define GQ_NUMPARSE_H

#include <stddef.h>
#include <stdint.h>

/* A whole number from min to max, exactly (never rounded through double):
 *   [+] DIGITS [. DIGITS] [e [+-] DIGITS] [SUFFIX]      1000000, 1e9, 1.5e9, 1G
 *   [+] DIGITS ^ DIGITS                                  2^30, 10^9
 * DIGITS are decimal, with '_' allowed between two digits (1_000_000); leading
 * zeros are decimal too (010 is ten).  SUFFIX is SI (k K M G T P = 10^3 ..
 * 10^15) or binary (Ki Mi Gi Ti Pi = 2^10 .. 2^50).  No spaces, no hex.
 * Returns 0, or -1 with a reason in err ("is not a number", "is not a whole
 * number", "must be positive", "must not be negative", "is too large (at most
 * MAX)", ...) and *out untouched.  A value past 2^64 - 1 anywhere in the
 * grammar (digits, powers, exponents, suffixes) is "too large", never wrapped. */
int gq_parse_whole(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *err, size_t errlen);

/* A positive whole count: gq_parse_whole from 1 to max. */
int gq_parse_count(const char *text, uint64_t max, uint64_t *out, char *err, size_t errlen);

/* A finite real:  [+-] DIGITS [. [DIGITS]] [e [+-] DIGITS]  or  [+-] . DIGITS
 * [e [+-] DIGITS], or the constants pi and e with an optional sign; plain
 * decimal digits (the expression grammar's numbers), rounded to the nearest
 * double (a value below the smallest subnormal rounds to zero).  nan, inf, hex
 * and spaces are refused; a value beyond the largest double is "too large". */
int gq_parse_real(const char *text, double *out, char *err, size_t errlen);

/* A limit of integration: gq_parse_real, or inf, infinity (any case) with
 * an optional sign. */
int gq_parse_limit(const char *text, double *out, char *err, size_t errlen);

#endif
