/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* ini_values.c -- the INI's values (ini_internal.h): numbers, booleans, byte
 * sizes, device selectors and [testing]'s fault kinds read with an error that names
 * file, line, section, key and value; and file text shown in messages as valid UTF-8. */
#include <config.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"
#include "engine/fault.h" /* SP_INJECT_* */
#include "runtime/ini_internal.h"
#include "sealprov.h"

/* ---- text from the file in messages: always valid UTF-8 ----------------------- */
/* Values and keys are quoted through sp_utf8_escape_marked (base/util.h), which cuts a
 * long one with "..."; what snprintf then cuts is trimmed back to whole characters. */

/* Cuts a trailing incomplete UTF-8 sequence that snprintf's truncation left at the end
 * of s (everything before it is valid: it came through sp_utf8_escape_marked()). */
void cfg_utf8_trim(char *s) {
  size_t len = strlen(s), i = len, back = 0;
  while (i > 0 && back < 3 && ((unsigned char)s[i - 1] & 0xc0) == 0x80) {
    i--;
    back++;
  }
  if (i == 0) {
    if (back) s[0] = '\0';
    return;
  }
  unsigned c = (unsigned char)s[i - 1];
  if (c < 0x80) {
    if (back) s[i] = '\0';
    return;
  }
  size_t need = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
  if (need != back) s[i - 1] = '\0';
}

/* Records an error at line unless an earlier one is already recorded. fmt continues
 * after "file:line: ". */
void cfg_fail_at(cfg_parse *p, int status, int line, const char *fmt, ...) {
  if (p->status != SEALPROV_OK && p->err_line <= line) return;
  char why[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  p->status = status;
  p->err_line = line;
  cfg_utf8_trim(why);
  snprintf(p->err, sizeof p->err, "%s:%d: %s", p->path, line, why);
  cfg_utf8_trim(p->err);
}

/* The common shape: file:line: [section] key = "value": why */
void cfg_fail_kv(cfg_parse *p, int line, const char *section, const char *key, const char *value,
                 const char *fmt, ...) {
  char why[512], v[160], k[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  cfg_utf8_trim(why);
  sp_utf8_escape_marked(value, v, sizeof v);
  sp_utf8_escape_marked(key, k, sizeof k);
  cfg_fail_at(p, SEALPROV_ERR_CONFIG, line, "[%s] %s = \"%s\": %s", section, k, v, why);
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
bool cfg_want_number(cfg_parse *p, const char *key, const char *value, num_range r, uint64_t *out) {
  const char *s = value;
  uint64_t v = 0;
  num_err e = parse_digits(&s, &v);
  if (e == NUM_OK && *s) e = NUM_JUNK;
  if (e != NUM_OK) {
    cfg_fail_kv(p, p->lineno, p->section, key, value, "%s", num_err_text(e));
    return false;
  }
  if (v < r.min || v > r.max) {
    cfg_fail_kv(p, p->lineno, p->section, key, value, "out of range (%" PRIu64 "..%" PRIu64 ")",
                r.min, r.max);
    return false;
  }
  *out = v;
  return true;
}

bool cfg_want_bool(cfg_parse *p, const char *key, const char *value, bool *out) {
  static const char *const yes[] = {"true", "yes", "on", "1"};
  static const char *const no[] = {"false", "no", "off", "0"};
  for (size_t i = 0; i < 4; i++) {
    if (strcasecmp(value, yes[i]) == 0) {
      *out = true;
      return true;
    }
    if (strcasecmp(value, no[i]) == 0) {
      *out = false;
      return true;
    }
  }
  cfg_fail_kv(p, p->lineno, p->section, key, value,
              "not a boolean; use true/false, yes/no, on/off or 1/0");
  return false;
}

bool cfg_want_word(cfg_parse *p, const char *key, const char *value, const char *const *words,
                   int n, int *out) {
  for (int i = 0; i < n; i++)
    if (strcasecmp(value, words[i]) == 0) {
      *out = i;
      return true;
    }
  char list[160];
  size_t used = 0;
  list[0] = '\0';
  for (int i = 0; i < n && used < sizeof list; i++) {
    int w = snprintf(list + used, sizeof list - used, "%s%s",
                     i == 0       ? ""
                     : i == n - 1 ? " or "
                                  : ", ",
                     words[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
  cfg_fail_kv(p, p->lineno, p->section, key, value, "use %s", list);
  return false;
}

#ifdef SP_FAULT_INJECTION
bool cfg_want_faults(cfg_parse *p, const char *key, const char *value, uint32_t *out) {
  static const struct {
    const char *name;
    uint32_t bit;
  } kinds[] = {{"fail_kernel", SP_INJECT_FAIL_KERNEL},
               {"corrupt_proof", SP_INJECT_CORRUPT_PROOF},
               {"oom", SP_INJECT_OOM},
               {"slow", SP_INJECT_SLOW}};
  uint32_t bits = 0;
  const char *s = value;
  for (;;) {
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strcspn(s, ",");
    size_t m = n;
    while (m && (s[m - 1] == ' ' || s[m - 1] == '\t')) m--;
    uint32_t bit = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
      if (strlen(kinds[i].name) == m && strncasecmp(s, kinds[i].name, m) == 0) bit = kinds[i].bit;
    if (bit == 0) {
      char raw[48], shown[64];
      snprintf(raw, sizeof raw, "%.*s", (int)(m > 40 ? 40 : m), s);
      sp_utf8_escape_marked(raw, shown, sizeof shown);
      cfg_fail_kv(p, p->lineno, p->section, key, value,
                  "unknown fault \"%s\"; use fail_kernel, corrupt_proof, oom, slow or several "
                  "(comma-separated)",
                  shown);
      return false;
    }
    bits |= bit;
    if (!s[n]) break;
    s += n + 1;
  }
  *out = bits;
  return true;
}
#endif

/* A folder key: auto, off (stored as given: "" for the default one) or an absolute
 * folder. `words` is the error's list of them, default first. */
static void want_folder(cfg_parse *p, const char *key, const char *value, char *dst, size_t cap,
                        const char *auto_as, const char *off_as, const char *words) {
  if (strcasecmp(value, "auto") == 0)
    snprintf(dst, cap, "%s", auto_as);
  else if (strcasecmp(value, "off") == 0)
    snprintf(dst, cap, "%s", off_as);
  else if (value[0] != '/')
    cfg_fail_kv(p, p->lineno, p->section, key, value, "use %s or an absolute folder path", words);
  else if (strlen(value) >= cap)
    cfg_fail_kv(p, p->lineno, p->section, key, value, "path too long");
  else
    snprintf(dst, cap, "%s", value);
}

void cfg_want_validation_cache(cfg_parse *p, const char *key, const char *value) {
  /* auto is resolved at each load (the environment and user of the process then) */
  want_folder(p, key, value, p->cfg->params_validation_cache,
              sizeof p->cfg->params_validation_cache, "", "off", "auto, off");
}

void cfg_want_shared_image(cfg_parse *p, const char *key, const char *value) {
  /* auto is resolved at each load (the effective user of the process then) */
  want_folder(p, key, value, p->cfg->params_shared_image, sizeof p->cfg->params_shared_image,
              "auto", "", "off, auto");
}

void cfg_check_shared_image(cfg_parse *p) {
  const sp_config *c = p->cfg;
  int line = p->provider_line[PK_PARAMS_SHARED_IMAGE];
  if (c->params_shared_image[0] == '\0') return;
  const char *why = NULL;
  int other = 0;
  if (strcmp(c->params_validation_cache, "off") == 0) {
    why = "needs validation records, and params_validation_cache = off";
    other = p->provider_line[PK_PARAMS_VALIDATION_CACHE];
  } else if (!c->params_subgroup_check) {
    why = "needs params_subgroup_check = true, and it is false";
    other = p->provider_line[PK_PARAMS_SUBGROUP_CHECK];
  } else if (c->params_manifest[0] != '\0') {
    why =
        "cannot be used with params_manifest: a load that maps the image reads only the "
        "file's verifying key, so no manifest digest could be checked; and params_manifest is "
        "set";
    other = p->provider_line[PK_PARAMS_MANIFEST];
  }
  if (why == NULL) return;
  cfg_fail_kv(p, line, "provider", "params_shared_image", c->params_shared_image,
              "%s on line %d (an image is trusted only as far as a validation record of its "
              "file, which only a load with every check writes)",
              why, other);
}

/* Bytes with an optional unit. 1024-based: KiB MiB GiB TiB; 1000-based: KB MB GB TB;
 * B or nothing: bytes. Units are case-sensitive (Mb would be megabits elsewhere). */
bool cfg_want_bytes(cfg_parse *p, const char *key, const char *value, uint64_t *out) {
  static const struct {
    const char *unit;
    uint64_t mult;
  } units[] = {
      {"", 1},
      {"B", 1},
      {"KiB", 1ull << 10},
      {"MiB", 1ull << 20},
      {"GiB", 1ull << 30},
      {"TiB", 1ull << 40},
      {"KB", 1000ull},
      {"MB", 1000000ull},
      {"GB", 1000000000ull},
      {"TB", 1000000000000ull},
  };
  const char *s = value;
  uint64_t v = 0;
  num_err e = parse_digits(&s, &v);
  if (e != NUM_OK) {
    cfg_fail_kv(p, p->lineno, p->section, key, value, "%s%s", num_err_text(e),
                e == NUM_OVERFLOW ? " (more than 2^64-1 bytes)" : "");
    return false;
  }
  if (*s == '.' || *s == ',') {
    cfg_fail_kv(p, p->lineno, p->section, key, value,
                "fractions are not supported; use a smaller unit (e.g. 1536MiB)");
    return false;
  }
  while (*s == ' ' || *s == '\t') s++;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcmp(s, units[i].unit) != 0) continue;
    if (v > UINT64_MAX / units[i].mult) {
      cfg_fail_kv(p, p->lineno, p->section, key, value,
                  "number too large (more than 2^64-1 bytes)");
      return false;
    }
    *out = v * units[i].mult;
    return true;
  }
  char unit[64];
  sp_utf8_escape_marked(s, unit, sizeof unit);
  cfg_fail_kv(p, p->lineno, p->section, key, value,
              "bad unit \"%s\"; use B, KiB, MiB, GiB, TiB (1024-based) or KB, MB, GB, TB "
              "(1000-based)",
              unit);
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
bool cfg_parse_gpu_uuid(const char *s, char out[41]) {
  static const size_t groups[5] = {8, 4, 4, 4, 12};
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

/* [DDDD:|DDDDDDDD:]BB:DD.F in hex, either case: lspci prints no domain, CUDA 4 digits
 * and nvidia-smi 8. Anything else is refused rather than guessed. */
bool cfg_parse_pci(const char *s, pci_addr *a) {
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
  char b[3] = {bus[0], bus[1], 0}, d[3] = {bus[3], bus[4], 0};
  a->domain = dom;
  a->bus = (unsigned)strtoul(b, NULL, 16);
  a->device = (unsigned)strtoul(d, NULL, 16);
  a->function = (unsigned)(bus[6] - '0');
  return a->device <= 0x1f;
}

static const char selector_help[] =
    "use an ordinal (device = 0), device = uuid=GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx "
    "or device = pci=0000:65:00.0";

bool cfg_want_selector(cfg_parse *p, const char *value, sp_device_cfg *d) {
  const char *key = "device";
  char canon[41];
  pci_addr pa;
  if (!*value) {
    cfg_fail_kv(p, p->lineno, p->section, key, value, "empty selector; %s", selector_help);
    return false;
  }
  if (isdigit((unsigned char)value[0])) {
    uint64_t v = 0;
    if (!cfg_want_number(p, key, value, (num_range){0, CFG_MAX_ORDINAL}, &v)) return false;
    d->selector_kind = SP_SELECT_ORDINAL;
    d->selector_ordinal = (int)v;
    snprintf(d->selector, sizeof d->selector, "%s", value);
    return true;
  }
  const char *rest = value;
  bool uuid = false, pci = false;
  if (strncasecmp(value, "uuid=", 5) == 0) {
    uuid = true;
    rest = value + 5;
  } else if (strncasecmp(value, "pci=", 4) == 0) {
    pci = true;
    rest = value + 4;
  } else if (strncasecmp(value, "GPU-", 4) == 0)
    uuid = true;
  else if (strncasecmp(value, "MIG-", 4) == 0) {
    cfg_fail_kv(p, p->lineno, p->section, key, value,
                "MIG instances are not supported; name the whole GPU (uuid=GPU-...)");
    return false;
  }
  if (uuid) {
    if (strncasecmp(rest, "MIG-", 4) == 0) {
      cfg_fail_kv(p, p->lineno, p->section, key, value,
                  "MIG instances are not supported; name the whole GPU (uuid=GPU-...)");
      return false;
    }
    if (!cfg_parse_gpu_uuid(rest, canon)) {
      cfg_fail_kv(p, p->lineno, p->section, key, value,
                  "bad GPU UUID; expected GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hex digits, "
                  "as nvidia-smi -L prints it)");
      return false;
    }
    d->selector_kind = SP_SELECT_UUID;
  } else if (pci) {
    if (!cfg_parse_pci(rest, &pa)) {
      cfg_fail_kv(p, p->lineno, p->section, key, value,
                  "bad PCI bus id; expected domain:bus:device.function in hex, e.g. "
                  "pci=0000:65:00.0 (domain of 4 or 8 digits, or left out)");
      return false;
    }
    d->selector_kind = SP_SELECT_PCI;
  } else {
    cfg_fail_kv(p, p->lineno, p->section, key, value, "not a device selector; %s", selector_help);
    return false;
  }
  snprintf(d->selector, sizeof d->selector, "%s", rest);
  return true;
}

/* The selector as a user writes it (selector[] keeps the text after "kind="). */
const char *cfg_selector_prefix(sp_selector_kind k) {
  return k == SP_SELECT_PCI ? "pci=" : k == SP_SELECT_UUID ? "uuid=" : "";
}
