/* SPDX-License-Identifier: Apache-2.0 OR MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sealprov.h"

#include "base/util.h"

void sp_set_err(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

double sp_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int sp_random_bytes(void *buf, size_t len) {
  uint8_t *p = buf;
  while (len > 0) {
    ssize_t n = getrandom(p, len, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

/* How the unit of text at p is shown: writes it to unit (at most 6 bytes, not
 * terminated), sets *src to the bytes of p it covers and returns its length. A
 * well-formed UTF-8 sequence stays as it is, except the C1 controls; any other byte is
 * one unit of its own. */
static size_t escape_unit(const unsigned char *p, char unit[7], size_t *src) {
  unsigned c = *p;
  size_t n = 0; /* length of a well-formed sequence starting at p, 0 if none */
  if (c >= 0x20 && c < 0x7f) {
    n = 1;
  } else if (c >= 0xc2 && c <= 0xdf) {
    n = (p[1] & 0xc0) == 0x80 ? 2 : 0;
  } else if (c >= 0xe0 && c <= 0xef) {
    unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    n = p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
  } else if (c >= 0xf0 && c <= 0xf4) {
    unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    n = p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
  }
  if (n == 1 && c == '\\') { /* a literal backslash is doubled: an escape is never ambiguous */
    *src = 1;
    memcpy(unit, "\\\\", 2);
    return 2;
  }
  if (n == 2 && c == 0xc2 && p[1] < 0xa0) { /* C1 control U+0080..U+009F */
    *src = 2;
    snprintf(unit, 7, "\\u%04x", (unsigned)p[1]);
    return 6;
  }
  if (n) {
    *src = n;
    memcpy(unit, p, n);
    return n;
  }
  *src = 1;
  snprintf(unit, 7, "\\x%02x", c);
  return 4;
}

/* sp_utf8_escape and its marked form: units while they fit; with mark, a text that does
 * not fit whole ends in "..." (room for it kept), so that a reader sees it was cut. */
static const char *escape(const char *s, char *out, size_t outlen, bool mark) {
  if (!out || outlen == 0) return "";
  const unsigned char *p = (const unsigned char *)(s ? s : "(null)");
  char unit[7];
  size_t src, room = outlen - 1, o = 0;
  if (mark) {
    size_t total = 0;
    for (size_t i = 0; p[i]; i += src) total += escape_unit(p + i, unit, &src);
    mark = total > room;
    if (mark) room = outlen > 4 ? outlen - 4 : 0;
  }
  for (; *p; p += src) {
    size_t n = escape_unit(p, unit, &src);
    if (o + n > room) break;
    memcpy(out + o, unit, n);
    o += n;
  }
  if (mark && outlen > 4) {
    memcpy(out + o, "...", 3);
    o += 3;
  }
  out[o] = '\0';
  return out;
}

const char *sp_utf8_escape(const char *s, char *out, size_t outlen) {
  return escape(s, out, outlen, false);
}

const char *sp_utf8_escape_marked(const char *s, char *out, size_t outlen) {
  return escape(s, out, outlen, true);
}

int sp_file_open(sp_file *f, const char *path, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  f->fd = -1;
  f->path = path;
  sp_utf8_escape(path, f->esc, sizeof f->esc);
  /* O_NONBLOCK: opening a FIFO without a writer would otherwise block for ever; the
   * flag does nothing to a regular file's reads, and anything else is refused below. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    sp_set_err(err, errlen, "%s: cannot open: %s", f->esc, strerror(errno));
    return SEALPROV_ERR_IO;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    sp_set_err(err, errlen, "%s: not a regular file (%s)", f->esc,
               S_ISDIR(st.st_mode)                          ? "a directory"
               : S_ISFIFO(st.st_mode)                       ? "a FIFO"
               : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
               : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                            : "not a plain file");
    close(fd);
    return SEALPROV_ERR_IO;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  f->fd = fd;
  f->size = (uint64_t)st.st_size;
  f->dev = (uint64_t)st.st_dev;
  f->ino = (uint64_t)st.st_ino;
  f->mtime_s = (int64_t)st.st_mtim.tv_sec;
  f->mtime_ns = (int64_t)st.st_mtim.tv_nsec;
  return SEALPROV_OK;
}

int sp_file_read(sp_file *f, void *buf, size_t len, uint64_t off, const char *what, char *err,
                 size_t errlen) {
  uint8_t *p = buf;
  size_t got = 0;
  while (got < len) {
    size_t want = len - got;
    if (want > ((size_t)1 << 30))
      want = (size_t)1 << 30; /* Linux reads at most ~2 GiB per call anyway */
    ssize_t n = pread(f->fd, p + got, want, (off_t)(off + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      sp_set_err(err, errlen, "%s: %s: cannot read %zu bytes at byte offset %llu: %s", f->esc, what,
                 len, (unsigned long long)off, strerror(errno));
      return SEALPROV_ERR_IO;
    }
    if (n == 0) {
      sp_set_err(err, errlen,
                 "%s: %s: read of %zu bytes at byte offset %llu got only %zu: the file changed "
                 "during the load (it had %llu bytes when opened)",
                 f->esc, what, len, (unsigned long long)off, got, (unsigned long long)f->size);
      return SEALPROV_ERR_IO;
    }
    got += (size_t)n;
  }
  return SEALPROV_OK;
}

int sp_file_check_unchanged(sp_file *f, char *err, size_t errlen) {
  struct stat st;
  if (fstat(f->fd, &st) != 0) {
    sp_set_err(err, errlen, "%s: cannot stat after reading: %s", f->esc, strerror(errno));
    return SEALPROV_ERR_IO;
  }
  if ((uint64_t)st.st_size != f->size) {
    sp_set_err(err, errlen,
               "%s: the file changed during the load: %llu bytes when opened, %llu after reading",
               f->esc, (unsigned long long)f->size, (unsigned long long)st.st_size);
    return SEALPROV_ERR_IO;
  }
  if ((int64_t)st.st_mtim.tv_sec != f->mtime_s || (int64_t)st.st_mtim.tv_nsec != f->mtime_ns) {
    sp_set_err(err, errlen,
               "%s: the file changed during the load: modification time %lld.%09lld when opened, "
               "%lld.%09lld after reading",
               f->esc, (long long)f->mtime_s, (long long)f->mtime_ns, (long long)st.st_mtim.tv_sec,
               (long long)st.st_mtim.tv_nsec);
    return SEALPROV_ERR_IO;
  }
  struct stat now;
  if (stat(f->path, &now) != 0 || (uint64_t)now.st_dev != f->dev ||
      (uint64_t)now.st_ino != f->ino) {
    sp_set_err(err, errlen,
               "%s: the file was replaced or removed during the load (the path no longer names "
               "the file that was read)",
               f->esc);
    return SEALPROV_ERR_IO;
  }
  return SEALPROV_OK;
}

void sp_file_close(sp_file *f) {
  if (f && f->fd >= 0) {
    close(f->fd);
    f->fd = -1;
  }
}

uint64_t sp_bitmap_popcount(const uint64_t *bitmap, uint64_t bit_len, bool *stray) {
  uint64_t full = bit_len / 64, rem = bit_len % 64, n = 0;
  for (uint64_t w = 0; w < full; w++) n += (uint64_t)__builtin_popcountll(bitmap[w]);
  bool bad = false;
  if (rem) {
    uint64_t mask = (UINT64_C(1) << rem) - 1;
    n += (uint64_t)__builtin_popcountll(bitmap[full] & mask);
    bad = (bitmap[full] & ~mask) != 0;
  }
  if (stray) *stray = bad;
  return n;
}
