/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* log.c -- host log callback and status texts. */
#include <config.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"

/* The host table is copied, not referenced: the host may free or reuse its struct
 * right after init returns. A mutex (not an atomic pointer) guards the copy so a
 * second init on another thread never tears it; the callback itself runs unlocked
 * so that a slow host logger does not serialise the workers more than it must. */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static sealprov_host log_host; /* log == NULL: logging off */

void sp_log_set_host(const sealprov_host *host) {
  sealprov_host copy;
  memset(&copy, 0, sizeof copy);
  if (host != NULL && host->struct_size > 0) {
    size_t n = host->struct_size < sizeof copy ? host->struct_size : sizeof copy;
    memcpy(&copy, host, n);
  }
  copy.struct_size = (uint32_t)sizeof copy;
  pthread_mutex_lock(&log_mu);
  log_host = copy;
  pthread_mutex_unlock(&log_mu);
}

static sealprov_host log_snapshot(void) {
  pthread_mutex_lock(&log_mu);
  sealprov_host h = log_host;
  pthread_mutex_unlock(&log_mu);
  return h;
}

bool sp_log_enabled(int level) {
  sealprov_host h = log_snapshot();
  return h.log != NULL && level <= h.log_level;
}

void sp_log(int level, const char *fmt, ...) {
  sealprov_host h = log_snapshot();
  if (h.log == NULL || level > h.log_level) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  /* One line per call: a newline inside a message (e.g. from an INI value) would
   * forge a second log record in the host's log. */
  for (char *c = line; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
  h.log(h.log_user, level, line);
}

static const struct {
  const char *name;
  const char *text;
} status_table[SEALPROV_STATUS_COUNT_] = {
    [SEALPROV_OK] = {"OK", "success"},
    [SEALPROV_ERR_INVALID_ARGUMENT] = {"INVALID_ARGUMENT", "invalid argument"},
    [SEALPROV_ERR_ABI_VERSION] = {"ABI_VERSION", "incompatible ABI version"},
    [SEALPROV_ERR_NO_MEMORY] = {"NO_MEMORY", "out of host memory"},
    [SEALPROV_ERR_CONFIG] = {"CONFIG", "configuration error"},
    [SEALPROV_ERR_DEVICE] = {"DEVICE", "device error"},
    [SEALPROV_ERR_NO_DEVICE] = {"NO_DEVICE", "no healthy device left"},
    [SEALPROV_ERR_IO] = {"IO", "input/output error"},
    [SEALPROV_ERR_PARAMS] = {"PARAMS", "malformed parameter file"},
    [SEALPROV_ERR_ASSIGNMENT] = {"ASSIGNMENT", "inconsistent partition assignment"},
    [SEALPROV_ERR_VERIFY_FAILED] = {"VERIFY_FAILED", "proof failed verification"},
    [SEALPROV_ERR_CANCELLED] = {"CANCELLED", "job cancelled"},
    [SEALPROV_ERR_TIMEOUT] = {"TIMEOUT", "timed out"},
    [SEALPROV_ERR_SHUTDOWN] = {"SHUTDOWN", "provider is shutting down"},
    [SEALPROV_ERR_QUEUE_FULL] = {"QUEUE_FULL", "job queue is full"},
    [SEALPROV_ERR_NOT_FOUND] = {"NOT_FOUND", "no such job"},
    [SEALPROV_ERR_INTERNAL] = {"INTERNAL", "internal error"},
    [SEALPROV_ERR_UNSUPPORTED] = {"UNSUPPORTED", "not supported by this build"},
    [SEALPROV_ERR_DEVICE_MEMORY] = {"DEVICE_MEMORY", "out of device memory"},
};

const char *sp_status_str(int status) {
  if (status < 0 || status >= SEALPROV_STATUS_COUNT_ || status_table[status].text == NULL)
    return "unknown status";
  return status_table[status].text;
}

const char *sp_status_name(int status) {
  if (status < 0 || status >= SEALPROV_STATUS_COUNT_ || status_table[status].name == NULL)
    return "UNKNOWN";
  return status_table[status].name;
}
