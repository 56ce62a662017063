/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cli_base.c -- what every `sealprov` command and benchmark shares and that needs
 * neither the module nor the kit: messages, the one UTF-8 validator, JSON strings out,
 * the clocks, progress meters and the module's log lines (cli.h). The stand-alone
 * benchmark programs link it without the host. */
#include <config.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

/* ---- UTF-8 -------------------------------------------------------------------------
 * The host's one copy, apart from the module's escaper (sp_utf8_escape, plugin/base/
 * util.c) on purpose: this library links no code of the module and reaches it only
 * through its table (docs/design.md rule 15, tests/tools/host_symbols.sh), and a helper
 * in include/ would become part of the published ABI. It also escapes less: the
 * messages it writes carry the module's, already escaped (control characters as \xNN, a
 * backslash doubled), which a second pass of the module's rules would double again;
 * here only bytes that are not UTF-8 are escaped. */

size_t sp_cli_utf8_len(const char *str) {
  const unsigned char *s = (const unsigned char *)str;
  unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t n;
  unsigned cp;
  if (c >= 0xc2 && c <= 0xdf)
    n = 2, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4, cp = c & 0x07;
  else
    return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0; /* also stops at the terminating NUL */
    cp = cp << 6 | (s[i] & 0x3f);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
      (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
    return 0;
  return n;
}

void sp_cli_put_utf8(FILE *f, const char *s) {
  for (const char *c = s; *c;) {
    size_t n = sp_cli_utf8_len(c);
    if (n == 0) {
      fprintf(f, "\\x%02X", (unsigned char)*c); /* as the CLI always wrote names */
      c++;
    } else {
      fwrite(c, 1, n, f);
      c += n;
    }
  }
}

const char *sp_cli_escape(const char *s, char *out, size_t outlen) {
  if (out == NULL || outlen == 0) return "";
  size_t o = 0;
  for (const char *c = s ? s : "(null)"; *c;) {
    size_t n = sp_cli_utf8_len(c);
    if (n == 0) {
      if (o + 4 >= outlen) break;
      snprintf(out + o, 5, "\\x%02x", (unsigned char)*c);
      o += 4;
      c++;
    } else {
      if (o + n >= outlen) break;
      memcpy(out + o, c, n);
      o += n;
      c += n;
    }
  }
  out[o] = 0;
  return out;
}

void sp_cli_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const char *c = s; *c;) {
    size_t n = sp_cli_utf8_len(c);
    unsigned char b = (unsigned char)*c;
    if (n == 0) /* not UTF-8: the byte as its Latin-1 code point, so the JSON stays valid */
      fprintf(f, "\\u%04x", b);
    else if (b == '"' || b == '\\')
      fprintf(f, "\\%c", b);
    else if (b == '\n')
      fputs("\\n", f);
    else if (b < 0x20 || b == 0x7f)
      fprintf(f, "\\u%04x", b);
    else
      fwrite(c, 1, n, f);
    c += n ? n : 1;
  }
  fputc('"', f);
}

/* ---- clocks ------------------------------------------------------------------------
 * The host's own, for the reason above: the module's (sp_now_ms) is not linked here. */

double sp_cli_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double sp_cli_cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double sp_cli_median(double *v, size_t n) {
  if (n == 0) return 0;
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- messages ---------------------------------------------------------------------- */

const char *sp_cli_cmd = NULL;
bool sp_cli_progress = false;
/* the global options' effect (cli.h; opts.c sets them) */
int sp_cli_log_level = SEALPROV_LOG_WARN;
bool sp_cli_quiet = false;
const char *sp_cli_plugin = NULL;

static void message(const char *kind, const char *fmt, va_list ap) {
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
  if (text != buf) free(text);
}

void sp_cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  message("error: ", fmt, ap);
  va_end(ap);
}

void sp_cli_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  message("warning: ", fmt, ap);
  va_end(ap);
}

void sp_cli_note(const char *fmt, ...) {
  if (!sp_cli_progress) return;
  va_list ap;
  va_start(ap, fmt);
  message("", fmt, ap);
  va_end(ap);
}

/* ---- progress meters --------------------------------------------------------------- */

void sp_cli_meter_start(sp_cli_meter *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->what, sizeof m->what, fmt, ap);
  va_end(ap);
  m->t0 = sp_cli_now_ms();
  m->last = m->t0;
  m->shown_end = false;
}

/* "12 s", "3 min 20 s", "1 h 05 min" */
static void duration(char *buf, size_t len, double s) {
  long t = s < 0 ? 0 : s > 1e9 ? 1000000000L : (long)(s + 0.5);
  if (s < 9.95)
    snprintf(buf, len, "%.1f s", s < 0 ? 0.0 : s);
  else if (t < 100)
    snprintf(buf, len, "%ld s", t);
  else if (t < 3600)
    snprintf(buf, len, "%ld min %02ld s", t / 60, t % 60);
  else
    snprintf(buf, len, "%ld h %02ld min", t / 3600, t / 60 % 60);
}

void sp_cli_bytes_of(char *buf, size_t len, double done, double total) {
  /* the unit the total needs, for both: "512 of 900 B", "3.7 of 6.1 MB", "1.20 of 47.30 GB" */
  if (total < 1e3)
    snprintf(buf, len, "%.0f of %.0f B", done, total);
  else if (total < 1e6)
    snprintf(buf, len, "%.1f of %.1f KB", done / 1e3, total / 1e3);
  else if (total < 1e9)
    snprintf(buf, len, "%.1f of %.1f MB", done / 1e6, total / 1e6);
  else
    snprintf(buf, len, "%.2f of %.2f GB", done / 1e9, total / 1e9);
}

/* The meter's name without the command's, which the line starts with already
 * ("sealprov bench cpu: 100 %", not "sealprov bench cpu: bench cpu: 100 %"): "" or
 * "WHAT: ". */
static void meter_what(const sp_cli_meter *m, char *buf, size_t len) {
  const char *w = m->what;
  size_t cl = sp_cli_cmd ? strlen(sp_cli_cmd) : 0;
  if (cl && !strncmp(w, sp_cli_cmd, cl) && (w[cl] == 0 || w[cl] == ' ' || w[cl] == ':')) {
    w += cl;
    while (*w == ' ' || *w == ':') w++;
  }
  snprintf(buf, len, "%s%s", w, *w ? ": " : "");
}

void sp_cli_meter_step(sp_cli_meter *m, double done, double total, const char *unit) {
  if (!sp_cli_progress || m->shown_end) return;
  double now = sp_cli_now_ms();
  bool end = total > 0 && done >= total;
  if (!end && now - m->last < 1000) return;
  m->last = now;
  m->shown_end = end;
  double frac = total > 0 ? done / total : 0, elapsed = (now - m->t0) / 1e3;
  char count[64], eta[48] = "", took[32], what[176];
  if (unit != NULL && !strcmp(unit, "bytes"))
    sp_cli_bytes_of(count, sizeof count, done, total);
  else /* "1 of 1 file", "2 of 5 files": the unit is given in the plural */
    snprintf(
        count, sizeof count, "%.0f of %.0f%s%.*s", done, total, unit ? " " : "",
        unit ? (int)strlen(unit) - (total == 1 && strlen(unit) > 1 && unit[strlen(unit) - 1] == 's')
             : 0,
        unit ? unit : "");
  duration(took, sizeof took, elapsed);
  if (!end && frac > 0) {
    char left[32];
    duration(left, sizeof left, elapsed * (1 - frac) / frac);
    snprintf(eta, sizeof eta, ", ETA %s", left);
  }
  meter_what(m, what, sizeof what);
  sp_cli_note("%s%3.0f %% (%s), %s%s", what, 100 * frac, count, took, eta);
}

/* ---- the module's log lines -------------------------------------------------------- */

/* Jobs whose end the command reports itself, and the WARN lines about them held until
 * it does. A few jobs at a time (prove and demo have one; others do not watch). */
#define WATCH_JOBS 8
#define WATCH_LINES 32
typedef struct watched {
  sealprov_job_id id;
  bool reported;
  char *detail;            /* once reported: what the CLI said */
  char *held[WATCH_LINES]; /* lines about it, in order */
  size_t nheld;
} watched;
static pthread_mutex_t watch_mu = PTHREAD_MUTEX_INITIALIZER;
static watched watch[WATCH_JOBS];

static const char *const level_names[] = {"error", "warn", "info", "debug"};

static void print_module_line(int level, const char *msg) {
  flockfile(stderr);
  fprintf(stderr, "sealprov: [module %s] ", level >= 0 && level <= 3 ? level_names[level] : "?");
  sp_cli_put_utf8(stderr, msg);
  fputc('\n', stderr);
  funlockfile(stderr);
}

/* The job a line is about: "job J ended: ..." or "partition P of job J: ...". */
static bool line_job(const char *msg, sealprov_job_id *id, const char **rest) {
  unsigned long long j;
  unsigned p;
  int n = 0;
  if ((sscanf(msg, "job %llu ended: %n", &j, &n) == 1 && n > 0) ||
      (sscanf(msg, "partition %u of job %llu: %n", &p, &j, &n) == 2 && n > 0)) {
    *id = (sealprov_job_id)j;
    *rest = msg + n;
    return true;
  }
  return false;
}

/* A line the CLI's report of the job says already: its text, or "STATUS: text". */
static bool repeats(const char *line, const char *rest, const char *detail) {
  if (detail == NULL || !*detail) return false;
  if (!strcmp(line, detail)) return true;
  const char *colon = strstr(rest, ": ");
  return colon != NULL && !strcmp(colon + 2, detail);
}

/* true when the line was held or dropped */
static bool watch_line(int level, const char *msg) {
  sealprov_job_id id;
  const char *rest;
  if (level != SEALPROV_LOG_WARN || sp_cli_log_level >= SEALPROV_LOG_INFO ||
      !line_job(msg, &id, &rest))
    return false;
  bool taken = false;
  pthread_mutex_lock(&watch_mu);
  for (int i = 0; i < WATCH_JOBS; i++) {
    watched *w = &watch[i];
    if (w->id != id) continue;
    if (w->reported) {
      taken = repeats(msg, rest, w->detail); /* after the report: dropped if repeated */
    } else if (w->nheld < WATCH_LINES) {
      taken = (w->held[w->nheld] = strdup(msg)) != NULL;
      if (taken) w->nheld++;
    }
    break;
  }
  pthread_mutex_unlock(&watch_mu);
  return taken;
}

void sp_cli_job_watch(sealprov_job_id id) {
  pthread_mutex_lock(&watch_mu);
  int slot = 0;
  for (int i = 0; i < WATCH_JOBS; i++)
    if (watch[i].id == 0 || watch[i].reported) {
      slot = i;
      break;
    }
  watched *w = &watch[slot];
  for (size_t k = 0; k < w->nheld; k++) free(w->held[k]);
  free(w->detail);
  memset(w, 0, sizeof *w);
  w->id = id;
  pthread_mutex_unlock(&watch_mu);
}

void sp_cli_job_reported(sealprov_job_id id, const char *detail) {
  pthread_mutex_lock(&watch_mu);
  for (int i = 0; i < WATCH_JOBS; i++) {
    watched *w = &watch[i];
    if (w->id != id || w->reported) continue;
    w->reported = true;
    w->detail = strdup(detail ? detail : "");
    for (size_t k = 0; k < w->nheld; k++) {
      sealprov_job_id j;
      const char *rest = w->held[k];
      line_job(w->held[k], &j, &rest);
      if (!repeats(w->held[k], rest, detail)) print_module_line(SEALPROV_LOG_WARN, w->held[k]);
      free(w->held[k]);
    }
    w->nheld = 0;
    break;
  }
  pthread_mutex_unlock(&watch_mu);
}

const char *sp_cli_load_noun = "the parameters";

/* The load the module's progress lines are about: its file's size (the lines give GB
 * with two decimals, nothing for a file of a few MB), and the last percentage shown. */
static struct {
  char path[4096];
  double bytes;
  long shown; /* the percentage of the last line, -1 none */
} load;

/* "srs_load FILE: [done ]42.0% (0.50 of 1.19 GB, vector h), ..., 3.1 s": the load's
 * progress as the command's, with an ETA; each percentage once (the module's last line
 * and its "done" line are both 100 %). true when the line was one. */
static bool load_progress_line(const char *msg) {
  if (strncmp(msg, "srs_load ", 9) != 0) return false;
  const char *pct = NULL;
  for (const char *at = msg; (at = strstr(at, "% (")) != NULL; at++) pct = at;
  if (pct == NULL) return false;
  const char *num = pct;
  while (num > msg && (num[-1] == '.' || (num[-1] >= '0' && num[-1] <= '9'))) num--;
  bool done = num >= msg + 5 && !strncmp(num - 5, "done ", 5);
  const char *path_end = done ? num - 5 : num;
  if (path_end - msg >= 11 && !strncmp(path_end - 2, ": ", 2)) {
    size_t pl = (size_t)(path_end - 2 - (msg + 9));
    if (pl < sizeof load.path && (strncmp(load.path, msg + 9, pl) != 0 || load.path[pl] != 0)) {
      memcpy(load.path, msg + 9, pl); /* a new load */
      load.path[pl] = 0;
      struct stat st;
      load.bytes = stat(load.path, &st) == 0 ? (double)st.st_size : 0;
      load.shown = -1;
    }
  }
  double p = strtod(num, NULL), secs = 0, done_gb = 0, total_gb = 0;
  long rounded = (long)(p + 0.5);
  if (rounded == load.shown) return true; /* said already */
  load.shown = rounded;
  const char *last = strrchr(msg, ',');
  if (last != NULL) secs = strtod(last + 1, NULL);
  char vector[32] = "-";
  sscanf(pct, "%% (%lf of %lf GB, vector %31[^)]", &done_gb, &total_gb, vector);
  char eta[48] = "", size[64];
  if (!done && p > 0 && p < 100 && secs > 0) {
    char left[32];
    duration(left, sizeof left, secs * (100 - p) / p);
    snprintf(eta, sizeof eta, ", ETA %s", left);
  }
  if (load.bytes > 0)
    sp_cli_bytes_of(size, sizeof size, load.bytes * p / 100, load.bytes);
  else
    sp_cli_bytes_of(size, sizeof size, done_gb * 1e9, total_gb * 1e9);
  sp_cli_note("loading %s: %3.0f %% (%s, vector %s), %.1f s%s", sp_cli_load_noun, p, size, vector,
              secs, eta);
  return true;
}

int sp_cli_host_log_level(void) {
  return sp_cli_progress && sp_cli_log_level < SEALPROV_LOG_INFO ? SEALPROV_LOG_INFO
                                                                 : sp_cli_log_level;
}

/* The module calls this from any of its threads at once (docs/abi.md): the stream lock
 * keeps each line whole, where three separate writes to unbuffered stderr would
 * interleave with another thread's. */
void sp_cli_module_log(void *user, int level, const char *msg) {
  (void)user;
  if (level > sp_cli_log_level) {
    /* let through by sp_cli_host_log_level only for the load's progress */
    if (level == SEALPROV_LOG_INFO && sp_cli_progress) load_progress_line(msg);
    return;
  }
  if (watch_line(level, msg)) return;
  print_module_line(level, msg);
}
