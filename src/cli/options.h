/* options.h — the command line of every gpuquad command, read by one parser
 * (getopt_long, so GNU's conventions hold everywhere) from a table per
 * command. */
#ifndef GQ_CLI_OPTIONS_H
#define GQ_CLI_OPTIONS_H

#include <stddef.h>

typedef enum { OPT_FLAG, OPT_VALUE, OPT_LIST } cli_opt_kind;

typedef struct {
  const char *name;    /* without the leading "--"                          */
  cli_opt_kind kind;
  const char **value;  /* OPT_VALUE: where the text goes (last one wins);
                          OPT_LIST: an array of max_items, filled in order  */
  int *flag;           /* OPT_FLAG: set to set_to; OPT_LIST: the count      */
  int set_to;          /* OPT_LIST: max_items                               */
} cli_option;

/* Parse argv[first..argc-1] against opts: --name=value and --name value,
 * --flag, any unambiguous prefix of a name (--dev=cpu), -h for "help" and -V
 * for "version" where the table has them, "--" ending the options, operands
 * anywhere among the options (kept in their order).  A value may begin with
 * '-' (--a -1).  Returns 0; 1 when the words are answered already (under
 * --list-options: the table printed), so the command ends with status 0; or
 * -1 with a one-line message in err, which names the help of the command. */
int cli_parse(int argc, char **argv, int first, const cli_option *opts, size_t nopts,
              const char **positional, int max_positional, int *npositional,
              char *err, size_t errlen);

/* How a command that hands its words on to another reads them first, by the
 * same rules: the number of times option NAME (a name of the table) is given,
 * *value its last value when value is not NULL; NAME NULL: the number of
 * operands.  Nothing is printed or set.  Words the table does not know are
 * passed over, an unknown --name without '=' with the word after it unless
 * that begins with '-' (it may be the value of another command's option). */
int cli_peek(int argc, char **argv, int first, const cli_option *opts, size_t nopts,
             const char *name, const char **value);

/* Set by the hidden `gpuquad --list-options COMMAND` (bash completion reads
 * it): cli_parse prints the command's options, one a line, "--name" for a
 * flag and "--name=" for an option with a value, and returns 1. */
extern int cli_list_options;

#endif
