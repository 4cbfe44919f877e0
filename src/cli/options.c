/* options.c — one option parser for every command: its table handed to
 * getopt_long, whose messages are silenced (opterr = 0) for the project's
 * one-line ones. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

int cli_list_options;

/* getopt_long's value for table entry k: above every short option's. */
enum { LONG_BASE = 256 };

typedef struct {
  struct option *longopts;
  /* "-": operands come back where they stand (code 1), so argv is never
   * permuted and the order of operands is kept, whatever POSIXLY_CORRECT
   * says; ":": a missing value is told apart from an unknown option. */
  char shortopts[8];
  int help, version; /* the table entries of -h and -V, or -1 */
} getopt_table;

static int table_open(getopt_table *t, const cli_option *opts, size_t nopts)
{
  t->longopts = calloc(nopts + 1, sizeof *t->longopts);
  if (!t->longopts)
    return -1;
  t->help = t->version = -1;
  for (size_t k = 0; k < nopts; k++) {
    t->longopts[k].name = opts[k].name;
    t->longopts[k].has_arg = opts[k].kind == OPT_FLAG ? no_argument : required_argument;
    t->longopts[k].val = LONG_BASE + (int)k;
    if (opts[k].kind == OPT_FLAG && strcmp(opts[k].name, "help") == 0)
      t->help = (int)k;
    if (opts[k].kind == OPT_FLAG && strcmp(opts[k].name, "version") == 0)
      t->version = (int)k;
  }
  snprintf(t->shortopts, sizeof t->shortopts, "-:%s%s", t->help >= 0 ? "h" : "", t->version >= 0 ? "V" : "");
  return 0;
}

/* What a step of the walk found. */
enum { STEP_END = -1, STEP_OPERAND = -2, STEP_BAD = -3 };

/* The words argv[first..] as getopt_long reads them, one step at a time;
 * argv[first - 1] (the command word, or the program) stands in for argv[0]. */
typedef struct {
  int argc;
  char **argv;
  getopt_table t;
  int dashes; /* after "--": the index of the next operand */
} walk;

static int walk_open(walk *w, int argc, char **argv, int first, const cli_option *opts, size_t nopts)
{
  w->argc = argc - first + 1;
  w->argv = argv + first - 1;
  w->dashes = 0;
  opterr = 0;
  optind = 0; /* 0, not 1: getopt starts afresh (glibc, musl), as every parse must */
  return table_open(&w->t, opts, nopts);
}

/* The next step: a table index (>= 0) with *value its value (NULL for a
 * flag), STEP_OPERAND with *value the word, STEP_END, or STEP_BAD with code
 * the character getopt_long returned ('?' or ':'). */
static int walk_step(walk *w, const char **value, int *code)
{
  *value = NULL;
  if (w->dashes) {
    if (w->dashes >= w->argc)
      return STEP_END;
    *value = w->argv[w->dashes++];
    return STEP_OPERAND;
  }
  optopt = 0;
  const int c = getopt_long(w->argc, w->argv, w->t.shortopts, w->t.longopts, NULL);
  if (c == -1) {
    if (optind < w->argc) { /* "--": the rest are operands */
      w->dashes = optind;
      return walk_step(w, value, code);
    }
    return STEP_END;
  }
  if (c == 1) {
    *value = optarg;
    return STEP_OPERAND;
  }
  if (c == 'h')
    return w->t.help;
  if (c == 'V')
    return w->t.version;
  if (c >= LONG_BASE) {
    *value = optarg;
    return c - LONG_BASE;
  }
  *code = c;
  return STEP_BAD;
}

/* The long option getopt_long has just refused (the word before optind), or
 * NULL: a short one is in optopt. */
static const char *refused_word(const walk *w)
{
  const char *word = optind > 0 && optind <= w->argc ? w->argv[optind - 1] : NULL;
  return word && strncmp(word, "--", 2) == 0 ? word : NULL;
}

/* " 'gpuquad help mc')": where the command's options are listed. */
static void see_help(char *buf, size_t len, int argc, char **argv, int first)
{
  if (first >= 2 && first - 1 < argc)
    snprintf(buf, len, " 'gpuquad help %s')", argv[1]);
  else
    snprintf(buf, len, " 'gpuquad --help')");
}

/* The message for what getopt_long refused (code '?' or ':'). */
static void refusal(const walk *w, int code, const cli_option *opts, size_t nopts, char *err, size_t errlen)
{
  const char *word = refused_word(w);
  if (code == ':' && optopt >= LONG_BASE) {
    snprintf(err, errlen, "option '--%s' needs a value", opts[optopt - LONG_BASE].name);
    return;
  }
  if (optopt >= LONG_BASE) { /* a flag given a value */
    snprintf(err, errlen, "option '--%s' takes no value", opts[optopt - LONG_BASE].name);
    return;
  }
  if (optopt || !word) {
    const char *shorts = w->t.version >= 0 ? "; -h and -V are short for --help and --version"
                         : w->t.help >= 0  ? "; -h is short for --help"
                                           : "";
    snprintf(err, errlen, "unknown option '-%c' (options are spelled --name=value%s)", optopt ? optopt : '?',
             shorts);
    return;
  }
  const char *name = word + 2, *eq = strchr(name, '=');
  const size_t len = eq ? (size_t)(eq - name) : strlen(name);
  /* an exact name would have been taken: several prefixes, or none ("--=5":
   * the empty name, which getopt_long takes for a prefix of every one) */
  size_t used = 0;
  int matches = 0;
  char names[160] = "";
  for (size_t k = 0; k < nopts && len > 0; k++)
    if (strncmp(opts[k].name, name, len) == 0) {
      char *at = used < sizeof names ? names + used : NULL;
      const int n = snprintf(at, at ? sizeof names - used : 0, "%s--%s", matches++ ? ", " : "", opts[k].name);
      used += n > 0 ? (size_t)n : 0;
    }
  if (used >= sizeof names)
    strcpy(names + sizeof names - 4, "...");
  if (matches > 1)
    snprintf(err, errlen, "option '--%.*s' is ambiguous: %s", (int)len, name, names);
  else
    snprintf(err, errlen, "unknown option '--%.*s'", (int)len, name);
}

/* The table, for completion: "--name" for a flag, "--name=" for a value. */
static void list_table(const cli_option *opts, size_t nopts)
{
  for (size_t k = 0; k < nopts; k++)
    printf("--%s%s\n", opts[k].name, opts[k].kind == OPT_FLAG ? "" : "=");
}

/* Prefix err with "COMMAND: " and end it with where the help is, inside
 * the message's own parenthesis when it ends with one. */
static void frame_message(char *err, size_t errlen, int argc, char **argv, int first)
{
  char body[512], see[128];
  snprintf(body, sizeof body, "%s", err);
  see_help(see, sizeof see, argc, argv, first);
  const size_t len = strlen(body);
  const int aside = len > 0 && body[len - 1] == ')';
  if (aside)
    body[len - 1] = '\0';
  snprintf(err, errlen, "%s%s%s%s%s", first >= 2 ? argv[1] : "", first >= 2 ? ": " : "", body,
           aside ? "; see" : " (see", see);
}

int cli_parse(int argc, char **argv, int first, const cli_option *opts, size_t nopts,
              const char **positional, int max_positional, int *npositional,
              char *err, size_t errlen)
{
  if (cli_list_options) {
    list_table(opts, nopts);
    return 1;
  }
  walk w;
  if (walk_open(&w, argc, argv, first, opts, nopts) != 0) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  int npos = 0, failed = 0, step, code = 0;
  const char *value;
  while (!failed && (step = walk_step(&w, &value, &code)) != STEP_END) {
    if (step == STEP_BAD) {
      refusal(&w, code, opts, nopts, err, errlen);
      failed = 1;
    } else if (step == STEP_OPERAND) {
      if (npos >= max_positional) {
        snprintf(err, errlen, "unexpected argument '%s'", value);
        failed = 1;
      } else {
        positional[npos++] = value;
      }
    } else {
      const cli_option *o = &opts[step];
      if (o->kind == OPT_FLAG) {
        *o->flag = o->set_to;
      } else if (o->kind == OPT_VALUE) {
        *o->value = value;
      } else if (*o->flag < o->set_to) {
        o->value[(*o->flag)++] = value;
      } else {
        snprintf(err, errlen, "option '--%s' given more than %d times", o->name, o->set_to);
        failed = 1;
      }
    }
  }
  free(w.t.longopts);
  if (failed) {
    frame_message(err, errlen, argc, argv, first);
    return -1;
  }
  if (npositional)
    *npositional = npos;
  return 0;
}

int cli_peek(int argc, char **argv, int first, const cli_option *opts, size_t nopts,
             const char *name, const char **value)
{
  walk w;
  if (first >= argc || walk_open(&w, argc, argv, first, opts, nopts) != 0)
    return 0;
  int count = 0, step, code;
  const char *v;
  while ((step = walk_step(&w, &v, &code)) != STEP_END) {
    if (step == STEP_BAD) {
      const char *word = refused_word(&w);
      /* an option of another table may have its value in the next word */
      if (code == '?' && word && !strchr(word, '=') && optopt < LONG_BASE && optind < w.argc &&
          w.argv[optind][0] != '-')
        optind++;
      continue;
    }
    const int match = step == STEP_OPERAND ? name == NULL : name && strcmp(opts[step].name, name) == 0;
    if (match) {
      count++;
      if (value)
        *value = v;
    }
  }
  free(w.t.longopts);
  return count;
}
