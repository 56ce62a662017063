/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* trace_stats.c -- a trace's records told by stage and summed per window (trace_stats.h):
 * interval unions and overlaps, each stage's kernel, busy, transfer and wait times, the
 * GPU's idle gaps and the kernels that take the time; the tables and the CSV rows. */
#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace_stats.h"

/* ---- intervals ------------------------------------------------------------------------- */

static int ival_cmp(const void *a, const void *b) {
  const trc_ival *x = a, *y = b;
  return x->t0 < y->t0 ? -1 : x->t0 > y->t0 ? 1 : (x->t1 > y->t1) - (x->t1 < y->t1);
}

size_t trc_union(trc_ival *v, size_t n) {
  size_t k = 0;
  if (n == 0) return 0;
  qsort(v, n, sizeof *v, ival_cmp);
  for (size_t i = 0; i < n; i++) {
    if (v[i].t1 <= v[i].t0) continue; /* empty */
    if (k > 0 && v[i].t0 <= v[k - 1].t1) {
      if (v[i].t1 > v[k - 1].t1) v[k - 1].t1 = v[i].t1;
    } else {
      v[k++] = v[i];
    }
  }
  return k;
}

uint64_t trc_length(const trc_ival *v, size_t n) {
  uint64_t s = 0;
  for (size_t i = 0; i < n; i++) s += v[i].t1 - v[i].t0;
  return s;
}

uint64_t trc_overlap(const trc_ival *a, size_t na, const trc_ival *b, size_t nb) {
  uint64_t s = 0;
  size_t i = 0, j = 0;
  while (i < na && j < nb) {
    uint64_t lo = a[i].t0 > b[j].t0 ? a[i].t0 : b[j].t0;
    uint64_t hi = a[i].t1 < b[j].t1 ? a[i].t1 : b[j].t1;
    if (hi > lo) s += hi - lo;
    if (a[i].t1 < b[j].t1)
      i++;
    else
      j++;
  }
  return s;
}

/* ---- a trace ---------------------------------------------------------------------------- */

static bool grow(void **p, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return true;
  size_t c = *cap ? 2 * *cap : 1024;
  void *q = realloc(*p, c * size);
  if (!q) return false;
  *p = q;
  *cap = c;
  return true;
}

void trc_init(trc_trace *t, const char *const *stage_names, unsigned nstages) {
  memset(t, 0, sizeof *t);
  t->stage_names = stage_names;
  t->nstages = nstages < TRC_MAX_STAGES ? nstages : TRC_MAX_STAGES;
}

void trc_clear(trc_trace *t) {
  t->nrec = t->napi = t->next = t->nspan = 0;
  t->by_ext = t->by_thread = t->unknown = 0;
}

void trc_free(trc_trace *t) {
  for (size_t i = 0; i < t->nnames; i++) free(t->names[i]);
  free(t->names);
  free(t->rec);
  free(t->api);
  free(t->ext);
  free(t->span);
  memset(t, 0, sizeof *t);
}

bool trc_add_rec(trc_trace *t, const trc_rec *r) {
  if (!grow((void **)&t->rec, &t->caprec, t->nrec, sizeof *t->rec)) return false;
  t->rec[t->nrec++] = *r;
  return true;
}

bool trc_add_api(trc_trace *t, uint64_t start, uint32_t corr, uint32_t thread) {
  if (!grow((void **)&t->api, &t->capapi, t->napi, sizeof *t->api)) return false;
  t->api[t->napi++] = (trc_api){start, corr, thread};
  return true;
}

bool trc_add_ext(trc_trace *t, uint64_t id, uint32_t corr) {
  if (!grow((void **)&t->ext, &t->capext, t->next, sizeof *t->ext)) return false;
  t->ext[t->next++] = (trc_ext){id, corr};
  return true;
}

bool trc_add_span(trc_trace *t, uint64_t t0, uint64_t t1, uint32_t thread, unsigned stage) {
  if (!grow((void **)&t->span, &t->capspan, t->nspan, sizeof *t->span)) return false;
  t->span[t->nspan++] = (trc_span){t0, t1, thread, (uint16_t)stage};
  return true;
}

uint32_t trc_name(trc_trace *t, const char *name) {
  if (t->nnames == 0) { /* index 0: no name */
    if (!grow((void **)&t->names, &t->capnames, 0, sizeof *t->names)) return 0;
    if (!(t->names[0] = strdup(""))) return 0;
    t->nnames = 1;
  }
  if (!name || !*name) return 0;
  for (size_t i = t->nnames; i-- > 1;)
    if (!strcmp(t->names[i], name)) return (uint32_t)i;
  if (!grow((void **)&t->names, &t->capnames, t->nnames, sizeof *t->names)) return 0;
  if (!(t->names[t->nnames] = strdup(name))) return 0;
  return (uint32_t)t->nnames++;
}

static int ext_cmp(const void *a, const void *b) {
  uint32_t x = ((const trc_ext *)a)->corr, y = ((const trc_ext *)b)->corr;
  return (x > y) - (x < y);
}
static int api_cmp(const void *a, const void *b) {
  uint32_t x = ((const trc_api *)a)->corr, y = ((const trc_api *)b)->corr;
  return (x > y) - (x < y);
}
static int span_cmp(const void *a, const void *b) {
  const trc_span *x = a, *y = b;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  return (x->t0 > y->t0) - (x->t0 < y->t0);
}

static const trc_ext *find_ext(const trc_trace *t, uint32_t corr) {
  trc_ext key = {0, corr};
  return corr ? bsearch(&key, t->ext, t->next, sizeof key, ext_cmp) : NULL;
}
static const trc_api *find_api(const trc_trace *t, uint32_t corr) {
  trc_api key = {0, corr, 0};
  return corr ? bsearch(&key, t->api, t->napi, sizeof key, api_cmp) : NULL;
}

/* The stage thread was in at time at, or TRC_STAGE_UNKNOWN (spans sorted by span_cmp). */
static unsigned stage_at(const trc_trace *t, uint32_t thread, uint64_t at) {
  size_t lo = 0, hi = t->nspan; /* the first span of thread with t0 > at */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const trc_span *s = &t->span[mid];
    if (s->thread < thread || (s->thread == thread && s->t0 <= at))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return TRC_STAGE_UNKNOWN;
  const trc_span *s = &t->span[lo - 1];
  return s->thread == thread && at < s->t1 ? s->stage : TRC_STAGE_UNKNOWN;
}

void trc_resolve(trc_trace *t) {
  qsort(t->ext, t->next, sizeof *t->ext, ext_cmp);
  qsort(t->api, t->napi, sizeof *t->api, api_cmp);
  qsort(t->span, t->nspan, sizeof *t->span, span_cmp);
  t->by_ext = t->by_thread = t->unknown = 0;
  for (size_t i = 0; i < t->nrec; i++) {
    trc_rec *r = &t->rec[i];
    const trc_ext *e = find_ext(t, r->corr);
    if (!e) e = find_ext(t, r->corr2);
    if (e && e->id < t->nstages) {
      r->stage = (uint16_t)e->id;
      t->by_ext++;
      continue;
    }
    const trc_api *a = find_api(t, r->corr);
    if (!a) a = find_api(t, r->corr2);
    unsigned s = a ? stage_at(t, a->thread, a->start) : TRC_STAGE_UNKNOWN;
    r->stage = (uint16_t)(s < t->nstages ? s : TRC_STAGE_UNKNOWN);
    if (r->stage == TRC_STAGE_UNKNOWN)
      t->unknown++;
    else
      t->by_thread++;
  }
}

/* ---- a window's summary -------------------------------------------------------------------- */

static double ms(uint64_t ns) { return (double)ns / 1e6; }

static bool in_window(const trc_rec *r, uint64_t t0, uint64_t t1) {
  return r->start >= t0 && r->start < t1;
}
static trc_ival clip(uint64_t a, uint64_t b, uint64_t t0, uint64_t t1) {
  trc_ival v = {a < t0 ? t0 : a, b > t1 ? t1 : b};
  if (v.t1 < v.t0) v.t1 = v.t0;
  return v;
}
static unsigned row_of(const trc_trace *t, unsigned stage) {
  return stage < t->nstages ? stage : t->nstages;
}

/* The merged intervals of the window's kernels that pass keep (NULL: all), clipped. */
typedef bool (*rec_pred)(const trc_rec *r, unsigned arg);
static size_t kernel_union(const trc_trace *t, uint64_t t0, uint64_t t1, rec_pred keep,
                           unsigned arg, trc_ival *buf) {
  size_t n = 0;
  for (size_t i = 0; i < t->nrec; i++) {
    const trc_rec *r = &t->rec[i];
    if (r->kind == TRC_KERNEL && in_window(r, t0, t1) && (!keep || keep(r, arg)))
      buf[n++] = clip(r->start, r->end, t0, t1);
  }
  return trc_union(buf, n);
}
static bool of_stage(const trc_rec *r, unsigned row) { return r->stage == row; }
static bool not_stage(const trc_rec *r, unsigned row) { return r->stage != row; }

/* The sums over one stage's records (row: a stage, or nstages for the unknown). */
static void stage_records(const trc_trace *t, uint64_t t0, uint64_t t1, trc_summary *s) {
  for (size_t i = 0; i < t->nrec; i++) {
    const trc_rec *r = &t->rec[i];
    if (!in_window(r, t0, t1)) continue;
    trc_stage_sum *g = &s->stage[row_of(t, r->stage)];
    double d = ms(r->end > r->start ? r->end - r->start : 0);
    if (r->kind == TRC_KERNEL) {
      g->kernels++;
      g->kern_ms += d;
    } else if (r->kind == TRC_MEMCPY) {
      unsigned c = r->copy < TRC_COPY_KINDS ? r->copy : TRC_COPY_OTHER;
      g->copies[c]++;
      g->copy_bytes[c] += r->bytes;
      g->copy_ms[c] += d;
    } else if (r->kind == TRC_MEMSET) {
      g->memsets++;
      g->memset_ms += d;
    } else if (r->kind == TRC_SYNC) {
      g->syncs++;
      g->sync_ms += d;
    }
  }
}

/* Host time, busy time, span, others' kernels and idle time of each stage; buf and hb
 * hold nrec and nspan intervals. */
static void stage_times(const trc_trace *t, uint64_t t0, uint64_t t1, trc_summary *s, trc_ival *buf,
                        trc_ival *hb, trc_ival *all, size_t nall) {
  for (unsigned row = 0; row < s->nrows; row++) {
    trc_stage_sum *g = &s->stage[row];
    size_t nh = 0;
    for (size_t i = 0; row < t->nstages && i < t->nspan; i++) {
      const trc_span *p = &t->span[i];
      if (p->stage == row && p->t1 > t0 && p->t0 < t1) hb[nh++] = clip(p->t0, p->t1, t0, t1);
    }
    nh = trc_union(hb, nh);
    g->host_ms = ms(trc_length(hb, nh));
    const unsigned key = row < t->nstages ? row : TRC_STAGE_UNKNOWN;
    size_t nk = kernel_union(t, t0, t1, of_stage, key, buf);
    g->busy_ms = ms(trc_length(buf, nk));
    g->span_ms = nk ? ms(buf[nk - 1].t1 - buf[0].t0) : 0;
    g->idle_ms = ms(trc_length(hb, nh) - trc_overlap(hb, nh, all, nall));
    nk = kernel_union(t, t0, t1, not_stage, key, buf);
    g->others_ms = ms(trc_overlap(hb, nh, buf, nk));
  }
}

/* A kernel interval with the stages of the kernels that open and close it. */
typedef struct tagged {
  uint64_t t0, t1;
  uint16_t s0, s1;
} tagged;
static int tagged_cmp(const void *a, const void *b) {
  const tagged *x = a, *y = b;
  return (x->t0 > y->t0) - (x->t0 < y->t0);
}

static void add_gap(trc_summary *s, const trc_gap *g) {
  unsigned k = s->ngap < TRC_TOP_GAPS ? s->ngap++ : TRC_TOP_GAPS - 1;
  if (k == TRC_TOP_GAPS - 1 && s->ngap == TRC_TOP_GAPS && s->gap[k].len >= g->len) return;
  s->gap[k] = *g;
  for (; k > 0 && s->gap[k].len > s->gap[k - 1].len; k--) {
    trc_gap x = s->gap[k];
    s->gap[k] = s->gap[k - 1];
    s->gap[k - 1] = x;
  }
}

/* One device: busy time, lead-in and tail, the gaps between its kernels, its copies
 * beside kernels; the largest gaps go to s->gap. kb holds nrec tagged intervals. */
static void device_times(const trc_trace *t, uint64_t t0, uint64_t t1, trc_summary *s,
                         trc_dev_sum *d, tagged *kb, trc_ival *buf, trc_ival *cb) {
  size_t n = 0, nc = 0;
  for (size_t i = 0; i < t->nrec; i++) {
    const trc_rec *r = &t->rec[i];
    if (!in_window(r, t0, t1) || r->device != d->device) continue;
    trc_ival v = clip(r->start, r->end, t0, t1);
    if (r->kind == TRC_KERNEL) kb[n++] = (tagged){v.t0, v.t1, r->stage, r->stage};
    if (r->kind == TRC_MEMCPY && r->copy == TRC_COPY_H2D) cb[nc++] = v;
  }
  d->kernels = (unsigned)n;
  qsort(kb, n, sizeof *kb, tagged_cmp);
  size_t m = 0; /* merged in place, each with the stages at its two ends */
  for (size_t i = 0; i < n; i++) {
    if (m > 0 && kb[i].t0 <= kb[m - 1].t1) {
      if (kb[i].t1 >= kb[m - 1].t1) kb[m - 1].t1 = kb[i].t1, kb[m - 1].s1 = kb[i].s1;
      continue;
    }
    if (m > 0) {
      trc_gap g = {kb[m - 1].t1 - t0, kb[i].t0 - kb[m - 1].t1, d->device, kb[m - 1].s1, kb[i].s0};
      if (g.len >= TRC_GAP_MIN_NS) {
        d->gaps++;
        d->gap_ms += ms(g.len);
        add_gap(s, &g);
      } else {
        d->small_gap_ms += ms(g.len);
      }
      if (ms(g.len) > d->max_gap_ms) d->max_gap_ms = ms(g.len);
    }
    kb[m++] = kb[i];
  }
  for (size_t i = 0; i < m; i++) buf[i] = (trc_ival){kb[i].t0, kb[i].t1};
  d->busy_ms = ms(trc_length(buf, m));
  d->lead_ms = m ? ms(buf[0].t0 - t0) : ms(t1 - t0);
  d->tail_ms = m ? ms(t1 - buf[m - 1].t1) : 0;
  nc = trc_union(cb, nc);
  d->h2d_ms = ms(trc_length(cb, nc));
  d->overlap_ms = ms(trc_overlap(cb, nc, buf, m));
}

static int top_cmp(const void *a, const void *b) {
  double x = ((const trc_kernel_sum *)a)->ms, y = ((const trc_kernel_sum *)b)->ms;
  return (x < y) - (x > y);
}

/* The kernels by name, the most time first; false when memory ran out. */
static bool top_kernels(const trc_trace *t, uint64_t t0, uint64_t t1, trc_summary *s) {
  trc_kernel_sum *k = calloc(t->nnames ? t->nnames : 1, sizeof *k);
  if (!k) return false;
  for (size_t i = 0; i < t->nrec; i++) {
    const trc_rec *r = &t->rec[i];
    if (r->kind != TRC_KERNEL || !in_window(r, t0, t1) || r->name >= t->nnames) continue;
    trc_kernel_sum *x = &k[r->name];
    x->name = r->name;
    x->count++;
    x->ms += ms(r->end > r->start ? r->end - r->start : 0);
    x->stages |= 1u << (r->stage < t->nstages && r->stage < 31 ? r->stage : 31);
  }
  s->kernel_names = 0;
  for (size_t i = 0; i < t->nnames; i++) s->kernel_names += k[i].count > 0;
  qsort(k, t->nnames, sizeof *k, top_cmp);
  s->ntop = 0;
  for (size_t i = 0; i < t->nnames && s->ntop < TRC_TOP_KERNELS && k[i].count; i++)
    s->top[s->ntop++] = k[i];
  free(k);
  return true;
}

/* The devices the window's records name, in the order first met. */
static void devices_of(const trc_trace *t, uint64_t t0, uint64_t t1, trc_summary *s) {
  s->ndev = 0;
  for (size_t i = 0; i < t->nrec; i++) {
    const trc_rec *r = &t->rec[i];
    if (!in_window(r, t0, t1) || r->kind == TRC_SYNC) continue;
    unsigned k = 0;
    while (k < s->ndev && s->dev[k].device != r->device) k++;
    if (k == s->ndev && s->ndev < TRC_MAX_DEVICES) s->dev[s->ndev++].device = r->device;
  }
}

bool trc_summarize(const trc_trace *t, uint64_t t0, uint64_t t1, trc_summary *s) {
  memset(s, 0, sizeof *s);
  s->t0 = t0;
  s->t1 = t1 > t0 ? t1 : t0;
  s->wall_ms = ms(s->t1 - t0);
  s->nrows = t->nstages + 1;
  s->records = t->nrec;
  for (size_t i = 0; i < t->nrec; i++) s->in_window += in_window(&t->rec[i], t0, s->t1);
  size_t n = t->nrec + 1;
  trc_ival *buf = malloc(n * sizeof *buf), *all = malloc(n * sizeof *all),
           *cb = malloc(n * sizeof *cb), *hb = malloc((t->nspan + 1) * sizeof *hb);
  tagged *kb = malloc(n * sizeof *kb);
  bool ok = buf && all && cb && hb && kb;
  if (ok) {
    stage_records(t, t0, s->t1, s);
    size_t nall = kernel_union(t, t0, s->t1, NULL, 0, all);
    stage_times(t, t0, s->t1, s, buf, hb, all, nall);
    devices_of(t, t0, s->t1, s);
    for (unsigned d = 0; d < s->ndev; d++) device_times(t, t0, s->t1, s, &s->dev[d], kb, buf, cb);
    ok = top_kernels(t, t0, s->t1, s);
  }
  free(buf);
  free(all);
  free(cb);
  free(hb);
  free(kb);
  return ok;
}

/* ---- output ---------------------------------------------------------------------------- */

void trc_short_name(const char *name, char *out, size_t len) {
  if (!len) return;
  const char *p = name ? name : "";
  if (!strncmp(p, "void ", 5)) p += 5; /* a template's return type */
  size_t n = 0;
  int depth = 0;
  for (; p[n]; n++) { /* up to the parameters: the first '(' outside <...> */
    if (p[n] == '<') depth++;
    if (p[n] == '>' && depth > 0) depth--;
    if (p[n] == '(' && depth == 0) break;
  }
  if (n < len) {
    memcpy(out, p, n);
    out[n] = 0;
    return;
  }
  size_t keep = len > 4 ? len - 4 : len - 1;
  memcpy(out, p, keep);
  strcpy(out + keep, len > 4 ? "..." : "");
}

static const char *stage_name(const trc_trace *t, unsigned stage) {
  if (stage >= t->nstages) return "(unknown)";
  return t->stage_names && t->stage_names[stage] ? t->stage_names[stage] : "?";
}

static void print_stages(FILE *f, const trc_trace *t, const trc_summary *s) {
  fprintf(f, "  %-12s %9s %7s %9s %9s %9s %9s %9s | %8s %8s %8s %8s %8s %8s\n", "stage", "host ms",
          "kernels", "kern ms", "busy ms", "span ms", "others ms", "idle ms", "H2D GB", "H2D ms",
          "D2H MB", "D2H ms", "D2D ms", "sync ms");
  for (unsigned row = 0; row < s->nrows; row++) {
    const trc_stage_sum *g = &s->stage[row];
    if (g->host_ms == 0 && g->kernels == 0 && !g->copies[0] && !g->copies[1] && !g->copies[2] &&
        !g->copies[3] && !g->memsets && !g->syncs)
      continue;
    fprintf(f,
            "  %-12s %9.1f %7u %9.1f %9.1f %9.1f %9.1f %9.1f | %8.2f %8.1f %8.2f %8.1f %8.1f "
            "%8.1f\n",
            stage_name(t, row), g->host_ms, g->kernels, g->kern_ms, g->busy_ms, g->span_ms,
            g->others_ms, g->idle_ms, (double)g->copy_bytes[TRC_COPY_H2D] / 1e9,
            g->copy_ms[TRC_COPY_H2D], (double)g->copy_bytes[TRC_COPY_D2H] / 1e6,
            g->copy_ms[TRC_COPY_D2H], g->copy_ms[TRC_COPY_D2D] + g->memset_ms, g->sync_ms);
  }
}

static void print_devices(FILE *f, const trc_trace *t, const trc_summary *s) {
  for (unsigned d = 0; d < s->ndev; d++) {
    const trc_dev_sum *x = &s->dev[d];
    fprintf(f,
            "  GPU %u: busy %.1f of %.1f ms (%.1f %%), %u kernels; idle: lead-in %.1f ms, %u gaps "
            "of 0.1 ms or more (%.1f ms, largest %.1f ms), smaller gaps %.1f ms, tail %.1f ms\n"
            "         H2D copies %.1f ms, %.1f ms of them (%.0f %%) beside kernels\n",
            x->device, x->busy_ms, s->wall_ms, s->wall_ms > 0 ? 100 * x->busy_ms / s->wall_ms : 0,
            x->kernels, x->lead_ms, x->gaps, x->gap_ms, x->max_gap_ms, x->small_gap_ms, x->tail_ms,
            x->h2d_ms, x->overlap_ms, x->h2d_ms > 0 ? 100 * x->overlap_ms / x->h2d_ms : 0);
  }
  for (unsigned i = 0; i < s->ngap; i++)
    fprintf(f, "    gap %.1f ms at +%.1f ms on GPU %u, after %s, before %s\n", ms(s->gap[i].len),
            ms(s->gap[i].at), s->gap[i].device, stage_name(t, s->gap[i].before),
            stage_name(t, s->gap[i].after));
}

static void print_kernels(FILE *f, const trc_trace *t, const trc_summary *s) {
  fprintf(f, "  the kernels by time (%u kinds):\n  %9s %7s %9s  %-20s %s\n", s->kernel_names, "ms",
          "count", "mean us", "stages", "kernel");
  for (unsigned i = 0; i < s->ntop; i++) {
    const trc_kernel_sum *k = &s->top[i];
    char nm[72], st[64] = "";
    trc_short_name(t->names[k->name], nm, sizeof nm);
    for (unsigned b = 0; b < 32; b++)
      if (k->stages & (1u << b)) {
        size_t l = strlen(st);
        snprintf(st + l, sizeof st - l, "%s%s", l ? "," : "", stage_name(t, b == 31 ? 0xffff : b));
      }
    fprintf(f, "  %9.1f %7u %9.1f  %-20s %s\n", k->ms, k->count, 1e3 * k->ms / k->count, st, nm);
  }
}

void trc_print(FILE *f, const trc_trace *t, const trc_summary *s, const char *title) {
  size_t told = t->by_ext + t->by_thread + t->unknown;
  fprintf(f,
          "%s: %.1f ms; %zu records (stage by external correlation %zu, by thread %zu, "
          "unknown %zu)\n",
          title, s->wall_ms, s->in_window, t->by_ext, t->by_thread, t->unknown);
  if (told == 0) fprintf(f, "  no GPU records in this window\n");
  print_stages(f, t, s);
  fprintf(f,
          "  (host: the engine's threads in the stage; kern: its kernels' time, busy: their union, "
          "span: first start to last end;\n   others: other stages' kernels during its host time, "
          "idle: no kernel on a GPU then; D2D: device copies and memsets)\n");
  print_devices(f, t, s);
  print_kernels(f, t, s);
}

static const char *const kind_names[] = {"?", "kernel", "memcpy", "memset", "sync"};
static const char *const copy_names[] = {"", "H2D", "D2H", "D2D"};

/* name as a CSV field: quoted, its quotes doubled */
static void csv_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

void trc_write_csv(FILE *f, const trc_trace *t, uint64_t t0, uint64_t t1, const char *window,
                   bool header) {
  if (header) fprintf(f, "window,kind,start_ns,end_ns,device,stream,stage,bytes,copy,name\n");
  for (size_t i = 0; i < t->nrec; i++) {
    const trc_rec *r = &t->rec[i];
    if (!in_window(r, t0, t1)) continue;
    csv_str(f, window);
    fprintf(f, ",%s,%" PRId64 ",%" PRId64 ",%u,%u,%s,%" PRIu64 ",%s,",
            kind_names[r->kind <= TRC_SYNC ? r->kind : 0], (int64_t)(r->start - t0),
            (int64_t)(r->end - t0), r->device, r->stream, stage_name(t, r->stage), r->bytes,
            r->kind == TRC_MEMCPY && r->copy < TRC_COPY_KINDS ? copy_names[r->copy] : "");
    csv_str(f, r->kind == TRC_KERNEL && r->name < t->nnames ? t->names[r->name] : "");
    fputc('\n', f);
  }
  for (size_t i = 0; i < t->nspan; i++) { /* the host: stream is the thread */
    const trc_span *p = &t->span[i];
    if (p->t1 <= t0 || p->t0 >= t1) continue;
    csv_str(f, window);
    fprintf(f, ",host,%" PRId64 ",%" PRId64 ",,%u,%s,,,\"\"\n", (int64_t)(p->t0 - t0),
            (int64_t)(p->t1 - t0), p->thread, stage_name(t, p->stage));
  }
}
