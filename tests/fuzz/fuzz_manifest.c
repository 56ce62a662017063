/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fuzz_manifest.c -- libFuzzer harness for the Filecoin parameters.json reader of the
 * parameter loader (plugin/formats/srs.c: manifest_lookup, manifest_find, manifest_entry_read
 * and their JSON helpers), reached through sp_srs_load_ex with opts.manifest set.
 *
 * Input: the manifest text. The file checked against it is the .vk of the seed corpus
 * of fuzz_vk ($SEALPROV_FUZZ_VK, else FUZZ_VK_PATH set by tests/fuzz/local.mk), loaded
 * with vk_only (the manifest applies to .vk files too) and no subgroup check (the file
 * is a fixed, valid one), so an accepted manifest costs one small load.
 *
 * Properties beyond "no crash, no sanitizer report, no stack overflow, no timeout":
 *  - the status is OK, PARAMS or NO_MEMORY (the manifest, a memfd, is always readable);
 *  - the message is NUL-terminated valid UTF-8; on failure it is non-empty, names the
 *    manifest, and no parameter set is returned;
 *  - OK only when the manifest's first top-level member named by the file's base name
 *    is an object with a string member "digest" of 32 characters equal, ignoring case,
 *    to the first 32 hex digits of the file's BLAKE2b-512 (checked by a JSON scanner of
 *    this harness, written apart from srs.c's). */
#include "fuzz_common.h"

#include <strings.h>

#include "formats/blake2b.h"
#include "formats/srs.h"
#include "sealprov.h"

#ifndef FUZZ_VK_PATH
#define FUZZ_VK_PATH "tests/fuzz/corpus/vk/setup64.vk"
#endif

static const char *vk_path;
static const char *vk_base;
static char vk_digest[129];
static char err[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  vk_path = getenv("SEALPROV_FUZZ_VK");
  if (!vk_path || !*vk_path) vk_path = FUZZ_VK_PATH;
  FILE *f = fopen(vk_path, "rb");
  if (!f) {
    fprintf(stderr, "fuzz_manifest: cannot open the .vk %s (set SEALPROV_FUZZ_VK)\n", vk_path);
    exit(2);
  }
  sp_blake2b_state h;
  FUZZ_CHECK(sp_blake2b_init(&h, 64) == 0, "blake2b init");
  uint8_t buf[4096];
  size_t k;
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) sp_blake2b_update(&h, buf, k);
  FUZZ_CHECK(!ferror(f), "read error on %s", vk_path);
  fclose(f);
  uint8_t d[64];
  sp_blake2b_final(&h, d);
  for (size_t i = 0; i < sizeof d; i++) snprintf(vk_digest + 2 * i, 3, "%02x", d[i]);
  vk_base = strrchr(vk_path, '/');
  vk_base = vk_base ? vk_base + 1 : vk_path;
  return 0;
}

/* ---- a JSON scanner of its own (only run on manifests the loader accepted) ---- */

typedef struct scan {
  const char *p, *end;
} scan;

static void ws(scan *s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
}

static int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A string at s->p into out (UTF-8; \u escapes of the BMP). -1: malformed; 0: read;
 * 1: well-formed but longer than cap - 1 bytes (out holds "", the caller compares only). */
static int str(scan *s, char *out, size_t cap) {
  ws(s);
  if (s->p >= s->end || *s->p != '"') return -1;
  s->p++;
  size_t n = 0;
  bool fits = true;
  while (s->p < s->end && *s->p != '"') {
    unsigned char enc[3];
    size_t k = 1;
    enc[0] = (unsigned char)*s->p++;
    if (enc[0] == '\\') {
      if (s->p >= s->end) return -1;
      char e = *s->p++;
      switch (e) {
        case '"':
        case '\\':
        case '/': enc[0] = (unsigned char)e; break;
        case 'b': enc[0] = '\b'; break;
        case 'f': enc[0] = '\f'; break;
        case 'n': enc[0] = '\n'; break;
        case 'r': enc[0] = '\r'; break;
        case 't': enc[0] = '\t'; break;
        case 'u': {
          unsigned cp = 0;
          for (int i = 0; i < 4; i++) {
            if (s->p >= s->end || hex(*s->p) < 0) return -1;
            cp = cp << 4 | (unsigned)hex(*s->p++);
          }
          if (cp < 0x80) {
            enc[0] = (unsigned char)cp;
          } else if (cp < 0x800) {
            enc[0] = (unsigned char)(0xc0 | cp >> 6);
            enc[1] = (unsigned char)(0x80 | (cp & 0x3f));
            k = 2;
          } else {
            enc[0] = (unsigned char)(0xe0 | cp >> 12);
            enc[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
            enc[2] = (unsigned char)(0x80 | (cp & 0x3f));
            k = 3;
          }
          break;
        }
        default: return -1;
      }
    }
    if (fits && n + k < cap) {
      memcpy(out + n, enc, k);
      n += k;
    } else {
      fits = false;
    }
  }
  if (s->p >= s->end) return -1;
  s->p++;
  if (cap) out[fits ? n : 0] = '\0';
  return fits ? 0 : 1;
}

static bool skip(scan *s, int depth);

/* Members of the object at s->p (after '{'), calling fn on each key; fn reads or skips
 * the value. */
static bool members(scan *s, int depth, bool (*fn)(scan *, const char *, void *), void *user) {
  s->p++;
  ws(s);
  if (s->p < s->end && *s->p == '}') {
    s->p++;
    return true;
  }
  for (;;) {
    char key[1100]; /* longer keys (1: key is "") are no name looked for */
    if (str(s, key, sizeof key) < 0) return false;
    ws(s);
    if (s->p >= s->end || *s->p != ':') return false;
    s->p++;
    ws(s);
    if (!(fn ? fn(s, key, user) : skip(s, depth + 1))) return false;
    ws(s);
    if (s->p < s->end && *s->p == ',') {
      s->p++;
      continue;
    }
    if (s->p < s->end && *s->p == '}') {
      s->p++;
      return true;
    }
    return false;
  }
}

static bool skip_member(scan *s, const char *key, void *user) {
  (void)key;
  (void)user;
  return skip(s, 3);
}

static bool skip(scan *s, int depth) {
  if (depth > 64) return false;
  ws(s);
  if (s->p >= s->end) return false;
  char c = *s->p;
  if (c == '"') {
    char none[1];
    return str(s, none, 0) >= 0;
  }
  if (c == '{') return members(s, depth, skip_member, NULL);
  if (c == '[') {
    s->p++;
    ws(s);
    if (s->p < s->end && *s->p == ']') {
      s->p++;
      return true;
    }
    for (;;) {
      if (!skip(s, depth + 1)) return false;
      ws(s);
      if (s->p < s->end && *s->p == ',') {
        s->p++;
        continue;
      }
      if (s->p < s->end && *s->p == ']') {
        s->p++;
        return true;
      }
      return false;
    }
  }
  static const char *const words[] = {"true", "false", "null"};
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(words[i]);
    if ((size_t)(s->end - s->p) >= n && !memcmp(s->p, words[i], n)) {
      s->p += n;
      return true;
    }
  }
  const char *q = s->p;
  while (q < s->end && *q && strchr("+-0123456789.eE", *q)) q++;
  if (q == s->p) return false;
  s->p = q;
  return true;
}

typedef struct look {
  bool entry_seen; /* the first member named vk_base was seen */
  bool digest_ok;  /* ... and it has a matching string "digest" */
} look;

static bool entry_member(scan *s, const char *key, void *user) {
  look *lk = user;
  if (strcmp(key, "digest") != 0 || s->p >= s->end || *s->p != '"') return skip(s, 3);
  char d[256];
  int r = str(s, d, sizeof d);
  if (r == 0 && strlen(d) == 32 && strncasecmp(d, vk_digest, 32) == 0) lk->digest_ok = true;
  return r >= 0;
}

static bool top_member(scan *s, const char *key, void *user) {
  look *lk = user;
  if (lk->entry_seen || strcmp(key, vk_base) != 0) return skip(s, 2);
  lk->entry_seen = true;
  if (s->p >= s->end || *s->p != '{') return false;
  return members(s, 2, entry_member, lk);
}

/* ---- the harness ---- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!vk_base) LLVMFuzzerInitialize(NULL, NULL);
  const char *mpath = fuzz_as_file(data, size);
  sp_srs_load_opts o = {.vk_only = true, .subgroup_check = false, .nthreads = 1, .manifest = mpath};
  sp_srs *srs = NULL;
  memset(err, 0x55, sizeof err);
  err[0] = '\0'; /* success leaves err as it is */
  int st = sp_srs_load_ex(vk_path, &o, &srs, err, sizeof err);
  fuzz_check_message(err, sizeof err);
  FUZZ_CHECK(st == SEALPROV_OK || st == SEALPROV_ERR_PARAMS || st == SEALPROV_ERR_NO_MEMORY,
             "status %d: %s", st, err);
  if (st != SEALPROV_OK) {
    FUZZ_CHECK(srs == NULL, "status %d with a parameter set", st);
    FUZZ_CHECK(err[0] != '\0', "status %d without a message", st);
    FUZZ_CHECK(strstr(err, mpath) != NULL, "message does not name the manifest: %s", err);
    return 0;
  }
  FUZZ_CHECK(srs != NULL && srs->vk_only, "OK without a verifying key");
  sp_srs_release(srs);
  scan s = {(const char *)data, (const char *)data + size};
  look lk = {false, false};
  ws(&s);
  bool parsed = s.p < s.end && *s.p == '{' && members(&s, 1, top_member, &lk);
  FUZZ_CHECK(parsed, "accepted a manifest this harness cannot read");
  FUZZ_CHECK(lk.entry_seen, "accepted a manifest without an entry \"%s\"", vk_base);
  FUZZ_CHECK(lk.digest_ok, "accepted a manifest whose entry \"%s\" has no digest %.32s", vk_base,
             vk_digest);
  return 0;
}
