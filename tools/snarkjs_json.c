/* snarkjs_json.c -- snarkjs's verification_key.json, proof.json and public.json
 * (snarkjs_json.h). Moved out of cmd_verify.c so that tests/fuzz/fuzz_snarkjs.c can
 * feed the same code. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snarkjs_json.h"
#include "groth16/groth16.h"
#include "base/util.h"

/* ---- snarkjs's JSON: verification_key.json, proof.json, public.json ------------------ */

/* A small JSON tree: enough for snarkjs's files (objects, arrays, strings, numbers,
 * literals); depth and size are bounded, every error names the file and byte offset. */
typedef enum { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ } jv_kind;

typedef struct jv {
  jv_kind kind;
  char *str;            /* JV_STR: the string (escapes resolved); JV_NUM: its text */
  struct jv *items;     /* JV_ARR / JV_OBJ: n values */
  char **keys;          /* JV_OBJ: n keys */
  size_t n;
} jv;

/* At most this many values in a file. A jv and its string cost about 100 bytes of
 * heap for 2 bytes of text ("1,"), so a 60 MB public.json of 1s took 3.2 GB and 50 s
 * before it was refused for its count; a valid verification_key.json of 64 MiB holds
 * fewer than 800,000 values (4 per IC point of over 300 bytes). */
#define JV_MAX_VALUES ((size_t)1 << 21)

typedef struct jparse {
  const char *s, *path;
  size_t len, pos;
  size_t values;        /* parsed so far (JV_MAX_VALUES) */
  char err[SP_ESC_MAX + 256]; /* the escaped path and the reason, never cut */
} jparse;

static void jv_free(jv *v)
{
  if (!v)
    return;
  free(v->str);
  for (size_t i = 0; i < v->n; i++) {
    jv_free(&v->items[i]);
    if (v->keys)
      free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
}

static void jws(jparse *p)
{
  while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) && p->s[p->pos])
    p->pos++;
}

static bool jfail(jparse *p, const char *what)
{
  if (!p->err[0])
    snprintf(p->err, sizeof p->err, "%s: not valid JSON at byte offset %zu: %s", p->path, p->pos,
             what);
  return false;
}

static bool jstring(jparse *p, char **out)
{
  size_t cap = 16, n = 0;
  p->pos++;
  char *b = malloc(cap);
  if (!b)
    return jfail(p, "out of memory");
  while (p->pos < p->len && p->s[p->pos] != '"') {
    char c = p->s[p->pos++];
    if ((unsigned char)c < 0x20) {
      free(b);
      return jfail(p, "control character in a string");
    }
    if (c == '\\') {
      if (p->pos >= p->len) {
        free(b);
        return jfail(p, "unterminated escape");
      }
      switch (p->s[p->pos++]) {
      case '"': c = '"'; break;
      case '\\': c = '\\'; break;
      case '/': c = '/'; break;
      case 'b': c = '\b'; break;
      case 'f': c = '\f'; break;
      case 'n': c = '\n'; break;
      case 'r': c = '\r'; break;
      case 't': c = '\t'; break;
      default: /* \u escapes never occur in snarkjs's files */
        free(b);
        return jfail(p, "unsupported escape in a string");
      }
    }
    if (n + 2 > cap) {
      char *nb = realloc(b, cap *= 2);
      if (!nb) {
        free(b);
        return jfail(p, "out of memory");
      }
      b = nb;
    }
    b[n++] = c;
  }
  if (p->pos >= p->len) {
    free(b);
    return jfail(p, "unterminated string");
  }
  p->pos++;
  b[n] = 0;
  *out = b;
  return true;
}

static bool jvalue(jparse *p, jv *v, int depth)
{
  memset(v, 0, sizeof *v);
  jws(p);
  if (depth > 32)
    return jfail(p, "nested too deep");
  if (p->pos >= p->len)
    return jfail(p, "unexpected end of file");
  if (++p->values > JV_MAX_VALUES)
    return jfail(p, "more than 2097152 values: not a snarkjs file");
  char c = p->s[p->pos];
  if (c == '"') {
    v->kind = JV_STR;
    return jstring(p, &v->str);
  }
  if (c == '[' || c == '{') {
    bool obj = c == '{';
    v->kind = obj ? JV_OBJ : JV_ARR;
    p->pos++;
    jws(p);
    if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
      p->pos++;
      return true;
    }
    size_t cap = 0;
    for (;;) {
      if (v->n == cap) {
        cap = cap ? 2 * cap : 4;
        jv *ni = realloc(v->items, cap * sizeof *ni);
        if (!ni)
          return jfail(p, "out of memory");
        v->items = ni;
        if (obj) {
          char **nk = realloc(v->keys, cap * sizeof *nk);
          if (!nk)
            return jfail(p, "out of memory");
          v->keys = nk;
        }
      }
      if (obj) {
        jws(p);
        if (p->pos >= p->len || p->s[p->pos] != '"')
          return jfail(p, "expected a member name");
        if (!jstring(p, &v->keys[v->n]))
          return false;
        jws(p);
        if (p->pos >= p->len || p->s[p->pos] != ':') {
          free(v->keys[v->n]);
          return jfail(p, "expected ':'");
        }
        p->pos++;
      }
      bool ok = jvalue(p, &v->items[v->n], depth + 1);
      v->n++;
      if (!ok)
        return false;
      jws(p);
      if (p->pos < p->len && p->s[p->pos] == ',') {
        p->pos++;
        continue;
      }
      if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
        p->pos++;
        return true;
      }
      return jfail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }
  size_t start = p->pos;
  while (p->pos < p->len && strchr("0123456789+-.eE", p->s[p->pos]) && p->s[p->pos])
    p->pos++;
  if (p->pos > start) {
    v->kind = JV_NUM;
    v->str = strndup(p->s + start, p->pos - start);
    return v->str ? true : jfail(p, "out of memory");
  }
  static const char *lits[3] = {"true", "false", "null"};
  for (int i = 0; i < 3; i++)
    if (p->len - p->pos >= strlen(lits[i]) && !memcmp(p->s + p->pos, lits[i], strlen(lits[i]))) {
      p->pos += strlen(lits[i]);
      v->kind = i < 2 ? JV_BOOL : JV_NULL;
      return true;
    }
  return jfail(p, "unexpected character");
}

/* Reads and parses a JSON file (at most 64 MiB); file is path escaped for messages.
 * false: *msg says why. */
static bool json_load(const char *path, const char *file, jv *out, char *msg, size_t msglen)
{
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(msg, msglen, "%s: cannot open: %s", file, strerror(errno));
    return false;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  bool ok = buf != NULL;
  while (ok) {
    if (len == cap) {
      if (cap >= ((size_t)64 << 20)) {
        snprintf(msg, msglen, "%s: larger than 64 MiB: not a snarkjs JSON file", file);
        ok = false;
        break;
      }
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        ok = false;
        snprintf(msg, msglen, "%s: out of memory", file);
        break;
      }
      buf = nb;
    }
    size_t k = fread(buf + len, 1, cap - len, f);
    len += k;
    if (k == 0) {
      if (ferror(f)) {
        snprintf(msg, msglen, "%s: read error: %s", file, strerror(errno));
        ok = false;
      }
      break;
    }
  }
  fclose(f);
  if (!ok) {
    free(buf);
    return false;
  }
  jparse p = {.s = buf, .path = file, .len = len};
  ok = jvalue(&p, out, 0);
  if (ok) {
    jws(&p);
    if (p.pos != len)
      ok = jfail(&p, "text after the value");
  }
  if (!ok) {
    snprintf(msg, msglen, "%s", p.err);
    jv_free(out);
    memset(out, 0, sizeof *out);
  }
  free(buf);
  return ok;
}

static const jv *jget(const jv *o, const char *key)
{
  if (o->kind != JV_OBJ)
    return NULL;
  for (size_t i = 0; i < o->n; i++)
    if (strcmp(o->keys[i], key) == 0)
      return &o->items[i];
  return NULL;
}

/* A decimal string (snarkjs writes numbers as strings; a plain JSON integer is taken
 * too) into limbs, below the bound (nlimbs limbs, canonical). */
static bool jdec(const jv *v, uint64_t *limbs, size_t nlimbs, const uint64_t *bound)
{
  if (!v || (v->kind != JV_STR && v->kind != JV_NUM) || !sp_dec_to_limbs(limbs, nlimbs, v->str))
    return false;
  for (size_t i = nlimbs; i-- > 0;)
    if (limbs[i] != bound[i])
      return limbs[i] < bound[i];
  return false;
}

static bool jfp(const jv *v, fp_t *out)
{
  uint64_t l[6];
  return jdec(v, l, 6, BLS_P) && fp_from_canonical(out, l);
}

/* [x, y, z] with z "1" (affine) or "0" (infinity). NULL or why not. */
static const char *jg1(const jv *v, g1_affine_t *out)
{
  if (!v || v->kind != JV_ARR || v->n != 3)
    return "not an array of 3 coordinates";
  fp_t z;
  if (!jfp(&v->items[0], &out->x) || !jfp(&v->items[1], &out->y) || !jfp(&v->items[2], &z))
    return "a coordinate is not a decimal string below p";
  if (fp_is_zero(&z)) {
    g1_affine_set_inf(out);
    return NULL;
  }
  if (!fp_is_one(&z))
    return "z is neither 1 (affine) nor 0 (infinity)";
  return g1_affine_on_curve(out) ? NULL : "not on the curve";
}

static const char *jg2(const jv *v, g2_affine_t *out)
{
  if (!v || v->kind != JV_ARR || v->n != 3)
    return "not an array of 3 coordinates";
  fp2_t c[3];
  for (int i = 0; i < 3; i++) {
    const jv *e = &v->items[i];
    if (e->kind != JV_ARR || e->n != 2)
      return "a coordinate is not a pair [c0, c1]";
    if (!jfp(&e->items[0], &c[i].c0) || !jfp(&e->items[1], &c[i].c1))
      return "a coordinate is not a decimal string below p";
  }
  if (fp2_is_zero(&c[2])) {
    g2_affine_set_inf(out);
    return NULL;
  }
  if (!fp_is_one(&c[2].c0) || !fp_is_zero(&c[2].c1))
    return "z is neither [1, 0] (affine) nor [0, 0] (infinity)";
  out->x = c[0];
  out->y = c[1];
  return g2_affine_on_curve(out) ? NULL : "not on the curve";
}

/* Checks protocol and curve of a snarkjs file. Text from the file is shown escaped
 * (sp_utf8_escape): a raw byte of it must not make the message invalid UTF-8. */
static bool jcurve(const jv *o, const char *file, char *msg, size_t msglen)
{
  const jv *proto = jget(o, "protocol"), *curve = jget(o, "curve");
  char esc[256];
  if (!proto || proto->kind != JV_STR || strcmp(proto->str, "groth16") != 0) {
    bool str = proto && proto->kind == JV_STR;
    snprintf(msg, msglen, "%s: \"protocol\" is %s%s%s, sealprov verifies \"groth16\"", file,
             str ? "\"" : "", str ? sp_utf8_escape(proto->str, esc, sizeof esc) : proto ? "not a string" : "missing",
             str ? "\"" : "");
    return false;
  }
  if (curve && (curve->kind != JV_STR || strcmp(curve->str, "bls12381") != 0)) {
    bool bn = curve->kind == JV_STR && strcmp(curve->str, "bn128") == 0;
    snprintf(msg, msglen,
             "%s: \"curve\" is %s%s: sealprov verifies BLS12-381 (\"bls12381\") only%s", file,
             curve->kind == JV_STR ? sp_utf8_escape(curve->str, esc, sizeof esc) : "not a string",
             bn ? " (BN254, base field q = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47)" : "",
             bn ? ": make the key from a bls12381 powers of tau and a circuit compiled with circom --prime bls12381" : "");
    return false;
  }
  return true;
}

/* The start shared by verification_key.json and proof.json: file = the escaped path
 * (SP_ESC_MAX bytes), *o = the parsed file, a JSON object of protocol groth16 on
 * bls12381. On false msg says why and nothing is left to free. */
static bool load_groth16_object(const char *path, char *file, jv *o, const char *what, char *msg,
                                size_t msglen)
{
  sp_utf8_escape(path, file, SP_ESC_MAX);
  if (!json_load(path, file, o, msg, msglen))
    return false;
  if (o->kind != JV_OBJ)
    snprintf(msg, msglen, "%s: not a JSON object: not a snarkjs %s", file, what);
  else if (jcurve(o, file, msg, msglen))
    return true;
  jv_free(o);
  return false;
}

/* verification_key.json into vk (ic malloc'd). */
bool sp_snarkjs_load_vk(const char *path, sp_vk *vk, char *msg, size_t msglen)
{
  char file[SP_ESC_MAX];
  jv o;
  memset(vk, 0, sizeof *vk);
  if (!load_groth16_object(path, file, &o, "verification_key.json", msg, msglen))
    return false;
  bool ok = false;
  const char *why = NULL, *field = NULL;
  const jv *ic = jget(&o, "IC"), *np = jget(&o, "nPublic");
  struct {
    const char *name;
    bool g2;
    void *out;
  } pts[4] = {{"vk_alpha_1", false, &vk->alpha_g1},
              {"vk_beta_2", true, &vk->beta_g2},
              {"vk_gamma_2", true, &vk->gamma_g2},
              {"vk_delta_2", true, &vk->delta_g2}};
  for (int i = 0; i < 4 && !why; i++) {
    const jv *v = jget(&o, pts[i].name);
    field = pts[i].name;
    why = !v ? "missing" : pts[i].g2 ? jg2(v, pts[i].out) : jg1(v, pts[i].out);
    /* g1/g2_affine_in_subgroup take infinity (it is in the subgroup): refused apart,
     * a key with a point at infinity is no key (fuzz_snarkjs found alpha = [0, 1, 0]
     * accepted) */
    if (!why && (pts[i].g2 ? g2_affine_is_inf(pts[i].out) : g1_affine_is_inf(pts[i].out)))
      why = "the point at infinity";
    else if (!why && (pts[i].g2 ? !g2_affine_in_subgroup(pts[i].out) : !g1_affine_in_subgroup(pts[i].out)))
      why = "not in the subgroup";
  }
  if (!why && (!ic || ic->kind != JV_ARR || ic->n == 0)) {
    field = "IC";
    why = "missing or not a non-empty array of points";
  }
  if (why) {
    snprintf(msg, msglen, "%s: \"%s\": %s", file, field, why);
    goto out;
  }
  uint64_t npub;
  if (np && (np->kind != JV_NUM || !sp_dec_to_limbs(&npub, 1, np->str) || npub + 1 != ic->n)) {
    snprintf(msg, msglen, "%s: \"nPublic\" is %.40s, but \"IC\" has %zu points (nPublic + 1 expected)",
             file, np->kind == JV_NUM ? np->str : "not a number", ic->n);
    goto out;
  }
  vk->ic_len = ic->n;
  vk->ic = malloc(ic->n * sizeof(g1_affine_t));
  if (!vk->ic) {
    snprintf(msg, msglen, "%s: out of memory", file);
    goto out;
  }
  for (size_t i = 0; i < ic->n; i++) {
    why = jg1(&ic->items[i], &vk->ic[i]);
    if (!why && !g1_affine_in_subgroup(&vk->ic[i]) && !g1_affine_is_inf(&vk->ic[i]))
      why = "not in the subgroup";
    if (why) {
      snprintf(msg, msglen, "%s: \"IC\"[%zu]: %s", file, i, why);
      goto out;
    }
  }
  groth16_prepare_vk(&vk->pvk, &vk->alpha_g1, &vk->beta_g2, &vk->gamma_g2, &vk->delta_g2);
  ok = true;
out:
  if (!ok) {
    free(vk->ic);
    vk->ic = NULL;
  }
  jv_free(&o);
  return ok;
}

bool sp_snarkjs_load_proof(const char *path, sp_zkey_proof *pr, char *msg, size_t msglen)
{
  char file[SP_ESC_MAX];
  jv o;
  if (!load_groth16_object(path, file, &o, "proof.json", msg, msglen))
    return false;
  bool ok = false;
  const char *why = NULL, *field = NULL;
  field = "pi_a";
  why = jg1(jget(&o, "pi_a"), &pr->a);
  if (!why) {
    field = "pi_b";
    why = jg2(jget(&o, "pi_b"), &pr->b);
  }
  if (!why) {
    field = "pi_c";
    why = jg1(jget(&o, "pi_c"), &pr->c);
  }
  if (why) {
    snprintf(msg, msglen, "%s: \"%s\": %s", file, field, jget(&o, field) ? why : "missing");
    goto out;
  }
  ok = true;
out:
  jv_free(&o);
  return ok;
}

bool sp_snarkjs_load_public(const char *path, scalar_t **pub, size_t *n, char *msg, size_t msglen)
{
  char file[SP_ESC_MAX];
  sp_utf8_escape(path, file, sizeof file);
  jv o;
  *pub = NULL;
  if (!json_load(path, file, &o, msg, msglen))
    return false;
  bool ok = false;
  if (o.kind != JV_ARR) {
    snprintf(msg, msglen, "%s: not a JSON array: not a snarkjs public.json", file);
    goto out;
  }
  *n = o.n;
  *pub = malloc(o.n * sizeof(scalar_t) + 1);
  if (!*pub) {
    snprintf(msg, msglen, "%s: out of memory", file);
    goto out;
  }
  for (size_t i = 0; i < o.n; i++)
    if (!jdec(&o.items[i], (*pub)[i].l, 4, BLS_R)) {
      snprintf(msg, msglen, "%s: signal %zu is not a decimal string below r", file, i);
      goto out;
    }
  ok = true;
out:
  if (!ok) {
    free(*pub);
    *pub = NULL;
  }
  jv_free(&o);
  return ok;
}

