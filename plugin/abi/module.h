/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* module.h -- the provider handle and the per-thread error detail (module.c). */
#ifndef SEALPROV_ABI_MODULE_H
#define SEALPROV_ABI_MODULE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "sealprov.h"
#include "runtime/device_table.h"
#include "engine/engine.h"
#include "runtime/sp_sched.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks a live handle so that a stale or foreign pointer is refused rather than
 * followed (best effort: a freed handle's memory may still hold anything). */
#define SP_PROVIDER_MAGIC UINT64_C(0x73706c7670726f76) /* "splvprov" */

struct sealprov_provider {
  uint64_t magic;
  sp_config *cfg;
  sp_sched *sched;
  struct sealprov_provider *next; /* module-wide list of open providers */
  /* Under module.c's providers_mu: */
  unsigned calls;  /* vtable calls and evictions inside now: close frees after they left */
  uint64_t serial; /* order of creation (evictions visit providers by it) */
};

/* ---- Per-thread error detail (sealprov_vtable.last_error) ------------------------ */
#define SP_ERR_DETAIL_MAX 1024
/* The calling thread's buffer (SP_ERR_DETAIL_MAX bytes); never NULL. */
char *sp_err_buf(void);
void sp_err_clear(void);
/* Writes the detail and returns status, so that `return sp_err(st, ...)` reads well. */
int sp_err(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Builds a provider from a configuration already in memory and one engine per
 * device (open() after parsing the INI; tests with their own engines). cfg is
 * copied. Statuses as sp_sched_create. */
int sp_provider_create(const sp_config *cfg, const sp_engine_ops *const *engines,
                       const sp_sched_hooks *hooks, sealprov_provider **out, char *err,
                       size_t errlen);

/* The module's function table (what sealprov_provider_init hands out). */
const sealprov_vtable *sp_module_vtable(void);

#ifdef __cplusplus
}
#endif
#endif
