/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* opts.c -- the one option parser of the CLI (cli.h): a command's own options and the
 * ones every command shares, over getopt_long; numbers. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The shared options' values: letters where they have a short form, else from 0x1000 on
 * (a command's own values are letters or 256..0xfff). */
enum {
  OPT_PLUGIN = 0x1000,
  OPT_JSON,
  OPT_PROGRESS,
  OPT_NO_PROGRESS,
};

static bool add(sp_cli_args *a, size_t *n, const char *name, int has_arg, int val) {
  if (*n + 1 >= sizeof a->all_ / sizeof a->all_[0]) return false;
  a->all_[(*n)++] = (struct option){name, has_arg, NULL, val};
  a->all_[*n] = (struct option){NULL, 0, NULL, 0};
  return true;
}

static bool own_val(const sp_cli_args *a, int c) {
  for (const struct option *o = a->opts; o != NULL && o->name != NULL; o++)
    if (o->val == c) return true;
  for (const char *s = a->shorts; s != NULL && *s; s++)
    if (*s != ':' && *s == c) return true;
  return false;
}

/* The command's options and the shared ones in one table; false when they clash (a
 * mistake in the command's table, reported as such). */
static bool build(sp_cli_args *a) {
  size_t n = 0;
  a->all_[0] = (struct option){NULL, 0, NULL, 0};
  for (const struct option *o = a->opts; o != NULL && o->name != NULL; o++)
    if (!add(a, &n, o->name, o->has_arg, o->val)) return false;
  static const char shared_shorts[] = "hqvc";
  for (const char *s = shared_shorts; *s; s++)
    if (own_val(a, *s) && (*s != 'c' || (a->takes & SP_CLI_CONFIG))) return false;
  bool ok = add(a, &n, "help", no_argument, 'h') && add(a, &n, "quiet", no_argument, 'q') &&
            add(a, &n, "verbose", no_argument, 'v') &&
            add(a, &n, "progress", no_argument, OPT_PROGRESS) &&
            add(a, &n, "no-progress", no_argument, OPT_NO_PROGRESS);
  if (a->takes & SP_CLI_PLUGIN) ok = ok && add(a, &n, "plugin", required_argument, OPT_PLUGIN);
  if (a->takes & SP_CLI_CONFIG) ok = ok && add(a, &n, "config", required_argument, 'c');
  if (a->takes & SP_CLI_JSON) ok = ok && add(a, &n, "json", no_argument, OPT_JSON);
  /* "+": main.c stops at COMMAND; ":": a missing value is ':' and not '?' */
  int w =
      snprintf(a->shorts_, sizeof a->shorts_, "%s:hqv%s%s", a->takes & SP_CLI_IN_ORDER ? "+" : "",
               a->takes & SP_CLI_CONFIG ? "c:" : "", a->shorts ? a->shorts : "");
  return ok && w > 0 && (size_t)w < sizeof a->shorts_;
}

/* The option argv[optind - 1] named, for messages ("--params", "-x"). */
static void offending(int argc, char **argv, int c, char *buf, size_t len) {
  const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
  if (c > 0 && c < 256 && !(arg[0] == '-' && arg[1] == '-'))
    snprintf(buf, len, "-%c", c);
  else
    snprintf(buf, len, "%.*s", (int)strcspn(arg, "="), arg);
}

static void help_footer(const sp_cli_args *a) {
  printf(
      "  Global options, before or after the command: -q, -v, -vv, --progress,\n"
      "  --no-progress%s (sealprov --help).\n",
      a->takes & SP_CLI_PLUGIN ? ", --plugin MODULE" : "");
}

int sp_cli_getopt(sp_cli_args *a, int argc, char **argv) {
  if (!a->built_) {
    a->built_ = true;
    a->status = 0;
    optind = 0; /* a fresh start: getopt's state of another command or of main.c */
    opterr = 0; /* the messages are ours */
    if (!build(a)) {
      sp_cli_error(
          "internal: the option table of this command clashes with the shared "
          "options");
      a->status = 2;
      return -1;
    }
  }
  for (;;) {
    optopt = 0;
    int c = getopt_long(argc, argv, a->shorts_, a->all_, NULL);
    if (c == -1) {
      a->first = optind;
      return 0;
    }
    if (c != '?' && c != ':' && own_val(a, c)) return c;
    char opt[64];
    switch (c) {
      case 'h':
        if (a->usage) a->usage(stdout);
        if (!(a->takes & SP_CLI_IN_ORDER)) help_footer(a);
        a->status = 0;
        return -1;
      case 'q':
        sp_cli_quiet = true;
        sp_cli_log_level = SEALPROV_LOG_ERROR;
        sp_cli_progress = false;
        break;
      case 'v':
        sp_cli_log_level =
            sp_cli_log_level < SEALPROV_LOG_INFO ? SEALPROV_LOG_INFO : SEALPROV_LOG_DEBUG;
        break;
      case OPT_PROGRESS: sp_cli_progress = true; break;
      case OPT_NO_PROGRESS: sp_cli_progress = false; break;
      case OPT_PLUGIN:
        if (!*optarg) {
          a->status = sp_cli_usage_error(a, "--plugin needs a module path");
          return -1;
        }
        sp_cli_plugin = optarg;
        break;
      case 'c': a->config = optarg; break;
      case OPT_JSON: a->json = true; break;
      case ':':
        offending(argc, argv, optopt, opt, sizeof opt);
        a->status = sp_cli_usage_error(a, "%s needs a value", opt);
        return -1;
      default:
        offending(argc, argv, optopt, opt, sizeof opt);
        a->status = sp_cli_usage_error(a, "unknown option '%s'", opt);
        return -1;
    }
  }
}

int sp_cli_usage_error(const sp_cli_args *a, const char *fmt, ...) {
  (void)a; /* the usage itself is one command away, not 20 lines above the error */
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (sp_cli_cmd != NULL && *sp_cli_cmd)
    sp_cli_error("%s (`sealprov help %s` shows the usage)", buf, sp_cli_cmd);
  else
    sp_cli_error("%s (`sealprov help` lists the commands)", buf);
  return 2;
}

bool sp_cli_operands(sp_cli_args *a, int argc, char **argv, int min, int max, const char *what) {
  int n = argc - a->first;
  if (n >= min && n <= max) return true;
  if (n > max)
    a->status = sp_cli_usage_error(a, "unexpected argument '%s'", argv[a->first + max]);
  else
    a->status = sp_cli_usage_error(a, "missing %s", what);
  return false;
}

bool sp_cli_u64(const char *opt, const char *value, uint64_t max, uint64_t *out) {
  uint64_t v = 0;
  const char *p = value;
  if (p && p[0] == '2' && p[1] == '^') {
    char *end = NULL;
    errno = 0;
    unsigned long e = strtoul(p + 2, &end, 10);
    if (errno == 0 && end != p + 2 && *end == 0 && e < 64 && p[2] >= '0' && p[2] <= '9') {
      v = UINT64_C(1) << e;
      goto range;
    }
  } else if (p && *p >= '0' && *p <= '9') {
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(p, &end, 10);
    if (errno == 0 && *end == 0) {
      v = x;
      goto range;
    }
  }
  sp_cli_error("%s: \"%s\" is not a number (decimal or 2^K)", opt, value ? value : "");
  return false;
range:
  if (v > max) {
    sp_cli_error("%s: %llu is larger than the maximum %llu", opt, (unsigned long long)v,
                 (unsigned long long)max);
    return false;
  }
  *out = v;
  return true;
}

bool sp_cli_uint(const char *opt, const char *value, unsigned min, unsigned max, unsigned *out) {
  uint64_t v;
  if (!sp_cli_u64(opt, value, max, &v)) return false;
  if (v < min) {
    sp_cli_error("%s must be at least %u", opt, min); /* the commands' words before opts.c */
    return false;
  }
  *out = (unsigned)v;
  return true;
}
