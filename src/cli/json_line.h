/* json_line.h — a small reader for one line of JSON Lines: an object whose
 * members are strings, numbers, true, false, null, or one level of arrays
 * and objects of those (`gpuquad batch`).  No dependency; strings are
 * decoded (escapes, \uXXXX with surrogate pairs, into UTF-8); numbers keep
 * their text, for the command line's own number grammar. */
#ifndef GQ_CLI_JSON_LINE_H
#define GQ_CLI_JSON_LINE_H

#include <stddef.h>

typedef enum { JV_STRING, JV_NUMBER, JV_TRUE, JV_FALSE, JV_NULL, JV_ARRAY, JV_OBJECT } json_kind;

#define JSON_LINE_MAX_MEMBERS 64

typedef struct json_value {
  json_kind kind;
  const char *text;           /* JV_STRING (decoded), JV_NUMBER (as written) */
  const char *key;            /* inside a JV_OBJECT: the member's key        */
  struct json_value *items;   /* JV_ARRAY, JV_OBJECT                         */
  size_t count;
} json_value;

typedef struct {
  json_value members[JSON_LINE_MAX_MEMBERS]; /* key in .key                 */
  size_t count;
  json_value items[JSON_LINE_MAX_MEMBERS * 4]; /* what arrays point into   */
  size_t nitems;
  char *arena;                /* decoded strings                             */
} json_line;

/* Parse line (NUL-terminated, no new line) into j: 0, or -1 with the reason
 * and its column in err ("column 12: expected ':'").  Free with
 * json_line_free in either case. */
int json_line_parse(const char *line, json_line *j, char *err, size_t errlen);
void json_line_free(json_line *j);

/* The member of that key, or NULL. */
const json_value *json_line_get(const json_line *j, const char *key);

#endif
