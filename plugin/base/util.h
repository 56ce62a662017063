/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* util.h -- small helpers shared by the module's C files. */
#ifndef SEALPROV_UTIL_H
#define SEALPROV_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sealprov.h"

/* A status-returning call that jumps to the cleanup label on failure (C and the .cu
 * files alike). */
#define SP_TRY_GOTO(expr, status, label)     \
  do {                                       \
    (status) = (expr);                       \
    if ((status) != SEALPROV_OK) goto label; \
  } while (0)

/* A status-returning call whose failure is returned as it is. */
#define SP_TRY(expr)                                  \
  do {                                                \
    int sp_try_st_ = (expr);                          \
    if (sp_try_st_ != SEALPROV_OK) return sp_try_st_; \
  } while (0)

#ifdef __cplusplus
extern "C" {
#endif

/* printf into a caller's error buffer; NULL or zero-length buffers are ignored. */
void sp_set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Copies s into out (always NUL-terminated when outlen > 0) as valid UTF-8: well-formed
 * UTF-8 sequences as they are, every other byte, and C0 controls and DEL, as \xNN; C1
 * controls as \u0080..\u009f and a backslash as \\, so neither a terminal nor a reader
 * can take a file name or a value of the INI for an escape or a command. NULL is shown
 * as "(null)". Cut at a whole unit when out is full. Returns out, so it can be a printf
 * argument. This is the module's one escaper (the CLI, which links no module code, has
 * its own: tools/cli_base.c). */
const char *sp_utf8_escape(const char *s, char *out, size_t outlen);
/* The same, but a text that does not fit whole ends in "..." after the units that fit
 * with it (empty when outlen is below 5): for quoted values, where a reader must see
 * that the quote was cut. */
const char *sp_utf8_escape_marked(const char *s, char *out, size_t outlen);
#define SP_ESC_MAX 1024 /* a buffer size that fits an escaped path in messages */

/* A regular file read with pread() (never mapped: a file that shrinks under a mapping
 * raises SIGBUS in the host). What fstat said at open is kept so that a change during
 * the read can be detected. */
typedef struct sp_file {
  int fd;
  uint64_t size;        /* at open */
  const char *path;     /* as given (not copied) */
  char esc[SP_ESC_MAX]; /* path escaped for messages */
  uint64_t dev, ino;
  int64_t mtime_s, mtime_ns;
} sp_file;
/* Opens a regular file. IO: "path: cannot open: why" / "path: not a regular file". */
int sp_file_open(sp_file *f, const char *path, char *err, size_t errlen);
/* Reads exactly len bytes at byte offset off (retrying short reads and EINTR). A read
 * that ends early means the file shrank since it was opened: IO with
 * "path: <what>: read of N bytes at byte offset O got only M: the file changed during the
 * load (it had S bytes when opened)". Other errors: IO with strerror. */
int sp_file_read(sp_file *f, void *buf, size_t len, uint64_t off, const char *what, char *err,
                 size_t errlen);
/* After the last read: IO when the file's size or modification time changed since it
 * was opened, or the path now names another file (replaced during the load). */
int sp_file_check_unchanged(sp_file *f, char *err, size_t errlen);
void sp_file_close(sp_file *f);
/* Little-endian integers at p: the byte order of every file format the module reads. */
static inline uint32_t sp_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t sp_le64(const uint8_t *p) {
  return (uint64_t)sp_le32(p) | (uint64_t)sp_le32(p + 4) << 32;
}
/* The lowest failing index of a parallel range: *first_bad becomes min(*first_bad, i), so
 * that a message names the same element whatever the thread count (start at UINT64_MAX). */
#ifndef __cplusplus /* C11 atomics; the .cu files that include this header are C++ */
#include <stdatomic.h>
static inline void sp_note_first_bad(_Atomic uint64_t *first_bad, uint64_t i) {
  uint64_t cur = atomic_load(first_bad);
  while (i < cur && !atomic_compare_exchange_weak(first_bad, &cur, i))
    ;
}
#endif
/* The module's one clock: CLOCK_MONOTONIC in milliseconds (differences only). */
double sp_now_ms(void);
/* The same clock in seconds (the scheduler's timeline and timings). */
static inline double sp_now(void) { return sp_now_ms() * 1e-3; }
/* len bytes from the kernel's random source (getrandom); 0, or the errno of the failure. */
int sp_random_bytes(void *buf, size_t len);
/* Number of set bits among the first bit_len bits of bitmap; *stray gets whether any
 * bit at or past bit_len is set in the last word. */
uint64_t sp_bitmap_popcount(const uint64_t *bitmap, uint64_t bit_len, bool *stray);

#ifdef __cplusplus
}
#endif
#endif
