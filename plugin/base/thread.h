/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* thread.h -- the module's own threads (workers, the notifier, a backend's loader). */
#ifndef SEALPROV_BASE_THREAD_H
#define SEALPROV_BASE_THREAD_H

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Starts a module thread with every signal blocked (a host's signals belong to its
 * own threads) and names it (at most 15 characters are kept). Returns errno. */
int sp_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const char *name);

#ifdef __cplusplus
}
#endif
#endif
