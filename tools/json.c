/* json.c -- the JSON string writer every `sealprov` command and benchmark shares
 * (its own file: the stand-alone benchmark programs link it without the host). */
#include <config.h>

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
