/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_internal.h -- what c2.c (the supraseal-c2 entry points) and c2_convert.c (the
 * conversions) take from c2_provider.c (errors, the provider, the environment): every
 * exported function reports failures with c2_fail, so every message has the one form
 * "sealprov_c2: <function>: <detail>". Nothing here is exported: the library is built
 * with -fvisibility=hidden and exports only the names of sealprov_c2.h. c2.c and
 * c2_convert.c include sealprov_c2.h first, with its visibility set to default. */
#ifndef SEALPROV_COMPAT_C2_INTERNAL_H
#define SEALPROV_COMPAT_C2_INTERNAL_H

#include "sealprov.h"
#include "sealprov_c2.h"

/* ---- errors ---------------------------------------------------------------------- */
c2_error c2_ok(void);
/* code != 0; the message is malloc'd for the caller's free(). If even that fails, a
 * short message is tried, then NULL (the code still says what happened). */
c2_error c2_fail(int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The error of a failed vtable call, read on the calling thread. */
c2_error vt_fail(const sealprov_vtable *vt, int st, const char *fn, const char *what);

/* ---- the provider: one per process, opened on first use --------------------------- */
/* The vtable and provider, opening them on the first call. On failure *err is set
 * and NULL returned; the next call tries again (a fixed INI can then succeed). */
const sealprov_vtable *provider(const char *fn, c2_error *err);
extern const sealprov_vtable *g_vt;
extern sealprov_provider *g_p;

/* SEALPROV_C2_LOG_LEVEL, read at load; library messages of that level and above on
 * stderr. */
extern int g_log_level;
void c2_note(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How many arguments the host passes to generate_groth16_proofs_c (SEALPROV_C2_ARGS at
 * load: 6, 7 or 8), and what was wrong with the variable's value ("" when nothing). */
extern int g_sync_args;
extern char g_args_err[200];

#endif
