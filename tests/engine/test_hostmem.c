/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_hostmem.c -- the module's host-memory accountant and the shared chunk pool
 * (plugin/engine/hostmem.c) under a host-wide cap ([provider] host_memory_limit): counts per
 * device and in total, refusals of what cannot wait, and a staging that WAITS for a
 * chunk another staging gives back instead of failing (issue 18 item 2). The chunks
 * here are malloc'ed; the CUDA engine passes cudaHostAlloc. No timing is asserted:
 * the waits are observed through the pool's counters. */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/hostmem.h"
#include "sealprov.h"

#define MIB ((size_t)1 << 20)

static atomic_int allocs, frees, fail_allocs;

static void *t_alloc(size_t bytes, void *user) {
  (void)user;
  if (atomic_load(&fail_allocs) > 0) {
    atomic_fetch_sub(&fail_allocs, 1);
    return NULL;
  }
  atomic_fetch_add(&allocs, 1);
  void *p = malloc(bytes);
  if (p) memset(p, 0xa5, 64);
  return p;
}
static void t_free(void *p, void *user) {
  (void)user;
  atomic_fetch_add(&frees, 1);
  free(p);
}

/* Each test's own accountant (a provider's, in the module). */
static sp_hostmem *hm;
static void hm_setup(void) { ck_assert_int_eq(sp_hostmem_create(0, &hm), SEALPROV_OK); }
static void hm_teardown(void) {
  sp_hostmem_destroy(hm);
  hm = NULL;
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = {0, (long)ms * 1000000L};
  nanosleep(&ts, NULL);
}

/* Polls the pool up to ~20 s (a loaded CI machine) until n takers wait on it. */
static bool eventually_waiting(const sp_chunk_pool *p, unsigned n) {
  for (int i = 0; i < 4000; i++) {
    sp_chunk_pool_stats ps;
    sp_chunk_pool_get(p, &ps);
    if (ps.waiting == n) return true;
    sleep_ms(5);
  }
  return false;
}

START_TEST(test_accounting) {
  sp_hostmem_set_limit(hm, 10 * MIB);
  ck_assert_uint_eq(sp_hostmem_limit(hm), 10 * MIB);
  ck_assert(sp_hostmem_try_reserve(hm, 0, 6 * MIB));
  ck_assert(!sp_hostmem_try_reserve(hm, 1, 6 * MIB)); /* would pass the cap: refused */
  ck_assert(sp_hostmem_try_reserve(hm, 1, 4 * MIB));  /* exactly at the cap */
  sp_hostmem_add(hm, 2, 3 * MIB);                     /* counted, never refused */
  sp_hostmem_stats s;
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.total, 13 * MIB);
  ck_assert_uint_eq(s.dev[0], 6 * MIB);
  ck_assert_uint_eq(s.dev[1], 4 * MIB);
  ck_assert_uint_eq(s.dev[2], 3 * MIB);
  ck_assert_uint_eq(s.peak, 13 * MIB);
  ck_assert_uint_eq(s.refusals, 1);
  ck_assert(!sp_hostmem_try_reserve(hm, 3, 1)); /* over the cap now: nothing more */
  sp_hostmem_release(hm, 0, 6 * MIB);
  sp_hostmem_release(hm, 2, 3 * MIB);
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.total, 4 * MIB);
  ck_assert_uint_eq(s.dev[0], 0);
  ck_assert_uint_eq(s.peak, 13 * MIB);
  ck_assert_uint_eq(s.dev_peak[0], 6 * MIB);
  sp_hostmem_reset_peak(hm);
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.peak, 4 * MIB);
  ck_assert_uint_eq(s.dev_peak[0], 0);
  ck_assert_uint_eq(s.dev_peak[1], 4 * MIB);
  /* a device index past the table counts in the total only */
  sp_hostmem_add(hm, SP_HOSTMEM_DEVICES + 5, MIB);
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.total, 5 * MIB);
  sp_hostmem_release(hm, SP_HOSTMEM_DEVICES + 5, MIB);
  sp_hostmem_release(hm, 1, 4 * MIB);
  sp_hostmem_set_limit(hm, 0); /* no cap: anything fits */
  ck_assert(sp_hostmem_try_reserve(hm, 0, (uint64_t)1 << 50));
  sp_hostmem_release(hm, 0, (uint64_t)1 << 50);
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.total, 0);
}
END_TEST

/* Without a cap the pool hands out what is asked, keeps given-back chunks (counted as
 * shared) and reuses them; trim frees them. */
START_TEST(test_pool_reuse) {
  sp_hostmem_set_limit(hm, 0);
  sp_chunk_pool *p = NULL;
  ck_assert_int_eq(sp_chunk_pool_create(hm, MIB, t_alloc, t_free, &p), SEALPROV_OK);
  void *c[16];
  bool waited = true;
  ck_assert_uint_eq(sp_chunk_pool_take(p, 3, 4, c, NULL, &waited), 4);
  ck_assert(!waited);
  sp_hostmem_stats s;
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.dev[3], 4 * MIB);
  ck_assert_uint_eq(s.total, 4 * MIB);
  sp_chunk_pool_give(p, 3, 4, c);
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.dev[3], 0);
  ck_assert_uint_eq(s.shared, 4 * MIB);
  ck_assert_uint_eq(s.total, 4 * MIB);
  ck_assert_uint_eq(sp_chunk_pool_take(p, 5, 2, c, NULL, &waited), 2);
  ck_assert_int_eq(atomic_load(&allocs), 4); /* reused, not allocated again */
  sp_chunk_pool_give(p, 5, 2, c);
  ck_assert_uint_eq(sp_chunk_pool_trim(p, NULL), 4 * MIB);
  ck_assert_int_eq(atomic_load(&frees), 4);
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.total, 0);
  sp_chunk_pool_destroy(p, NULL);
}
END_TEST

typedef struct taker {
  sp_chunk_pool *p;
  uint32_t dev;
  unsigned want, got;
  bool waited;
  void *c[16];
  atomic_int done;
} taker;

static void *take_main(void *arg) {
  taker *t = arg;
  t->got = sp_chunk_pool_take(t->p, t->dev, t->want, t->c, NULL, &t->waited);
  atomic_store(&t->done, 1);
  return NULL;
}

/* The cap holds two chunks. Device 0's staging holds both; device 1's staging asks for
 * chunks and WAITS (it does not fail, and does not allocate past the cap) until device
 * 0 gives them back; then it gets them. */
START_TEST(test_pool_waits_under_cap) {
  sp_hostmem_set_limit(hm, 2 * MIB);
  sp_chunk_pool *p = NULL;
  ck_assert_int_eq(sp_chunk_pool_create(hm, MIB, t_alloc, t_free, &p), SEALPROV_OK);
  void *c0[16];
  bool waited = true;
  ck_assert_uint_eq(sp_chunk_pool_take(p, 0, 4, c0, NULL, &waited), 2); /* the cap: 2 of 4 */
  ck_assert(!waited);
  taker t1 = {.p = p, .dev = 1, .want = 4};
  atomic_init(&t1.done, 0);
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, take_main, &t1), 0);
  ck_assert(eventually_waiting(p, 1));
  ck_assert_int_eq(atomic_load(&t1.done), 0); /* still waiting, not failed */
  sp_hostmem_stats s;
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.total, 2 * MIB); /* nothing allocated past the cap */
  ck_assert_uint_eq(s.waits, 1);
  ck_assert_int_eq(atomic_load(&allocs), 2);
  sp_chunk_pool_give(p, 0, 1, c0); /* one back: the waiting staging goes on with it */
  ck_assert_int_eq(pthread_join(th, NULL), 0);
  ck_assert_uint_eq(t1.got, 1);
  ck_assert(t1.waited);
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.dev[0], MIB);
  ck_assert_uint_eq(s.dev[1], MIB);
  ck_assert_uint_eq(s.total, 2 * MIB);
  ck_assert_uint_eq(s.peak, 2 * MIB); /* never above the cap */
  sp_chunk_pool_give(p, 0, 1, c0 + 1);
  sp_chunk_pool_give(p, 1, t1.got, t1.c);
  sp_chunk_pool_destroy(p, NULL);
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.total, 0);
}
END_TEST

/* Several stagings on several devices through a cap of three chunks: each takes,
 * fills and gives back many times; all finish, and the total never passes the cap. */
typedef struct churn {
  sp_chunk_pool *p;
  uint32_t dev;
  unsigned rounds, max_got;
} churn;

static void *churn_main(void *arg) {
  churn *c = arg;
  for (unsigned r = 0; r < c->rounds; r++) {
    void *ch[16];
    bool w;
    unsigned n = sp_chunk_pool_take(c->p, c->dev, 2, ch, NULL, &w);
    if (n == 0) return NULL; /* would be a failure: counted by the caller */
    if (n > c->max_got) c->max_got = n;
    for (unsigned i = 0; i < n; i++) memset(ch[i], (int)(c->dev + r), 4096);
    sp_chunk_pool_give(c->p, c->dev, n, ch);
  }
  c->rounds = 0; /* all done */
  return NULL;
}

START_TEST(test_pool_many_stagings) {
  sp_hostmem_set_limit(hm, 3 * MIB);
  sp_chunk_pool *p = NULL;
  ck_assert_int_eq(sp_chunk_pool_create(hm, MIB, t_alloc, t_free, &p), SEALPROV_OK);
  enum { N = 6 };
  churn c[N];
  pthread_t th[N];
  for (int i = 0; i < N; i++) {
    c[i] = (churn){.p = p, .dev = (uint32_t)i, .rounds = 200};
    ck_assert_int_eq(pthread_create(&th[i], NULL, churn_main, &c[i]), 0);
  }
  for (int i = 0; i < N; i++) {
    pthread_join(th[i], NULL);
    ck_assert_msg(c[i].rounds == 0, "staging %d stopped early (no chunk)", i);
  }
  sp_hostmem_stats s;
  sp_hostmem_get(hm, &s);
  ck_assert_uint_le(s.peak, 3 * MIB);
  ck_assert_int_le(atomic_load(&allocs), 3);
  sp_chunk_pool_destroy(p, NULL);
}
END_TEST

/* When no chunk can ever come: a chunk larger than the cap, the cap filled by memory
 * that is not the pool's (nothing to wait for), a failed allocation. take returns 0 at
 * once (the engine then stages without chunks) instead of hanging. */
START_TEST(test_pool_nothing_to_wait_for) {
  sp_chunk_pool *p = NULL;
  ck_assert_int_eq(sp_chunk_pool_create(hm, 4 * MIB, t_alloc, t_free, &p), SEALPROV_OK);
  void *c[16];
  bool waited = true;
  sp_hostmem_set_limit(hm, 2 * MIB);
  ck_assert_uint_eq(sp_chunk_pool_take(p, 0, 1, c, NULL, &waited), 0);
  ck_assert(!waited);
  sp_hostmem_set_limit(hm, 6 * MIB);
  ck_assert(sp_hostmem_try_reserve(hm, 7, 4 * MIB)); /* e.g. a whole-partition buffer */
  ck_assert_uint_eq(sp_chunk_pool_take(p, 0, 1, c, NULL, &waited), 0);
  sp_hostmem_release(hm, 7, 4 * MIB);
  atomic_store(&fail_allocs, 1);
  ck_assert_uint_eq(sp_chunk_pool_take(p, 0, 1, c, NULL, &waited), 0);
  ck_assert_uint_eq(sp_chunk_pool_take(p, 0, 1, c, NULL, &waited), 1); /* allocation works again */
  sp_chunk_pool_give(p, 0, 1, c);
  sp_chunk_pool_destroy(p, NULL);
  ck_assert_int_eq(sp_chunk_pool_create(hm, 0, t_alloc, t_free, &p), SEALPROV_ERR_INVALID_ARGUMENT);
}
END_TEST

/* A release of more than was counted (a double release) is caught: the counters stay at
 * zero instead of wrapping, and release_errors says it happened (issue 22 item 4). */
START_TEST(test_double_release_caught) {
  ck_assert(sp_hostmem_try_reserve(hm, 0, 4 * MIB));
  sp_hostmem_release(hm, 0, 4 * MIB);
  sp_hostmem_stats s;
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.release_errors, 0);
  sp_hostmem_release(hm, 0, 4 * MIB); /* the second release of the same bytes */
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.release_errors, 1);
  ck_assert_uint_eq(s.total, 0);
  ck_assert_uint_eq(s.dev[0], 0);
  /* a release for the wrong device is caught too, even when the total covers it */
  sp_hostmem_add(hm, 1, MIB);
  sp_hostmem_release(hm, 2, MIB);
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.release_errors, 2);
  ck_assert_uint_eq(s.dev[1], MIB);
  ck_assert_uint_eq(s.total, 0);
  /* a chunk taken and given back once is no error */
  sp_chunk_pool *p = NULL;
  ck_assert_int_eq(sp_chunk_pool_create(hm, MIB, t_alloc, t_free, &p), SEALPROV_OK);
  void *c[16];
  ck_assert_uint_eq(sp_chunk_pool_take(p, 3, 1, c, NULL, NULL), 1);
  sp_chunk_pool_give(p, 3, 1, c);
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.release_errors, 2);
  sp_chunk_pool_trim(p, NULL);
  sp_chunk_pool_destroy(p, NULL);
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.release_errors, 2);
  ck_assert_uint_eq(s.shared, 0);
}
END_TEST

/* Two accountants (two providers in one process) keep their own caps, counters and
 * peaks: device 0 of one is not device 0 of the other. */
START_TEST(test_accountants_apart) {
  sp_hostmem *other = NULL;
  ck_assert_int_eq(sp_hostmem_create(2 * MIB, &other), SEALPROV_OK);
  sp_hostmem_set_limit(hm, 8 * MIB);
  ck_assert(sp_hostmem_try_reserve(hm, 0, 6 * MIB));
  ck_assert(sp_hostmem_try_reserve(other, 0, 2 * MIB)); /* its own cap, not hm's */
  ck_assert(!sp_hostmem_try_reserve(other, 0, 1));      /* full at 2 MiB */
  ck_assert(sp_hostmem_try_reserve(hm, 0, 2 * MIB));    /* hm still has room */
  sp_hostmem_stats a, b;
  sp_hostmem_get(hm, &a);
  sp_hostmem_get(other, &b);
  ck_assert_uint_eq(a.dev[0], 8 * MIB);
  ck_assert_uint_eq(b.dev[0], 2 * MIB);
  ck_assert_uint_eq(a.limit, 8 * MIB);
  ck_assert_uint_eq(b.limit, 2 * MIB);
  ck_assert_uint_eq(a.refusals, 0);
  ck_assert_uint_eq(b.refusals, 1);
  sp_hostmem_release(other, 0, 2 * MIB);
  sp_hostmem_destroy(other);
  sp_hostmem_get(hm, &a); /* untouched by the other's release and destruction */
  ck_assert_uint_eq(a.dev[0], 8 * MIB);
  ck_assert_uint_eq(a.release_errors, 0);
  sp_hostmem_release(hm, 0, 8 * MIB);
}
END_TEST

/* The provider's staging pool: the first hold makes it, later holds share it, the last
 * drop frees it with its idle chunks. */
START_TEST(test_pool_hold_drop) {
  ck_assert_ptr_null(sp_hostmem_pool(hm));
  sp_chunk_pool *p1 = sp_hostmem_pool_hold(hm, MIB, t_alloc, t_free);
  sp_chunk_pool *p2 = sp_hostmem_pool_hold(hm, 2 * MIB, t_alloc, t_free);
  ck_assert_ptr_nonnull(p1);
  ck_assert_ptr_eq(p1, p2);
  ck_assert_ptr_eq(sp_hostmem_pool(hm), p1);
  ck_assert_uint_eq(sp_chunk_pool_chunk_bytes(p1), MIB); /* the first hold's size */
  void *c[16];
  ck_assert_uint_eq(sp_chunk_pool_take(p1, 0, 2, c, NULL, NULL), 2);
  sp_chunk_pool_give(p1, 0, 2, c);
  sp_hostmem_pool_drop(hm, NULL);
  ck_assert_ptr_eq(sp_hostmem_pool(hm), p1); /* one holder left */
  ck_assert_int_eq(atomic_load(&frees), 0);
  sp_hostmem_pool_drop(hm, NULL);
  ck_assert_ptr_null(sp_hostmem_pool(hm));
  ck_assert_int_eq(atomic_load(&frees), 2);
  sp_hostmem_stats s;
  sp_hostmem_get(hm, &s);
  ck_assert_uint_eq(s.total, 0);
  ck_assert_uint_eq(s.release_errors, 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("hostmem");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, hm_setup, hm_teardown);
  tcase_add_test(tc, test_accounting);
  tcase_add_test(tc, test_pool_reuse);
  tcase_add_test(tc, test_pool_waits_under_cap);
  tcase_add_test(tc, test_pool_many_stagings);
  tcase_add_test(tc, test_pool_nothing_to_wait_for);
  tcase_add_test(tc, test_double_release_caught);
  tcase_add_test(tc, test_accountants_apart);
  tcase_add_test(tc, test_pool_hold_drop);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
