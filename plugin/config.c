/* config.c -- the INI file (inih) as a device table and provider settings.
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
 * rules 1 and 4): devices are resolved by matching the properties the runtime reports.
 */
#ifdef HAVE_CONFIG_H
#include <config.h> /* autoconf's (top_builddir, found first through -I.): HAVE_CUDA */
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

#include "config.h" /* plugin/config.h: the quoted form searches this folder first */
#include "util.h"
#include "cuda_api.h"
#include "engine.h"
#include "sealprov.h"

#define CFG_MAX_FILE_BYTES (1u << 20) /* a device table is a few KiB; refuse anything odd */
#define CFG_MAX_SECTION_NAME 48       /* inih keeps 49 characters of a section name */
#define CFG_MAX_ORDINAL 1023
#define CFG_MAX_SECTIONS (SP_MAX_DEVICES + 2)

/* ---- key tables ---------------------------------------------------------------- */

enum provider_key {
  PK_LOG_LEVEL, PK_VERIFY_PROOFS, PK_PARAMS_SUBGROUP_CHECK, PK_MAX_JOBS, PK_MAX_PARTITIONS,
  PK_QUARANTINE_AFTER, PK_MAX_ATTEMPTS, PK_TIMELINE_EVENTS, PK_LOAD_THREADS, PK_PARAMS_MANIFEST,
  PK_NUMA, PK_HOST_MEMORY_LIMIT, PK_PARAMS_RESIDENCY, PK_COUNT_
};
static const char *const provider_keys[PK_COUNT_] = {
  "log_level", "verify_proofs", "params_subgroup_check", "max_jobs", "max_partitions",
  "quarantine_after", "max_attempts", "timeline_events", "load_threads", "params_manifest",
  "numa", "host_memory_limit", "params_residency"
};

enum device_key {
  DK_TYPE, DK_DEVICE, DK_WORKERS, DK_THREADS, DK_MEMORY_LIMIT, DK_PINNED_STAGING, DK_NUMA_NODE,
  DK_MSM_PRECOMPUTE, DK_COUNT_
};
static const char *const device_keys[DK_COUNT_] = {
  "type", "device", "workers", "threads", "memory_limit", "pinned_staging", "numa_node",
  "msm_precompute"
};

enum testing_key { TK_INJECT_DEVICE, TK_INJECT, TK_INJECT_COUNT, TK_COUNT_ };
static const char *const testing_keys[TK_COUNT_] = { "inject_device", "inject", "inject_count" };

/* Ranges of the numeric keys; the documentation (docs/configuration.md) quotes them. */
typedef struct num_range { uint64_t min, max; } num_range;
static const num_range provider_ranges[PK_COUNT_] = {
  [PK_MAX_JOBS] = { 1, 1000000 },        [PK_MAX_PARTITIONS] = { 1, 100000000 },
  [PK_QUARANTINE_AFTER] = { 1, 1000 },   [PK_MAX_ATTEMPTS] = { 1, 1000 },
  [PK_TIMELINE_EVENTS] = { 0, 16777216 }, [PK_LOAD_THREADS] = { 0, 1024 },
};
static const num_range workers_range = { 1, 64 };
static const num_range threads_range = { 0, 1024 };
static const num_range inject_count_range = { 0, 1000000000 };
static const num_range numa_node_range = { 0, 1023 }; /* the kernel's largest MAX_NUMNODES */

/* ---- parser state ------------------------------------------------------------ */

typedef enum section_kind { SEC_NONE, SEC_PROVIDER, SEC_TESTING, SEC_DEVICE } section_kind;

typedef struct section_seen {
  char name[CFG_MAX_SECTION_NAME + 1];
  int line;
} section_seen;

typedef struct device_aux {   /* per device section, what sp_device_cfg has no room for */
  int key_line[DK_COUNT_];    /* 0 = key not set */
  char type_value[16];
} device_aux;

typedef struct cfg_parse {
  sp_config *cfg;
  const char *path;           /* as shown in messages (printable()) */
  /* the file, and the reader's position in it */
  const char *buf;
  size_t len, pos;
  int lineno;                 /* the line last handed to inih */
  /* the section the reader saw last */
  section_kind kind;
  size_t dev;                 /* index into cfg->devices when kind == SEC_DEVICE */
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

/* ---- small helpers ----------------------------------------------------------- */


/* ---- text from the file in messages: always valid UTF-8 ----------------------- */

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0 when the bytes there are
 * not one: a stray continuation byte, a truncated sequence, an overlong form, a
 * surrogate or a code point past U+10FFFF. */
static size_t utf8_seq_len(const unsigned char *s) {
  unsigned c = s[0];
  if (c < 0x80) return 1;
  size_t n;
  unsigned min, cp;
  if (c >= 0xc2 && c <= 0xdf) { n = 1; min = 0x80; cp = c & 0x1f; }
  else if (c >= 0xe0 && c <= 0xef) { n = 2; min = 0x800; cp = c & 0x0f; }
  else if (c >= 0xf0 && c <= 0xf4) { n = 3; min = 0x10000; cp = c & 0x07; }
  else return 0;
  for (size_t k = 1; k <= n; k++) {   /* stops at the NUL: (0 & 0xc0) != 0x80 */
    if ((s[k] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[k] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n + 1;
}

/* How the text at s is shown: *src bytes of input become *out bytes of output,
 * written to dst when dst is not NULL. Well-formed UTF-8 is kept; control characters
 * (C0, DEL and C1), and every byte that is not part of a well-formed sequence, become
 * \xNN (C1 as \u0080..\u009f); a backslash becomes \\ so an escape is never
 * ambiguous. */
static void show_unit(const unsigned char *s, size_t *src, size_t *out, char *dst) {
  size_t n = utf8_seq_len(s);
  char tmp[12];
  if (n == 1 && s[0] >= 0x20 && s[0] != 0x7f && s[0] != '\\') {
    *src = 1; *out = 1;
    if (dst) dst[0] = (char)s[0];
    return;
  }
  if (n == 1 && s[0] == '\\') {
    *src = 1; *out = 2;
    if (dst) memcpy(dst, "\\\\", 2);
    return;
  }
  if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0) {  /* C1 control U+0080..U+009F */
    snprintf(tmp, sizeof tmp, "\\u%04x", (unsigned)s[1]);
    *src = 2; *out = 6;
    if (dst) memcpy(dst, tmp, 6);
    return;
  }
  if (n > 1) {
    *src = n; *out = n;
    if (dst) memcpy(dst, s, n);
    return;
  }
  snprintf(tmp, sizeof tmp, "\\x%02x", (unsigned)s[0]);  /* as sp_utf8_escape (util.c) */
  *src = 1; *out = 4;
  if (dst) memcpy(dst, tmp, 4);
}

/* Copies s (NUL-terminated) for an error message as show_unit says. When it does not
 * fit in cap bytes it is cut between two characters and ends in "...". */
static void printable(char *dst, size_t cap, const char *s) {
  if (!cap) return;
  const unsigned char *u = (const unsigned char *)(s ? s : "");
  size_t total = 0, src, out;
  for (size_t i = 0; u[i]; i += src) {
    show_unit(u + i, &src, &out, NULL);
    total += out;
  }
  bool cut = total + 1 > cap;
  size_t room = cut ? (cap > 4 ? cap - 4 : 0) : cap - 1, used = 0;
  for (size_t i = 0; u[i]; i += src) {
    show_unit(u + i, &src, &out, NULL);
    if (used + out > room) break;
    show_unit(u + i, &src, &out, dst + used);
    used += out;
  }
  if (cut && cap > 4) { memcpy(dst + used, "...", 3); used += 3; }
  dst[used] = '\0';
}

/* Cuts a trailing incomplete UTF-8 sequence that snprintf's truncation left at the end
 * of s (everything before it is valid: it came through printable()). */
static void utf8_trim(char *s) {
  size_t len = strlen(s), i = len, back = 0;
  while (i > 0 && back < 3 && ((unsigned char)s[i - 1] & 0xc0) == 0x80) { i--; back++; }
  if (i == 0) { if (back) s[0] = '\0'; return; }
  unsigned c = (unsigned char)s[i - 1];
  if (c < 0x80) { if (back) s[i] = '\0'; return; }
  size_t need = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
  if (need != back) s[i - 1] = '\0';
}

/* Records an error at line unless an earlier one is already recorded. fmt continues
 * after "file:line: ". */
static void fail_at(cfg_parse *p, int status, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail_at(cfg_parse *p, int status, int line, const char *fmt, ...) {
  if (p->status != SEALPROV_OK && p->err_line <= line) return;
  char why[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  p->status = status;
  p->err_line = line;
  utf8_trim(why);
  snprintf(p->err, sizeof p->err, "%s:%d: %s", p->path, line, why);
  utf8_trim(p->err);
}

/* The common shape: file:line: [section] key = "value": why */
static void fail_kv(cfg_parse *p, int line, const char *section, const char *key,
                    const char *value, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void fail_kv(cfg_parse *p, int line, const char *section, const char *key,
                    const char *value, const char *fmt, ...) {
  char why[512], v[160], k[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  utf8_trim(why);
  printable(v, sizeof v, value);
  printable(k, sizeof k, key);
  fail_at(p, SEALPROV_ERR_CONFIG, line, "[%s] %s = \"%s\": %s", section, k, v, why);
}

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

/* Unsigned decimal: digits only (no sign, no spaces, no 0x). */
typedef enum num_err { NUM_OK, NUM_EMPTY, NUM_NEGATIVE, NUM_JUNK, NUM_OVERFLOW } num_err;

static num_err parse_digits(const char **sp, uint64_t *out) {
  const char *s = *sp;
  if (*s == '-') return NUM_NEGATIVE;
  if (*s == '+') return NUM_JUNK;
  if (!isdigit((unsigned char)*s)) return *s ? NUM_JUNK : NUM_EMPTY;
  uint64_t v = 0;
  for (; isdigit((unsigned char)*s); s++) {
    unsigned d = (unsigned)(*s - '0');
    if (v > (UINT64_MAX - d) / 10) return NUM_OVERFLOW;
    v = v * 10 + d;
  }
  *sp = s;
  *out = v;
  return NUM_OK;
}

static const char *num_err_text(num_err e) {
  switch (e) {
  case NUM_EMPTY: return "empty value; expected a number";
  case NUM_NEGATIVE: return "not a number (negative values are not allowed)";
  case NUM_JUNK: return "not a number";
  case NUM_OVERFLOW: return "number too large";
  default: return "";
  }
}

/* A whole value that must be a number within r. Returns false after recording why. */
static bool want_number(cfg_parse *p, const char *key, const char *value, num_range r,
                        uint64_t *out) {
  const char *s = value;
  uint64_t v = 0;
  num_err e = parse_digits(&s, &v);
  if (e == NUM_OK && *s) e = NUM_JUNK;
  if (e != NUM_OK) {
    fail_kv(p, p->lineno, p->section, key, value, "%s", num_err_text(e));
    return false;
  }
  if (v < r.min || v > r.max) {
    fail_kv(p, p->lineno, p->section, key, value, "out of range (%" PRIu64 "..%" PRIu64 ")",
            r.min, r.max);
    return false;
  }
  *out = v;
  return true;
}

static bool want_bool(cfg_parse *p, const char *key, const char *value, bool *out) {
  static const char *const yes[] = { "true", "yes", "on", "1" };
  static const char *const no[] = { "false", "no", "off", "0" };
  for (size_t i = 0; i < 4; i++) {
    if (strcasecmp(value, yes[i]) == 0) { *out = true; return true; }
    if (strcasecmp(value, no[i]) == 0) { *out = false; return true; }
  }
  fail_kv(p, p->lineno, p->section, key, value,
          "not a boolean; use true/false, yes/no, on/off or 1/0");
  return false;
}

/* Bytes with an optional unit. 1024-based: KiB MiB GiB TiB; 1000-based: KB MB GB TB;
 * B or nothing: bytes. Units are case-sensitive (Mb would be megabits elsewhere). */
static bool want_bytes(cfg_parse *p, const char *key, const char *value, uint64_t *out) {
  static const struct { const char *unit; uint64_t mult; } units[] = {
    { "", 1 }, { "B", 1 },
    { "KiB", 1ull << 10 }, { "MiB", 1ull << 20 }, { "GiB", 1ull << 30 }, { "TiB", 1ull << 40 },
    { "KB", 1000ull }, { "MB", 1000000ull }, { "GB", 1000000000ull }, { "TB", 1000000000000ull },
  };
  const char *s = value;
  uint64_t v = 0;
  num_err e = parse_digits(&s, &v);
  if (e != NUM_OK) {
    fail_kv(p, p->lineno, p->section, key, value, "%s%s", num_err_text(e),
            e == NUM_OVERFLOW ? " (more than 2^64-1 bytes)" : "");
    return false;
  }
  if (*s == '.' || *s == ',') {
    fail_kv(p, p->lineno, p->section, key, value,
            "fractions are not supported; use a smaller unit (e.g. 1536MiB)");
    return false;
  }
  while (*s == ' ' || *s == '\t') s++;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcmp(s, units[i].unit) != 0) continue;
    if (v > UINT64_MAX / units[i].mult) {
      fail_kv(p, p->lineno, p->section, key, value, "number too large (more than 2^64-1 bytes)");
      return false;
    }
    *out = v * units[i].mult;
    return true;
  }
  char unit[64];
  printable(unit, sizeof unit, s);
  fail_kv(p, p->lineno, p->section, key, value,
          "bad unit \"%s\"; use B, KiB, MiB, GiB, TiB (1024-based) or KB, MB, GB, TB "
          "(1000-based)", unit);
  return false;
}

/* ---- selectors --------------------------------------------------------------- */

static bool is_hex_run(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isxdigit((unsigned char)s[i])) return false;
  return true;
}

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (hex in either case); writes the canonical
 * form ("GPU-" + lower-case hex, as sp_cuda_enumerate reports it) to out[41]. */
static bool parse_gpu_uuid(const char *s, char out[41]) {
  static const size_t groups[5] = { 8, 4, 4, 4, 12 };
  if (strncasecmp(s, "GPU-", 4) != 0) return false;
  const char *q = s + 4;
  for (int g = 0; g < 5; g++) {
    if (!is_hex_run(q, groups[g])) return false;
    q += groups[g];
    if (g < 4 && *q++ != '-') return false;
  }
  if (*q) return false;
  memcpy(out, "GPU-", 4);
  for (size_t i = 4; i < 40; i++) out[i] = (char)tolower((unsigned char)s[i]);
  out[40] = '\0';
  return true;
}

typedef struct pci_addr { unsigned domain, bus, device, function; } pci_addr;

/* [DDDD:|DDDDDDDD:]BB:DD.F in hex, either case: lspci prints no domain, CUDA 4 digits
 * and nvidia-smi 8. Anything else is refused rather than guessed. */
static bool parse_pci(const char *s, pci_addr *a) {
  const char *colon1 = strchr(s, ':');
  if (!colon1) return false;
  const char *colon2 = strchr(colon1 + 1, ':');
  unsigned dom = 0;
  const char *bus = s;
  if (colon2) {
    size_t dl = (size_t)(colon1 - s);
    if ((dl != 4 && dl != 8) || !is_hex_run(s, dl)) return false;
    char tmp[9];
    memcpy(tmp, s, dl);
    tmp[dl] = '\0';
    unsigned long d = strtoul(tmp, NULL, 16);
    if (d > 0xffffffffu) return false;
    dom = (unsigned)d;
    bus = colon1 + 1;
  }
  /* bus: 2 hex, ':', device: 2 hex, '.', function: 1 digit 0-7, end */
  if (!is_hex_run(bus, 2) || bus[2] != ':' || !is_hex_run(bus + 3, 2) || bus[5] != '.' ||
      bus[6] < '0' || bus[6] > '7' || bus[7] != '\0')
    return false;
  char b[3] = { bus[0], bus[1], 0 }, d[3] = { bus[3], bus[4], 0 };
  a->domain = dom;
  a->bus = (unsigned)strtoul(b, NULL, 16);
  a->device = (unsigned)strtoul(d, NULL, 16);
  a->function = (unsigned)(bus[6] - '0');
  return a->device <= 0x1f;
}

static const char selector_help[] =
    "use an ordinal (device = 0), device = uuid=GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx "
    "or device = pci=0000:65:00.0";

static bool want_selector(cfg_parse *p, const char *value, sp_device_cfg *d) {
  const char *key = "device";
  char canon[41];
  pci_addr pa;
  if (!*value) {
    fail_kv(p, p->lineno, p->section, key, value, "empty selector; %s", selector_help);
    return false;
  }
  if (isdigit((unsigned char)value[0])) {
    uint64_t v = 0;
    if (!want_number(p, key, value, (num_range){ 0, CFG_MAX_ORDINAL }, &v)) return false;
    d->selector_kind = SP_SELECT_ORDINAL;
    d->selector_ordinal = (int)v;
    snprintf(d->selector, sizeof d->selector, "%s", value);
    return true;
  }
  const char *rest = value;
  bool uuid = false, pci = false;
  if (strncasecmp(value, "uuid=", 5) == 0) { uuid = true; rest = value + 5; }
  else if (strncasecmp(value, "pci=", 4) == 0) { pci = true; rest = value + 4; }
  else if (strncasecmp(value, "GPU-", 4) == 0) uuid = true;
  else if (strncasecmp(value, "MIG-", 4) == 0) {
    fail_kv(p, p->lineno, p->section, key, value,
            "MIG instances are not supported; name the whole GPU (uuid=GPU-...)");
    return false;
  }
  if (uuid) {
    if (strncasecmp(rest, "MIG-", 4) == 0) {
      fail_kv(p, p->lineno, p->section, key, value,
              "MIG instances are not supported; name the whole GPU (uuid=GPU-...)");
      return false;
    }
    if (!parse_gpu_uuid(rest, canon)) {
      fail_kv(p, p->lineno, p->section, key, value,
              "bad GPU UUID; expected GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hex digits, "
              "as nvidia-smi -L prints it)");
      return false;
    }
    d->selector_kind = SP_SELECT_UUID;
  } else if (pci) {
    if (!parse_pci(rest, &pa)) {
      fail_kv(p, p->lineno, p->section, key, value,
              "bad PCI bus id; expected domain:bus:device.function in hex, e.g. "
              "pci=0000:65:00.0 (domain of 4 or 8 digits, or left out)");
      return false;
    }
    d->selector_kind = SP_SELECT_PCI;
  } else {
    fail_kv(p, p->lineno, p->section, key, value, "not a device selector; %s", selector_help);
    return false;
  }
  snprintf(d->selector, sizeof d->selector, "%s", rest);
  return true;
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
    printable(safe, sizeof safe, shown);
    fail_at(p, SEALPROV_ERR_CONFIG, p->lineno,
            "[%s]: bad section name; use 1 to %d characters of A-Z a-z 0-9 _ - .", safe,
            CFG_MAX_SECTION_NAME);
    return;
  }
  memcpy(p->section, name, n);
  p->section[n] = '\0';
  for (size_t i = 0; i < p->nsections; i++) {
    if (strcasecmp(p->sections[i].name, p->section) == 0) {
      fail_at(p, SEALPROV_ERR_CONFIG, p->lineno,
              "[%s]: duplicate section (first on line %d; names are compared ignoring case)",
              p->section, p->sections[i].line);
      return;
    }
  }
  bool provider = strcasecmp(p->section, "provider") == 0;
  bool testing = strcasecmp(p->section, "testing") == 0;
  if (!provider && !testing && p->cfg->ndevices >= SP_MAX_DEVICES) {
    fail_at(p, SEALPROV_ERR_CONFIG, p->lineno,
            "[%s]: too many device sections (at most %d)", p->section, SP_MAX_DEVICES);
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
    p->kind = SEC_TESTING;
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
    if ((s[i] == ';' || s[i] == '#') && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t'))
      return i;
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
    fail_at(p, SEALPROV_ERR_CONFIG, p->lineno, "NUL byte in the line; is this a text file?");
    n = 0;
  }
  if (p->lineno == 1 && n >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) { line += 3; n -= 3; }
  while (n && (*line == ' ' || *line == '\t')) { line++; n--; }
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
      printable(safe, sizeof safe, shown);
      fail_at(p, SEALPROV_ERR_CONFIG, p->lineno, "\"%s\": %s", safe,
              close ? "text after the closing ] of a section header" : "section header without ]");
      p->kind = SEC_NONE;
    }
  }
  if ((size_t)num < n + 2) {
    fail_at(p, SEALPROV_ERR_CONFIG, p->lineno, "line too long (%zu characters; at most %d)", n,
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
  sp_config *c = p->cfg;
  uint64_t v = 0;
  switch (k) {
  case PK_LOG_LEVEL: {
    static const char *const levels[] = { "error", "warn", "info", "debug" };
    for (int i = 0; i < 4; i++)
      if (strcasecmp(value, levels[i]) == 0) { c->log_level = i; return; }
    fail_kv(p, p->lineno, p->section, key, value,
            "unknown log level; use error, warn, info or debug");
    return;
  }
  case PK_VERIFY_PROOFS: want_bool(p, key, value, &c->verify_proofs); return;
  case PK_PARAMS_SUBGROUP_CHECK: want_bool(p, key, value, &c->params_subgroup_check); return;
  case PK_PARAMS_MANIFEST:
    /* a Filecoin parameters.json; empty = none. Absolute, so that it does not depend
     * on the host's working directory. */
    if (value[0] != '\0' && value[0] != '/')
      fail_kv(p, p->lineno, p->section, key, value, "must be an absolute path (or empty)");
    else if (strlen(value) >= sizeof c->params_manifest)
      fail_kv(p, p->lineno, p->section, key, value, "path too long");
    else
      snprintf(c->params_manifest, sizeof c->params_manifest, "%s", value);
    return;
  case PK_NUMA:
    /* auto: bind each device's workers to its NUMA node (topo.h); off: leave them */
    if (strcasecmp(value, "auto") == 0) c->numa_off = false;
    else if (strcasecmp(value, "off") == 0) c->numa_off = true;
    else fail_kv(p, p->lineno, p->section, key, value, "use auto or off");
    return;
  case PK_HOST_MEMORY_LIMIT:
    /* host memory the module may hold for partitions, all devices together (hostmem.h):
     * auto / off = no cap (auto may size one later), or bytes; 0 bytes is off */
    if (strcasecmp(value, "auto") == 0 || strcasecmp(value, "off") == 0) {
      c->host_memory_limit = 0;
      return;
    }
    if (!isdigit((unsigned char)value[0])) {
      fail_kv(p, p->lineno, p->section, key, value,
              "not auto, off or a size; use e.g. host_memory_limit = 16GiB");
      return;
    }
    if (want_bytes(p, key, value, &v)) c->host_memory_limit = v;
    return;
  case PK_PARAMS_RESIDENCY:
    /* where srs_load puts the proving vectors: auto = straight onto the CUDA devices
     * (no host copy) when every device is one and has room, else host; host = always
     * the host load (docs/configuration.md) */
    if (strcasecmp(value, "auto") == 0)
      c->params_residency = SP_RESIDENCY_AUTO;
    else if (strcasecmp(value, "host") == 0)
      c->params_residency = SP_RESIDENCY_HOST;
    else
      fail_kv(p, p->lineno, p->section, key, value, "use auto or host");
    return;
  default: break;
  }
  if (!want_number(p, key, value, provider_ranges[k], &v)) return;
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
    if (strcasecmp(value, "cuda") == 0) d->type = SP_DEVICE_CUDA;
    else if (strcasecmp(value, "cpu") == 0) d->type = SP_DEVICE_CPU;
    else {
      fail_kv(p, p->lineno, p->section, key, value, "unknown device type; use cuda or cpu");
      return;
    }
    snprintf(a->type_value, sizeof a->type_value, "%s", value);
    break;
  case DK_DEVICE:
    if (!want_selector(p, value, d)) return;
    d->selector_line = p->lineno;
    break;
  case DK_WORKERS:
    if (!want_number(p, key, value, workers_range, &v)) return;
    d->workers = (unsigned)v;
    break;
  case DK_THREADS:
    if (!want_number(p, key, value, threads_range, &v)) return;
    d->threads = (unsigned)v;
    break;
  case DK_MEMORY_LIMIT:
    if (!want_bytes(p, key, value, &v)) return;
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
      fail_kv(p, p->lineno, p->section, key, value,
              "not auto, chunked, whole, off or a size; use e.g. pinned_staging = 32GiB");
      return;
    }
    if (!want_bytes(p, key, value, &v)) return;
    /* the values from SP_PINNED_STAGING_CHUNKED up are the words; a budget that large
     * is "no limit" anyway */
    d->pinned_staging = v == 0                            ? SP_PINNED_STAGING_OFF
                        : v >= SP_PINNED_STAGING_CHUNKED ? SP_PINNED_STAGING_CHUNKED - 1
                                                         : v;
    break;
  case DK_NUMA_NODE:
    if (!want_number(p, key, value, numa_node_range, &v)) return;
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
      fail_kv(p, p->lineno, p->section, key, value,
              "not auto, off or a size; use e.g. msm_precompute = 24GiB");
      return;
    }
    if (!want_bytes(p, key, value, &v)) return;
    d->msm_precompute = v == 0                       ? SP_MSM_PRECOMPUTE_OFF
                        : v == SP_MSM_PRECOMPUTE_OFF ? SP_MSM_PRECOMPUTE_OFF - 1
                                                     : v;
    break;
  default: break;
  }
}

static void handle_testing(cfg_parse *p, int k, const char *key, const char *value) {
  uint64_t v = 0;
  switch (k) {
  case TK_INJECT_DEVICE:
    if (!valid_section_name(value, strlen(value))) {
      fail_kv(p, p->lineno, p->section, key, value, "not a section name");
      return;
    }
    snprintf(p->inject_device, sizeof p->inject_device, "%s", value);
    break;
  case TK_INJECT: {
    /* a comma-separated list of fault kinds (the SP_INJECT_* bits) */
    uint32_t bits = 0;
    const char *s = value;
    for (;;) {
      while (*s == ' ' || *s == '\t') s++;
      size_t n = strcspn(s, ",");
      size_t m = n;
      while (m && (s[m - 1] == ' ' || s[m - 1] == '\t')) m--;
      if (m == 11 && strncasecmp(s, "fail_kernel", 11) == 0) bits |= SP_INJECT_FAIL_KERNEL;
      else if (m == 13 && strncasecmp(s, "corrupt_proof", 13) == 0) bits |= SP_INJECT_CORRUPT_PROOF;
      else if (m == 3 && strncasecmp(s, "oom", 3) == 0) bits |= SP_INJECT_OOM;
      else {
        char raw[48], shown[64];
        snprintf(raw, sizeof raw, "%.*s", (int)(m > 40 ? 40 : m), s);
        printable(shown, sizeof shown, raw);
        fail_kv(p, p->lineno, p->section, key, value,
                "unknown fault \"%s\"; use fail_kernel, corrupt_proof, oom or several "
                "(comma-separated)", shown);
        return;
      }
      if (!s[n]) break;
      s += n + 1;
    }
    p->inject = bits;
    snprintf(p->inject_value, sizeof p->inject_value, "%s", value);
    break;
  }
  case TK_INJECT_COUNT:
    if (!want_number(p, key, value, inject_count_range, &v)) return;
    p->inject_count = (uint32_t)v;
    break;
  default: break;
  }
}

static int cfg_handler(void *user, const char *section, const char *name, const char *value) {
  cfg_parse *p = user;
  (void)section; /* we use our own record of the section: inih cuts names at 49 bytes */
  if (p->status != SEALPROV_OK) return 1;  /* the first error is the one reported */
  if (!value) {   /* only if a host set ini_allow_no_value */
    fail_kv(p, p->lineno, p->section, name, "", "missing \"= value\"");
    return 1;
  }
  if (!*name) {
    char v[160];
    printable(v, sizeof v, value);
    fail_at(p, SEALPROV_ERR_CONFIG, p->lineno, "[%s] = \"%s\": missing key name", p->section, v);
    return 1;
  }
  const char *const *keys;
  int nkeys, *lines;
  switch (p->kind) {
  case SEC_PROVIDER: keys = provider_keys; nkeys = PK_COUNT_; lines = p->provider_line; break;
  case SEC_TESTING: keys = testing_keys; nkeys = TK_COUNT_; lines = p->testing_line; break;
  case SEC_DEVICE:
    keys = device_keys; nkeys = DK_COUNT_; lines = p->aux[p->dev].key_line; break;
  default: {
    char k[64], v[160];
    printable(k, sizeof k, name);
    printable(v, sizeof v, value);
    fail_at(p, SEALPROV_ERR_CONFIG, p->lineno,
            "%s = \"%s\": key outside of any section; put it under [provider] or a device "
            "section", k, v);
    return 1;
  }
  }
  int k = key_index(keys, nkeys, name);
  if (k < 0) {
    char list[256];
    key_list(list, sizeof list, keys, nkeys);
    /* A misspelt [provider] becomes a device section; say so rather than only listing
     * device keys. */
    bool foreign = p->kind == SEC_DEVICE && (key_index(provider_keys, PK_COUNT_, name) >= 0 ||
                                             key_index(testing_keys, TK_COUNT_, name) >= 0);
    fail_kv(p, p->lineno, p->section, name, value, "unknown key; %s%s%s takes %s%s%s%s",
            p->kind == SEC_DEVICE ? "a device section" : "[",
            p->kind == SEC_DEVICE ? "" : keys == provider_keys ? "provider" : "testing",
            p->kind == SEC_DEVICE ? "" : "]", list,
            foreign ? " ([" : "", foreign ? p->section : "",
            foreign ? "] is taken as a device section: only [provider] and [testing] are not)"
                    : "");
    return 1;
  }
  if (lines[k]) {
    fail_kv(p, p->lineno, p->section, name, value, "duplicate key (first set on line %d)",
            lines[k]);
    return 1;
  }
  lines[k] = p->lineno;
  switch (p->kind) {
  case SEC_PROVIDER: handle_provider(p, k, keys[k], value); break;
  case SEC_TESTING: handle_testing(p, k, keys[k], value); break;
  default: handle_device(p, k, keys[k], value); break;
  }
  return 1;
}

/* ---- after the last line ------------------------------------------------------ */

/* The selector as a user writes it (selector[] keeps the text after "kind="). */
static const char *selector_prefix(sp_selector_kind k) {
  return k == SP_SELECT_PCI ? "pci=" : k == SP_SELECT_UUID ? "uuid=" : "";
}

static void check_devices(cfg_parse *p) {
  sp_config *c = p->cfg;
  for (size_t i = 0; i < c->ndevices; i++) {
    sp_device_cfg *d = &c->devices[i];
    device_aux *a = &p->aux[i];
    if (!a->key_line[DK_TYPE]) {
      fail_at(p, SEALPROV_ERR_CONFIG, d->line,
              "[%s] type: missing; every section other than [provider] and [testing] is a "
              "device and needs type = cpu or type = cuda", d->section);
      return;
    }
    if (d->type == SP_DEVICE_CUDA && d->selector_kind == SP_SELECT_NONE) {
      fail_at(p, SEALPROV_ERR_CONFIG, a->key_line[DK_TYPE],
              "[%s] type = \"%s\": no device selector; a cuda device needs device = 0, "
              "device = uuid=GPU-... or device = pci=0000:65:00.0", d->section, a->type_value);
      return;
    }
    if (d->type == SP_DEVICE_CPU && d->selector_kind != SP_SELECT_NONE) {
      fail_at(p, SEALPROV_ERR_CONFIG, d->selector_line,
              "[%s] device = \"%s%s\": a cpu device takes no selector (device is for "
              "type = cuda)", d->section, selector_prefix(d->selector_kind), d->selector);
      return;
    }
    if (!a->key_line[DK_WORKERS]) d->workers = d->type == SP_DEVICE_CUDA ? 2 : 1;
    d->numa_off = c->numa_off; /* [provider] numa, whichever section came first */
  }
}

static void check_testing(cfg_parse *p) {
  sp_config *c = p->cfg;
  int dev_line = p->testing_line[TK_INJECT_DEVICE], inj_line = p->testing_line[TK_INJECT];
  int cnt_line = p->testing_line[TK_INJECT_COUNT];
  if (!dev_line && !inj_line && !cnt_line) return;
  if (!inj_line) {
    char count[24];
    snprintf(count, sizeof count, "%" PRIu32, p->inject_count);
    fail_kv(p, dev_line ? dev_line : cnt_line, "testing",
            dev_line ? "inject_device" : "inject_count", dev_line ? p->inject_device : count,
            "set without inject (fail_kernel, corrupt_proof or oom)");
    return;
  }
  if (!dev_line) {
    fail_kv(p, inj_line, "testing", "inject", p->inject_value,
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
    int w = snprintf(list + used, sizeof list - used, "%s[%s]", i ? ", " : "",
                     c->devices[i].section);
    if (w < 0) break;
    used += (size_t)w;
  }
  fail_kv(p, dev_line, "testing", "inject_device", p->inject_device,
          "no such device section (devices: %s)", c->ndevices ? list : "none");
}

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
/* shown: path as messages show it (printable()). */
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
               S_ISDIR(sb.st_mode) ? "a directory" : S_ISFIFO(sb.st_mode) ? "a FIFO" : "not a plain file");
    close(fd);
    return SEALPROV_ERR_IO;
  }
  if ((uint64_t)sb.st_size > CFG_MAX_FILE_BYTES) {
    sp_set_err(err, errlen, "%s: %" PRIu64 " bytes, larger than the 1 MiB an INI file may have; is this an INI file?",
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
    sp_set_err(err, errlen, "%s: larger than the 1 MiB (%u bytes) an INI file may have; is this an INI file?",
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
  printable(dst, cap, tmp);
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
  printable(shown, sizeof shown, path);

  char *buf = NULL;
  size_t len = 0;
  int st = read_file(path, shown, &buf, &len, err, errlen);
  if (st != SEALPROV_OK) {
    if (err && errlen) utf8_trim(err);
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
    fail_at(p, SEALPROV_ERR_NO_MEMORY, 0, "out of memory while parsing");
  } else if (r > 0) {
    /* The handler never fails, so r is a line inih could not parse. */
    char text[128];
    quote_line(buf, len, r, text, sizeof text);
    fail_at(p, SEALPROV_ERR_CONFIG, r,
            "\"%s\": syntax error; expected [section], key = value or a comment", text);
  }
  if (p->status == SEALPROV_OK) check_devices(p);
  if (p->status == SEALPROV_OK) check_testing(p);
  if (p->status == SEALPROV_OK && out->ndevices == 0)
    fail_at(p, SEALPROV_ERR_CONFIG, p->lineno > 0 ? p->lineno : 1,
            "end of file: no device section; add one, e.g. [cpu0] with type = cpu");

  st = p->status;
  if (st != SEALPROV_OK) {
    sp_set_err(err, errlen, "%s", p->err);
    if (err && errlen) utf8_trim(err); /* a short err buffer may cut a character */
    out->ndevices = 0; /* a half-parsed table must not be used */
  }
  free(p);
  free(buf);
  return st;
}

/* ---- device resolution ------------------------------------------------------- */

static void describe_gpus(const sp_gpu_info *gpus, int n, char *dst, size_t cap) {
  size_t used = 0;
  int w;
  dst[0] = '\0';
  if (n == 0) {
    w = snprintf(dst, cap, "this process sees no GPU (no NVIDIA driver or no device)");
    used = w > 0 ? (size_t)w : 0;
  } else {
    w = snprintf(dst, cap, "this process sees %d GPU%s:", n, n == 1 ? "" : "s");
    used = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < n && used < cap; i++) {
      w = snprintf(dst + used, cap - used, "%s %d = %s %s pci=%s", i ? ";" : "",
                   gpus[i].ordinal, gpus[i].name, gpus[i].uuid, gpus[i].pci_bus_id);
      if (w < 0) break;
      used += (size_t)w;
    }
  }
  /* Read, never written (docs/design.md rule 1): it explains why a GPU may be missing. */
  const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
  if (cvd && used < cap) {
    char shown[128];
    printable(shown, sizeof shown, cvd);
    snprintf(dst + used, cap - used, " (CUDA_VISIBLE_DEVICES=%s limits what it sees)", shown);
  }
}

static bool gpu_matches(const sp_device_cfg *d, const sp_gpu_info *g) {
  char canon[41];
  pci_addr want, have;
  switch (d->selector_kind) {
  case SP_SELECT_ORDINAL: return d->selector_ordinal == g->ordinal;
  case SP_SELECT_UUID:
    return parse_gpu_uuid(d->selector, canon) && strcasecmp(canon, g->uuid) == 0;
  case SP_SELECT_PCI:
    return parse_pci(d->selector, &want) && parse_pci(g->pci_bus_id, &have) &&
           want.domain == have.domain && want.bus == have.bus && want.device == have.device &&
           want.function == have.function;
  default: return false;
  }
}

int sp_config_resolve_with_gpus(sp_config *cfg, const sp_gpu_info *gpus, int ngpus, char *err,
                                size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (!cfg || ngpus < 0 || (ngpus > 0 && !gpus)) {
    sp_set_err(err, errlen, "sp_config_resolve_with_gpus: bad argument");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  char shown[512];
  printable(shown, sizeof shown, cfg->path);
  for (size_t i = 0; i < cfg->ndevices; i++) {
    sp_device_cfg *d = &cfg->devices[i];
    if (d->type != SP_DEVICE_CUDA) continue;
    int hit = -1;
    for (int g = 0; g < ngpus; g++)
      if (gpu_matches(d, &gpus[g])) { hit = g; break; }
    const char *pre = selector_prefix(d->selector_kind);
    if (hit < 0) {
      char seen[1024];
      describe_gpus(gpus, ngpus, seen, sizeof seen);
      sp_set_err(err, errlen, "%s:%d: [%s] device = \"%s%s\": GPU not present; %s", shown,
              d->selector_line, d->section, pre, d->selector, seen);
      if (err && errlen) utf8_trim(err);
      return SEALPROV_ERR_CONFIG;
    }
    for (size_t j = 0; j < i; j++) {
      const sp_device_cfg *o = &cfg->devices[j];
      if (o->type == SP_DEVICE_CUDA && o->ordinal == gpus[hit].ordinal) {
        sp_set_err(err, errlen,
                "%s:%d: [%s] device = \"%s%s\": the same GPU as [%s] (line %d): ordinal %d, "
                "%s, pci=%s; one section per GPU (use workers = N for more workers)",
                shown, d->selector_line, d->section, pre, d->selector, o->section,
                o->selector_line, gpus[hit].ordinal, gpus[hit].uuid, gpus[hit].pci_bus_id);
        if (err && errlen) utf8_trim(err);
        return SEALPROV_ERR_CONFIG;
      }
    }
    d->ordinal = gpus[hit].ordinal;
    snprintf(d->name, sizeof d->name, "%s", gpus[hit].name);
    snprintf(d->uuid, sizeof d->uuid, "%s", gpus[hit].uuid);
    snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", gpus[hit].pci_bus_id);
  }
  return SEALPROV_OK;
}

int sp_config_resolve_devices(sp_config *cfg, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (!cfg) {
    sp_set_err(err, errlen, "sp_config_resolve_devices: cfg is NULL");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  const sp_device_cfg *first_cuda = NULL;
  for (size_t i = 0; i < cfg->ndevices; i++) {
    sp_device_cfg *d = &cfg->devices[i];
    if (d->type == SP_DEVICE_CUDA) {
      if (!first_cuda) first_cuda = d;
      d->ordinal = -1; /* until matched: a second call starts clean */
      continue;
    }
    d->ordinal = -1;
    snprintf(d->name, sizeof d->name, "CPU");
    d->uuid[0] = '\0';
    d->pci_bus_id[0] = '\0';
  }
  if (!first_cuda) return SEALPROV_OK;
  char shown[512];
  printable(shown, sizeof shown, cfg->path);
#ifndef HAVE_CUDA
  sp_set_err(err, errlen,
          "%s:%d: [%s]: a cuda device (type = cuda), but this build of sealprov has no "
          "CUDA engine (configured --without-cuda or nvcc not found); use type = cpu or a "
          "CUDA build",
          shown, first_cuda->line, first_cuda->section);
  return SEALPROV_ERR_UNSUPPORTED;
#else
  sp_gpu_info *gpus = calloc(SP_MAX_DEVICES, sizeof *gpus);
  if (!gpus) {
    sp_set_err(err, errlen, "%s: out of memory", shown);
    return SEALPROV_ERR_NO_MEMORY;
  }
  int n = 0;
  char why[512] = "";
  int st = sp_cuda_enumerate(gpus, SP_MAX_DEVICES, &n, why, sizeof why);
  if (st != SEALPROV_OK) {
    sp_set_err(err, errlen, "%s: [%s] and the other cuda devices: cannot list GPUs: %s",
            shown, first_cuda->section, why);
    if (err && errlen) utf8_trim(err);
  } else {
    st = sp_config_resolve_with_gpus(cfg, gpus, n, err, errlen);
  }
  free(gpus);
  return st;
#endif
}
