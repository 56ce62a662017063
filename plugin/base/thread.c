/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* thread.c -- sp_thread_start (thread.h). */
#include <config.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "base/thread.h"

int sp_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const char *name) {
  sigset_t all, old;
  sigfillset(&all);
  /* The new thread inherits the creator's mask: block everything around the create. */
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(t, NULL, fn, arg);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
#ifdef HAVE_PTHREAD_SETNAME_NP
  if (rc == 0 && name != NULL) {
    char n[16];
    snprintf(n, sizeof n, "%.15s", name);
    pthread_setname_np(*t, n); /* cosmetic: a failure changes nothing */
  }
#else
  (void)name;
#endif
  return rc;
}
