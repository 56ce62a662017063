/* json.c -- the JSON string writer and the message functions (error, warning,
 * progress) every `sealprov` command and benchmark shares (their own file: the
 * stand-alone benchmark programs link it without the host). */
#include <config.h>

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"

void sp_cli_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\')
      fprintf(f, "\\%c", *c);
    else if (*c == '\n')
      fputs("\\n", f);
    else if (*c < 0x20)
      fprintf(f, "\\u%04x", *c);
    else
      fputc(*c, f);
  }
  fputc('"', f);
}

/* ---- messages (cli.h) -------------------------------------------------------------- */
#include <stdarg.h>

const char *sp_cli_cmd = NULL;
bool sp_cli_progress = false;

static void message(const char *kind, const char *fmt, va_list ap)
{
  if (sp_cli_cmd != NULL && *sp_cli_cmd)
    fprintf(stderr, "sealprov %s: %s", sp_cli_cmd, kind);
  else
    fprintf(stderr, "sealprov: %s", kind);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
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
