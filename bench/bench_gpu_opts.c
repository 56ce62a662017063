/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench_gpu_opts.c -- the values of `sealprov bench gpu`'s options (bench_gpu.h): lists
 * of sizes, byte counts, staging modes and table variants, each false when the text
 * is not one. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sp_gpu.h"   /* first: hides <math.h>'s FP_ZERO from bls12_381.h */
#include "engine/device.h" /* SP_PINNED_STAGING_* */
#include "bench_gpu.h"

/* A comma-separated list of at most cap numbers in [lo, hi], or none (an empty list). */
bool bg_parse_list_cap(const char *s, unsigned *out, unsigned *n, unsigned cap, unsigned lo,
                       unsigned hi) {
  *n = 0;
  if (!strcmp(s, "none")) return true;
  char *end;
  while (*s) {
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || v < lo || v > hi || *n >= cap) return false;
    out[(*n)++] = (unsigned)v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return false;
  }
  return true;
}

/* --pinned-staging: auto | chunked | whole | off | bytes with an optional K, M or G
 * (1024-based) suffix. The same meanings as the INI's pinned_staging, whose sizes use
 * the INI's units (KiB, GB, ...) instead. */
static bool parse_pinned(const char *s, uint64_t *out) {
  if (!strcmp(s, "auto")) return *out = 0, true;
  if (!strcmp(s, "off")) return *out = SP_PINNED_STAGING_OFF, true;
  if (!strcmp(s, "chunked")) return *out = SP_PINNED_STAGING_CHUNKED, true;
  if (!strcmp(s, "whole")) return *out = SP_PINNED_STAGING_WHOLE, true;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  unsigned shift = 0;
  if (*end == 'K' || *end == 'k')
    shift = 10, end++;
  else if (*end == 'M' || *end == 'm')
    shift = 20, end++;
  else if (*end == 'G' || *end == 'g')
    shift = 30, end++;
  if (end == s || *end || v == 0 || v > (UINT64_MAX >> 1) >> shift) return false;
  *out = (uint64_t)v << shift;
  return true;
}

/* --memory-limit: a comma-separated list of bytes with an optional K, M or G
 * (1024-based, as --pinned-staging), or none (no limit). */
bool bg_parse_limits(const char *s, bg_opts *o) {
  char buf[256];
  if (strlen(s) >= sizeof buf) return false;
  snprintf(buf, sizeof buf, "%s", s);
  o->nlimits = 0;
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    uint64_t v = 0;
    if (o->nlimits == BG_MAX_SIZES) return false;
    if (strcmp(t, "none") && (!parse_pinned(t, &v) || v == 0 || v == SP_PINNED_STAGING_OFF ||
                              v == SP_PINNED_STAGING_CHUNKED || v == SP_PINNED_STAGING_WHOLE))
      return false;
    o->limits[o->nlimits++] = v;
  }
  return o->nlimits > 0;
}

/* A comma-separated list of those (at most 4). */
bool bg_parse_pinned_list(const char *s, bg_opts *o) {
  char buf[256];
  if (strlen(s) >= sizeof buf) return false;
  snprintf(buf, sizeof buf, "%s", s);
  o->npinned = 0;
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (o->npinned == 4 || !parse_pinned(t, &o->pinned_list[o->npinned])) return false;
    o->npinned++;
  }
  if (o->npinned == 0) return false;
  o->pinned = o->pinned_list[0];
  return true;
}

/* --precompute: off | on | C:K (window C 2..24, K copies), comma-separated, at most
 * BG_MAX_PRE. */
bool bg_parse_precompute(const char *s, bg_opts *o) {
  char buf[128];
  if (strlen(s) >= sizeof buf) return false;
  snprintf(buf, sizeof buf, "%s", s);
  o->npre = 0;
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (o->npre == BG_MAX_PRE) return false;
    unsigned c = 0, k = 0;
    char tail = 0;
    if (!strcmp(t, "off"))
      c = BG_PRE_OFF;
    else if (!strcmp(t, "on"))
      c = BG_PRE_ON;
    else if (sscanf(t, "%u:%u%c", &c, &k, &tail) != 2 || c < 2 || c > 24 || k < 2 ||
             k > (256 + c - 1) / c)
      return false;
    o->pre[o->npre].window = c;
    o->pre[o->npre].copies = k;
    o->npre++;
  }
  return o->npre > 0;
}
