/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_post_load.c -- a WinningPoSt under load through libsealprov_c2's split API, the way
 * Curio's cuzk proves (dev/post-under-load.sh runs it on a GPU; tests/compat/
 * c2_post_load.sh on CPU devices):
 *
 *   c2_post_load --dir DIR [options]  > result.json
 *
 * It makes (or finds in DIR) a PoRep-shaped parameter set (a sealing-shaped circuit of
 * domain 2^K, as dev/fullsize.sh makes it) and a WinningPoSt-shaped one (about 372,700
 * constraints, domain 2^19: bench/shapes.c), one witness of each in memory, and loads
 * both with create_SRS. Then, through generate_groth16_proofs_start_c and
 * finalize_groth16_proof_c only (c2_post_stream.c: the callers, --mode cuzk or jobs):
 *   warm-up   one PoRep call and one PoSt (the parameters made resident)
 *   idle      M PoSts one at a time, GAP ms apart, nothing else running
 *   load      the PoRep stream; once K of its partitions are proved, M PoSts one at a
 *             time (each GAP ms after the previous one's proof); the stream stops
 *             after the last
 *   alone     the stream again for as many partitions as it proved under load
 * Each PoSt's times from its submit: start returned, finalize returned (the proof).
 * Every proof is compressed with sealprov_c2_proof_compress and checked at the end
 * against the set's verifying key (the module's verifier, on this host's CPU), and one
 * PoSt proof with a changed input must be refused. The JSON goes to stdout, progress
 * and a last summary line to stderr. The module and its INI come from SEALPROV_PLUGIN and
 * SEALPROV_CONFIG, as for any host of the library. Exit 0 when every call succeeded and
 * every proof verified, 1 otherwise, 2 on bad usage. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "c2_post_load.h"

static double g_t0;

static double mono(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

double pl_now(void) { return mono() - g_t0; }

void pl_note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "c2_post_load: %7.1f s: ", pl_now());
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: c2_post_load --dir DIR [--porep-log K | --porep-constraints N]\n"
          "         [--porep-inputs N] [--porep-params FILE --porep-vk FILE]\n"
          "         [--post-constraints N] [--post-inputs N] [--mode cuzk|jobs] [--workers W]\n"
          "         [--partitions N] [--before K] [--posts M] [--gap-ms G] [--gpu-index I]\n"
          "         [--setup-gpu ORDINAL] [--threads T] [--seed S]\n"
          "  PoRep set: domain 2^K (default 27), 0.97 x 2^K constraints, 328 inputs besides\n"
          "  ONE: the circuit of dev/fullsize.sh (whose KEEP=1 files --porep-params and\n"
          "  --porep-vk take); WinningPoSt set: N constraints (default 372790, the input\n"
          "  constraints included: 2^19) and 67 inputs besides ONE.\n"
          "  --mode cuzk (default): W workers (default 2) sharing one GPU mutex, one PoRep\n"
          "  partition a call, a PoSt first in the host's queue; jobs: W threads calling\n"
          "  start with N partitions (default 10), each PoSt started at once.\n"
          "  --before K stream partitions (default 2), then --posts M (default 5) PoSts\n"
          "  --gap-ms G apart (default 1000). --gpu-index I: what every call passes\n"
          "  (default 0). --setup-gpu: the parameters' points on that CUDA device.\n");
}

/* A number option, checked: name, text, bounds; false with a message. */
static bool num(const char *name, const char *text, uint64_t lo, uint64_t hi, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 0);
  if (errno != 0 || end == text || *end != 0 || text[0] == '-' || v < lo || v > hi) {
    fprintf(stderr, "c2_post_load: %s \"%s\": not a number in %llu..%llu\n", name, text,
            (unsigned long long)lo, (unsigned long long)hi);
    return false;
  }
  *out = v;
  return true;
}

static int parse(int argc, char **argv, pl_opts *o) {
  static const struct option lo[] = {{"dir", 1, 0, 'd'},
                                     {"porep-log", 1, 0, 'k'},
                                     {"porep-constraints", 1, 0, 'n'},
                                     {"porep-inputs", 1, 0, 'i'},
                                     {"porep-params", 1, 0, 'p'},
                                     {"porep-vk", 1, 0, 'v'},
                                     {"post-constraints", 1, 0, 'N'},
                                     {"post-inputs", 1, 0, 'I'},
                                     {"mode", 1, 0, 'm'},
                                     {"workers", 1, 0, 'w'},
                                     {"partitions", 1, 0, 'P'},
                                     {"before", 1, 0, 'b'},
                                     {"posts", 1, 0, 'M'},
                                     {"gap-ms", 1, 0, 'g'},
                                     {"gpu-index", 1, 0, 'x'},
                                     {"setup-gpu", 1, 0, 'G'},
                                     {"threads", 1, 0, 't'},
                                     {"seed", 1, 0, 's'},
                                     {"help", 0, 0, 'h'},
                                     {0, 0, 0, 0}};
  uint64_t v = 0;
  int c;
  bool ok = true;
  while (ok && (c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
    switch (c) {
      case 'd': o->dir = optarg; break;
      case 'k': ok = num("--porep-log", optarg, 10, 27, &v), o->porep_log = (unsigned)v; break;
      case 'n':
        ok = num("--porep-constraints", optarg, 64, UINT64_C(1) << 27, &o->porep_constraints),
        o->porep_log = 0;
        break;
      case 'i':
        ok = num("--porep-inputs", optarg, 1, 4096, &v), o->porep_inputs = (uint32_t)v;
        break;
      case 'p': o->porep_params = optarg; break;
      case 'v': o->porep_vk = optarg; break;
      case 'N':
        ok = num("--post-constraints", optarg, 64, UINT64_C(1) << 24, &o->post_constraints);
        break;
      case 'I': ok = num("--post-inputs", optarg, 1, 4096, &v), o->post_inputs = (uint32_t)v; break;
      case 'm':
        ok = !strcmp(optarg, "cuzk") || !strcmp(optarg, "jobs");
        if (!ok) fprintf(stderr, "c2_post_load: --mode \"%s\": cuzk or jobs\n", optarg);
        o->cuzk = !strcmp(optarg, "cuzk");
        break;
      case 'w': ok = num("--workers", optarg, 1, 16, &v), o->workers = (unsigned)v; break;
      case 'P': ok = num("--partitions", optarg, 1, 64, &v), o->partitions = (unsigned)v; break;
      case 'b': ok = num("--before", optarg, 0, 1000, &v), o->before = (unsigned)v; break;
      case 'M': ok = num("--posts", optarg, 1, 1000, &v), o->posts = (unsigned)v; break;
      case 'g': ok = num("--gap-ms", optarg, 0, 60000, &v), o->gap_ms = (unsigned)v; break;
      case 'x': ok = num("--gpu-index", optarg, 0, 63, &v), o->gpu_index = (int)v; break;
      case 'G': ok = num("--setup-gpu", optarg, 0, 63, &v), o->setup_gpu = (int)v; break;
      case 't': ok = num("--threads", optarg, 1, 1024, &v), o->threads = (unsigned)v; break;
      case 's': ok = num("--seed", optarg, 0, UINT64_MAX, &o->seed); break;
      case 'h': usage(stdout); exit(0);
      default: ok = false;
    }
  }
  if (ok && (optind != argc || o->dir == NULL || !o->porep_params != !o->porep_vk)) {
    fprintf(stderr, "c2_post_load: %s\n",
            optind != argc   ? "unexpected arguments"
            : o->dir == NULL ? "--dir is required"
                             : "--porep-params and --porep-vk go together");
    ok = false;
  }
#ifndef HAVE_CUDA
  if (ok && o->setup_gpu >= 0) {
    fprintf(stderr, "c2_post_load: --setup-gpu: this build has no CUDA\n");
    ok = false;
  }
#endif
  if (!ok) usage(stderr);
  return ok ? 0 : 2;
}

/* ---- the phases ------------------------------------------------------------------ */

typedef struct pl_phase { /* one run of the stream */
  uint64_t parts;
  double seconds;
  size_t call_from, call_to; /* its calls in st->call_s */
} pl_phase;

typedef struct pl_result {
  pl_call warm, *idle, *load;
  pl_phase with_post, alone;
  size_t porep_ok, post_ok;
  bool rejected;
} pl_result;

static void posts(pl_stream *st, const pl_opts *o, pl_call *c) {
  for (unsigned i = 0; i < o->posts; i++) {
    if (i > 0) sleep_ms(o->gap_ms);
    pl_post(st, &c[i]);
    pl_note(
        "post %u: proof %.1f ms after its submit (start returned at %.1f ms), %u stream "
        "call(s) under way at its submit",
        i, (c[i].fin_ret - c[i].submit) * 1e3, (c[i].start_ret - c[i].submit) * 1e3,
        c[i].stream_busy_at_submit);
  }
}

/* The stream with the PoSts, then alone for as many partitions. */
static void stream_phases(pl_stream *st, const pl_opts *o, pl_result *r) {
  uint64_t base = st->parts_done;
  double t0 = pl_now();
  r->with_post.call_from = st->ncalls;
  pl_stream_feed(st, 0);
  pl_stream_wait_parts(st, base + o->before);
  if (st->failures == 0) posts(st, o, r->load);
  pl_stream_stop(st);
  r->with_post.parts = st->parts_done - base;
  r->with_post.seconds = st->last_done - t0;
  r->with_post.call_to = st->ncalls;
  pl_note("stream with the PoSts: %llu partitions in %.1f s",
          (unsigned long long)r->with_post.parts, r->with_post.seconds);
  if (st->failures != 0) return;

  uint64_t calls = r->with_post.parts / st->per_call;
  base = st->parts_done;
  t0 = pl_now();
  r->alone.call_from = st->ncalls;
  pl_stream_feed(st, calls ? calls : 1);
  pl_stream_wait_parts(st, base + (calls ? calls : 1) * st->per_call);
  pl_stream_stop(st);
  r->alone.parts = st->parts_done - base;
  r->alone.seconds = st->last_done - t0;
  r->alone.call_to = st->ncalls;
  pl_note("stream alone: %llu partitions in %.1f s", (unsigned long long)r->alone.parts,
          r->alone.seconds);
}

static int run(const pl_opts *o, pl_set *porep, pl_set *post, pl_stream *st, pl_result *r) {
  pl_stream_feed(st, 1); /* warm-up: the parameters resident, the first-call costs paid */
  pl_stream_wait_parts(st, st->per_call);
  pl_stream_stop(st);
  pl_post(st, &r->warm);
  pl_note("warm-up: a PoRep call in %.1f s, a PoSt in %.1f ms", st->ncalls ? st->call_s[0] : 0.0,
          (r->warm.fin_ret - r->warm.submit) * 1e3);
  posts(st, o, r->idle);
  stream_phases(st, o, r);
  /* every proof checked against the verifying keys */
  r->porep_ok = pl_verify(porep, st->proofs, st->nproofs);
  r->post_ok = pl_verify(post, r->warm.proof, 1);
  for (unsigned i = 0; i < o->posts; i++)
    r->post_ok += pl_verify(post, r->idle[i].proof, 1) + pl_verify(post, r->load[i].proof, 1);
  r->rejected = pl_verify_rejects_wrong_input(post, r->warm.proof);
  bool calls_ok = st->failures == 0 && r->warm.ok;
  for (unsigned i = 0; i < o->posts; i++) calls_ok = calls_ok && r->idle[i].ok && r->load[i].ok;
  return calls_ok && r->porep_ok == st->nproofs && r->post_ok == 1 + 2 * (size_t)o->posts &&
                 r->rejected
             ? 0
             : 1;
}

/* ---- the report ------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, size_t n) {
  if (n == 0) return 0;
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct pl_stats {
  double med_ms, max_ms, start_med_ms;
} pl_stats;

static pl_stats stats_of(const pl_call *c, unsigned n) {
  pl_stats s = {0, 0, 0};
  double *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
  if (v == NULL || w == NULL) {
    free(v);
    free(w);
    return s;
  }
  for (unsigned i = 0; i < n; i++) {
    v[i] = (c[i].fin_ret - c[i].submit) * 1e3;
    w[i] = (c[i].start_ret - c[i].submit) * 1e3;
  }
  s.med_ms = median(v, n);
  s.max_ms = v[n - 1];
  s.start_med_ms = median(w, n);
  free(v);
  free(w);
  return s;
}

static void json_set(const pl_set *s) {
  printf(
      "  \"%s\": {\"constraints\": %llu, \"log_domain\": %u, \"inputs\": %llu, \"aux\": %llu, "
      "\"params\": \"%s\", \"params_bytes\": %llu, \"files\": \"%s\", \"make_s\": %.2f, "
      "\"witness_s\": %.2f, \"create_SRS_s\": %.3f},\n",
      s->name, (unsigned long long)s->info.abc_size, s->info.log_domain,
      (unsigned long long)s->info.inp_size, (unsigned long long)s->info.aux_size, s->params,
      (unsigned long long)s->params_bytes,
      s->given    ? "given"
      : s->reused ? "found"
                  : "made",
      s->make_s, s->witness_s, s->create_srs_s);
}

static void json_posts(const char *name, const pl_call *c, unsigned n, bool last) {
  pl_stats s = stats_of(c, n);
  printf(
      "  \"%s\": {\"posts\": %u, \"submit_to_proof_median_ms\": %.2f, "
      "\"submit_to_proof_max_ms\": %.2f, \"submit_to_start_returned_median_ms\": %.2f, "
      "\"calls\": [",
      name, n, s.med_ms, s.max_ms, s.start_med_ms);
  for (unsigned i = 0; i < n; i++)
    printf(
        "%s\n    {\"submit_s\": %.3f, \"start_called_ms\": %.2f, \"start_returned_ms\": %.2f, "
        "\"proof_ms\": %.2f, \"stream_calls_under_way\": %u, \"stream_partitions_before\": "
        "%llu, \"stream_partitions_meanwhile\": %llu}",
        i ? "," : "", c[i].submit, (c[i].start_call - c[i].submit) * 1e3,
        (c[i].start_ret - c[i].submit) * 1e3, (c[i].fin_ret - c[i].submit) * 1e3,
        c[i].stream_busy_at_submit, (unsigned long long)c[i].stream_done_at_submit,
        (unsigned long long)(c[i].stream_done_at_proof - c[i].stream_done_at_submit));
  printf("]}%s\n", last ? "" : ",");
}

static double rate(const pl_phase *p) { return p->seconds > 0 ? (double)p->parts / p->seconds : 0; }

static void json_phase(const char *name, const pl_phase *p, pl_stream *st, bool last) {
  size_t n = p->call_to - p->call_from;
  double med = median(st->call_s + p->call_from, n);
  printf(
      "    \"%s\": {\"partitions\": %llu, \"seconds\": %.3f, \"partitions_per_s\": %.4f, "
      "\"calls\": %zu, \"call_median_s\": %.3f}%s\n",
      name, (unsigned long long)p->parts, p->seconds, rate(p), n, med, last ? "" : ",");
}

static void report(const pl_opts *o, const pl_set *porep, const pl_set *post, pl_stream *st,
                   const pl_result *r, int rc) {
  printf("{\n  \"program\": \"c2_post_load\", \"status\": \"%s\",\n", rc ? "failed" : "ok");
  printf(
      "  \"mode\": \"%s\", \"workers\": %u, \"partitions_per_call\": %u, \"gpu_index\": %d, "
      "\"gpu_mutex\": %s, \"before\": %u, \"gap_ms\": %u,\n",
      o->cuzk ? "cuzk" : "jobs", o->workers, st->per_call, o->gpu_index, o->cuzk ? "true" : "false",
      o->before, o->gap_ms);
  json_set(porep);
  json_set(post);
  json_posts("idle", r->idle, o->posts, false);
  json_posts("under_load", r->load, o->posts, false);
  printf("  \"stream\": {\n");
  json_phase("with_post", &r->with_post, st, false);
  json_phase("alone", &r->alone, st, true);
  printf(
      "  },\n  \"verified\": {\"porep\": %zu, \"porep_proofs\": %zu, \"post\": %zu, "
      "\"post_proofs\": %u, \"wrong_input_rejected\": %s}\n}\n",
      r->porep_ok, st->nproofs, r->post_ok, 1 + 2 * o->posts, r->rejected ? "true" : "false");
  pl_stats i = stats_of(r->idle, o->posts), l = stats_of(r->load, o->posts);
  pl_note(
      "summary: %s, %u worker(s), PoRep 2^%u: WinningPoSt submit->proof idle median "
      "%.1f ms max %.1f ms, under load median %.1f ms max %.1f ms; PoRep stream %.4f "
      "partitions/s alone, %.4f with the PoSts; %zu/%zu PoRep and %zu/%u PoSt proofs "
      "verified: %s",
      o->cuzk ? "cuzk" : "jobs", o->workers, porep->info.log_domain, i.med_ms, i.max_ms, l.med_ms,
      l.max_ms, rate(&r->alone), rate(&r->with_post), r->porep_ok, st->nproofs, r->post_ok,
      1 + 2 * o->posts, rc ? "FAILED" : "ok");
}

static void set_paths(const pl_opts *o, pl_set *s, const char *params, const char *vk) {
  s->given = params != NULL;
  snprintf(s->params, sizeof s->params, "%s", params ? params : "");
  snprintf(s->vk, sizeof s->vk, "%s", vk ? vk : "");
  if (!s->given) {
    snprintf(s->params, sizeof s->params, "%s/%s.params", o->dir, s->name);
    snprintf(s->vk, sizeof s->vk, "%s/%s.vk", o->dir, s->name);
  }
}

int main(int argc, char **argv) {
  g_t0 = mono();
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  pl_opts o = {.porep_log = 27,
               .porep_inputs = 328,
               .post_constraints = 372790,
               .post_inputs = 67,
               .cuzk = true,
               .workers = 2,
               .partitions = 10,
               .before = 2,
               .posts = 5,
               .gap_ms = 1000,
               .gpu_index = 0,
               .setup_gpu = -1,
               .threads = ncpu > 0 ? (unsigned)ncpu : 1,
               .seed = 0x5ea1f011};
  int rc = parse(argc, argv, &o);
  if (rc) return rc;
  if (o.porep_log) o.porep_constraints = (uint64_t)((double)(UINT64_C(1) << o.porep_log) * 0.97);
  setvbuf(stdout, NULL, _IOLBF, 0);
  pl_set porep = {.name = "porep",
                  .constraints = o.porep_constraints,
                  .inputs = o.porep_inputs,
                  .seed = o.seed};
  pl_set post = {.name = "post",
                 .constraints = o.post_constraints,
                 .inputs = o.post_inputs,
                 .seed = o.seed + 0x1000};
  set_paths(&o, &porep, o.porep_params, o.porep_vk);
  set_paths(&o, &post, NULL, NULL);
  pl_result r;
  memset(&r, 0, sizeof r);
  r.idle = calloc(o.posts, sizeof *r.idle);
  r.load = calloc(o.posts, sizeof *r.load);
  pl_stream st;
  rc = r.idle == NULL || r.load == NULL || pl_sets_make(&o, &porep, &post) || pl_set_load(&porep) ||
       pl_set_load(&post);
  if (rc == 0) {
    rc = pl_stream_init(&st, &o, &porep, &post);
    if (rc == 0) rc = run(&o, &porep, &post, &st, &r);
    report(&o, &porep, &post, &st, &r, rc);
    pl_stream_destroy(&st);
  }
  pl_set_free(&porep);
  pl_set_free(&post);
  free(r.idle);
  free(r.load);
  return rc ? 1 : 0;
}
