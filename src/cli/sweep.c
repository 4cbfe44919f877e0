/* sweep.c — parameter sweeps: the axes of `--param NAME=LO:HI:STEP`,
 * `NAME=@FILE` and `NAME=VALUE`, and their product. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numparse.h"
#include "sweep.h"

int sweep_wanted(const char *const *params, int count)
{
  for (int k = 0; k < count; k++) {
    const char *eq = strchr(params[k], '=');
    if (eq && (strchr(eq + 1, ':') || eq[1 + strspn(eq + 1, " \t")] == '@'))
      return 1;
  }
  return 0;
}

void sweep_free(sweep *s)
{
  for (int k = 0; k < s->naxes; k++)
    free(s->axis[k].values);
  s->naxes = 0;
  s->problems = 0;
}

static int append(sweep_axis *ax, size_t *cap, double v)
{
  if (ax->count == *cap) {
    const size_t grown = *cap ? 2 * *cap : 64;
    double *more = realloc(ax->values, grown * sizeof *more);
    if (!more)
      return -1;
    ax->values = more;
    *cap = grown;
  }
  ax->values[ax->count++] = v;
  return 0;
}

/* LO:HI:STEP -> LO, LO + STEP, ... up to HI: the count is rounded to the
 * nearest whole number when (HI - LO)/STEP is within 1e-9 of one, so that
 * 0:0.3:0.1 has its 4 values, and the last value is then HI itself. */
static int parse_range(sweep_axis *ax, const char *text, char *err, size_t errlen)
{
  char part[3][CLI_TOKEN], why[128];
  double v[3];
  const char *p = text;
  for (int i = 0; i < 3; i++) {
    const size_t len = strcspn(p, ":");
    if ((i < 2 && p[len] != ':') || (i == 2 && p[len] != '\0') || len >= CLI_TOKEN) {
      snprintf(err, errlen, "'%s' is not LO:HI:STEP", text);
      return EXIT_USAGE;
    }
    memcpy(part[i], p, len);
    part[i][len] = '\0';
    if (gq_parse_real(part[i], &v[i], why, sizeof why) != 0) {
      snprintf(err, errlen, "'%.60s': %s '%.60s' %.60s", text, i == 0 ? "LO" : i == 1 ? "HI" : "STEP", part[i], why);
      return EXIT_USAGE;
    }
    p += len + 1;
  }
  const double lo = v[0], hi = v[1], step = v[2];
  if (step == 0.0) {
    snprintf(err, errlen, "'%s': STEP must not be 0", text);
    return EXIT_USAGE;
  }
  const double steps = (hi - lo) / step;
  if (!isfinite(steps) || steps < -1e-9) {
    snprintf(err, errlen, "'%s': STEP %s moves away from HI (give a %s step)", text, part[2],
             step > 0 ? "negative" : "positive");
    return EXIT_USAGE;
  }
  const double nearest = nearbyint(steps);
  const double whole = fabs(steps - nearest) <= 1e-9 * fmax(1.0, nearest) ? nearest : floor(steps);
  if (whole + 1.0 > (double)SWEEP_MAX_PROBLEMS) {
    snprintf(err, errlen, "'%s' is %.4g values; a sweep holds at most %u problems", text, whole + 1.0,
             SWEEP_MAX_PROBLEMS);
    return EXIT_USAGE;
  }
  ax->count = (size_t)whole + 1;
  ax->values = malloc(ax->count * sizeof *ax->values);
  if (!ax->values) {
    snprintf(err, errlen, "out of memory");
    return EXIT_RUNTIME;
  }
  for (size_t i = 0; i < ax->count; i++)
    ax->values[i] = lo + (double)i * step;
  if (whole == nearest && ax->count > 1)
    ax->values[ax->count - 1] = hi;
  return EXIT_OK;
}

/* @FILE: reals separated by spaces, commas or new lines; '#' starts a
 * comment that runs to the end of its line. */
static int parse_file(sweep_axis *ax, const char *path, char *err, size_t errlen)
{
  FILE *in = fopen(path, "r");
  if (!in) {
    snprintf(err, errlen, "@%s: %s", path, strerror(errno));
    return EXIT_USAGE;
  }
  size_t cap = 0, line = 1;
  char word[CLI_TOKEN], why[128];
  int rc = EXIT_OK, c;
  size_t len = 0;
  do {
    c = getc(in);
    if (c == '#')
      while (c != EOF && c != '\n')
        c = getc(in);
    if (c == EOF || c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == ',') {
      if (len > 0) {
        word[len] = '\0';
        double v;
        if (gq_parse_real(word, &v, why, sizeof why) != 0) {
          snprintf(err, errlen, "@%.60s:%zu: '%.40s' %.60s", path, line, word, why);
          rc = EXIT_USAGE;
        } else if (ax->count >= SWEEP_MAX_PROBLEMS) {
          snprintf(err, errlen, "@%s: more than %u values", path, SWEEP_MAX_PROBLEMS);
          rc = EXIT_USAGE;
        } else if (append(ax, &cap, v) != 0) {
          snprintf(err, errlen, "out of memory");
          rc = EXIT_RUNTIME;
        }
        len = 0;
      }
      line += c == '\n';
    } else if (len + 1 < sizeof word) {
      word[len++] = (char)c;
    } else {
      snprintf(err, errlen, "@%s:%zu: a value longer than %d characters", path, line, CLI_TOKEN - 1);
      rc = EXIT_USAGE;
    }
  } while (c != EOF && rc == EXIT_OK);
  if (rc == EXIT_OK && ferror(in)) {
    snprintf(err, errlen, "@%s: read error", path);
    rc = EXIT_USAGE;
  }
  fclose(in);
  if (rc == EXIT_OK && ax->count == 0) {
    snprintf(err, errlen, "@%s holds no value", path);
    rc = EXIT_USAGE;
  }
  return rc;
}

int sweep_parse(sweep *s, const char *const *params, int count, char *err, size_t errlen)
{
  memset(s, 0, sizeof *s);
  s->problems = 1;
  if (count > CLI_MAX_PARAMS) {
    snprintf(err, errlen, "more than %d parameters", CLI_MAX_PARAMS);
    return EXIT_USAGE;
  }
  for (int k = 0; k < count; k++) {
    const char *def = params[k], *eq = strchr(def, '=');
    sweep_axis *ax = &s->axis[k];
    s->naxes = k + 1;
    if (!eq || eq == def || (size_t)(eq - def) >= sizeof ax->name) {
      snprintf(err, errlen, "--param %s: expected NAME=VALUE, NAME=LO:HI:STEP or NAME=@FILE", def);
      sweep_free(s);
      return EXIT_USAGE;
    }
    memcpy(ax->name, def, (size_t)(eq - def));
    ax->name[eq - def] = '\0';
    for (int j = 0; j < k; j++)
      if (strcmp(s->axis[j].name, ax->name) == 0) {
        snprintf(err, errlen, "--param %s: parameter '%s' is defined twice", def, ax->name);
        sweep_free(s);
        return EXIT_USAGE;
      }
    const char *value = eq + 1 + strspn(eq + 1, " \t");
    char why[200];
    int rc;
    if (value[0] == '@') {
      rc = parse_file(ax, value + 1, why, sizeof why);
    } else if (strchr(value, ':')) {
      rc = parse_range(ax, value, why, sizeof why);
    } else {
      double v;
      rc = gq_parse_real(value, &v, why, sizeof why) != 0 ? EXIT_USAGE : EXIT_OK;
      if (rc != EXIT_OK) {
        char reason[128];
        snprintf(reason, sizeof reason, "%.100s", why);
        snprintf(why, sizeof why, "'%.60s' %.100s", value, reason);
      } else if (!(ax->values = malloc(sizeof *ax->values))) {
        snprintf(why, sizeof why, "out of memory");
        rc = EXIT_RUNTIME;
      } else {
        ax->values[0] = v;
        ax->count = 1;
      }
    }
    if (rc != EXIT_OK) {
      snprintf(err, errlen, "--param %s: %s", def, why);
      sweep_free(s);
      return rc;
    }
    if ((double)s->problems * (double)ax->count > (double)SWEEP_MAX_PROBLEMS) {
      snprintf(err, errlen, "--param %s: the sweep would be %.4g problems; at most %u", def,
               (double)s->problems * (double)ax->count, SWEEP_MAX_PROBLEMS);
      sweep_free(s);
      return EXIT_USAGE;
    }
    s->problems *= ax->count;
  }
  return EXIT_OK;
}

void sweep_values(const sweep *s, size_t index, double *values)
{
  for (int k = s->naxes - 1; k >= 0; k--) {
    values[k] = s->axis[k].values[index % s->axis[k].count];
    index /= s->axis[k].count;
  }
}

void sweep_definition(const sweep *s, int k, double v, char *buf, size_t size)
{
  if (v == floor(v) && fabs(v) < 1e15) { /* a whole number as one: 500, not 5e+02 */
    snprintf(buf, size, "%s=%.0f", s->axis[k].name, v);
    return;
  }
  for (int digits = 1; digits <= 17; digits++) {
    snprintf(buf, size, "%s=%.*g", s->axis[k].name, digits, v);
    if (strtod(strchr(buf, '=') + 1, NULL) == v)
      return;
  }
}
