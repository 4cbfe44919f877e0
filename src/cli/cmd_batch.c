/* cmd_batch.c — `gpuquad batch FILE.jsonl`: one problem per line, any option
 * of integrate or mc as a JSON key, all run in one process on one context;
 * the results as JSON Lines (or CSV, or a table) in input order. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "json_line.h"
#include "progress.h"

void usage_batch(FILE *out)
{
  fputs("Usage: gpuquad batch [OPTION]... FILE.jsonl   (- reads standard input)\n"
        "Run many integrals in one process on one device: each line of FILE is a JSON\n"
        "object holding one problem's options, e.g.\n"
        "  {\"f\": \"sin(k*x)/(1+x)\", \"b\": \"pi\", \"n\": 1e5, \"param\": {\"k\": \"1:100:1\"}}\n"
        "  {\"command\": \"mc\", \"f\": \"exp(-x1*x2)\", \"dim\": 2, \"n\": 1e6, \"seed\": 7}\n"
        "Keys: command (integrate, the default, or mc), f, dim, a, b, n, rule, precision,\n"
        "dist, seed, tol, exact, method, check (true or false), param (\"k=1\", a list\n"
        "of those, or an object {\"k\": 1}); a, b and n take a number, a string, or a\n"
        "list (one per axis).  A parameter may be a sweep (LO:HI:STEP, @FILE), and the\n"
        "limits expressions of the parameters.  One result per problem, in input order,\n"
        "each with its own check; a line that fails gives its error and the others run.\n"
        "\n"
        "  --device=DEV         auto (default), cuda, cuda:N, cpu: for every line\n"
        "  --no-cache           neither read nor write the GPU kernel cache\n"
        "  --json               JSON Lines, one object per problem (the default)\n"
        "  --csv                CSV (a header, a row per problem) instead of JSON Lines\n"
        "  --table              a table instead of JSON Lines\n"
        "  --quiet              print only the estimates, one a line (a problem that\n"
        "                       failed: nan, and why on stderr)\n",
        out);
  cli_usage_progress(out);
  fputs("  --help               this help\n"
        "\n"
        "Exit status: the worst of the problems': 0 all ok, 1 some check failed or\n"
        "was not made, 2 some line was bad input (or the file cannot be read),\n"
        "3 some computation failed.\n",
        out);
}

/* Longest line read: a problem is a few hundred bytes; a line beyond this
 * is a file that is not JSON Lines. */
#define BATCH_MAX_LINE (1u << 20)

/* A scalar member as option text: a string or a number. */
static const char *scalar(const json_value *v)
{
  return v->kind == JV_STRING || v->kind == JV_NUMBER ? v->text : NULL;
}

/* The text of a, b or n: a scalar, or a list of scalars joined by commas
 * into buf. */
static const char *list_text(const json_value *v, char *buf, size_t size)
{
  if (v->kind != JV_ARRAY)
    return scalar(v);
  size_t at = 0;
  for (size_t k = 0; k < v->count; k++) {
    const char *t = scalar(&v->items[k]);
    if (!t || at + strlen(t) + 2 > size)
      return NULL;
    at += (size_t)snprintf(buf + at, size - at, "%s%s", k ? "," : "", t);
  }
  return v->count ? buf : NULL;
}

/* "param": "k=1", ["k=1", "c=2"] or {"k": 1, "c": "1:10:1"} -> definitions,
 * those of an object written into buf. */
static int params_of(const json_value *v, batch_problem *p, char *buf, size_t size, char *err, size_t errlen)
{
  if (v->kind == JV_STRING) {
    p->params[p->nparams++] = v->text;
    return 0;
  }
  if (v->kind != JV_ARRAY && v->kind != JV_OBJECT) {
    snprintf(err, errlen, "\"param\": expected \"NAME=VALUE\", a list of those, or an object");
    return -1;
  }
  size_t at = 0;
  for (size_t k = 0; k < v->count; k++) {
    const json_value *item = &v->items[k];
    const char *t = scalar(item);
    if (!t || (v->kind == JV_ARRAY && item->kind != JV_STRING)) {
      snprintf(err, errlen, "\"param\": item %zu is not %s", k + 1, v->kind == JV_ARRAY ? "a string" :
               "a number or a string");
      return -1;
    }
    if (p->nparams >= CLI_MAX_PARAMS) {
      snprintf(err, errlen, "\"param\": more than %d parameters", CLI_MAX_PARAMS);
      return -1;
    }
    if (v->kind == JV_ARRAY) {
      p->params[p->nparams++] = t;
      continue;
    }
    const int len = snprintf(buf + at, at < size ? size - at : 0, "%s=%s", item->key, t);
    if (len < 0 || at + (size_t)len + 1 > size) {
      snprintf(err, errlen, "\"param\": too long");
      return -1;
    }
    p->params[p->nparams++] = buf + at;
    at += (size_t)len + 1;
  }
  return 0;
}

/* One line's object -> a problem; -1 with the reason for an unknown key or
 * a value of the wrong kind. */
static int problem_of(const json_line *j, batch_problem *p, char lists[3][1024], char *params, size_t params_size,
                      char *err, size_t errlen)
{
  batch_problem_init(p, BATCH_INTEGRATE);
  for (size_t k = 0; k < j->count; k++) {
    const json_value *v = &j->members[k];
    const char *key = v->key;
    if (strcmp(key, "command") == 0) {
      const char *c = scalar(v);
      if (!c || (strcmp(c, "integrate") != 0 && strcmp(c, "mc") != 0)) {
        snprintf(err, errlen, "\"command\": expected \"integrate\" or \"mc\"");
        return -1;
      }
      p->command = strcmp(c, "mc") == 0 ? BATCH_MC : BATCH_INTEGRATE;
    } else if (strcmp(key, "check") == 0) {
      if (v->kind != JV_TRUE && v->kind != JV_FALSE) {
        snprintf(err, errlen, "\"check\": expected true or false");
        return -1;
      }
      p->check = v->kind == JV_TRUE;
    } else if (strcmp(key, "param") == 0) {
      if (params_of(v, p, params, params_size, err, errlen) != 0)
        return -1;
    } else {
      static const char *const names[] = {"a", "b", "n", "f", "dim", "rule", "precision", "dist", "seed", "tol",
                                          "exact", "method"};
      const char **slot[] = {&p->a, &p->b, &p->n, &p->f, &p->dim, &p->rule, &p->precision, &p->dist, &p->seed,
                             &p->tol, &p->exact, &p->method};
      size_t i = 0;
      while (i < sizeof names / sizeof names[0] && strcmp(key, names[i]) != 0)
        i++;
      if (i == sizeof names / sizeof names[0]) {
        snprintf(err, errlen, "unknown key \"%.60s\" (gpuquad batch --help lists them)", key);
        return -1;
      }
      *slot[i] = i < 3 ? list_text(v, lists[i], sizeof lists[i]) : scalar(v);
      if (!*slot[i]) {
        snprintf(err, errlen, "\"%s\": expected a string or a number%s", key, i < 3 ? ", or a list of those" : "");
        return -1;
      }
    }
  }
  const int mc_only = p->dist || p->seed || p->tol || p->exact || p->method;
  if (p->command == BATCH_INTEGRATE && mc_only) {
    snprintf(err, errlen, "\"%s\" is an option of mc (add \"command\": \"mc\")",
             p->dist ? "dist" : p->seed ? "seed" : p->tol ? "tol" : p->exact ? "exact" : "method");
    return -1;
  }
  if (p->command == BATCH_MC && p->rule) {
    snprintf(err, errlen, "\"rule\" is an option of integrate, not mc");
    return -1;
  }
  return 0;
}

static void run_line(gq_context *ctx, const char *text, size_t line, batch_writer *w)
{
  json_line j;
  batch_problem p;
  char err[256], why[300], lists[3][1024], params[4096];
  if (json_line_parse(text, &j, err, sizeof err) != 0) {
    snprintf(why, sizeof why, "not a JSON object: %s", err);
    batch_write_error(w, line, why);
  } else if (problem_of(&j, &p, lists, params, sizeof params, err, sizeof err) != 0) {
    batch_write_error(w, line, err);
  } else {
    batch_run(ctx, &p, line, w);
  }
  json_line_free(&j);
}

int cmd_batch(int argc, char **argv, int first, double t_start_ms)
{
  (void)t_start_ms;
  const char *device = "auto", *positional[1];
  int help = 0, json = 0, csv = 0, table = 0, quiet = 0, no_cache = 0, npos = 0;
  const cli_option opts[] = {
    {"device", OPT_VALUE, &device, NULL, 0},
    {"no-cache", OPT_FLAG, NULL, &no_cache, 1},
    {"json", OPT_FLAG, NULL, &json, 1},
    {"csv", OPT_FLAG, NULL, &csv, 1},
    {"table", OPT_FLAG, NULL, &table, 1},
    CLI_OPT_PROGRESS,
    {"quiet", OPT_FLAG, NULL, &quiet, 1},
    {"help", OPT_FLAG, NULL, &help, 1},
  };
  char err[256];
  const int parse_rc = cli_parse(argc, argv, first, opts, sizeof opts / sizeof opts[0], positional, 1, &npos, err, sizeof err);
  if (parse_rc != 0)
    return parse_rc < 0 ? cli_error(EXIT_USAGE, "%s", err) : EXIT_OK;
  if (help) {
    usage_batch(stdout);
    return EXIT_OK;
  }
  if (npos != 1)
    return cli_error(EXIT_USAGE, "batch: give one FILE.jsonl, or - for standard input (see 'gpuquad help batch')");
  if (json + csv + table + quiet > 1)
    return cli_error(EXIT_USAGE, "--json, --csv, --table, --quiet: choose one");
  const int from_stdin = strcmp(positional[0], "-") == 0;
  FILE *in = from_stdin ? stdin : fopen(positional[0], "r");
  if (!in)
    return cli_error(EXIT_USAGE, "batch: %s: %s", positional[0], strerror(errno));
  gq_context *ctx;
  int rc = cli_open_context(device, !table, &ctx);
  if (rc != EXIT_OK) {
    if (!from_stdin)
      fclose(in);
    return rc;
  }
  if (no_cache)
    gq_context_set_jit_cache(ctx, 0);
  batch_writer w;
  batch_writer_open(&w, stdout, csv ? BATCH_CSV : table ? BATCH_TABLE : quiet ? BATCH_QUIET : BATCH_JSONL, NULL);
  char *text = NULL;
  size_t cap = 0, line = 0;
  ssize_t len;
  errno = 0;
  while ((len = getline(&text, &cap, in)) >= 0) {
    line++;
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
      text[--len] = '\0';
    if (text[strspn(text, " \t")] == '\0')
      continue; /* blank lines separate, as JSON Lines readers allow */
    if ((size_t)len > BATCH_MAX_LINE)
      batch_write_error(&w, line, "the line is longer than 1 MiB");
    else if (strlen(text) != (size_t)len)
      batch_write_error(&w, line, "the line holds a NUL byte");
    else
      run_line(ctx, text, line, &w);
    if (cli_flush_stdout() != 0)
      break;
  }
  const int read_failed = ferror(in);
  free(text);
  if (!from_stdin)
    fclose(in);
  rc = batch_writer_close(&w);
  gq_context_free(ctx);
  if (read_failed) {
    cli_error(EXIT_USAGE, "batch: %s: read error", positional[0]);
    rc = rc > EXIT_USAGE ? rc : EXIT_USAGE;
  }
  return rc;
}
