/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* ini.c -- the INI file (inih) read into the device table and provider settings
 * (device_table.h).
 *
 * The file is read into memory whole and handed to inih line by line through our own
 * reader (ini_parse_stream). The reader is where line numbers come from: inih's default
 * handler prototype carries none, and the system libinih is built with default options.
 * The reader also normalises every line before inih sees it (leading blanks, comments,
 * a UTF-8 BOM) and tracks section headers itself, so that
 *  - every error names file, line, section, key and value,
 *  - empty or duplicate sections are seen (inih reports only key = value lines),
 *  - the result does not depend on libinih's process-wide knobs (ini_allow_multiline,
 *    ini_allow_inline_comments, ...) that a host process may have changed: an indented
 *    line is never a "continuation" and " ; comment" is always a comment.
 * The first error (lowest line) wins; everything after it is ignored.
 *
 * Nothing here touches CUDA's current device or the CUDA_* environment (docs/design.md,
 * rules 1 and 4): devices are resolved by matching the properties that the device
 * kind's enumeration (engine.h, sp_backend.enumerate) reports.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "runtime/ini_internal.h"
#include "base/util.h"
#include "sealprov.h"

/* ---- key tables ---------------------------------------------------------------- */

static const char *const provider_keys[PK_COUNT_] = {"log_level",
                                                     "verify_proofs",
                                                     "params_subgroup_check",
                                                     "max_jobs",
                                                     "max_partitions",
                                                     "quarantine_after",
                                                     "max_attempts",
                                                     "timeline_events",
                                                     "load_threads",
                                                     "params_manifest",
                                                     "numa",
                                                     "host_memory_limit",
                                                     "params_residency",
                                                     "staging_chunk_size",
                                                     "unseen_gpus",
                                                     "params_validation_cache",
                                                     "params_shared_image"};

static const char *const device_keys[DK_COUNT_] = {"type",      "device",         "workers",
                                                   "threads",   "memory_limit",   "pinned_staging",
                                                   "numa_node", "msm_precompute", "staging_chunks"};

static const char *const testing_keys[TK_COUNT_] = {"inject_device", "inject", "inject_count"};

/* Ranges of the numeric keys; the documentation (docs/configuration.md) quotes them. */
static const num_range provider_ranges[PK_COUNT_] = {
    [PK_MAX_JOBS] = {1, 1000000},         [PK_MAX_PARTITIONS] = {1, 100000000},
    [PK_QUARANTINE_AFTER] = {1, 1000},    [PK_MAX_ATTEMPTS] = {1, 1000},
    [PK_TIMELINE_EVENTS] = {0, 16777216}, [PK_LOAD_THREADS] = {0, 1024},
};
static const num_range workers_range = {1, 64};
static const num_range threads_range = {0, 1024};
#ifdef SP_FAULT_INJECTION
static const num_range inject_count_range = {0, 1000000000};
#endif
static const num_range numa_node_range = {0, 1023}; /* the kernel's largest MAX_NUMNODES */
static const num_range staging_chunks_range = {1, SP_STAGING_CHUNKS_MAX};

static int key_index(const char *const *keys, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcasecmp(keys[i], name) == 0) return i;
  return -1;
}

static void key_list(char *dst, size_t cap, const char *const *keys, int n) {
  size_t used = 0;
  dst[0] = '\0';
  for (int i = 0; i < n && used < cap; i++) {
    int w = snprintf(dst + used, cap - used, "%s%s", i ? ", " : "", keys[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

/* ---- the reader: line numbers, normalisation, section headers ----------------- */

static bool valid_section_name(const char *s, size_t n) {
  if (n == 0 || n > CFG_MAX_SECTION_NAME) return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    /* ASCII only, whatever the host's locale (isalnum() takes Latin-1 letters in some) */
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!(alnum || c == '_' || c == '-' || c == '.')) return false;
  }
  return true;
}

static void enter_section(cfg_parse *p, const char *name, size_t n) {
  char shown[CFG_MAX_SECTION_NAME + 16];
  /* name is not NUL-terminated; clamp what we show */
  int shown_n = (int)(n > CFG_MAX_SECTION_NAME ? CFG_MAX_SECTION_NAME : n);
  snprintf(shown, sizeof shown, "%.*s%s", shown_n, name, n > CFG_MAX_SECTION_NAME ? "..." : "");
  p->kind = SEC_NONE; /* until the header proves good, keys have nowhere to go */
  p->section[0] = '\0';
  if (!valid_section_name(name, n)) {
    char safe[sizeof shown];
    sp_utf8_escape_marked(shown, safe, sizeof safe);
    cfg_fail_at(p, SEALPROV_ERR_CONFIG, p->lineno,
                "[%s]: bad section name; use 1 to %d characters of A-Z a-z 0-9 _ - .", safe,
                CFG_MAX_SECTION_NAME);
    return;
  }
  memcpy(p->section, name, n);
  p->section[n] = '\0';
  for (size_t i = 0; i < p->nsections; i++) {
    if (strcasecmp(p->sections[i].name, p->section) == 0) {
      cfg_fail_at(p, SEALPROV_ERR_CONFIG, p->lineno,
                  "[%s]: duplicate section (first on line %d; names are compared ignoring case)",
                  p->section, p->sections[i].line);
      return;
    }
  }
  bool provider = strcasecmp(p->section, "provider") == 0;
  bool testing = strcasecmp(p->section, "testing") == 0;
  if (!provider && !testing && p->cfg->ndevices >= SP_MAX_DEVICES) {
    cfg_fail_at(p, SEALPROV_ERR_CONFIG, p->lineno, "[%s]: too many device sections (at most %d)",
                p->section, SP_MAX_DEVICES);
    return;
  }
  if (p->nsections < CFG_MAX_SECTIONS) {
    snprintf(p->sections[p->nsections].name, sizeof p->sections[0].name, "%s", p->section);
    p->sections[p->nsections].line = p->lineno;
    p->nsections++;
  }
  if (provider) {
    p->kind = SEC_PROVIDER;
  } else if (testing) {
#ifdef SP_FAULT_INJECTION
    p->kind = SEC_TESTING;
#else
    /* kind stays SEC_NONE: its keys go nowhere, this (lower) line's error stands */
    cfg_fail_at(p, SEALPROV_ERR_CONFIG, p->lineno,
                "[%s]: fault injection is not built into this module (it is for tests: "
                "configure sealprov with --enable-fault-injection to get [testing])",
                p->section);
#endif
  } else {
    p->kind = SEC_DEVICE;
    p->dev = p->cfg->ndevices++;
    sp_device_cfg *d = &p->cfg->devices[p->dev];
    d->index = (unsigned)p->dev;
    snprintf(d->section, sizeof d->section, "%s", p->section);
    d->line = p->lineno;
    d->ordinal = -1;
  }
}

/* Returns where the comment starts: ';' or '#' at the start or after a blank. */
static size_t comment_start(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((s[i] == ';' || s[i] == '#') && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) return i;
  return n;
}

/* fgets-like: inih calls this once per line and counts lines the same way we do. */
static char *cfg_reader(char *str, int num, void *stream) {
  cfg_parse *p = stream;
  if (p->pos >= p->len || num < 2) return NULL;
  const char *line = p->buf + p->pos;
  const char *nl = memchr(line, '\n', p->len - p->pos);
  size_t n = nl ? (size_t)(nl - line) : p->len - p->pos;
  p->pos += n + (nl ? 1 : 0);
  p->lineno++;
  if (n && line[n - 1] == '\r') n--;
  if (memchr(line, '\0', n)) {
    cfg_fail_at(p, SEALPROV_ERR_CONFIG, p->lineno, "NUL byte in the line; is this a text file?");
    n = 0;
  }
  if (p->lineno == 1 && n >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
    line += 3;
    n -= 3;
  }
  while (n && (*line == ' ' || *line == '\t')) {
    line++;
    n--;
  }
  n = comment_start(line, n);
  while (n && (line[n - 1] == ' ' || line[n - 1] == '\t')) n--;

  if (n && line[0] == '[') {
    if (line[n - 1] == ']') {
      enter_section(p, line + 1, n - 2);
    } else {
      const char *close = memchr(line, ']', n);
      char shown[96];
      snprintf(shown, sizeof shown, "%.*s", (int)(n < 80 ? n : 80), line);
      char safe[sizeof shown];
      sp_utf8_escape_marked(shown, safe, sizeof safe);
      cfg_fail_at(
          p, SEALPROV_ERR_CONFIG, p->lineno, "\"%s\": %s", safe,
          close ? "text after the closing ] of a section header" : "section header without ]");
      p->kind = SEC_NONE;
    }
  }
  if ((size_t)num < n + 2) {
    cfg_fail_at(p, SEALPROV_ERR_CONFIG, p->lineno, "line too long (%zu characters; at most %d)", n,
                num - 2);
    n = 0;
  }
  memcpy(str, line, n);
  str[n] = '\n';
  str[n + 1] = '\0';
  return str;
}

/* ---- the handler ------------------------------------------------------------- */

static void handle_provider(cfg_parse *p, int k, const char *key, const char *value) {
  static const char *const numa[] = {"auto", "off"}, *const residency[] = {"auto", "host"},
                           *const unseen[] = {"error", "skip"};
  sp_config *c = p->cfg;
  uint64_t v = 0;
  int w = 0;
  switch (k) {
    case PK_LOG_LEVEL: {
      static const char *const levels[] = {"error", "warn", "info", "debug"};
      for (int i = 0; i < 4; i++)
        if (strcasecmp(value, levels[i]) == 0) {
          c->log_level = i;
          return;
        }
      cfg_fail_kv(p, p->lineno, p->section, key, value,
                  "unknown log level; use error, warn, info or debug");
      return;
    }
    case PK_VERIFY_PROOFS: cfg_want_bool(p, key, value, &c->verify_proofs); return;
    case PK_PARAMS_SUBGROUP_CHECK: cfg_want_bool(p, key, value, &c->params_subgroup_check); return;
    case PK_PARAMS_VALIDATION_CACHE: cfg_want_validation_cache(p, key, value); return;
    case PK_PARAMS_SHARED_IMAGE: cfg_want_shared_image(p, key, value); return;
    case PK_PARAMS_MANIFEST:
      /* a Filecoin parameters.json; empty = none. Absolute, so that it does not depend
     * on the host's working directory. */
      if (value[0] != '\0' && value[0] != '/')
        cfg_fail_kv(p, p->lineno, p->section, key, value, "must be an absolute path (or empty)");
      else if (strlen(value) >= sizeof c->params_manifest)
        cfg_fail_kv(p, p->lineno, p->section, key, value, "path too long");
      else
        snprintf(c->params_manifest, sizeof c->params_manifest, "%s", value);
      return;
    case PK_NUMA:
      /* auto: bind each device's workers to its NUMA node (topo.h); off: leave them */
      if (cfg_want_word(p, key, value, numa, 2, &w)) c->numa_off = w == 1;
      return;
    case PK_HOST_MEMORY_LIMIT:
      /* host memory the module may hold for partitions, all devices together (hostmem.h):
     * auto / off = no cap (auto may size one later), or bytes; 0 bytes is off */
      if (strcasecmp(value, "auto") == 0 || strcasecmp(value, "off") == 0) {
        c->host_memory_limit = 0;
        return;
      }
      if (!isdigit((unsigned char)value[0])) {
        cfg_fail_kv(p, p->lineno, p->section, key, value,
                    "not auto, off or a size; use e.g. host_memory_limit = 16GiB");
        return;
      }
      if (cfg_want_bytes(p, key, value, &v)) c->host_memory_limit = v;
      return;
    case PK_PARAMS_RESIDENCY:
      /* where srs_load puts the proving vectors: auto = straight onto the CUDA devices
     * (no host copy) when every device is one and has room, else host; host = always
     * the host load (docs/configuration.md) */
      if (cfg_want_word(p, key, value, residency, 2, &w))
        c->params_residency = w == 1 ? SP_RESIDENCY_HOST : SP_RESIDENCY_AUTO;
      return;
    case PK_UNSEEN_GPUS:
      /* error: a cuda section whose GPU this process does not see fails open; skip: it is
       * left out (resolve.c), for one INI shared by processes that each see some GPUs */
      if (cfg_want_word(p, key, value, unseen, 2, &w)) {
        c->unseen_gpus = w == 1 ? SP_UNSEEN_SKIP : SP_UNSEEN_ERROR;
        c->unseen_gpus_line = p->lineno;
      }
      return;
    case PK_STAGING_CHUNK_SIZE:
      /* the pinned chunks of chunked staging, one pool for every device of the provider
     * (hostmem.h): 1 MiB to 4 GiB, whatever the unit */
      if (!cfg_want_bytes(p, key, value, &v)) return;
      if (v < SP_STAGING_CHUNK_BYTES_MIN || v > SP_STAGING_CHUNK_BYTES_MAX) {
        cfg_fail_kv(p, p->lineno, p->section, key, value,
                    "out of range (1MiB..4GiB); use e.g. staging_chunk_size = 256MiB");
        return;
      }
      c->staging_chunk_bytes = v;
      return;
    default: break;
  }
  if (!cfg_want_number(p, key, value, provider_ranges[k], &v)) return;
  unsigned u = (unsigned)v;
  switch (k) {
    case PK_MAX_JOBS: c->max_jobs = u; break;
    case PK_MAX_PARTITIONS: c->max_partitions = u; break;
    case PK_QUARANTINE_AFTER: c->quarantine_after = u; break;
    case PK_MAX_ATTEMPTS: c->max_attempts = u; break;
    case PK_TIMELINE_EVENTS: c->timeline_events = u; break;
    case PK_LOAD_THREADS: c->load_threads = u; break;
    default: break;
  }
}

static void handle_device(cfg_parse *p, int k, const char *key, const char *value) {
  sp_device_cfg *d = &p->cfg->devices[p->dev];
  device_aux *a = &p->aux[p->dev];
  uint64_t v = 0;
  switch (k) {
    case DK_TYPE:
      if (strcasecmp(value, "cuda") == 0)
        d->type = SP_DEVICE_CUDA;
      else if (strcasecmp(value, "cpu") == 0)
        d->type = SP_DEVICE_CPU;
      else {
        cfg_fail_kv(p, p->lineno, p->section, key, value, "unknown device type; use cuda or cpu");
        return;
      }
      snprintf(a->type_value, sizeof a->type_value, "%s", value);
      break;
    case DK_DEVICE:
      if (!cfg_want_selector(p, value, d)) return;
      d->selector_line = p->lineno;
      break;
    case DK_WORKERS:
      if (!cfg_want_number(p, key, value, workers_range, &v)) return;
      d->workers = (unsigned)v;
      break;
    case DK_THREADS:
      if (!cfg_want_number(p, key, value, threads_range, &v)) return;
      d->threads = (unsigned)v;
      break;
    case DK_MEMORY_LIMIT:
      if (!cfg_want_bytes(p, key, value, &v)) return;
      d->memory_limit = v;
      break;
    case DK_PINNED_STAGING:
      /* auto (the default) = chunked, whole (whole-partition buffers, budget auto), off,
     * or a byte budget for whole-partition buffers; 0 bytes is off */
      if (strcasecmp(value, "auto") == 0) {
        d->pinned_staging = 0;
        break;
      }
      if (strcasecmp(value, "chunked") == 0) {
        d->pinned_staging = SP_PINNED_STAGING_CHUNKED;
        break;
      }
      if (strcasecmp(value, "whole") == 0) {
        d->pinned_staging = SP_PINNED_STAGING_WHOLE;
        break;
      }
      if (strcasecmp(value, "off") == 0) {
        d->pinned_staging = SP_PINNED_STAGING_OFF;
        break;
      }
      if (!isdigit((unsigned char)value[0])) {
        cfg_fail_kv(p, p->lineno, p->section, key, value,
                    "not auto, chunked, whole, off or a size; use e.g. pinned_staging = 32GiB");
        return;
      }
      if (!cfg_want_bytes(p, key, value, &v)) return;
      /* the values from SP_PINNED_STAGING_CHUNKED up are the words; a budget that large
     * is "no limit" anyway */
      d->pinned_staging = v == 0                           ? SP_PINNED_STAGING_OFF
                          : v >= SP_PINNED_STAGING_CHUNKED ? SP_PINNED_STAGING_CHUNKED - 1
                                                           : v;
      break;
    case DK_NUMA_NODE:
      if (!cfg_want_number(p, key, value, numa_node_range, &v)) return;
      d->numa_node_set = true;
      d->numa_node = (unsigned)v;
      break;
    case DK_MSM_PRECOMPUTE:
      /* device memory for fixed-base MSM tables: auto (the default), off, or bytes; 0 bytes
     * is off */
      if (strcasecmp(value, "auto") == 0) {
        d->msm_precompute = 0;
        break;
      }
      if (strcasecmp(value, "off") == 0) {
        d->msm_precompute = SP_MSM_PRECOMPUTE_OFF;
        break;
      }
      if (!isdigit((unsigned char)value[0])) {
        cfg_fail_kv(p, p->lineno, p->section, key, value,
                    "not auto, off or a size; use e.g. msm_precompute = 24GiB");
        return;
      }
      if (!cfg_want_bytes(p, key, value, &v)) return;
      d->msm_precompute = v == 0                       ? SP_MSM_PRECOMPUTE_OFF
                          : v == SP_MSM_PRECOMPUTE_OFF ? SP_MSM_PRECOMPUTE_OFF - 1
                                                       : v;
      break;
    case DK_STAGING_CHUNKS:
      if (!cfg_want_number(p, key, value, staging_chunks_range, &v)) return;
      d->staging_chunks = (unsigned)v;
      break;
    default: break;
  }
}

#ifdef SP_FAULT_INJECTION
/* [testing] (fault.h): which device section to fault, how, and on how many tasks. */
static void handle_testing(cfg_parse *p, int k, const char *key, const char *value) {
  uint64_t v = 0;
  switch (k) {
    case TK_INJECT_DEVICE:
      if (!valid_section_name(value, strlen(value))) {
        cfg_fail_kv(p, p->lineno, p->section, key, value, "not a section name");
        return;
      }
      snprintf(p->inject_device, sizeof p->inject_device, "%s", value);
      break;
    case TK_INJECT:
      if (!cfg_want_faults(p, key, value, &p->inject)) return;
      snprintf(p->inject_value, sizeof p->inject_value, "%s", value);
      break;
    case TK_INJECT_COUNT:
      if (!cfg_want_number(p, key, value, inject_count_range, &v)) return;
      p->inject_count = (uint32_t)v;
      break;
    default: break;
  }
}
#endif

static int cfg_handler(void *user, const char *section, const char *name, const char *value) {
  cfg_parse *p = user;
  (void)section; /* we use our own record of the section: inih cuts names at 49 bytes */
  if (p->status != SEALPROV_OK) return 1; /* the first error is the one reported */
  if (!value) {                           /* only if a host set ini_allow_no_value */
    cfg_fail_kv(p, p->lineno, p->section, name, "", "missing \"= value\"");
    return 1;
  }
  if (!*name) {
    char v[160];
    sp_utf8_escape_marked(value, v, sizeof v);
    cfg_fail_at(p, SEALPROV_ERR_CONFIG, p->lineno, "[%s] = \"%s\": missing key name", p->section,
                v);
    return 1;
  }
  const char *const *keys;
  int nkeys, *lines;
  switch (p->kind) {
    case SEC_PROVIDER:
      keys = provider_keys;
      nkeys = PK_COUNT_;
      lines = p->provider_line;
      break;
    case SEC_TESTING:
      keys = testing_keys;
      nkeys = TK_COUNT_;
      lines = p->testing_line;
      break;
    case SEC_DEVICE:
      keys = device_keys;
      nkeys = DK_COUNT_;
      lines = p->aux[p->dev].key_line;
      break;
    default: {
      char k[64], v[160];
      sp_utf8_escape_marked(name, k, sizeof k);
      sp_utf8_escape_marked(value, v, sizeof v);
      cfg_fail_at(p, SEALPROV_ERR_CONFIG, p->lineno,
                  "%s = \"%s\": key outside of any section; put it under [provider] or a device "
                  "section",
                  k, v);
      return 1;
    }
  }
  int k = key_index(keys, nkeys, name);
  if (k < 0) {
    char list[512];
    key_list(list, sizeof list, keys, nkeys);
    /* A misspelt [provider] becomes a device section; say so rather than only listing
     * device keys. */
    bool foreign = p->kind == SEC_DEVICE && (key_index(provider_keys, PK_COUNT_, name) >= 0 ||
                                             key_index(testing_keys, TK_COUNT_, name) >= 0);
    cfg_fail_kv(
        p, p->lineno, p->section, name, value, "unknown key; %s%s%s takes %s%s%s%s",
        p->kind == SEC_DEVICE ? "a device section" : "[",
        p->kind == SEC_DEVICE   ? ""
        : keys == provider_keys ? "provider"
                                : "testing",
        p->kind == SEC_DEVICE ? "" : "]", list, foreign ? " ([" : "", foreign ? p->section : "",
        foreign ? "] is taken as a device section: only [provider] and [testing] are not)" : "");
    return 1;
  }
  if (lines[k]) {
    cfg_fail_kv(p, p->lineno, p->section, name, value, "duplicate key (first set on line %d)",
                lines[k]);
    return 1;
  }
  lines[k] = p->lineno;
  switch (p->kind) {
    case SEC_PROVIDER: handle_provider(p, k, keys[k], value); break;
#ifdef SP_FAULT_INJECTION
    case SEC_TESTING: handle_testing(p, k, keys[k], value); break;
#endif
    default: handle_device(p, k, keys[k], value); break;
  }
  return 1;
}

/* ---- after the last line ------------------------------------------------------ */

static void check_devices(cfg_parse *p) {
  sp_config *c = p->cfg;
  for (size_t i = 0; i < c->ndevices; i++) {
    sp_device_cfg *d = &c->devices[i];
    device_aux *a = &p->aux[i];
    if (!a->key_line[DK_TYPE]) {
      cfg_fail_at(p, SEALPROV_ERR_CONFIG, d->line,
                  "[%s] type: missing; every section other than [provider] and [testing] is a "
                  "device and needs type = cpu or type = cuda",
                  d->section);
      return;
    }
    if (d->type == SP_DEVICE_CUDA && d->selector_kind == SP_SELECT_NONE) {
      cfg_fail_at(p, SEALPROV_ERR_CONFIG, a->key_line[DK_TYPE],
                  "[%s] type = \"%s\": no device selector; a cuda device needs device = 0, "
                  "device = uuid=GPU-... or device = pci=0000:65:00.0",
                  d->section, a->type_value);
      return;
    }
    if (d->type == SP_DEVICE_CPU && d->selector_kind != SP_SELECT_NONE) {
      cfg_fail_at(p, SEALPROV_ERR_CONFIG, d->selector_line,
                  "[%s] device = \"%s%s\": a cpu device takes no selector (device is for "
                  "type = cuda)",
                  d->section, cfg_selector_prefix(d->selector_kind), d->selector);
      return;
    }
    if (!a->key_line[DK_WORKERS]) d->workers = d->type == SP_DEVICE_CUDA ? 2 : 1;
    d->numa_off = c->numa_off; /* [provider] numa, whichever section came first */
    d->staging_chunk_bytes = c->staging_chunk_bytes; /* [provider] staging_chunk_size */
  }
}

#ifdef SP_FAULT_INJECTION
static void check_testing(cfg_parse *p) {
  sp_config *c = p->cfg;
  int dev_line = p->testing_line[TK_INJECT_DEVICE], inj_line = p->testing_line[TK_INJECT];
  int cnt_line = p->testing_line[TK_INJECT_COUNT];
  if (!dev_line && !inj_line && !cnt_line) return;
  if (!inj_line) {
    char count[24];
    snprintf(count, sizeof count, "%" PRIu32, p->inject_count);
    cfg_fail_kv(p, dev_line ? dev_line : cnt_line, "testing",
                dev_line ? "inject_device" : "inject_count", dev_line ? p->inject_device : count,
                "set without inject (fail_kernel, corrupt_proof, oom or slow)");
    return;
  }
  if (!dev_line) {
    cfg_fail_kv(p, inj_line, "testing", "inject", p->inject_value,
                "no inject_device says which device section to fault");
    return;
  }
  for (size_t i = 0; i < c->ndevices; i++) {
    if (strcasecmp(c->devices[i].section, p->inject_device) == 0) {
      c->devices[i].inject = p->inject;
      c->devices[i].inject_count = p->inject_count;
      return;
    }
  }
  char list[512];
  size_t used = 0;
  list[0] = '\0';
  for (size_t i = 0; i < c->ndevices && used < sizeof list; i++) {
    int w =
        snprintf(list + used, sizeof list - used, "%s[%s]", i ? ", " : "", c->devices[i].section);
    if (w < 0) break;
    used += (size_t)w;
  }
  cfg_fail_kv(p, dev_line, "testing", "inject_device", p->inject_device,
              "no such device section (devices: %s)", c->ndevices ? list : "none");
}
#endif

static void set_defaults(sp_config *c) {
  c->log_level = SEALPROV_LOG_INFO;
  c->verify_proofs = true;
  c->params_subgroup_check = true;
  c->max_jobs = 64;
  c->max_partitions = 1024;
  c->quarantine_after = 3;
  c->max_attempts = 3;
  c->timeline_events = 4096;
  c->load_threads = 0;
}

/* Reads the whole file: a config is small, and holding it lets errors quote lines. */
/* shown: path as messages show it (sp_utf8_escape_marked()). */
static int read_file(const char *path, const char *shown, char **out, size_t *outlen, char *err,
                     size_t errlen) {
  /* O_NONBLOCK so that a FIFO without a writer cannot block open(); only a regular
   * file is read. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    sp_set_err(err, errlen, "%s: cannot open: %s", shown, strerror(errno));
    return SEALPROV_ERR_IO;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    sp_set_err(err, errlen, "%s: not a regular file (%s)", shown,
               S_ISDIR(sb.st_mode)    ? "a directory"
               : S_ISFIFO(sb.st_mode) ? "a FIFO"
                                      : "not a plain file");
    close(fd);
    return SEALPROV_ERR_IO;
  }
  if ((uint64_t)sb.st_size > CFG_MAX_FILE_BYTES) {
    sp_set_err(err, errlen,
               "%s: %" PRIu64
               " bytes, larger than the 1 MiB an INI file may have; is this an INI file?",
               shown, (uint64_t)sb.st_size);
    close(fd);
    return SEALPROV_ERR_CONFIG;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    sp_set_err(err, errlen, "%s: cannot open: %s", shown, strerror(errno));
    close(fd);
    return SEALPROV_ERR_IO;
  }
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  if (!buf) {
    fclose(f);
    sp_set_err(err, errlen, "%s: out of memory", shown);
    return SEALPROV_ERR_NO_MEMORY;
  }
  /* One byte more than allowed tells "too large" from "exactly at the limit". */
  for (;;) {
    if (len == cap) {
      if (cap > CFG_MAX_FILE_BYTES) break;
      char *nb = realloc(buf, cap * 2 + 1);
      if (!nb) {
        free(buf);
        fclose(f);
        sp_set_err(err, errlen, "%s: out of memory", shown);
        return SEALPROV_ERR_NO_MEMORY;
      }
      buf = nb;
      cap = cap * 2 + 1;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  if (len > CFG_MAX_FILE_BYTES) {
    free(buf);
    fclose(f);
    sp_set_err(err, errlen,
               "%s: larger than the 1 MiB (%u bytes) an INI file may have; is this an INI file?",
               shown, CFG_MAX_FILE_BYTES);
    return SEALPROV_ERR_CONFIG;
  }
  if (ferror(f)) {
    int e = errno;
    free(buf);
    fclose(f);
    sp_set_err(err, errlen, "%s: cannot read: %s", shown, strerror(e));
    return SEALPROV_ERR_IO;
  }
  fclose(f);
  *out = buf;
  *outlen = len;
  return SEALPROV_OK;
}

/* The text of line `line` (1-based) of buf, for syntax errors. */
static void quote_line(const char *buf, size_t len, int line, char *dst, size_t cap) {
  const char *s = buf, *end = buf + len;
  for (int l = 1; l < line && s < end; l++) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    s = nl ? nl + 1 : end;
  }
  const char *nl = memchr(s, '\n', (size_t)(end - s));
  size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
  if (n && s[n - 1] == '\r') n--;
  char tmp[128];
  snprintf(tmp, sizeof tmp, "%.*s", (int)(n < 100 ? n : 100), s);
  sp_utf8_escape_marked(tmp, dst, cap);
}

int sp_config_load(const char *path, sp_config *out, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (!path || !out) {
    sp_set_err(err, errlen, "sp_config_load: %s is NULL", path ? "out" : "path");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  memset(out, 0, sizeof *out);
  set_defaults(out);
  if (strlen(path) >= sizeof out->path) {
    sp_set_err(err, errlen, "configuration path longer than %zu bytes", sizeof out->path - 1);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  snprintf(out->path, sizeof out->path, "%s", path);

  /* The path as messages show it: a file name may hold any byte but NUL and '/'. */
  char shown[512];
  sp_utf8_escape_marked(path, shown, sizeof shown);

  char *buf = NULL;
  size_t len = 0;
  int st = read_file(path, shown, &buf, &len, err, errlen);
  if (st != SEALPROV_OK) {
    if (err && errlen) cfg_utf8_trim(err);
    return st;
  }

  cfg_parse *p = calloc(1, sizeof *p);
  if (!p) {
    free(buf);
    sp_set_err(err, errlen, "%s: out of memory", shown);
    return SEALPROV_ERR_NO_MEMORY;
  }
  p->cfg = out;
  p->path = shown;
  p->buf = buf;
  p->len = len;
  p->status = SEALPROV_OK;

  int r = ini_parse_stream(cfg_reader, p, cfg_handler, p);
  if (r == -2) {
    cfg_fail_at(p, SEALPROV_ERR_NO_MEMORY, 0, "out of memory while parsing");
  } else if (r > 0) {
    /* The handler never fails, so r is a line inih could not parse. */
    char text[128];
    quote_line(buf, len, r, text, sizeof text);
    cfg_fail_at(p, SEALPROV_ERR_CONFIG, r,
                "\"%s\": syntax error; expected [section], key = value or a comment", text);
  }
  if (p->status == SEALPROV_OK) check_devices(p);
  if (p->status == SEALPROV_OK) cfg_check_unseen(p);
  if (p->status == SEALPROV_OK) cfg_check_shared_image(p);
#ifdef SP_FAULT_INJECTION
  if (p->status == SEALPROV_OK) check_testing(p);
#endif
  if (p->status == SEALPROV_OK && out->ndevices == 0)
    cfg_fail_at(p, SEALPROV_ERR_CONFIG, p->lineno > 0 ? p->lineno : 1,
                "end of file: no device section; add one, e.g. [cpu0] with type = cpu");

  st = p->status;
  if (st != SEALPROV_OK) {
    sp_set_err(err, errlen, "%s", p->err);
    if (err && errlen) cfg_utf8_trim(err); /* a short err buffer may cut a character */
    out->ndevices = 0;                     /* a half-parsed table must not be used */
  }
  free(p);
  free(buf);
  return st;
}
