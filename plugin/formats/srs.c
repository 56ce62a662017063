/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* srs.c -- bellperson .params / .vk reader.
 *
 * Layout (all points uncompressed zcash encoding, lengths u32 big-endian):
 *   alpha_g1 (96) beta_g1 (96) beta_g2 (192) gamma_g2 (192) delta_g1 (96) delta_g2 (192)
 *   ic_len, ic[ic_len] (96 each)                      <- end of a .vk file
 *   h_len, h[...]; l_len, l[...]; a_len, a[...]; b_g1_len, b_g1[...] (96 each);
 *   b_g2_len, b_g2[...] (192 each)                   <- end of a .params file
 * The file is read with pread() in chunks (never mapped: a mapping that shrinks raises
 * SIGBUS in the host); each chunk is decoded in parallel straight into the final
 * arrays, so the host holds one decoded copy plus one chunk. While a chunk decodes, the
 * calling thread hashes it (manifest check) and hands the previous, decoded chunk to the
 * optional subgroup checker hook. Every point is checked on the curve; infinity is
 * rejected everywhere: bellperson never writes it (it filters the A/B queries) and an
 * infinite point in a real file means corruption.
 *
 * The points are decoded and checked by points.c; parameters.json and the parameter
 * cache are manifest.c's. */
#include "base/util.h"
#include "formats/srs.h"
#include "formats/blake2b.h"
#include "formats/fdigest.h"
#include "formats/srs_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "sealprov.h"

/* ---- the reader ------------------------------------------------------------------- */

/* A decoded chunk whose subgroup check is still to be done by the hook. */
typedef struct pending_chunk {
  bool any;
  const char *vector;
  bool g2;
  const void *pts;
  size_t n;
  size_t index0; /* index in the vector of pts[0] */
  uint64_t off0; /* byte offset of pts[0] in the file */
} pending_chunk;

typedef struct reader {
  sp_file f;
  const char *path; /* escaped, for messages */
  const sp_srs_load_opts *o;
  uint64_t off; /* next byte to read */
  unsigned nthreads;
  bool subgroup; /* subgroup checks on */
  bool hook;     /* proving vectors go to o->check (else CPU) */
  bool hashing;
  sp_blake2b_state hash;
  uint8_t *stage;
  size_t stage_len;
  pending_chunk pend;
  double t0;
  uint64_t points;
  const char *vector;   /* vector being read, for progress */
  bool sink;            /* proving vectors go to o->sink (a direct load) */
  sp_fdigest *dig;      /* the file's keyed digest, fed by every read (o->digest_secret) */
  size_t sink_chunk;    /* its buffers' bytes (begin may lower chunk_bytes) */
  sp_srs_vectors given; /* memory given for the proving vectors (o->vectors, vectors_for) */
  bool given_on;
  char *err;
  size_t errlen;
} reader;

static void rlog(reader *r, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void rlog(reader *r, int level, const char *fmt, ...) {
  if (!r->o->log) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  r->o->log(r->o->log_user, level, line);
}

static int progress(reader *r, bool done) {
  if (!r->o->progress) return SEALPROV_OK;
  double ms = sp_now_ms() - r->t0;
  double sec = ms > 0 ? ms / 1e3 : 1e-9;
  sp_srs_progress p = {.path = r->path,
                       .vector = r->vector,
                       .bytes_done = r->off,
                       .bytes_total = r->f.size,
                       .points_checked = r->points,
                       .elapsed_ms = ms,
                       .bytes_per_s = (double)r->off / sec,
                       .points_per_s = (double)r->points / sec,
                       .done = done};
  if (r->o->progress(r->o->progress_user, &p) != 0) {
    sp_set_err(r->err, r->errlen, "%s: load stopped by the progress callback at byte offset %llu",
               r->path, (unsigned long long)r->off);
    return SEALPROV_ERR_CANCELLED;
  }
  return SEALPROV_OK;
}

/* Small reads (lengths): read, hash, advance. The caller checked the size. */
static int read_small(reader *r, void *buf, size_t len, const char *what) {
  int st = sp_file_read(&r->f, buf, len, r->off, what, r->err, r->errlen);
  if (st != SEALPROV_OK) return st;
  if (r->hashing) sp_blake2b_update(&r->hash, buf, len);
  if (r->dig) sp_fdigest_update(r->dig, r->off, buf, len);
  r->off += len;
  return SEALPROV_OK;
}

static int read_u32be(reader *r, const char *what, uint32_t *v) {
  if (r->f.size - r->off < 4) {
    sp_set_err(r->err, r->errlen,
               "%s: truncated: the length of vector %s needs 4 bytes at byte offset %llu but the "
               "file has %llu bytes",
               r->path, what, (unsigned long long)r->off, (unsigned long long)r->f.size);
    return SEALPROV_ERR_PARAMS;
  }
  char what_len[48];
  snprintf(what_len, sizeof what_len, "length of vector %s", what);
  uint8_t p[4];
  int st = read_small(r, p, 4, what_len);
  if (st != SEALPROV_OK) return st;
  *v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
  return SEALPROV_OK;
}

/* Runs the hook on the pending chunk; OK, PARAMS (a point outside the subgroup) or,
 * when the hook itself fails, OK after checking on the CPU (the hook is then off). */
static int check_pending(reader *r) {
  pending_chunk *pc = &r->pend;
  if (!pc->any) return SEALPROV_OK;
  pc->any = false;
  size_t bad = pc->n;
  char herr[512] = "";
  int st = r->o->check(r->o->check_user, pc->g2, pc->pts, pc->n, &bad, herr, sizeof herr);
  if (st != SEALPROV_OK) {
    char esc[600];
    rlog(r, SEALPROV_LOG_WARN,
         "%s: the subgroup checker failed on vector %s (points %zu..%zu): %s; checking on the "
         "CPU from here",
         r->path, pc->vector, pc->index0, pc->index0 + pc->n - 1,
         sp_utf8_escape(herr, esc, sizeof esc));
    r->hook = false;
    bad = sp_srs_cpu_subgroup_first_bad(pc->pts, pc->g2, pc->n, r->nthreads);
  } else if (bad > pc->n) {
    bad = pc->n; /* a checker that reports past the end found nothing */
  }
  if (bad < pc->n) {
    size_t each = pc->g2 ? G2_BYTES : G1_BYTES;
    sp_set_err(r->err, r->errlen, "%s: vector %s index %zu (byte offset %llu): %s", r->path,
               pc->vector, pc->index0 + bad, (unsigned long long)(pc->off0 + (uint64_t)bad * each),
               bls_err_str(BLS_ERR_NOT_IN_SUBGROUP));
    return SEALPROV_ERR_PARAMS;
  }
  r->points += pc->n;
  return SEALPROV_OK;
}

/* ---- parallel reads ------------------------------------------------------------------
 * One thread's pread of a page-cached file copies at a few GB/s; a chunk is read by up
 * to SP_SRS_READ_THREADS threads (at most nthreads), each a contiguous piece of at
 * least SP_SRS_READ_PIECE bytes (opts->read_piece); the last piece takes the rest. A
 * failing piece (short: the file shrank) fails the read with the message of the lowest
 * failing piece. With a digest (fdigest.h) the pieces meet on the digest's block
 * boundaries, and each thread reads its piece a block at a time and hashes every whole
 * block while it is still in the cache; the reader's thread hashes the chunk's two
 * partial blocks after the join, in file order. */
#define SP_SRS_READ_THREADS 16u
#define SP_SRS_READ_PIECE ((size_t)4 << 20)

typedef struct pread_job {
  sp_file *f;
  uint8_t *buf;
  size_t len;
  uint64_t off;
  const char *what;
  sp_fdigest *dig;
  int st;
  char err[512];
} pread_job;

static void *pread_main(void *arg) {
  pread_job *j = arg;
  if (j->dig == NULL) {
    j->st = sp_file_read(j->f, j->buf, j->len, j->off, j->what, j->err, sizeof j->err);
    return NULL;
  }
  for (size_t at = 0; at < j->len;) {
    size_t n = sp_fdigest_split(j->off, j->len, at + 1) - at;
    j->st = sp_file_read(j->f, j->buf + at, n, j->off + at, j->what, j->err, sizeof j->err);
    if (j->st != SEALPROV_OK) return NULL;
    sp_fdigest_blocks(j->dig, j->off + at, j->buf + at, n);
    at += n;
  }
  return NULL;
}

static int read_parallel(reader *r, void *buf, size_t len, uint64_t off, const char *what) {
  size_t k = r->nthreads < SP_SRS_READ_THREADS ? r->nthreads : SP_SRS_READ_THREADS;
  size_t min_piece = r->o->read_piece ? r->o->read_piece : SP_SRS_READ_PIECE;
  if (k > len / min_piece) k = len / min_piece;
  if (k < 1) k = 1;
  pread_job jobs[SP_SRS_READ_THREADS];
  pthread_t th[SP_SRS_READ_THREADS];
  bool started[SP_SRS_READ_THREADS] = {false};
  size_t piece = len / k, n = 0, at = 0;
  for (size_t i = 0; i < k && at < len; i++) {
    size_t next = len;
    if (i + 1 < k)
      next = r->dig ? sp_fdigest_split(off, len, (i + 1) * piece)
                    : (((i + 1) * piece + 4095) & ~(size_t)4095);
    if (next > len) next = len;
    if (next <= at) continue; /* two cuts on one block boundary */
    jobs[n] = (pread_job){.f = &r->f,
                          .buf = (uint8_t *)buf + at,
                          .len = next - at,
                          .off = off + at,
                          .what = what,
                          .dig = r->dig,
                          .st = SEALPROV_OK};
    /* piece 0 runs here; a piece without a thread runs here too */
    started[n] = n > 0 && pthread_create(&th[n], NULL, pread_main, &jobs[n]) == 0;
    n++;
    at = next;
  }
  if (n) pread_main(&jobs[0]);
  for (size_t i = 1; i < n; i++) {
    if (started[i])
      pthread_join(th[i], NULL);
    else
      pread_main(&jobs[i]);
  }
  for (size_t i = 0; i < n; i++)
    if (jobs[i].st != SEALPROV_OK) {
      sp_set_err(r->err, r->errlen, "%s", jobs[i].err);
      return jobs[i].st;
    }
  if (r->dig) sp_fdigest_edges(r->dig, off, buf, len);
  return SEALPROV_OK;
}

/* ---- a direct load: proving vectors through the sink ------------------------------------ */

static const char *const vec_names[5] = {"h", "l", "a", "b_g1", "b_g2"};

static int vec_id(const char *what) {
  for (int i = 0; i < 5; i++)
    if (strcmp(what, vec_names[i]) == 0) return i;
  return -1;
}

/* The message for a point the sink rejected: the CPU decoder's reason for the same
 * bytes, so it reads as the host load's. */
static int sink_bad(reader *r, const sp_srs_bad *b) {
  bool g2 = b->vec == 4;
  unsigned flags = r->subgroup ? BLS_DECODE_SUBGROUP_CHECK : 0;
  const char *why = sp_srs_point_error(b->enc, g2, flags);
  const char *vname = b->vec >= 0 && b->vec < 5 ? vec_names[b->vec] : "?";
  if (strcmp(why, "unknown error") == 0) {
    sp_set_err(r->err, r->errlen,
               "%s: vector %s index %zu (byte offset %llu): rejected by the device check, but the "
               "CPU decoder accepts the same bytes (internal error)",
               r->path, vname, b->index, (unsigned long long)b->off);
    return SEALPROV_ERR_INTERNAL;
  }
  sp_set_err(r->err, r->errlen, "%s: vector %s index %zu (byte offset %llu): %s", r->path, vname,
             b->index, (unsigned long long)b->off, why);
  return SEALPROV_ERR_PARAMS;
}

/* A sink call's status: a rejected point becomes the loader's message. */
static int sink_status(reader *r, int st, const sp_srs_bad *bad) {
  if (st == SEALPROV_ERR_PARAMS && bad->any) return sink_bad(r, bad);
  return st;
}

/* The proving vector `what` (n points) read chunk by chunk into the sink's buffers. */
static int sink_points(reader *r, const char *what, int vec, size_t n, bool g2) {
  const sp_srs_sink *k = r->o->sink;
  size_t each = g2 ? G2_BYTES : G1_BYTES;
  size_t per = r->sink_chunk / each;
  if (per == 0) {
    sp_set_err(r->err, r->errlen, "%s: the device loader's buffers (%zu bytes) hold no point",
               r->path, r->sink_chunk);
    return SEALPROV_ERR_INTERNAL;
  }
  int st = k->vector(k->user, vec, n, r->err, r->errlen);
  if (st) return st;
  r->vector = what;
  char what_rd[48];
  snprintf(what_rd, sizeof what_rd, "vector %s", what);
  for (size_t done = 0; done < n;) {
    size_t cnt = n - done < per ? n - done : per;
    size_t bytes = cnt * each;
    void *buf = NULL;
    sp_srs_bad bad = {.any = false};
    if ((st = sink_status(r, k->buffer(k->user, bytes, &buf, &bad, r->err, r->errlen), &bad)))
      return st;
    if ((st = read_parallel(r, buf, bytes, r->off, what_rd))) return st;
    if (r->hashing) sp_blake2b_update(&r->hash, buf, bytes);
    if ((st = sink_status(r, k->submit(k->user, vec, done, cnt, r->off, &bad, r->err, r->errlen),
                          &bad)))
      return st;
    r->points += cnt;
    r->off += bytes;
    done += cnt;
    if ((st = progress(r, false))) return st;
  }
  return SEALPROV_OK;
}

typedef struct decode_job {
  decode_ctx *c;
  size_t n;
  unsigned nthreads;
} decode_job;

static void *decode_thread(void *arg) {
  decode_job *j = arg;
  (void)bls_parallel_for(j->n, j->nthreads, sp_srs_decode_range, j->c);
  return NULL;
}

/* Decodes n points of vector `what` at the current offset into *out (malloc'd), chunk
 * by chunk. vk points (proving = false) are always checked on the CPU. */
static int read_points(reader *r, const char *what, size_t n, bool g2, bool proving, void **out) {
  size_t each = g2 ? G2_BYTES : G1_BYTES;
  uint64_t avail = r->f.size - r->off;
  if ((uint64_t)n > avail / each) {
    sp_set_err(r->err, r->errlen,
               "%s: truncated or impossible length: vector %s has %zu points (%llu bytes) at byte "
               "offset %llu but only %llu bytes remain",
               r->path, what, n, (unsigned long long)n * each, (unsigned long long)r->off,
               (unsigned long long)avail);
    return SEALPROV_ERR_PARAMS;
  }
  if (proving && r->sink) {
    *out = NULL; /* device only */
    return sink_points(r, what, vec_id(what), n, g2);
  }
  int vid = proving && r->given_on ? vec_id(what) : -1;
  if (vid >= 0 && (uint64_t)n != r->given.len[vid]) {
    sp_set_err(r->err, r->errlen,
               "%s: vector %s has %zu points; the memory given for it (a shared image) holds "
               "%llu: the file changed since its lengths were read",
               r->path, what, n, (unsigned long long)r->given.len[vid]);
    return SEALPROV_ERR_PARAMS;
  }
  if (vid >= 0 && r->given.decoded) { /* decoded and checked before: skipped */
    *out = r->given.vec[vid];
    r->off += (uint64_t)n * each;
    return SEALPROV_OK;
  }
  void *dst = vid >= 0 ? r->given.vec[vid] : malloc(n * each + 1);
  if (!dst) {
    sp_set_err(r->err, r->errlen, "%s: out of memory for vector %s (%zu points, %zu bytes)",
               r->path, what, n, n * each);
    return SEALPROV_ERR_NO_MEMORY;
  }
  r->vector = what;
  size_t per = r->stage_len / each;
  uint64_t vec_off = r->off;
  int st = SEALPROV_OK;
  for (size_t done = 0; done < n;) {
    size_t cnt = n - done < per ? n - done : per;
    size_t bytes = cnt * each;
    char what_rd[48];
    snprintf(what_rd, sizeof what_rd, "vector %s", what);
    if ((st = read_parallel(r, r->stage, bytes, r->off, what_rd))) goto fail;
    bool use_hook = proving && r->subgroup && r->hook;
    unsigned flags = r->subgroup && !use_hook ? BLS_DECODE_SUBGROUP_CHECK : 0;
    void *slot = (uint8_t *)dst + done * each;
    decode_ctx c = {.base = r->stage, .out = slot, .g2 = g2, .flags = flags};
    atomic_init(&c.first_bad, UINT64_MAX);
    decode_job job = {.c = &c, .n = cnt, .nthreads = r->nthreads};
    /* The decode runs on its own thread while this one hashes the chunk and has the
     * previous chunk checked; with nothing to overlap, it runs here. */
    pthread_t th;
    bool overlap = r->hashing || r->pend.any;
    bool threaded = overlap && pthread_create(&th, NULL, decode_thread, &job) == 0;
    if (!threaded && !overlap) decode_thread(&job);
    if (r->hashing) sp_blake2b_update(&r->hash, r->stage, bytes);
    int pst = check_pending(r);
    if (threaded)
      pthread_join(th, NULL);
    else if (overlap)
      decode_thread(&job);
    if (pst != SEALPROV_OK) { /* an earlier index than anything in this chunk */
      st = pst;
      goto fail;
    }
    uint64_t bad = atomic_load(&c.first_bad);
    if (bad != UINT64_MAX) {
      uint64_t off = r->off + bad * each;
      sp_set_err(r->err, r->errlen, "%s: vector %s index %llu (byte offset %llu): %s", r->path,
                 what, (unsigned long long)(done + bad), (unsigned long long)off,
                 sp_srs_point_error(r->stage + bad * each, g2, flags));
      st = SEALPROV_ERR_PARAMS;
      goto fail;
    }
    if (use_hook && !r->hook) {
      /* the hook failed on the previous chunk: this one was decoded for it */
      size_t b = sp_srs_cpu_subgroup_first_bad(slot, g2, cnt, r->nthreads);
      if (b < cnt) {
        sp_set_err(r->err, r->errlen, "%s: vector %s index %zu (byte offset %llu): %s", r->path,
                   what, done + b, (unsigned long long)(r->off + (uint64_t)b * each),
                   bls_err_str(BLS_ERR_NOT_IN_SUBGROUP));
        st = SEALPROV_ERR_PARAMS;
        goto fail;
      }
      use_hook = false;
    }
    if (use_hook) {
      r->pend = (pending_chunk){.any = true,
                                .vector = what,
                                .g2 = g2,
                                .pts = slot,
                                .n = cnt,
                                .index0 = done,
                                .off0 = r->off};
    } else {
      r->points += cnt;
    }
    r->off += bytes;
    done += cnt;
    if ((st = progress(r, false))) goto fail;
  }
  (void)vec_off;
  *out = dst;
  return SEALPROV_OK;
fail:
  /* a pending chunk may point into dst */
  if (r->pend.any && r->pend.pts >= dst && (const uint8_t *)r->pend.pts < (uint8_t *)dst + n * each)
    r->pend.any = false;
  if (vid < 0) free(dst);
  return st;
}

static int read_one(reader *r, const char *what, bool g2, void *out) {
  void *tmp = NULL;
  int rc = read_points(r, what, 1, g2, false, &tmp);
  if (rc == SEALPROV_OK) {
    memcpy(out, tmp, g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t));
    free(tmp);
  }
  return rc;
}

static int parse(reader *r, sp_srs *s, bool vk_only) {
  int rc;
  if ((rc = read_one(r, "alpha_g1", false, &s->vk.alpha_g1)) ||
      (rc = read_one(r, "beta_g1", false, &s->vk.beta_g1)) ||
      (rc = read_one(r, "beta_g2", true, &s->vk.beta_g2)) ||
      (rc = read_one(r, "gamma_g2", true, &s->vk.gamma_g2)) ||
      (rc = read_one(r, "delta_g1", false, &s->vk.delta_g1)) ||
      (rc = read_one(r, "delta_g2", true, &s->vk.delta_g2)))
    return rc;
  uint32_t n;
  uint64_t len_off = r->off;
  if ((rc = read_u32be(r, "ic", &n))) return rc;
  if (n == 0) {
    sp_set_err(r->err, r->errlen,
               "%s: vector ic is empty (byte offset %llu); it needs at least ONE", r->path,
               (unsigned long long)len_off);
    return SEALPROV_ERR_PARAMS;
  }
  s->vk.ic_len = n;
  if ((rc = read_points(r, "ic", n, false, false, (void **)&s->vk.ic))) return rc;
  groth16_prepare_vk(&s->vk.pvk, &s->vk.alpha_g1, &s->vk.beta_g2, &s->vk.gamma_g2, &s->vk.delta_g2);
  if (!vk_only) {
    /* Every length is checked as soon as it is read, so a wrong one is reported as
     * that vector's, not as garbage in the next. */
    len_off = r->off;
    if ((rc = read_u32be(r, "h", &n))) return rc;
    /* h has domain-1 points and the domain is a power of two >= 2 */
    uint64_t m = (uint64_t)n + 1;
    if (n == 0 || (m & (m - 1)) != 0) {
      sp_set_err(r->err, r->errlen,
                 "%s: vector h (byte offset %llu) has %u points; it must have 2^k - 1 (k >= 1)",
                 r->path, (unsigned long long)len_off, n);
      return SEALPROV_ERR_PARAMS;
    }
    s->h_len = n;
    s->log_domain = (unsigned)__builtin_ctzll((unsigned long long)m);
    if (r->o->sink) {
      /* the rest of the file bounds the decoded proving vectors (the same size) */
      bool take = false;
      const sp_srs_sink *k = r->o->sink;
      size_t chunk = k->chunk_bytes;
      if ((rc = k->begin(k->user, r->f.size - r->off, s->log_domain, r->subgroup, &take, &chunk,
                         r->err, r->errlen)))
        return rc;
      r->sink_chunk = chunk < k->chunk_bytes ? chunk : k->chunk_bytes;
      r->sink = take;
      s->device_only = take;
      if (r->o->sink_taken) *r->o->sink_taken = take;
    }
    if (!r->sink && !r->given_on && r->o->vectors_for) {
      if ((rc = r->o->vectors_for(r->o->vectors_for_user, &r->given, r->err, r->errlen))) return rc;
      r->given.decoded = false;
      r->given_on = r->given.vec[0] != NULL;
    }
    s->vectors_given = r->given_on;
    if ((rc = read_points(r, "h", n, false, true, (void **)&s->h))) return rc;
    if ((rc = read_u32be(r, "l", &n))) return rc;
    s->l_len = n;
    if ((rc = read_points(r, "l", n, false, true, (void **)&s->l))) return rc;
    size_t nvars = s->vk.ic_len + s->l_len;
    len_off = r->off;
    if ((rc = read_u32be(r, "a", &n))) return rc;
    if (n < s->vk.ic_len || n > nvars) {
      sp_set_err(r->err, r->errlen,
                 "%s: vector a (length at byte offset %llu) has %u points; with ic_len %zu and "
                 "l_len %zu it must have between %zu and %zu (every input is in A)",
                 r->path, (unsigned long long)len_off, n, s->vk.ic_len, s->l_len, s->vk.ic_len,
                 nvars);
      return SEALPROV_ERR_PARAMS;
    }
    s->a_len = n;
    if ((rc = read_points(r, "a", n, false, true, (void **)&s->a))) return rc;
    len_off = r->off;
    if ((rc = read_u32be(r, "b_g1", &n))) return rc;
    if (n > nvars) {
      sp_set_err(r->err, r->errlen,
                 "%s: vector b_g1 (length at byte offset %llu) has %u points; it must have at "
                 "most ic_len + l_len = %zu",
                 r->path, (unsigned long long)len_off, n, nvars);
      return SEALPROV_ERR_PARAMS;
    }
    s->b_g1_len = n;
    if ((rc = read_points(r, "b_g1", n, false, true, (void **)&s->b_g1))) return rc;
    len_off = r->off;
    if ((rc = read_u32be(r, "b_g2", &n))) return rc;
    if (n != s->b_g1_len) {
      sp_set_err(r->err, r->errlen,
                 "%s: vector b_g2 (length at byte offset %llu) has %u points; vectors b_g1 (%zu "
                 "points) and b_g2 must have the same length",
                 r->path, (unsigned long long)len_off, n, s->b_g1_len);
      return SEALPROV_ERR_PARAMS;
    }
    s->b_g2_len = n;
    if ((rc = read_points(r, "b_g2", n, true, true, (void **)&s->b_g2))) return rc;
    if ((rc = check_pending(r))) return rc;
    if (r->sink) {
      /* every chunk's checks done; the lowest rejected point, if any */
      sp_srs_bad bad = {.any = false};
      const sp_srs_sink *k = r->o->sink;
      if ((rc = sink_status(r, k->finish(k->user, &bad, r->err, r->errlen), &bad))) return rc;
    }
  }
  if (r->off != r->f.size) {
    sp_set_err(r->err, r->errlen,
               "%s: %llu trailing bytes after the last vector (byte offset %llu)", r->path,
               (unsigned long long)(r->f.size - r->off), (unsigned long long)r->off);
    return SEALPROV_ERR_PARAMS;
  }
  return SEALPROV_OK;
}

/* ---- the digest and a validation record's verdict ------------------------------------- */

/* The identity of the open file (fstat of the descriptor read). */
static int file_identity(reader *r, sp_file_id *id) {
  struct stat st;
  if (fstat(r->f.fd, &st) != 0) {
    sp_set_err(r->err, r->errlen, "%s: cannot stat: %s", r->path, strerror(errno));
    return SEALPROV_ERR_IO;
  }
  *id = (sp_file_id){.dev = (uint64_t)st.st_dev,
                     .ino = (uint64_t)st.st_ino,
                     .size = (uint64_t)st.st_size,
                     .mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
                     .ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec};
  return SEALPROV_OK;
}

/* Once the file is open: its identity, the digest's state, and whether the subgroup
 * checks may be skipped (checked_before; the digest that must then come out in want). */
static int digest_begin(reader *r, sp_srs_validation *v, uint8_t want[16]) {
  const sp_srs_load_opts *o = r->o;
  int st = file_identity(r, &v->id);
  if (st != SEALPROV_OK) return st;
  v->threads = r->nthreads < SP_SRS_READ_THREADS ? r->nthreads : SP_SRS_READ_THREADS;
  r->dig = sp_fdigest_new(o->digest_secret, o->digest_secret_len, r->f.size);
  if (r->dig == NULL) {
    sp_set_err(r->err, r->errlen,
               "%s: out of memory for the file's digest (or a secret of %zu bytes)", r->path,
               o->digest_secret_len);
    return SEALPROV_ERR_NO_MEMORY;
  }
  if (r->subgroup && o->checked_before && o->checked_before(o->checked_before_user, &v->id, want)) {
    r->subgroup = false;
    r->hook = false;
    v->skipped = true;
  }
  return SEALPROV_OK;
}

/* After the last byte: the digest, and for a load that skipped its checks, the verdict:
 * bytes other than the ones checked before must not be used unchecked. */
static int digest_end(reader *r, sp_srs_validation *v, const uint8_t want[16]) {
  v->digest_done = sp_fdigest_final(r->dig, v->digest);
  v->digest_cpu_ms = sp_fdigest_cpu_ms(r->dig);
  if (!v->skipped || (v->digest_done && memcmp(v->digest, want, sizeof v->digest) == 0))
    return SEALPROV_OK;
  v->stale = true;
  sp_set_err(r->err, r->errlen,
             "%s: the file's digest differs from its validation record (it changed in a way its "
             "size, times and inode do not show): the subgroup checks this load skipped must run",
             r->path);
  return SEALPROV_ERR_PARAMS;
}

/* Vectors given decoded (a shared image): only for the file they were decoded from, and
 * with nothing that needs every byte read. */
static int given_begin(reader *r, sp_srs_validation *v) {
  const sp_srs_load_opts *o = r->o;
  if (o->vk_only || r->hashing || o->digest_secret || o->sink) {
    sp_set_err(r->err, r->errlen,
               "%s: decoded vectors given with a .vk, a manifest, a digest or a sink "
               "(internal error)",
               r->path);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  sp_file_id id;
  int st = file_identity(r, &id);
  if (st != SEALPROV_OK) return st;
  if (v) v->id = id;
  if (memcmp(&id, &o->vectors->id, sizeof id) == 0) {
    r->given = *o->vectors;
    r->given_on = true;
    return SEALPROV_OK;
  }
  if (v) v->stale = true;
  sp_set_err(r->err, r->errlen,
             "%s: the file changed since its shared image was checked against it (size, times "
             "or inode differ)",
             r->path);
  return SEALPROV_ERR_PARAMS;
}

/* ---- entry points ------------------------------------------------------------------- */

int sp_srs_load_ex(const char *path, const sp_srs_load_opts *opts, sp_srs **out, char *err,
                   size_t errlen) {
  if (!path || !out || !opts) {
    sp_set_err(err, errlen, "NULL %s", !path ? "path" : !out ? "output handle" : "options");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  char full[4096];
  if (!*path || !sp_srs_resolve_path(path, full, sizeof full)) {
    char esc[SP_ESC_MAX];
    sp_set_err(err, errlen, "%s: %s", sp_utf8_escape(path, esc, sizeof esc),
               *path ? "path too long" : "empty path");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  reader r = {.o = opts,
              .nthreads = opts->nthreads ? opts->nthreads : 1,
              .subgroup = opts->subgroup_check,
              .hook = opts->subgroup_check && opts->check != NULL,
              .hashing = opts->manifest != NULL && *opts->manifest,
              .err = err,
              .errlen = errlen,
              .t0 = sp_now_ms()};
  manifest_entry ent;
  int rc = sp_file_open(&r.f, full, err, errlen);
  if (rc != SEALPROV_OK) {
    if (!strchr(path, '/') && err && errlen) { /* say where a bare name was looked up */
      char esc[SP_ESC_MAX];
      const char *env = getenv("FIL_PROOFS_PARAMETER_CACHE");
      size_t n = strlen(err);
      snprintf(err + n, errlen - n,
               " (a bare file name is looked up in the parameter cache: "
               "$FIL_PROOFS_PARAMETER_CACHE, %s; write ./%s for a file in the current "
               "directory)",
               env && *env ? "set" : "unset, so " SP_SRS_DEFAULT_PARAM_CACHE,
               sp_utf8_escape(path, esc, sizeof esc));
    }
    return rc;
  }
  r.path = r.f.esc;
  sp_srs *s = NULL;
  sp_srs_validation *val = opts->validation;
  uint8_t want[16] = {0};
  if (val) *val = (sp_srs_validation){.skipped = false};
  if (val && opts->digest_secret && !opts->vk_only && (rc = digest_begin(&r, val, want))) goto fail;
  if (opts->vectors && opts->vectors->decoded && (rc = given_begin(&r, val))) goto fail;
  if (r.hashing) {
    /* the entry first: a file the manifest does not know fails before a long read */
    if ((rc = sp_srs_manifest_lookup(opts->manifest, full, r.f.esc, &ent, err, errlen))) goto fail;
    sp_blake2b_init(&r.hash, 64);
  }
  if (r.f.size < VK_FIXED_BYTES + 4) {
    sp_set_err(err, errlen,
               "%s: truncated: %llu bytes, a verifying key needs at least %u (six points and "
               "ic_len)",
               r.path, (unsigned long long)r.f.size, VK_FIXED_BYTES + 4);
    rc = SEALPROV_ERR_PARAMS;
    goto fail;
  }
  size_t chunk = opts->chunk_bytes;
  if (!chunk) {
    /* 32 MiB, but at most an eighth of a small file (at least 1 MiB), so that the
     * staging chunk stays small next to the decoded arrays */
    chunk = SP_SRS_CHUNK_BYTES;
    if ((uint64_t)chunk > r.f.size / 8)
      chunk = r.f.size / 8 > ((size_t)1 << 20) ? (size_t)(r.f.size / 8) : (size_t)1 << 20;
  }
  if (chunk < G2_BYTES) chunk = G2_BYTES;
  if ((uint64_t)chunk > r.f.size) chunk = r.f.size < G2_BYTES ? G2_BYTES : (size_t)r.f.size;
  r.stage_len = chunk;
  r.stage = malloc(chunk);
  s = calloc(1, sizeof *s);
  rc = SEALPROV_ERR_NO_MEMORY;
  if (!r.stage || !s || !(s->path = strdup(full))) {
    sp_set_err(err, errlen, "%s: out of memory", r.path);
    goto fail;
  }
  atomic_init(&s->refs, 1);
  s->vk_only = opts->vk_only;
  /* one sequential pass: tell the kernel to read ahead */
  (void)posix_fadvise(r.f.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  if ((rc = parse(&r, s, opts->vk_only))) goto fail;
  if ((rc = sp_file_check_unchanged(&r.f, err, errlen))) goto fail;
  if (r.dig && (rc = digest_end(&r, val, want))) goto fail;
  if (r.hashing) {
    uint8_t d[64];
    char got[2 * sizeof d + 1];
    sp_blake2b_final(&r.hash, d);
    for (size_t i = 0; i < sizeof d; i++) snprintf(got + 2 * i, 3, "%02x", d[i]);
    char mesc[SP_ESC_MAX], nesc[SP_ESC_MAX];
    sp_utf8_escape(opts->manifest, mesc, sizeof mesc);
    sp_utf8_escape(ent.name, nesc, sizeof nesc);
    if (strncasecmp(got, ent.digest, DIGEST_HEX) != 0) {
      sp_set_err(err, errlen,
                 "%s: digest mismatch with manifest %s entry \"%s\": expected %s, the file has "
                 "%.32s (first %u hex digits of its BLAKE2b-512)",
                 r.path, mesc, nesc, ent.digest, got, DIGEST_HEX);
      rc = SEALPROV_ERR_PARAMS;
      goto fail;
    }
    rlog(&r, SEALPROV_LOG_INFO, "%s: matches manifest %s entry \"%s\" (digest %.32s)", r.path, mesc,
         nesc, got);
  }
  if ((rc = progress(&r, true))) goto fail;
  sp_file_close(&r.f);
  free(r.stage);
  sp_fdigest_free(r.dig);
  if (!s->vk_only && !s->device_only && !s->vectors_given) {
    s->host_bytes = (uint64_t)(s->h_len + s->l_len + s->a_len + s->b_g1_len) * G1_BYTES +
                    (uint64_t)s->b_g2_len * G2_BYTES;
    sp_srs_memory_track(s);
  }
  *out = s;
  return SEALPROV_OK;
fail:
  sp_file_close(&r.f);
  free(r.stage);
  sp_fdigest_free(r.dig);
  sp_srs_free(s);
  return rc;
}
