/* json.c -- the JSON string writer and the message functions (error, warning,
 * progress) every `sealprov` command and benchmark shares (their own file: the
 * stand-alone benchmark programs link it without the host). */
#include <config.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when the byte at s does not
 * start one (overlong forms, surrogates and code points past U+10FFFF are invalid). */
static size_t utf8_len(const unsigned char *s) {
  unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t n;
  unsigned cp;
  if (c >= 0xc2 && c <= 0xdf) n = 2, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef) n = 3, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, cp = c & 0x07;
  else return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0; /* also stops at the terminating NUL */
    cp = cp << 6 | (s[i] & 0x3f);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
    return 0;
  return n;
}

/* Writes s with every byte that is not part of valid UTF-8 as \xNN, so messages made
 * from file names and arguments are always valid UTF-8. */
void sp_cli_put_utf8(FILE *f, const char *s) {
  for (const unsigned char *c = (const unsigned char *)s; *c;) {
    size_t n = utf8_len(c);
    if (n == 0) {
      fprintf(f, "\\x%02X", *c);
      c++;
    } else {
      fwrite(c, 1, n, f);
      c += n;
    }
  }
}

void sp_cli_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *c = (const unsigned char *)s; *c;) {
    size_t n = utf8_len(c);
    if (n == 0) /* not UTF-8: the byte as its Latin-1 code point, so the JSON stays valid */
      fprintf(f, "\\u%04x", *c);
    else if (*c == '"' || *c == '\\')
      fprintf(f, "\\%c", *c);
    else if (*c == '\n')
      fputs("\\n", f);
    else if (*c < 0x20 || *c == 0x7f)
      fprintf(f, "\\u%04x", *c);
    else
      fwrite(c, 1, n, f);
    c += n ? n : 1;
  }
  fputc('"', f);
}

/* ---- messages (cli.h) -------------------------------------------------------------- */
#include <stdarg.h>

const char *sp_cli_cmd = NULL;
bool sp_cli_progress = false;

static void message(const char *kind, const char *fmt, va_list ap)
{
  char buf[2048];
  char *text = buf;
  va_list ap2;
  va_copy(ap2, ap);
  int len = vsnprintf(buf, sizeof buf, fmt, ap);
  if (len >= (int)sizeof buf && (text = malloc((size_t)len + 1)) != NULL)
    vsnprintf(text, (size_t)len + 1, fmt, ap2);
  else if (len >= (int)sizeof buf)
    text = buf; /* cut, rather than nothing */
  va_end(ap2);
  flockfile(stderr); /* whole lines, among the module's log lines from its threads */
  if (sp_cli_cmd != NULL && *sp_cli_cmd)
    fprintf(stderr, "sealprov %s: %s", sp_cli_cmd, kind);
  else
    fprintf(stderr, "sealprov: %s", kind);
  sp_cli_put_utf8(stderr, len < 0 ? "(message could not be formatted)" : text);
  fputc('\n', stderr);
  funlockfile(stderr);
  if (text != buf)
    free(text);
}

void sp_cli_error(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  message("error: ", fmt, ap);
  va_end(ap);
}

void sp_cli_warn(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  message("warning: ", fmt, ap);
  va_end(ap);
}

void sp_cli_note(const char *fmt, ...)
{
  if (!sp_cli_progress)
    return;
  va_list ap;
  va_start(ap, fmt);
  message("", fmt, ap);
  va_end(ap);
}

/* The module calls this from any of its threads at once (docs/abi.md): the stream lock
 * keeps each line whole, where three separate writes to unbuffered stderr would
 * interleave with another thread's. */
void sp_cli_module_log(void *user, int level, const char *msg) {
  (void)user;
  static const char *const names[] = {"error", "warn", "info", "debug"};
  flockfile(stderr);
  fprintf(stderr, "sealprov: [module %s] ", level >= 0 && level <= 3 ? names[level] : "?");
  sp_cli_put_utf8(stderr, msg);
  fputc('\n', stderr);
  funlockfile(stderr);
}
