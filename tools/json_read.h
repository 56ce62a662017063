/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* json_read.h -- the one JSON reader of the CLI: a whole file (or text) into a tree.
 * Objects, arrays, strings (escapes resolved, \u escapes refused: no file this reads has
 * them), numbers (kept as their text), literals. Bounded: at most SP_JSON_MAX_VALUES
 * values and 33 levels of nesting; sp_json_load reads at most max_bytes. Every message
 * names the file (escaped as valid UTF-8, sp_cli_escape) and the byte offset. Used by
 * snarkjs's files (kit/cli/snarkjs_json.c) and `sealprov inspect`; needs neither the
 * module nor the kit. */
#ifndef SEALPROV_TOOLS_JSON_READ_H
#define SEALPROV_TOOLS_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

/* A jv and its string cost about 100 bytes of heap for 2 bytes of text ("1,"), so a
 * 60 MB public.json of 1s took 3.2 GB and 50 s before it was refused for its count; a
 * valid verification_key.json of 64 MiB holds fewer than 800,000 values (4 per IC point
 * of over 300 bytes). */
#define SP_JSON_MAX_VALUES ((size_t)1 << 21)

typedef enum {
  SP_JSON_NULL,
  SP_JSON_BOOL,
  SP_JSON_NUM,
  SP_JSON_STR,
  SP_JSON_ARR,
  SP_JSON_OBJ
} sp_json_kind;

typedef struct sp_json {
  sp_json_kind kind;
  char *str;             /* SP_JSON_STR: the string; SP_JSON_NUM: its text; BOOL: "true"/"false" */
  struct sp_json *items; /* SP_JSON_ARR / SP_JSON_OBJ: n values */
  char **keys;           /* SP_JSON_OBJ: n keys */
  size_t n;
} sp_json;

/* Parses text[0..len) (name: how messages call it, already escaped). false: msg says
 * why ("NAME: not valid JSON at byte offset N: ...") and *out holds nothing to free. */
bool sp_json_parse(const char *text, size_t len, const char *name, sp_json *out, char *msg,
                   size_t msglen);
/* Reads path whole (at most max_bytes; larger: "larger than N MiB", what names the files
 * expected there: "a snarkjs JSON file") and parses it. */
bool sp_json_load(const char *path, size_t max_bytes, const char *what, sp_json *out, char *msg,
                  size_t msglen);
/* The member key of an object, or NULL (not an object, or no such member). */
const sp_json *sp_json_get(const sp_json *o, const char *key);
void sp_json_free(sp_json *v);

#endif
