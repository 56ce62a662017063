/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* json_read.c -- the one JSON reader of the CLI (json_read.h). */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_read.h"

typedef struct jparse {
  const char *s, *path;
  size_t len, pos;
  size_t values;  /* parsed so far (SP_JSON_MAX_VALUES) */
  char err[1280]; /* the escaped name and the reason */
} jparse;

void sp_json_free(sp_json *v) {
  if (!v) return;
  free(v->str);
  for (size_t i = 0; i < v->n; i++) {
    sp_json_free(&v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
}

static void jws(jparse *p) {
  while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) && p->s[p->pos]) p->pos++;
}

static bool jfail(jparse *p, const char *what) {
  if (!p->err[0])
    snprintf(p->err, sizeof p->err, "%s: not valid JSON at byte offset %zu: %s", p->path, p->pos,
             what);
  return false;
}

static bool jstring(jparse *p, char **out) {
  size_t cap = 16, n = 0;
  p->pos++;
  char *b = malloc(cap);
  if (!b) return jfail(p, "out of memory");
  while (p->pos < p->len && p->s[p->pos] != '"') {
    char c = p->s[p->pos++];
    if ((unsigned char)c < 0x20) {
      free(b);
      return jfail(p, "control character in a string");
    }
    if (c == '\\') {
      if (p->pos >= p->len) {
        free(b);
        return jfail(p, "unterminated escape");
      }
      switch (p->s[p->pos++]) {
        case '"': c = '"'; break;
        case '\\': c = '\\'; break;
        case '/': c = '/'; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        default: /* \u escapes never occur in snarkjs's files */
          free(b);
          return jfail(p, "unsupported escape in a string");
      }
    }
    if (n + 2 > cap) {
      char *nb = realloc(b, cap *= 2);
      if (!nb) {
        free(b);
        return jfail(p, "out of memory");
      }
      b = nb;
    }
    b[n++] = c;
  }
  if (p->pos >= p->len) {
    free(b);
    return jfail(p, "unterminated string");
  }
  p->pos++;
  b[n] = 0;
  *out = b;
  return true;
}

static bool jvalue(jparse *p, sp_json *v, int depth) {
  memset(v, 0, sizeof *v);
  jws(p);
  if (depth > 32) return jfail(p, "nested too deep");
  if (p->pos >= p->len) return jfail(p, "unexpected end of file");
  if (++p->values > SP_JSON_MAX_VALUES) return jfail(p, "more than 2097152 values");
  char c = p->s[p->pos];
  if (c == '"') {
    v->kind = SP_JSON_STR;
    return jstring(p, &v->str);
  }
  if (c == '[' || c == '{') {
    bool obj = c == '{';
    v->kind = obj ? SP_JSON_OBJ : SP_JSON_ARR;
    p->pos++;
    jws(p);
    if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
      p->pos++;
      return true;
    }
    size_t cap = 0;
    for (;;) {
      if (v->n == cap) {
        cap = cap ? 2 * cap : 4;
        sp_json *ni = realloc(v->items, cap * sizeof *ni);
        if (!ni) return jfail(p, "out of memory");
        v->items = ni;
        if (obj) {
          char **nk = realloc(v->keys, cap * sizeof *nk);
          if (!nk) return jfail(p, "out of memory");
          v->keys = nk;
        }
      }
      if (obj) {
        jws(p);
        if (p->pos >= p->len || p->s[p->pos] != '"') return jfail(p, "expected a member name");
        if (!jstring(p, &v->keys[v->n])) return false;
        jws(p);
        if (p->pos >= p->len || p->s[p->pos] != ':') {
          free(v->keys[v->n]);
          return jfail(p, "expected ':'");
        }
        p->pos++;
      }
      bool ok = jvalue(p, &v->items[v->n], depth + 1);
      v->n++;
      if (!ok) return false;
      jws(p);
      if (p->pos < p->len && p->s[p->pos] == ',') {
        p->pos++;
        continue;
      }
      if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
        p->pos++;
        return true;
      }
      return jfail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }
  size_t start = p->pos;
  while (p->pos < p->len && strchr("0123456789+-.eE", p->s[p->pos]) && p->s[p->pos]) p->pos++;
  if (p->pos > start) {
    v->kind = SP_JSON_NUM;
    v->str = strndup(p->s + start, p->pos - start);
    return v->str ? true : jfail(p, "out of memory");
  }
  static const char *lits[3] = {"true", "false", "null"};
  for (int i = 0; i < 3; i++)
    if (p->len - p->pos >= strlen(lits[i]) && !memcmp(p->s + p->pos, lits[i], strlen(lits[i]))) {
      p->pos += strlen(lits[i]);
      v->kind = i < 2 ? SP_JSON_BOOL : SP_JSON_NULL;
      return true;
    }
  return jfail(p, "unexpected character");
}

bool sp_json_parse(const char *text, size_t len, const char *name, sp_json *out, char *msg,
                   size_t msglen) {
  jparse p = {.s = text, .path = name, .len = len};
  bool ok = jvalue(&p, out, 0);
  if (ok) {
    jws(&p);
    if (p.pos != len) ok = jfail(&p, "text after the value");
  }
  if (!ok) {
    snprintf(msg, msglen, "%s", p.err);
    sp_json_free(out);
    memset(out, 0, sizeof *out);
  }
  return ok;
}

bool sp_json_load(const char *path, size_t max_bytes, const char *what, sp_json *out, char *msg,
                  size_t msglen) {
  char file[1024];
  sp_cli_escape(path, file, sizeof file);
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(msg, msglen, "%s: cannot open: %s", file, strerror(errno));
    return false;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  bool ok = buf != NULL;
  if (!ok) snprintf(msg, msglen, "%s: out of memory", file);
  while (ok) {
    if (len == cap) {
      if (cap >= max_bytes) {
        snprintf(msg, msglen, "%s: larger than %zu MiB: not %s", file, max_bytes >> 20, what);
        ok = false;
        break;
      }
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        ok = false;
        snprintf(msg, msglen, "%s: out of memory", file);
        break;
      }
      buf = nb;
    }
    size_t k = fread(buf + len, 1, cap - len, f);
    len += k;
    if (k == 0) {
      if (ferror(f)) {
        snprintf(msg, msglen, "%s: read error: %s", file, strerror(errno));
        ok = false;
      }
      break;
    }
  }
  fclose(f);
  if (ok) ok = sp_json_parse(buf, len, file, out, msg, msglen);
  free(buf);
  return ok;
}

const sp_json *sp_json_get(const sp_json *o, const char *key) {
  if (o == NULL || o->kind != SP_JSON_OBJ) return NULL;
  for (size_t i = 0; i < o->n; i++)
    if (strcmp(o->keys[i], key) == 0) return &o->items[i];
  return NULL;
}
