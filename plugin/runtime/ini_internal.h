/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* ini_internal.h -- what the INI parser's files share (ini.c: the reader and the
 * key handlers; ini_values.c: how a value is read and how file text is shown in a
 * message; resolve.c: selectors against the GPUs); nothing else includes it. */
#ifndef SEALPROV_RUNTIME_INI_INTERNAL_H
#define SEALPROV_RUNTIME_INI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/device_table.h"

#define CFG_MAX_FILE_BYTES (1u << 20) /* a device table is a few KiB; refuse anything odd */
#define CFG_MAX_SECTION_NAME 48       /* inih keeps 49 characters of a section name */
#define CFG_MAX_ORDINAL 1023
#define CFG_MAX_SECTIONS (SP_MAX_DEVICES + 2)

enum provider_key {
  PK_LOG_LEVEL,
  PK_VERIFY_PROOFS,
  PK_PARAMS_SUBGROUP_CHECK,
  PK_MAX_JOBS,
  PK_MAX_PARTITIONS,
  PK_QUARANTINE_AFTER,
  PK_MAX_ATTEMPTS,
  PK_TIMELINE_EVENTS,
  PK_LOAD_THREADS,
  PK_PARAMS_MANIFEST,
  PK_NUMA,
  PK_HOST_MEMORY_LIMIT,
  PK_PARAMS_RESIDENCY,
  PK_STAGING_CHUNK_SIZE,
  PK_UNSEEN_GPUS,
  PK_PARAMS_VALIDATION_CACHE,
  PK_PARAMS_SHARED_IMAGE,
  PK_COUNT_
};

enum device_key {
  DK_TYPE,
  DK_DEVICE,
  DK_WORKERS,
  DK_THREADS,
  DK_MEMORY_LIMIT,
  DK_PINNED_STAGING,
  DK_NUMA_NODE,
  DK_MSM_PRECOMPUTE,
  DK_STAGING_CHUNKS,
  DK_COUNT_
};

enum testing_key { TK_INJECT_DEVICE, TK_INJECT, TK_INJECT_COUNT, TK_COUNT_ };

/* The range of a numeric key (ini.c's tables). */
typedef struct num_range {
  uint64_t min, max;
} num_range;

typedef enum section_kind { SEC_NONE, SEC_PROVIDER, SEC_TESTING, SEC_DEVICE } section_kind;

typedef struct section_seen {
  char name[CFG_MAX_SECTION_NAME + 1];
  int line;
} section_seen;

typedef struct device_aux { /* per device section, what sp_device_cfg has no room for */
  int key_line[DK_COUNT_];  /* 0 = key not set */
  char type_value[16];
} device_aux;

typedef struct cfg_parse {
  sp_config *cfg;
  const char *path; /* as shown in messages (printable()) */
  /* the file, and the reader's position in it */
  const char *buf;
  size_t len, pos;
  int lineno; /* the line last handed to inih */
  /* the section the reader saw last */
  section_kind kind;
  size_t dev; /* index into cfg->devices when kind == SEC_DEVICE */
  char section[CFG_MAX_SECTION_NAME + 1];
  section_seen sections[CFG_MAX_SECTIONS];
  size_t nsections;
  int provider_line[PK_COUNT_];
  int testing_line[TK_COUNT_];
  char inject_device[CFG_MAX_SECTION_NAME + 1];
  char inject_value[160];
  uint32_t inject;
  uint32_t inject_count;
  device_aux aux[SP_MAX_DEVICES];
  /* the first error */
  int status;
  int err_line;
  char err[1024];
} cfg_parse;

/* ---- ini_values.c ---- */

/* Text of the file goes into a message through sp_utf8_escape_marked (base/util.h).
 * Cuts a trailing incomplete UTF-8 sequence that snprintf's truncation left at the end
 * of s (everything before it is valid: it came through sp_utf8_escape_marked()). */
void cfg_utf8_trim(char *s);
/* Records an error at line unless an earlier one is already recorded. fmt continues
 * after "file:line: ". */
void cfg_fail_at(cfg_parse *p, int status, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The common shape: file:line: [section] key = "value": why */
void cfg_fail_kv(cfg_parse *p, int line, const char *section, const char *key, const char *value,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* A whole value that must be a number within r / a boolean / bytes with an optional
 * unit / a device selector. Each returns false after recording why. */
bool cfg_want_number(cfg_parse *p, const char *key, const char *value, num_range r, uint64_t *out);
bool cfg_want_bool(cfg_parse *p, const char *key, const char *value, bool *out);
bool cfg_want_bytes(cfg_parse *p, const char *key, const char *value, uint64_t *out);
bool cfg_want_selector(cfg_parse *p, const char *value, sp_device_cfg *d);
/* A value that must be one of n words (case ignored): *out gets its index. Else records
 * "use w0 or w1" (w0, w1 or w2, ...) and returns false. */
bool cfg_want_word(cfg_parse *p, const char *key, const char *value, const char *const *words,
                   int n, int *out);
#ifdef SP_FAULT_INJECTION
/* [testing] inject: a comma-separated list of fault kinds into fault.h's SP_INJECT_*
 * bits. Else records the unknown kind and the known ones and returns false. */
bool cfg_want_faults(cfg_parse *p, const char *key, const char *value, uint32_t *out);
#endif
/* [provider] params_validation_cache: auto, off or an absolute folder, into
 * p->cfg->params_validation_cache ("" for auto). */
void cfg_want_validation_cache(cfg_parse *p, const char *key, const char *value);
/* [provider] params_shared_image: off, auto or an absolute folder, into
 * p->cfg->params_shared_image ("" for off). */
void cfg_want_shared_image(cfg_parse *p, const char *key, const char *value);
/* After the last line: params_shared_image needs what its trust rests on (validation
 * records, the subgroup checks) and cannot serve a manifest check. */
void cfg_check_shared_image(cfg_parse *p);
/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (hex in either case) into its canonical
 * form (lower-case hex, as enumeration reports it) in out[41]. */
bool cfg_parse_gpu_uuid(const char *s, char out[41]);
typedef struct pci_addr {
  unsigned domain, bus, device, function;
} pci_addr;
/* [DDDD:|DDDDDDDD:]BB:DD.F in hex, either case. */
bool cfg_parse_pci(const char *s, pci_addr *a);
/* The selector as a user writes it (selector[] keeps the text after "kind="). */
const char *cfg_selector_prefix(sp_selector_kind k);

/* ---- resolve.c ---- */

/* After the last line: with unseen_gpus = skip, refuses cuda sections named by ordinal
 * (their meaning changes with CUDA_VISIBLE_DEVICES, so one INI cannot serve a whole
 * host). Records the error in p. */
void cfg_check_unseen(cfg_parse *p);

#endif
