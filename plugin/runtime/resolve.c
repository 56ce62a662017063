/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* resolve.c -- the INI's device selectors against the GPUs this process sees
 * (device_table.h: sp_config_resolve_devices). The list comes from the device kind's
 * enumeration (engine.h, sp_backend.enumerate): only property queries, so nothing here
 * touches a thread's current device or the CUDA_* environment (docs/design.md, rules 1
 * and 4). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/util.h"
#include "engine/engine.h"
#include "runtime/ini_internal.h"
#include "sealprov.h"

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
      w = snprintf(dst + used, cap - used, "%s %d = %s %s pci=%s", i ? ";" : "", gpus[i].ordinal,
                   gpus[i].name, gpus[i].uuid, gpus[i].pci_bus_id);
      if (w < 0) break;
      used += (size_t)w;
    }
  }
  /* Read, never written (docs/design.md rule 1): it explains why a GPU may be missing. */
  const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
  if (cvd && used < cap) {
    char shown[128];
    sp_utf8_escape_marked(cvd, shown, sizeof shown);
    snprintf(dst + used, cap - used, " (CUDA_VISIBLE_DEVICES=%s limits what it sees)", shown);
  }
}

static bool gpu_matches(const sp_device_cfg *d, const sp_gpu_info *g) {
  char canon[41];
  pci_addr want, have;
  switch (d->selector_kind) {
    case SP_SELECT_ORDINAL: return d->selector_ordinal == g->ordinal;
    case SP_SELECT_UUID:
      return cfg_parse_gpu_uuid(d->selector, canon) && strcasecmp(canon, g->uuid) == 0;
    case SP_SELECT_PCI:
      return cfg_parse_pci(d->selector, &want) && cfg_parse_pci(g->pci_bus_id, &have) &&
             want.domain == have.domain && want.bus == have.bus && want.device == have.device &&
             want.function == have.function;
    default: return false;
  }
}

void cfg_check_unseen(cfg_parse *p) {
  const sp_config *c = p->cfg;
  if (c->unseen_gpus != SP_UNSEEN_SKIP) return;
  for (size_t i = 0; i < c->ndevices; i++) {
    const sp_device_cfg *d = &c->devices[i];
    if (d->type != SP_DEVICE_CUDA || d->selector_kind != SP_SELECT_ORDINAL) continue;
    cfg_fail_at(p, SEALPROV_ERR_CONFIG, d->selector_line,
                "[%s] device = \"%s\": an ordinal cannot name a GPU with [provider] "
                "unseen_gpus = skip (line %d): each process numbers the GPUs that "
                "CUDA_VISIBLE_DEVICES lets it see from 0, so the same ordinal would be another "
                "GPU in each; name it by uuid= or pci= (sealprov devices lists both)",
                d->section, d->selector, c->unseen_gpus_line);
    return;
  }
}

/* unseen_gpus = skip: d's GPU is not among those this process sees. Records and logs
 * the section; the caller drops it from the table. */
static void skip_section(sp_config *cfg, const sp_device_cfg *d, const char *shown) {
  sp_skipped_section *k = &cfg->skipped[cfg->nskipped++];
  snprintf(k->section, sizeof k->section, "%s", d->section);
  snprintf(k->selector, sizeof k->selector, "%s%s", cfg_selector_prefix(d->selector_kind),
           d->selector);
  k->line = d->selector_line;
  if (cfg->log_level < SEALPROV_LOG_INFO) return;
  const char *cvd = getenv("CUDA_VISIBLE_DEVICES"); /* read, never written (rule 1) */
  char cvd_shown[128] = "";
  if (cvd) sp_utf8_escape_marked(cvd, cvd_shown, sizeof cvd_shown);
  sp_log(SEALPROV_LOG_INFO,
         "skipped [%s] (%s:%d) device = \"%s\": this process does not see that GPU "
         "(CUDA_VISIBLE_DEVICES%s%s; [provider] unseen_gpus = skip)",
         k->section, shown, k->line, k->selector, cvd ? "=" : " is not set", cvd_shown);
}

/* Every section skipped (those from skipped[first] on): open has no device. */
static int all_skipped(const sp_config *cfg, size_t first, const sp_gpu_info *gpus, int ngpus,
                       const char *shown, char *err, size_t errlen) {
  char list[1024], seen[1024];
  size_t used = 0;
  list[0] = '\0';
  for (size_t i = first; i < cfg->nskipped && used < sizeof list; i++) {
    int w = snprintf(list + used, sizeof list - used, "%s[%s] device = \"%s\"",
                     i > first ? ", " : "", cfg->skipped[i].section, cfg->skipped[i].selector);
    if (w < 0) break;
    used += (size_t)w;
  }
  describe_gpus(gpus, ngpus, seen, sizeof seen);
  sp_set_err(err, errlen,
             "%s:%d: [provider] unseen_gpus = \"skip\": every device section names a GPU this "
             "process does not see, so it has no device: %s; %s%s",
             shown, cfg->unseen_gpus_line, list, seen,
             getenv("CUDA_VISIBLE_DEVICES") ? "" : " (CUDA_VISIBLE_DEVICES is not set)");
  if (err && errlen) cfg_utf8_trim(err);
  return SEALPROV_ERR_CONFIG;
}

int sp_config_resolve_with_gpus(sp_config *cfg, const sp_gpu_info *gpus, int ngpus, char *err,
                                size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (!cfg || ngpus < 0 || (ngpus > 0 && !gpus)) {
    sp_set_err(err, errlen, "sp_config_resolve_with_gpus: bad argument");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  char shown[512];
  sp_utf8_escape_marked(cfg->path, shown, sizeof shown);
  const size_t first = cfg->nskipped; /* sections an earlier call left out stay listed */
  for (size_t i = 0; i < cfg->ndevices; i++) {
    sp_device_cfg *d = &cfg->devices[i];
    if (d->type != SP_DEVICE_CUDA) continue;
    int hit = -1;
    for (int g = 0; g < ngpus; g++)
      if (gpu_matches(d, &gpus[g])) {
        hit = g;
        break;
      }
    const char *pre = cfg_selector_prefix(d->selector_kind);
    if (hit < 0 && cfg->unseen_gpus == SP_UNSEEN_SKIP) {
      skip_section(cfg, d, shown);
      continue;
    }
    if (hit < 0) {
      char seen[1024];
      describe_gpus(gpus, ngpus, seen, sizeof seen);
      sp_set_err(err, errlen, "%s:%d: [%s] device = \"%s%s\": GPU not present; %s", shown,
                 d->selector_line, d->section, pre, d->selector, seen);
      if (err && errlen) cfg_utf8_trim(err);
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
        if (err && errlen) cfg_utf8_trim(err);
        return SEALPROV_ERR_CONFIG;
      }
    }
    d->ordinal = gpus[hit].ordinal;
    snprintf(d->name, sizeof d->name, "%s", gpus[hit].name);
    snprintf(d->uuid, sizeof d->uuid, "%s", gpus[hit].uuid);
    snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", gpus[hit].pci_bus_id);
    d->cc_major = gpus[hit].cc_major;
    d->cc_minor = gpus[hit].cc_minor;
    d->total_memory = gpus[hit].total_memory;
    d->sm_count = gpus[hit].sm_count;
  }
  if (cfg->nskipped == first) return SEALPROV_OK;
  if (cfg->nskipped - first == cfg->ndevices)
    return all_skipped(cfg, first, gpus, ngpus, shown, err, errlen);
  /* The table keeps the sections this process serves, in INI order: devices() and a
   * job's device_mask count them from 0. */
  size_t kept = 0;
  for (size_t i = 0, k = first; i < cfg->ndevices; i++) {
    if (k < cfg->nskipped && strcmp(cfg->devices[i].section, cfg->skipped[k].section) == 0) {
      k++;
      continue;
    }
    if (kept != i) cfg->devices[kept] = cfg->devices[i];
    cfg->devices[kept].index = (unsigned)kept;
    kept++;
  }
  cfg->ndevices = kept;
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
    d->cc_major = d->cc_minor = -1;
    snprintf(d->name, sizeof d->name, "CPU");
    d->uuid[0] = '\0';
    d->pci_bus_id[0] = '\0';
  }
  if (!first_cuda) return SEALPROV_OK;
  char shown[512];
  sp_utf8_escape_marked(cfg->path, shown, sizeof shown);
  const sp_backend *cuda = sp_backend_for(SP_DEVICE_CUDA);
  if (cuda == NULL || cuda->enumerate == NULL) {
    sp_set_err(err, errlen,
               "%s:%d: [%s]: a cuda device (type = cuda), but this build of sealprov has no "
               "CUDA engine (configured --without-cuda or nvcc not found); use type = cpu or a "
               "CUDA build",
               shown, first_cuda->line, first_cuda->section);
    return SEALPROV_ERR_UNSUPPORTED;
  }
  sp_gpu_info *gpus = calloc(SP_MAX_DEVICES, sizeof *gpus);
  if (!gpus) {
    sp_set_err(err, errlen, "%s: out of memory", shown);
    return SEALPROV_ERR_NO_MEMORY;
  }
  int n = 0;
  char why[512] = "";
  int st = cuda->enumerate(gpus, SP_MAX_DEVICES, &n, why, sizeof why);
  if (st != SEALPROV_OK) {
    sp_set_err(err, errlen, "%s: [%s] and the other cuda devices: cannot list GPUs: %s", shown,
               first_cuda->section, why);
    if (err && errlen) cfg_utf8_trim(err);
  } else {
    st = sp_config_resolve_with_gpus(cfg, gpus, n, err, errlen);
  }
  free(gpus);
  return st;
}
