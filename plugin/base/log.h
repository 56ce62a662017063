/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* log.h -- the module's logging through the host's callback, and status texts.
 *
 * The host hands its log callback in at sealprov_provider_init(); the module keeps a
 * copy (module-wide: the last init wins) and every module thread logs through it.
 * Nothing here allocates or blocks for long, and nothing writes to stdout/stderr:
 * a module inside someone else's daemon has no terminal of its own.
 */
#ifndef SEALPROV_LOG_H
#define SEALPROV_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "sealprov.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies the fields of host that its struct_size covers (missing ones read as zero).
 * NULL, or a host without a callback, turns logging off. Thread-safe. */
void sp_log_set_host(const sealprov_host *host);

/* true if a message of this level would reach the host (cheap; use it to skip
 * expensive formatting). */
bool sp_log_enabled(int level);

/* Formats one line (no trailing newline) and passes it to the host's callback from
 * the calling thread. Long messages are truncated. Thread-safe. */
void sp_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Human text of a status ("device error"); never NULL. */
const char *sp_status_str(int status);
/* Short identifier of a status ("DEVICE", "NO_DEVICE"); never NULL. */
const char *sp_status_name(int status);

#ifdef __cplusplus
}
#endif
#endif
