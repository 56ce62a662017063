/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* inspect.h -- `sealprov inspect`: what a file of the project is, told by its content,
 * and what it holds (cmd_inspect.c: the command; inspect_binary.c: .spa, .params, .vk,
 * proof files, circom's .r1cs and .wtns, snarkjs's .zkey; inspect_text.c: snarkjs's
 * JSON files, parameters.json, the INI file). A developer command: --check runs the
 * module's and the kit's own readers. */
#ifndef SEALPROV_TOOLS_INSPECT_H
#define SEALPROV_TOOLS_INSPECT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The kinds, as --json's "kind" names them. */
typedef enum insp_kind {
  INSP_UNKNOWN = 0,
  INSP_SPA,            /* "spa" */
  INSP_PARAMS,         /* "params" */
  INSP_VK,             /* "vk" */
  INSP_PROOFS,         /* "proofs" */
  INSP_R1CS,           /* "r1cs" */
  INSP_WTNS,           /* "wtns" */
  INSP_ZKEY,           /* "zkey" */
  INSP_SNARKJS_VK,     /* "snarkjs_vk" */
  INSP_SNARKJS_PROOF,  /* "snarkjs_proof" */
  INSP_SNARKJS_PUBLIC, /* "snarkjs_public" */
  INSP_MANIFEST,       /* "parameters_json" */
  INSP_INI,            /* "ini" */
} insp_kind;

typedef struct insp_file {
  const char *path;
  int fd;
  uint64_t size;
  bool json;      /* --json */
  insp_kind kind; /* what the describer found */
} insp_file;

/* Where a file's report goes: stdout, or (--json) a buffer printed only when the file
 * is well formed, so a bad file becomes {"file", "error"} and the JSON stays whole. */
extern FILE *insp_out;

/* The file's error: kept for the JSON "error" field, and printed as sp_cli_error. */
void insp_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* len bytes at off; false (and a message naming field) when the file is shorter. */
bool insp_read_at(const insp_file *f, uint64_t off, void *buf, size_t len, const char *field);
/* (little-endian integers: base/util.h, sp_le32 and sp_le64) */
uint32_t insp_be32(const uint8_t *p);
/* a * b + c without overflow; false when it does not fit. */
bool insp_mul_add(uint64_t a, uint64_t b, uint64_t c, uint64_t *res);
/* The head of a report: "PATH: WHAT, N bytes" or {"file": ..., "kind": ..., "bytes": N. */
void insp_head(const insp_file *f, const char *kind_json, const char *what);
/* One line of a report: "  NAME  text" or , "key": value (value_json is JSON text). */
void insp_line(const insp_file *f, const char *name, const char *key, const char *value_json,
               const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Describers: 0 the file is well formed (and described), 1 malformed (insp_fail said
 * why), 2 unreadable. Each sets f->kind. */
int insp_spa(insp_file *f, bool inputs_hex);
int insp_params(insp_file *f);
int insp_proofs(insp_file *f);
int insp_iden3(insp_file *f, const char magic[4]);
int insp_json_file(insp_file *f);
int insp_ini(insp_file *f);

/* --check: the whole file through the module's or the kit's reader for its kind. 0 ok,
 * 1 with insp_fail. */
int insp_check(insp_file *f);

#endif
