/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* manifest.c -- Filecoin's conventions for parameter files: the parameter cache a bare
 * file name is looked up in, and parameters.json, whose entry for the file names the
 * digest its BLAKE2b-512 must match. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "formats/srs_internal.h"

/* ---- Filecoin conventions: the parameter cache and parameters.json ------------------ */

bool sp_srs_resolve_path(const char *path, char *buf, size_t buflen) {
  int n;
  if (strchr(path, '/')) {
    n = snprintf(buf, buflen, "%s", path);
  } else {
    const char *dir = getenv("FIL_PROOFS_PARAMETER_CACHE");
    if (!dir || !*dir) dir = SP_SRS_DEFAULT_PARAM_CACHE;
    size_t dl = strlen(dir);
    n = snprintf(buf, buflen, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", path);
  }
  return n >= 0 && (size_t)n < buflen;
}

/* A minimal JSON reader for parameters.json: an object of objects; in each entry only
 * "digest" (a string) matters here, other members are skipped whatever their type. */
typedef struct json {
  const char *p, *end, *start;
  const char *file; /* escaped manifest path */
  char *err;
  size_t errlen;
} json;

static int json_fail(json *j, const char *why) {
  sp_set_err(j->err, j->errlen, "%s: not a valid parameters.json: %s at byte offset %zu", j->file,
             why, (size_t)(j->p - j->start));
  return SEALPROV_ERR_PARAMS;
}

static void json_ws(json *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A string into out (UTF-8, NUL-terminated; longer strings are an error). */
static int json_string(json *j, char *out, size_t outlen) {
  json_ws(j);
  if (j->p >= j->end || *j->p != '"') return json_fail(j, "expected a string");
  j->p++;
  size_t o = 0;
  while (j->p < j->end && *j->p != '"') {
    unsigned c = (unsigned char)*j->p++;
    if (c < 0x20) return json_fail(j, "control character in a string");
    char enc[4];
    size_t k = 1;
    enc[0] = (char)c;
    if (c == '\\') {
      if (j->p >= j->end) break;
      char e = *j->p++;
      const char *simple = strchr("\"\\/bfnrt", e);
      if (e && simple) {
        enc[0] = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
      } else if (e == 'u') {
        unsigned cp = 0;
        for (int i = 0; i < 4; i++) {
          int h = j->p < j->end ? hexval(*j->p) : -1;
          if (h < 0) return json_fail(j, "bad \\u escape");
          cp = cp << 4 | (unsigned)h;
          j->p++;
        }
        if (cp >= 0xd800 && cp <= 0xdfff) /* names and digests never need surrogates */
          return json_fail(j, "surrogate \\u escape");
        if (cp == 0) return json_fail(j, "\\u0000 in a string");
        if (cp < 0x80) {
          enc[0] = (char)cp;
        } else if (cp < 0x800) {
          enc[0] = (char)(0xc0 | cp >> 6);
          enc[1] = (char)(0x80 | (cp & 0x3f));
          k = 2;
        } else {
          enc[0] = (char)(0xe0 | cp >> 12);
          enc[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
          enc[2] = (char)(0x80 | (cp & 0x3f));
          k = 3;
        }
      } else {
        return json_fail(j, "bad escape in a string");
      }
    }
    if (o + k >= outlen) return json_fail(j, "string too long");
    memcpy(out + o, enc, k);
    o += k;
  }
  if (j->p >= j->end) return json_fail(j, "unterminated string");
  j->p++;
  out[o] = '\0';
  return SEALPROV_OK;
}

static int json_skip_value(json *j, int depth);

/* Containers: json_open consumes the opening character at j->p and tells whether
 * members follow (false: it was empty and its closing character is consumed too);
 * json_key reads `"key" :`; json_next consumes the ',' after a member (*more = true)
 * or the closing character (*more = false). */
static bool json_open(json *j, char close) {
  j->p++;
  json_ws(j);
  if (j->p < j->end && *j->p == close) {
    j->p++;
    return false;
  }
  return true;
}

static int json_key(json *j, char *key, size_t keylen) {
  int st = json_string(j, key, keylen);
  if (st) return st;
  json_ws(j);
  if (j->p >= j->end || *j->p != ':') return json_fail(j, "expected ':'");
  j->p++;
  json_ws(j);
  return SEALPROV_OK;
}

static int json_next(json *j, char close, bool *more) {
  json_ws(j);
  if (j->p < j->end && (*j->p == ',' || *j->p == close)) {
    *more = *j->p++ == ',';
    return SEALPROV_OK;
  }
  return json_fail(j, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
}

static int json_skip_container(json *j, int depth, char close, bool keys) {
  int st = SEALPROV_OK;
  for (bool more = json_open(j, close); !st && more;) {
    char k[256];
    if (keys && (st = json_key(j, k, sizeof k))) break;
    if (!(st = json_skip_value(j, depth + 1))) st = json_next(j, close, &more);
  }
  return st;
}

static int json_skip_value(json *j, int depth) {
  if (depth > 32) return json_fail(j, "nested too deeply");
  json_ws(j);
  if (j->p >= j->end) return json_fail(j, "unexpected end");
  char c = *j->p;
  if (c == '"') {
    char tmp[4096];
    return json_string(j, tmp, sizeof tmp);
  }
  if (c == '{') return json_skip_container(j, depth, '}', true);
  if (c == '[') return json_skip_container(j, depth, ']', false);
  static const char *const words[] = {"true", "false", "null"};
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(words[i]);
    if ((size_t)(j->end - j->p) >= n && !memcmp(j->p, words[i], n)) {
      j->p += n;
      return SEALPROV_OK;
    }
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    const char *q = j->p;
    /* *q first: strchr finds a NUL byte (the string's terminator), which made NUL
     * bytes after a number part of it (fuzz_manifest: corpus/manifest/number-nul.json) */
    while (q < j->end && *q && strchr("+-0123456789.eE", *q)) q++;
    j->p = q;
    return SEALPROV_OK;
  }
  return json_fail(j, "unexpected character");
}

/* The members of the entry object at j->p: "digest" (a string) into e, the rest
 * skipped whatever their type. */
static int manifest_entry_read(json *j, manifest_entry *e) {
  int st = SEALPROV_OK;
  e->has_digest = false;
  for (bool more = json_open(j, '}'); !st && more;) {
    char mk[64];
    if ((st = json_key(j, mk, sizeof mk))) break;
    if (!strcmp(mk, "digest") && j->p < j->end && *j->p == '"') {
      if (!(st = json_string(j, e->digest, sizeof e->digest))) e->has_digest = true;
    } else {
      st = json_skip_value(j, 2);
    }
    if (!st) st = json_next(j, '}', &more);
  }
  return st;
}

/* Finds the entry called `name` in the manifest text. OK when found (e->digest set),
 * NOT_FOUND when the manifest has no such entry, PARAMS when it is malformed. */
static int manifest_find(json *j, const char *name, manifest_entry *e) {
  int st = SEALPROV_OK;
  bool found = false;
  e->entries = 0;
  json_ws(j);
  if (j->p >= j->end || *j->p != '{') return json_fail(j, "expected '{' (an object of file names)");
  for (bool more = json_open(j, '}'); more;) {
    char key[1024];
    if ((st = json_key(j, key, sizeof key))) return st;
    if (j->p >= j->end || *j->p != '{') return json_fail(j, "an entry is not an object");
    e->entries++;
    if (!found && strcmp(key, name) == 0) {
      found = true;
      snprintf(e->name, sizeof e->name, "%s", key);
      st = manifest_entry_read(j, e);
    } else {
      st = json_skip_value(j, 1);
    }
    if (st || (st = json_next(j, '}', &more))) return st;
  }
  json_ws(j);
  if (j->p != j->end) return json_fail(j, "trailing characters after the object");
  return found ? SEALPROV_OK : SEALPROV_ERR_NOT_FOUND;
}

int sp_srs_manifest_lookup(const char *manifest, const char *file_path, const char *file_esc,
                           manifest_entry *e, char *err, size_t errlen) {
  sp_file mf;
  int st = sp_file_open(&mf, manifest, err, errlen);
  if (st != SEALPROV_OK) return st;
  if (mf.size > MANIFEST_MAX_BYTES) {
    sp_set_err(err, errlen, "%s: %llu bytes is too large for a parameters.json (at most %zu)",
               mf.esc, (unsigned long long)mf.size, MANIFEST_MAX_BYTES);
    sp_file_close(&mf);
    return SEALPROV_ERR_PARAMS;
  }
  char *text = malloc((size_t)mf.size + 1);
  if (!text) {
    sp_set_err(err, errlen, "%s: out of memory", mf.esc);
    sp_file_close(&mf);
    return SEALPROV_ERR_NO_MEMORY;
  }
  st = sp_file_read(&mf, text, (size_t)mf.size, 0, "manifest", err, errlen);
  if (st == SEALPROV_OK) {
    const char *base = strrchr(file_path, '/');
    base = base ? base + 1 : file_path;
    json j = {.p = text,
              .end = text + mf.size,
              .start = text,
              .file = mf.esc,
              .err = err,
              .errlen = errlen};
    st = manifest_find(&j, base, e);
    char bn[SP_ESC_MAX];
    if (st == SEALPROV_ERR_NOT_FOUND) {
      sp_set_err(err, errlen,
                 "%s: no entry for \"%s\" in the parameter manifest %s (%zu entries; the file is "
                 "matched by its base name)",
                 file_esc, sp_utf8_escape(base, bn, sizeof bn), mf.esc, e->entries);
      st = SEALPROV_ERR_PARAMS;
    } else if (st == SEALPROV_OK) {
      bool hex = e->has_digest && strlen(e->digest) == DIGEST_HEX;
      for (size_t i = 0; hex && i < DIGEST_HEX; i++) hex = hexval(e->digest[i]) >= 0;
      if (!hex) {
        char dg[300];
        sp_set_err(err, errlen,
                   "%s: entry \"%s\" has %s%s%s; a digest is %u hex digits (the start of the "
                   "file's BLAKE2b-512)",
                   mf.esc, sp_utf8_escape(base, bn, sizeof bn),
                   e->has_digest ? "digest \"" : "no digest",
                   e->has_digest ? sp_utf8_escape(e->digest, dg, sizeof dg) : "",
                   e->has_digest ? "\"" : "", DIGEST_HEX);
        st = SEALPROV_ERR_PARAMS;
      }
    }
  }
  free(text);
  sp_file_close(&mf);
  return st;
}
