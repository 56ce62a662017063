/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fault.h -- fault injection for tests: an engine that wraps a device's own engine and
 * makes some of its partitions fail the way a broken GPU does (the INI's [testing]
 * section, docs/configuration.md). Built only with configure --enable-fault-injection
 * (SP_FAULT_INJECTION in config.h): a production module has none of it, and refuses a
 * [testing] section (runtime/ini.c).
 *
 * The wrapper forwards every call to the wrapped engine and, on the partitions it
 * chooses (every one, or the first inject_count of them), makes execute fail as a
 * device (SP_INJECT_FAIL_KERNEL), flips a byte of the proof so that the self-check
 * catches it (SP_INJECT_CORRUPT_PROOF), or has the engine's first device allocation of
 * the partition fail as out of memory (SP_INJECT_OOM: engines that offer
 * sp_engine_ops.fault_oom; others ignore it), or makes the device slower: execute
 * sleeps, with the device lock held, SP_INJECT_SLOW_FACTOR - 1 times what the wrapped
 * execute took (SP_INJECT_SLOW: a slower card beside a fast one, for the scheduler's
 * placement by speed). */
#ifndef SEALPROV_ENGINE_FAULT_H
#define SEALPROV_ENGINE_FAULT_H

#include <stddef.h>

#include "engine/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The fault kinds of [testing] inject (sp_device_cfg.inject). */
#define SP_INJECT_FAIL_KERNEL 0x1u   /* execute returns SEALPROV_ERR_DEVICE */
#define SP_INJECT_CORRUPT_PROOF 0x2u /* execute flips a byte of the proof */
#define SP_INJECT_OOM 0x4u           /* the task's first device allocation fails as out of memory */
#define SP_INJECT_SLOW 0x8u          /* execute takes SP_INJECT_SLOW_FACTOR times as long */
#define SP_INJECT_SLOW_FACTOR 10u

/* Opens cfg's device on inner behind the fault engine (cfg->inject, cfg->inject_count).
 * *ops gets the table to call for the device: inner's calls with the faults added, its
 * name and its optional members as inner has them; it lives until ops->device_close.
 * Statuses as inner->device_open, or NO_MEMORY. */
int sp_fault_open(const sp_engine_ops *inner, const sp_device_cfg *cfg, const sp_engine_ops **ops,
                  void **dev, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
