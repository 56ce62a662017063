/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fuzz_common.h -- shared by the harnesses of tests/fuzz (libFuzzer entry points).
 *
 * The file readers under test take a path, so each harness writes its input to one
 * memfd per process and hands the reader /proc/self/fd/N: no disk traffic, and the
 * reader opens, stats, maps or preads it like any file. */
#ifndef SEALPROV_FUZZ_COMMON_H
#define SEALPROV_FUZZ_COMMON_H

#ifdef HAVE_CONFIG_H
#include <config.h> /* _GNU_SOURCE: memfd_create */
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* libFuzzer's entry points (also called by replay.c in builds without libFuzzer). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A failed property: print why and abort, so libFuzzer (or replay) records the input. */
#define FUZZ_CHECK(cond, ...)                                                              \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      fprintf(stderr, "fuzz property failed at %s:%d: %s\n  ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                        \
      fputc('\n', stderr);                                                                 \
      abort();                                                                             \
    }                                                                                      \
  } while (0)

/* Writes data to this process's memfd (replacing what was there) and returns its
 * /proc/self/fd path; aborts if the memfd cannot be made (not the input's fault). */
static inline const char *fuzz_as_file(const uint8_t *data, size_t size) {
  static int fd = -1;
  static char path[64];
  if (fd < 0) {
    fd = memfd_create("sealprov-fuzz", MFD_CLOEXEC);
    FUZZ_CHECK(fd >= 0, "memfd_create failed");
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  }
  FUZZ_CHECK(ftruncate(fd, 0) == 0, "ftruncate failed");
  size_t done = 0;
  while (done < size) {
    ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);
    FUZZ_CHECK(w > 0, "pwrite to the memfd failed");
    done += (size_t)w;
  }
  return path;
}

/* Whether s (NUL-terminated) is well-formed UTF-8: no stray continuation bytes, no
 * truncated sequences, no overlong forms, no surrogates, nothing past U+10FFFF.
 * On failure *bad gets the byte offset of the first fault. */
static inline int fuzz_utf8_valid(const char *s, size_t *bad) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (p[i]) {
    unsigned c = p[i];
    size_t n;
    unsigned min, cp;
    if (c < 0x80) {
      i++;
      continue;
    }
    if (c >= 0xc2 && c <= 0xdf) {
      n = 1;
      min = 0x80;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      min = 0x800;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      min = 0x10000;
      cp = c & 0x07;
    } else {
      *bad = i;
      return 0;
    }
    for (size_t k = 1; k <= n; k++) {
      if ((p[i + k] & 0xc0) != 0x80) {
        *bad = i;
        return 0;
      }
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      *bad = i;
      return 0;
    }
    i += n + 1;
  }
  return 1;
}

/* The error-message properties every harness checks: NUL-terminated within the buffer,
 * and valid UTF-8. */
static inline void fuzz_check_message(const char *err, size_t cap) {
  FUZZ_CHECK(memchr(err, '\0', cap) != NULL, "error message not NUL-terminated");
  size_t bad = 0;
  FUZZ_CHECK(fuzz_utf8_valid(err, &bad), "error message is not valid UTF-8 at byte %zu: %s", bad,
             err);
}

#endif
