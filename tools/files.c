/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* files.c -- what the CLI knows of a file before it reads it (cli.h): its kind, told by
 * its content from its first bytes (every command checks its file options with it, and
 * `inspect` picks its describer with it), the vector lengths of a .params or .vk file,
 * the sizes in a .spa header, and where a bare --params name is looked up. Needs neither
 * the module nor the kit. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "json_read.h"

/* ---- kinds ------------------------------------------------------------------------- */

static const struct {
  const char *name; /* "X is <name>" */
  const char *json; /* inspect --json's "kind" */
} kinds[] = {
    [SP_KIND_NONE] = {"not there", "none"},
    [SP_KIND_UNKNOWN] = {"none of the files sealprov reads or makes", "unknown"},
    [SP_KIND_EMPTY] = {"an empty file", "empty"},
    [SP_KIND_SPA] = {"a .spa partition file", "spa"},
    [SP_KIND_PARAMS] = {"a .params parameter file", "params"},
    [SP_KIND_VK] = {"a .vk verifying key", "vk"},
    [SP_KIND_PROOFS] = {"a proof file", "proofs"},
    [SP_KIND_R1CS] = {"a circom .r1cs constraint system", "r1cs"},
    [SP_KIND_WTNS] = {"a circom .wtns witness", "wtns"},
    [SP_KIND_ZKEY] = {"a snarkjs .zkey proving key", "zkey"},
    [SP_KIND_SNARKJS_VK] = {"a snarkjs verification_key.json", "snarkjs_vk"},
    [SP_KIND_SNARKJS_PROOF] = {"a snarkjs proof.json", "snarkjs_proof"},
    [SP_KIND_SNARKJS_PUBLIC] = {"a snarkjs public.json", "snarkjs_public"},
    [SP_KIND_MANIFEST] = {"Filecoin's parameters.json", "parameters_json"},
    [SP_KIND_JSON] = {"a JSON file", "json"},
    [SP_KIND_INI] = {"an INI file", "ini"},
    [SP_KIND_TEXT] = {"a text file", "text"},
    [SP_KIND_DIR] = {"a directory", "directory"},
    [SP_KIND_SPECIAL] = {"not a regular file", "special"},
};

const char *sp_cli_kind_name(sp_cli_kind k) {
  return (unsigned)k < sizeof kinds / sizeof kinds[0] ? kinds[k].name : "?";
}

/* len bytes at off, all of them, or false */
static bool read_at(int fd, uint64_t off, void *buf, size_t len) {
  size_t got = 0;
  while (got < len) {
    ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += (size_t)n;
  }
  return true;
}

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint64_t le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

bool sp_cli_looks_like_proofs(int fd, uint64_t size) {
  if (size == 0 || size % 192 != 0) return false;
  uint64_t n = size / 192, look = n < 64 ? n : 64;
  for (uint64_t i = 0; i < look; i++) {
    uint8_t p[192];
    if (!read_at(fd, 192 * i, p, sizeof p)) return false;
    /* the compression flag (0x80) on A, B and C (a .params file starts uncompressed) */
    if (!(p[0] & 0x80) || !(p[48] & 0x80) || !(p[144] & 0x80)) return false;
  }
  return true;
}

bool sp_cli_looks_like_ini(int fd, uint64_t size) {
  char buf[4096];
  size_t n = size < sizeof buf - 1 ? (size_t)size : sizeof buf - 1;
  if (n == 0 || !read_at(fd, 0, buf, n)) return false;
  buf[n] = 0;
  if (memchr(buf, 0, n) != NULL) return false; /* binary */
  for (const char *line = buf; line != NULL && *line;) {
    const char *s = line;
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    if (*s == '[') { /* "[name]": a name, not a JSON array's first value */
      s++;
      if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
      while (*s && *s != ']' && *s != '\n' && *s != '"') s++;
      return *s == ']';
    }
    if (*s != '\n' && *s != ';' && *s != '#') return false; /* a line before any section */
    line = strchr(s, '\n');
    if (line) line++;
  }
  return false;
}

/* The verifying key's six points start a .params or .vk file, uncompressed: the first
 * byte of each is the top of a big-endian coordinate below p (at most 0x1a), or 0x40 for
 * the point at infinity. */
bool sp_cli_looks_like_params(int fd, uint64_t size) {
  static const unsigned starts[6] = {0, 96, 192, 384, 576, 672};
  uint8_t head[SP_CLI_VK_FIXED_BYTES];
  if (size < SP_CLI_VK_FIXED_BYTES + 4 || !read_at(fd, 0, head, sizeof head)) return false;
  for (int i = 0; i < 6; i++)
    if (head[starts[i]] > 0x1a && head[starts[i]] != 0x40) return false;
  return true;
}

/* Text that is not binary: no NUL and valid UTF-8 in its first 4 KiB (a character cut
 * at the end of the window is not held against it). */
static bool looks_like_text(int fd, uint64_t size) {
  char buf[4097];
  size_t n = size < sizeof buf - 1 ? (size_t)size : sizeof buf - 1;
  if (!read_at(fd, 0, buf, n)) return false;
  buf[n] = 0;
  if (memchr(buf, 0, n) != NULL) return false;
  for (size_t i = 0; i < n;) {
    size_t l = sp_cli_utf8_len(buf + i);
    if (l == 0) return n - i < 4 && size > n;
    i += l;
  }
  return true;
}

/* Every item of an array a decimal number (a string of digits, or a JSON integer). */
static bool all_decimal(const sp_json *a) {
  for (size_t i = 0; i < a->n; i++) {
    const sp_json *v = &a->items[i];
    if ((v->kind != SP_JSON_STR && v->kind != SP_JSON_NUM) || v->str == NULL || !*v->str)
      return false;
    for (const char *c = v->str; *c; c++)
      if (*c < '0' || *c > '9') return false;
  }
  return true;
}

/* Filecoin's parameters.json: an object of objects that have "cid" and "digest". */
static bool is_manifest(const sp_json *o) {
  if (o->kind != SP_JSON_OBJ || o->n == 0) return false;
  for (size_t i = 0; i < o->n; i++)
    if (sp_json_get(&o->items[i], "cid") == NULL || sp_json_get(&o->items[i], "digest") == NULL)
      return false;
  return true;
}

sp_cli_kind sp_cli_json_kind(const sp_json *o) {
  if (o->kind == SP_JSON_OBJ && sp_json_get(o, "vk_alpha_1") != NULL) return SP_KIND_SNARKJS_VK;
  if (o->kind == SP_JSON_OBJ && sp_json_get(o, "pi_a") != NULL) return SP_KIND_SNARKJS_PROOF;
  if (o->kind == SP_JSON_ARR && all_decimal(o)) return SP_KIND_SNARKJS_PUBLIC;
  if (is_manifest(o)) return SP_KIND_MANIFEST;
  return SP_KIND_JSON;
}

/* JSON text (its first byte that is not blank opens an object or an array): which of the
 * JSON files sealprov knows, read whole (up to 64 MiB; larger or not valid: JSON). */
static sp_cli_kind json_kind(const char *path) {
  sp_json o;
  char msg[256];
  if (!sp_json_load(path, (size_t)64 << 20, "JSON", &o, msg, sizeof msg)) return SP_KIND_JSON;
  sp_cli_kind k = sp_cli_json_kind(&o);
  sp_json_free(&o);
  return k;
}

sp_cli_kind sp_cli_fd_kind(int fd, uint64_t size, const char *path) {
  if (size == 0) return SP_KIND_EMPTY;
  char head[64] = {0};
  size_t hl = size < sizeof head ? (size_t)size : sizeof head;
  if (!read_at(fd, 0, head, hl)) return SP_KIND_UNKNOWN;
  if (size >= 8 && memcmp(head, SP_CLI_SPA_MAGIC, 8) == 0) return SP_KIND_SPA;
  if (size >= 4 && !memcmp(head, "r1cs", 4)) return SP_KIND_R1CS;
  if (size >= 4 && !memcmp(head, "wtns", 4)) return SP_KIND_WTNS;
  if (size >= 4 && !memcmp(head, "zkey", 4)) return SP_KIND_ZKEY;
  if (sp_cli_looks_like_ini(fd, size)) return SP_KIND_INI;
  size_t i = 0;
  while (i < hl && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n')) i++;
  /* no parameter or proof file starts with '{' or '[' (their first byte is below 0x1b,
   * 0x40 or has 0x80 set) */
  if (i < hl && (head[i] == '{' || head[i] == '['))
    return path != NULL ? json_kind(path) : SP_KIND_JSON;
  if (sp_cli_looks_like_proofs(fd, size)) return SP_KIND_PROOFS;
  if (sp_cli_looks_like_params(fd, size)) {
    /* a .vk ends right after ic; a .params goes on (a shorter file is a cut one) */
    uint8_t b[4];
    if (!read_at(fd, SP_CLI_VK_FIXED_BYTES, b, 4)) return SP_KIND_PARAMS;
    uint64_t end = SP_CLI_VK_FIXED_BYTES + 4 + 96 * (uint64_t)be32(b);
    return size == end ? SP_KIND_VK : SP_KIND_PARAMS;
  }
  if (looks_like_text(fd, size)) return SP_KIND_TEXT;
  return SP_KIND_UNKNOWN;
}

sp_cli_kind sp_cli_file_kind(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return SP_KIND_NONE;
  if (S_ISDIR(st.st_mode)) return SP_KIND_DIR;
  if (!S_ISREG(st.st_mode)) return SP_KIND_SPECIAL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return SP_KIND_UNKNOWN; /* unreadable: the reader says why */
  sp_cli_kind k = sp_cli_fd_kind(fd, (uint64_t)st.st_size, path);
  close(fd);
  return k;
}

bool sp_cli_file_is(const char *opt, const char *path, unsigned accept, const char *takes) {
  sp_cli_kind k = sp_cli_file_kind(path);
  /* not there, unreadable, empty (a cut file), or of no kind we know: the file's reader
   * says what is wrong with it */
  if (k == SP_KIND_NONE || k == SP_KIND_UNKNOWN || k == SP_KIND_SPECIAL || k == SP_KIND_EMPTY ||
      (accept & SP_KIND_BIT(k)))
    return true;
  sp_cli_error("%s is %s; %s takes %s", path, sp_cli_kind_name(k), opt, takes);
  return false;
}

/* ---- the headers of .params / .vk and .spa files ------------------------------------- */

static const char *const vec_names[6] = {"ic", "h", "l", "a", "b_g1", "b_g2"};

const char *sp_cli_params_vector(int i) { return i >= 0 && i < 6 ? vec_names[i] : "?"; }

bool sp_cli_params_header(int fd, uint64_t size, const char *path, sp_cli_params_hdr *h, char *msg,
                          size_t msglen) {
  static const unsigned point_bytes[6] = {96, 96, 96, 96, 96, 192};
  memset(h, 0, sizeof *h);
  char esc[1024];
  sp_cli_escape(path, esc, sizeof esc);
  if (!sp_cli_looks_like_params(fd, size)) {
    snprintf(msg, msglen,
             "%s: %" PRIu64
             " bytes: not a file sealprov reads or makes (none of .spa, .params, "
             ".vk, a proof file, circom's .r1cs or .wtns, snarkjs's .zkey or JSON files, "
             "parameters.json, an INI file)",
             esc, size);
    return false;
  }
  uint64_t off = SP_CLI_VK_FIXED_BYTES;
  for (int i = 0; i < 6; i++) {
    if (i == 1 && off == size) break; /* the verifying key ends after ic */
    uint8_t b[4];
    if (off > size || size - off < 4) {
      snprintf(msg, msglen,
               "%s: vector %s: its length at byte %" PRIu64
               " lies past the end of the file (%" PRIu64 " bytes; truncated)",
               esc, vec_names[i], off, size);
      return false;
    }
    if (!read_at(fd, off, b, 4)) {
      snprintf(msg, msglen, "%s: cannot read the length of vector %s at byte %" PRIu64 ": %s", esc,
               vec_names[i], off, errno ? strerror(errno) : "the file shrank");
      return false;
    }
    h->off[i] = off;
    h->len[i] = be32(b);
    uint64_t need = h->len[i] * point_bytes[i]; /* below 2^32 * 192: no overflow */
    if (need > size - off - 4) {
      snprintf(msg, msglen,
               "%s: vector %s: length %" PRIu64 " at byte %" PRIu64 " needs %" PRIu64
               " bytes of points, but the file has %" PRIu64
               " after it (truncated or not a parameter file)",
               esc, vec_names[i], h->len[i], off, need, size - off - 4);
      return false;
    }
    off += 4 + need;
    h->nvec = i + 1;
  }
  if (off != size) {
    snprintf(msg, msglen, "%s: %" PRIu64 " trailing bytes after vector %s (at byte %" PRIu64 ")",
             esc, size - off, vec_names[h->nvec - 1], off);
    return false;
  }
  if (h->len[0] == 0) {
    snprintf(msg, msglen, "%s: ic_len is 0 at byte %u: the key needs a point for ONE", esc,
             SP_CLI_VK_FIXED_BYTES);
    return false;
  }
  h->vk = h->nvec == 1;
  if (!h->vk) {
    uint64_t domain = h->len[1] + 1;
    while (h->log_domain < 63 && (UINT64_C(1) << h->log_domain) < domain) h->log_domain++;
    if ((UINT64_C(1) << h->log_domain) != domain) {
      snprintf(msg, msglen, "%s: vector h: length %" PRIu64 " is not 2^k - 1", esc, h->len[1]);
      return false;
    }
  }
  return true;
}

bool sp_cli_params_header_file(const char *path, sp_cli_params_hdr *h, char *msg, size_t msglen) {
  char esc[1024];
  sp_cli_escape(path, esc, sizeof esc);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    snprintf(msg, msglen, "%s: cannot open: %s", esc, strerror(errno));
    if (fd >= 0) close(fd);
    return false;
  }
  bool ok = sp_cli_params_header(fd, (uint64_t)st.st_size, path, h, msg, msglen);
  close(fd);
  return ok;
}

bool sp_cli_spa_header(const char *path, sp_cli_spa_hdr *h) {
  memset(h, 0, sizeof *h);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  uint8_t b[96];
  bool ok = read_at(fd, 0, b, sizeof b) && memcmp(b, SP_CLI_SPA_MAGIC, 8) == 0;
  close(fd);
  if (!ok) return false;
  uint64_t *f[9] = {&h->abc_size,       &h->inp_size,       &h->aux_size,
                    &h->a_aux_bit_len,  &h->a_aux_popcount, &h->b_inp_bit_len,
                    &h->b_inp_popcount, &h->b_aux_bit_len,  &h->b_aux_popcount};
  for (int i = 0; i < 9; i++) *f[i] = le64(b + 16 + 8 * i);
  return true;
}

/* ---- where --params NAME is ---------------------------------------------------------- */

const char *sp_cli_param_cache(void) {
  const char *dir = getenv("FIL_PROOFS_PARAMETER_CACHE");
  return dir != NULL && *dir ? dir : SP_CLI_DEFAULT_PARAM_CACHE;
}

bool sp_cli_params_where(const char *opt, const char *name, sp_cli_params_path *out) {
  memset(out, 0, sizeof *out);
  if (name == NULL || !*name) {
    sp_cli_error("%s: empty path", opt);
    return false;
  }
  int w;
  if (strchr(name, '/') != NULL) { /* a path: as given, like every other file argument */
    w = snprintf(out->module, sizeof out->module, "%s", name);
    snprintf(out->file, sizeof out->file, "%s", name);
  } else {
    /* A bare name is what a host passes: the module looks it up in the parameter cache.
     * The CLI does the same, and takes a file of the current directory only when the
     * cache has none of that name, saying so. */
    const char *dir = sp_cli_param_cache();
    size_t dl = strlen(dir);
    w = snprintf(out->file, sizeof out->file, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/",
                 name);
    snprintf(out->module, sizeof out->module, "%s", name);
    struct stat st;
    bool in_cache = w > 0 && (size_t)w < sizeof out->file && stat(out->file, &st) == 0;
    bool here = stat(name, &st) == 0;
    if (in_cache && here) {
      sp_cli_warn(
          "%s %s: the parameter cache's %s is used (a bare name is looked up there, as "
          "hosts do); write ./%s for the file of the current directory",
          opt, name, out->file, name);
    } else if (!in_cache && here) {
      sp_cli_warn(
          "%s %s: not in the parameter cache (%s, $FIL_PROOFS_PARAMETER_CACHE); "
          "using ./%s of the current directory",
          opt, name, dir, name);
      w = snprintf(out->module, sizeof out->module, "./%s", name);
      snprintf(out->file, sizeof out->file, "./%s", name);
    } else if (!in_cache) {
      sp_cli_error(
          "%s %s: not found: neither in the parameter cache (%s%s) nor in the current "
          "directory (./%s)",
          opt, name, out->file,
          getenv("FIL_PROOFS_PARAMETER_CACHE") && *getenv("FIL_PROOFS_PARAMETER_CACHE")
              ? ", from $FIL_PROOFS_PARAMETER_CACHE"
              : ", $FIL_PROOFS_PARAMETER_CACHE unset",
          name);
      return false;
    }
    out->from_cache = in_cache;
  }
  if (w < 0 || (size_t)w >= sizeof out->module) {
    sp_cli_error("%s: path too long", opt);
    return false;
  }
  return true;
}

bool sp_cli_wtns_count(const char *path, uint64_t *n) {
  *n = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0) return false;
  bool found = false;
  uint8_t h[12];
  if (fstat(fd, &st) == 0 && read_at(fd, 0, h, sizeof h) && !memcmp(h, "wtns", 4)) {
    uint32_t nsec =
        (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 | (uint32_t)h[11] << 24;
    uint64_t off = 12, size = (uint64_t)st.st_size;
    /* the header section (type 1): n8, the prime (n8 = 32 bytes), then nWitness */
    for (uint32_t i = 0; i < nsec && !found && off + 12 <= size; i++) {
      uint8_t s[12], c[4];
      if (!read_at(fd, off, s, sizeof s)) break;
      uint64_t len = le64(s + 4);
      if (s[0] == 1 && s[1] == 0 && s[2] == 0 && s[3] == 0 && len == 40 &&
          read_at(fd, off + 12 + 36, c, 4)) {
        *n = (uint64_t)c[0] | (uint64_t)c[1] << 8 | (uint64_t)c[2] << 16 | (uint64_t)c[3] << 24;
        found = true;
      }
      if (len > size - off - 12) break;
      off += 12 + len;
    }
  }
  close(fd);
  return found;
}

/* ---- scalars of a partition ------------------------------------------------------------ */

void sp_cli_scalar_hex(const uint8_t *le, char hex[67]) {
  static const char digits[] = "0123456789abcdef";
  char *o = hex;
  *o++ = '0';
  *o++ = 'x';
  bool started = false;
  for (int i = 31; i >= 0; i--) {
    for (int half = 1; half >= 0; half--) {
      unsigned d = half ? le[i] >> 4 : le[i] & 15;
      if (d == 0 && !started && !(i == 0 && half == 0)) continue;
      started = true;
      *o++ = digits[d];
    }
  }
  *o = 0;
}

bool sp_cli_input0_is_one(const sealprov_assignment *a, const char *path, char *msg, size_t len) {
  const uint8_t *v = a->inp_assignment;
  bool one = a->inp_size > 0 && v != NULL && v[0] == 1;
  for (int i = 1; one && i < 32; i++) one = v[i] == 0;
  if (one) return true;
  if (a->inp_size == 0 || v == NULL) {
    snprintf(msg, len, "%s: no inputs (inp_size 0): input 0 of every partition is ONE", path);
    return false;
  }
  char hex[67];
  sp_cli_scalar_hex(v, hex);
  snprintf(msg, len,
           "%s: input 0 is %s, not ONE: the first input of every partition is the constant 1 "
           "(a malformed partition file)",
           path, hex);
  return false;
}
