/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* log_capture.h -- the module's log lines collected for a test to search (the log
 * callback of sp_log / the validated loads), "WARN msg", "INFO msg" or "---- msg" a line.
 * Header-only: each test program that includes it has its own buffer. */
#ifndef SEALPROV_TESTS_LOG_CAPTURE_H
#define SEALPROV_TESTS_LOG_CAPTURE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sealprov.h"

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_text[1 << 16];

static inline void log_cb(void *user, int level, const char *msg) {
  (void)user;
  pthread_mutex_lock(&log_mu);
  size_t n = strlen(log_text);
  snprintf(log_text + n, sizeof log_text - n, "%s %s\n",
           level == SEALPROV_LOG_WARN   ? "WARN"
           : level == SEALPROV_LOG_INFO ? "INFO"
                                        : "----",
           msg);
  pthread_mutex_unlock(&log_mu);
}

static inline void log_clear(void) {
  pthread_mutex_lock(&log_mu);
  log_text[0] = '\0';
  pthread_mutex_unlock(&log_mu);
}

static inline bool logged(const char *needle) {
  pthread_mutex_lock(&log_mu);
  bool yes = strstr(log_text, needle) != NULL;
  pthread_mutex_unlock(&log_mu);
  return yes;
}

#endif
