/* json_line.c — one JSON object per line (RFC 8259), nested one level. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_line.h"

typedef struct {
  const char *s;
  size_t at;
  json_line *j;
  char *out; /* next free byte of the arena */
  char *err;
  size_t errlen;
} reader;

static int fail(reader *r, const char *fmt, ...)
{
  char why[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  snprintf(r->err, r->errlen, "column %zu: %s", r->at + 1, why);
  return -1;
}

static void skip_space(reader *r)
{
  while (r->s[r->at] == ' ' || r->s[r->at] == '\t' || r->s[r->at] == '\r')
    r->at++;
}

static int hex4(reader *r, unsigned *v)
{
  *v = 0;
  for (int k = 0; k < 4; k++) {
    const char c = r->s[r->at++];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0)
      return fail(r, "bad \\u escape");
    *v = *v * 16 + (unsigned)d;
  }
  return 0;
}

static void put_utf8(reader *r, unsigned cp)
{
  if (cp < 0x80) {
    *r->out++ = (char)cp;
  } else if (cp < 0x800) {
    *r->out++ = (char)(0xC0 | cp >> 6);
    *r->out++ = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *r->out++ = (char)(0xE0 | cp >> 12);
    *r->out++ = (char)(0x80 | (cp >> 6 & 0x3F));
    *r->out++ = (char)(0x80 | (cp & 0x3F));
  } else {
    *r->out++ = (char)(0xF0 | cp >> 18);
    *r->out++ = (char)(0x80 | (cp >> 12 & 0x3F));
    *r->out++ = (char)(0x80 | (cp >> 6 & 0x3F));
    *r->out++ = (char)(0x80 | (cp & 0x3F));
  }
}

/* A string at r->at (the opening quote), decoded into the arena: no decoded
 * string is longer than its source, so the arena never overflows. */
static int string(reader *r, const char **out)
{
  r->at++;
  *out = r->out;
  for (;;) {
    const unsigned char c = (unsigned char)r->s[r->at];
    if (c == '"') {
      r->at++;
      *r->out++ = '\0';
      return 0;
    }
    if (c == '\0')
      return fail(r, "unterminated string");
    if (c < 0x20)
      return fail(r, "control character in a string");
    r->at++;
    if (c != '\\') {
      *r->out++ = (char)c;
      continue;
    }
    const char e = r->s[r->at++];
    const char *simple = strchr("\"\\/bfnrt", e);
    if (e && simple) {
      static const char decoded[] = "\"\\/\b\f\n\r\t";
      *r->out++ = decoded[simple - "\"\\/bfnrt"];
      continue;
    }
    if (e != 'u')
      return fail(r, "bad escape '\\%c'", e ? e : '0');
    unsigned cp;
    if (hex4(r, &cp) != 0)
      return -1;
    if (cp >= 0xD800 && cp < 0xDC00) {
      unsigned lo;
      if (r->s[r->at] != '\\' || r->s[r->at + 1] != 'u')
        return fail(r, "a lone surrogate");
      r->at += 2;
      if (hex4(r, &lo) != 0)
        return -1;
      if (lo < 0xDC00 || lo > 0xDFFF)
        return fail(r, "a lone surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    } else if (cp >= 0xDC00 && cp < 0xE000) {
      return fail(r, "a lone surrogate");
    }
    if (cp == 0)
      return fail(r, "\\u0000 in a string");
    put_utf8(r, cp);
  }
}

/* RFC 8259's number grammar; the text is kept as written. */
static int number(reader *r, const char **out)
{
  const size_t start = r->at;
  const char *s = r->s;
  if (s[r->at] == '-')
    r->at++;
  if (s[r->at] == '0')
    r->at++;
  else if (s[r->at] >= '1' && s[r->at] <= '9')
    while (s[r->at] >= '0' && s[r->at] <= '9')
      r->at++;
  else
    return fail(r, "bad number");
  if (s[r->at] == '.') {
    r->at++;
    if (!(s[r->at] >= '0' && s[r->at] <= '9'))
      return fail(r, "bad number");
    while (s[r->at] >= '0' && s[r->at] <= '9')
      r->at++;
  }
  if (s[r->at] == 'e' || s[r->at] == 'E') {
    r->at++;
    if (s[r->at] == '+' || s[r->at] == '-')
      r->at++;
    if (!(s[r->at] >= '0' && s[r->at] <= '9'))
      return fail(r, "bad number");
    while (s[r->at] >= '0' && s[r->at] <= '9')
      r->at++;
  }
  *out = r->out;
  memcpy(r->out, s + start, r->at - start);
  r->out += r->at - start;
  *r->out++ = '\0';
  return 0;
}

static int value(reader *r, json_value *v, int depth);

/* The members of an object or the items of an array, after its opening
 * bracket; object members carry their key.  They are gathered here, then
 * copied to the pool in one run: a nested container takes its own items
 * from the pool while its parent is still being read. */
static int container(reader *r, json_value *v, int object, int depth)
{
  const char close = object ? '}' : ']';
  json_value local[JSON_LINE_MAX_MEMBERS];
  size_t count = 0;
  v->kind = object ? JV_OBJECT : JV_ARRAY;
  r->at++;
  skip_space(r);
  if (r->s[r->at] != close)
    for (;;) {
      if (count >= JSON_LINE_MAX_MEMBERS)
        return fail(r, "more than %d values in one object or array", JSON_LINE_MAX_MEMBERS);
      json_value *item = &local[count];
      memset(item, 0, sizeof *item);
      skip_space(r);
      if (object) {
        if (r->s[r->at] != '"')
          return fail(r, "expected a key");
        if (string(r, &item->key) != 0)
          return -1;
        skip_space(r);
        if (r->s[r->at] != ':')
          return fail(r, "expected ':'");
        r->at++;
      }
      if (value(r, item, depth + 1) != 0)
        return -1;
      count++;
      skip_space(r);
      if (r->s[r->at] == close)
        break;
      if (r->s[r->at] != ',')
        return fail(r, "expected ',' or '%c'", close);
      r->at++;
    }
  r->at++;
  if (r->j->nitems + count > sizeof r->j->items / sizeof r->j->items[0])
    return fail(r, "too many values in one line");
  v->items = &r->j->items[r->j->nitems];
  v->count = count;
  memcpy(v->items, local, count * sizeof *local);
  r->j->nitems += count;
  return 0;
}

static int value(reader *r, json_value *v, int depth)
{
  skip_space(r);
  const char c = r->s[r->at];
  if (c == '"') {
    v->kind = JV_STRING;
    return string(r, &v->text);
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    v->kind = JV_NUMBER;
    return number(r, &v->text);
  }
  static const struct { const char *word; json_kind kind; } words[] = {
    {"true", JV_TRUE}, {"false", JV_FALSE}, {"null", JV_NULL}};
  for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
    if (strncmp(r->s + r->at, words[k].word, strlen(words[k].word)) == 0) {
      r->at += strlen(words[k].word);
      v->kind = words[k].kind;
      return 0;
    }
  if (c == '[' || c == '{') {
    if (depth >= 2)
      return fail(r, "nested too deeply (a member may be an array or object of plain values)");
    return container(r, v, c == '{', depth);
  }
  return c ? fail(r, "unexpected '%c'", c) : fail(r, "unexpected end of line");
}

int json_line_parse(const char *line, json_line *j, char *err, size_t errlen)
{
  memset(j, 0, offsetof(json_line, items));
  j->nitems = 0;
  j->arena = malloc(strlen(line) + 1);
  reader r = {line, 0, j, j->arena, err, errlen};
  if (!j->arena) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  skip_space(&r);
  if (line[r.at] != '{')
    return fail(&r, "expected a JSON object '{...}'");
  json_value top;
  if (container(&r, &top, 1, 0) != 0)
    return -1;
  skip_space(&r);
  if (line[r.at] != '\0')
    return fail(&r, "text after the object");
  for (size_t k = 0; k < top.count; k++) {
    for (size_t i = 0; i < k; i++)
      if (strcmp(top.items[i].key, top.items[k].key) == 0) {
        snprintf(err, errlen, "key '%s' given twice", top.items[k].key);
        return -1;
      }
    j->members[k] = top.items[k];
  }
  j->count = top.count;
  return 0;
}

void json_line_free(json_line *j)
{
  free(j->arena);
  j->arena = NULL;
}

const json_value *json_line_get(const json_line *j, const char *key)
{
  for (size_t k = 0; k < j->count; k++)
    if (strcmp(j->members[k].key, key) == 0)
      return &j->members[k];
  return NULL;
}
