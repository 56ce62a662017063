/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* output.c -- every file a command writes goes through here (cli.h): before any work the
 * output is checked (its directory takes files; it is none of the command's inputs, by
 * device and inode, so `./x`, `x` and a hard link are the same file; an existing file
 * is replaced only when it is of the kind the command writes, or with --force); then it
 * is written to a temporary file next to it, flushed to the disk and renamed into place,
 * so no reader ever sees half a file under the real name. A temporary file is removed on
 * every error path and when the process is stopped by SIGINT, SIGTERM, SIGHUP or SIGXFSZ
 * (a file size limit). An output that exists and is no regular file (/dev/stdout, a FIFO)
 * is written in place: a rename would replace the device node itself. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* ---- temporary files removed when a signal stops the process ------------------------ */

#define LIVE_MAX 8
static char live[LIVE_MAX][PATH_MAX + 64];
static volatile sig_atomic_t live_used[LIVE_MAX];
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
static bool handlers_set;

static void on_stop(int sig) {
  for (int i = 0; i < LIVE_MAX; i++)
    if (live_used[i]) unlink(live[i]); /* async-signal-safe */
  signal(sig, SIG_DFL);
  raise(sig);
}

static int live_add(const char *tmp) {
  if (!handlers_set) {
    handlers_set = true;
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++) {
      struct sigaction sa, old;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = on_stop;
      sigemptyset(&sa.sa_mask);
      /* a signal the caller ignores (nohup) stays ignored */
      if (sigaction(stop_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
      sigaction(stop_signals[i], &sa, NULL);
    }
  }
  for (int i = 0; i < LIVE_MAX; i++)
    if (!live_used[i]) {
      snprintf(live[i], sizeof live[i], "%s", tmp);
      live_used[i] = 1;
      return i;
    }
  return -1; /* more than LIVE_MAX at once: still written safely, only not cleaned on a signal */
}

static void live_drop(int slot) {
  if (slot >= 0 && slot < LIVE_MAX) live_used[slot] = 0;
}

/* ---- the checks before any work -------------------------------------------------------- */

/* dir of path into buf ("." for a bare name, "/" for "/x") */
static void dir_of(const char *path, char *buf, size_t len) {
  snprintf(buf, len, "%s", path);
  char *slash = strrchr(buf, '/');
  if (slash == NULL)
    snprintf(buf, len, ".");
  else if (slash == buf)
    buf[1] = 0;
  else
    *slash = 0;
}

/* Whether a and b name one file: by device and inode when both exist, else by the real
 * path of their directories and their last component. */
static bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb) return false;
  char da[PATH_MAX], db[PATH_MAX], ra[PATH_MAX], rb[PATH_MAX];
  dir_of(a, da, sizeof da);
  dir_of(b, db, sizeof db);
  if (realpath(da, ra) == NULL || realpath(db, rb) == NULL) return !strcmp(a, b);
  const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
  return !strcmp(ra, rb) && !strcmp(ba ? ba + 1 : a, bb ? bb + 1 : b);
}

bool sp_cli_output_check(const char *opt, const char *path, sp_cli_kind kind, bool force,
                         const sp_cli_file *inputs, size_t ninputs) {
  if (path == NULL || !*path) {
    sp_cli_error("%s: empty path", opt);
    return false;
  }
  char dir[PATH_MAX];
  dir_of(path, dir, sizeof dir);
  struct stat st;
  if (stat(dir, &st) != 0) {
    sp_cli_error("%s %s: the directory %s %s", opt, path, dir,
                 errno == ENOENT ? "does not exist" : strerror(errno));
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    sp_cli_error("%s %s: %s is not a directory", opt, path, dir);
    return false;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    sp_cli_error("%s %s: cannot create files in %s: %s", opt, path, dir, strerror(errno));
    return false;
  }
  for (size_t i = 0; i < ninputs; i++) {
    if (inputs[i].path == NULL || !same_file(path, inputs[i].path)) continue;
    if (!strcmp(path, inputs[i].path))
      sp_cli_error("%s %s: that is the %s of this command; an output never replaces an input", opt,
                   path, inputs[i].role);
    else
      sp_cli_error(
          "%s %s: that is the %s of this command (%s, the same file); an output never "
          "replaces an input",
          opt, path, inputs[i].role, inputs[i].path);
    return false;
  }
  if (stat(path, &st) != 0) return true; /* a new file */
  if (S_ISDIR(st.st_mode)) {
    sp_cli_error("%s %s: is a directory; give a file name", opt, path);
    return false;
  }
  if (!S_ISREG(st.st_mode)) return true; /* a device or a FIFO: written in place */
  if (access(path, W_OK) != 0) {
    sp_cli_error("%s %s: the file exists and is not writable: %s", opt, path, strerror(errno));
    return false;
  }
  sp_cli_kind have = sp_cli_file_kind(path);
  if (have == SP_KIND_EMPTY || have == kind || force) return true;
  sp_cli_error(
      "%s %s: the file exists and is %s, not %s; give another name, or --force to "
      "replace it",
      opt, path, sp_cli_kind_name(have), sp_cli_kind_name(kind));
  return false;
}

/* ---- writing ---------------------------------------------------------------------------- */

bool sp_cli_output_begin(sp_cli_output *o, const char *opt, const char *path) {
  memset(o, 0, sizeof *o);
  o->opt = opt;
  o->path = path;
  o->slot = -1;
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    o->direct = true; /* written in place: tmp is the file itself */
    snprintf(o->tmp, sizeof o->tmp, "%s", path);
    o->f = fopen(path, "wb");
    if (o->f == NULL) {
      sp_cli_error("%s %s: cannot open: %s", opt, path, strerror(errno));
      return false;
    }
    return true;
  }
  char dir[PATH_MAX];
  dir_of(path, dir, sizeof dir);
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  int w = snprintf(o->tmp, sizeof o->tmp, "%s/.%s.sealprov-XXXXXX", dir, base);
  if (w < 0 || (size_t)w >= sizeof o->tmp) {
    sp_cli_error("%s %s: path too long", opt, path);
    return false;
  }
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    sp_cli_error("%s %s: cannot create a temporary file in %s: %s", opt, path, dir,
                 strerror(errno));
    o->tmp[0] = 0;
    return false;
  }
  o->slot = live_add(o->tmp);
  /* the mode of the file it replaces, else what the umask gives a new file */
  mode_t mode;
  if (stat(path, &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    mode_t um = umask(0);
    umask(um);
    mode = 0666 & ~um;
  }
  (void)fchmod(fd, mode);
  o->f = fdopen(fd, "wb");
  if (o->f == NULL) {
    sp_cli_error("%s %s: %s", opt, path, strerror(errno));
    close(fd);
    sp_cli_output_abort(o);
    return false;
  }
  return true;
}

void sp_cli_output_abort(sp_cli_output *o) {
  if (o->f != NULL) fclose(o->f);
  o->f = NULL;
  if (o->tmp[0] && !o->direct) unlink(o->tmp);
  o->tmp[0] = 0;
  live_drop(o->slot);
  o->slot = -1;
}

bool sp_cli_output_commit(sp_cli_output *o) {
  int err = 0;
  if (o->direct) { /* a device or a FIFO: flushed; fsync means nothing there */
    if (o->f != NULL && (fflush(o->f) != 0 || ferror(o->f))) err = errno ? errno : EIO;
    if (o->f != NULL && fclose(o->f) != 0 && !err) err = errno;
    o->f = NULL;
    o->tmp[0] = 0;
    if (err) sp_cli_error("%s %s: cannot write: %s", o->opt, o->path, strerror(err));
    return err == 0;
  }
  if (o->f != NULL) {
    if (fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0) err = errno ? errno : EIO;
    if (fclose(o->f) != 0 && !err) err = errno;
    o->f = NULL;
  } else { /* written by name (a kit writer): its bytes to the disk */
    int fd = open(o->tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) err = errno;
    if (fd >= 0) close(fd);
  }
  if (!err && rename(o->tmp, o->path) != 0) err = errno;
  if (err) {
    sp_cli_error("%s %s: cannot write: %s", o->opt, o->path, strerror(err));
    sp_cli_output_abort(o);
    return false;
  }
  o->tmp[0] = 0;
  live_drop(o->slot);
  o->slot = -1;
  /* the rename itself to the disk: the directory's entry */
  char dir[PATH_MAX];
  dir_of(o->path, dir, sizeof dir);
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)fsync(dfd);
    close(dfd);
  }
  return true;
}

bool sp_cli_output_write(const char *opt, const char *path, const void *data, size_t len) {
  sp_cli_output o;
  if (!sp_cli_output_begin(&o, opt, path)) return false;
  if (len > 0 && fwrite(data, 1, len, o.f) != len) {
    sp_cli_error("%s %s: cannot write: %s", opt, path, strerror(errno ? errno : EIO));
    sp_cli_output_abort(&o);
    return false;
  }
  return sp_cli_output_commit(&o);
}
