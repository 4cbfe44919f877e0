/* study.h — `gpuquad integrate --study` (issue 24): each rule's error
 * against n on one integral, with the order it shows; --plot draws it on
 * log axes beside each rule's expected slope. */
#ifndef GQ_CLI_STUDY_H
#define GQ_CLI_STUDY_H

#include "cli.h"

/* f on [a, b] (1-D): the rules of rule_text (NULL: trapezoid, simpson,
 * boole, gauss-legendre:4) at n = 4, 8, ... up to n_max, each against the
 * reference; a table, or JSON Lines with json; the figure into plot when not
 * NULL (checked by the caller).  An exit status. */
int integrate_study(gq_context *ctx, const gq_integrand *f, double a, double b, uint64_t n_max,
                    const char *rule_text, gq_precision precision, int json, const char *plot);

#endif
