/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_shapes.c -- the proof types of `sealprov bench gpu --shape` (bench/shapes.c):
 * every entry consistent (the domain is the smallest holding its rows, proportions in
 * range, names unique), the figures the sources state (docs/formats.md), the computed
 * parameter file size against the layout, and --shape's values: all, lists in order,
 * and an unknown, repeated or empty name refused with the value and the valid names. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "shapes.h"

static int fails, checks;

#define CHECK(cond, ...)                          \
  do {                                            \
    checks++;                                     \
    if (!(cond)) {                                \
      fails++;                                    \
      printf("FAIL %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__);                        \
      printf("\n");                               \
    }                                             \
  } while (0)

static void test_table(void) {
  char err[512];
  CHECK(sp_proof_shapes_count >= 9, "%zu shapes", sp_proof_shapes_count);
  for (size_t i = 0; i < sp_proof_shapes_count; i++) {
    const sp_proof_shape *s = &sp_proof_shapes[i];
    CHECK(sp_proof_shape_check(s, err, sizeof err), "%s", err);
    CHECK(sp_proof_shape_find(s->name) == s, "find(%s)", s->name);
    CHECK(s->aux <= s->constraints + s->inputs, "%s: more aux than rows", s->name);
    CHECK(sp_proof_shape_a_aux(s) <= s->aux && sp_proof_shape_b_aux(s) <= s->aux, "%s: densities",
          s->name);
    CHECK(strstr(sp_proof_shape_names(), s->name) != NULL, "names lack %s", s->name);
    for (size_t j = i + 1; j < sp_proof_shapes_count; j++)
      CHECK(strcmp(s->name, sp_proof_shapes[j].name), "%s twice", s->name);
  }
  CHECK(sp_proof_shape_find("porep") == NULL, "a prefix is no name");
}

/* The figures docs/formats.md cites (rust-fil-proofs constants and circuit tests,
 * Curio's cuzk). */
static void test_sources(void) {
  const sp_proof_shape *p = sp_proof_shape_find("porep-32g"),
                       *n = sp_proof_shape_find("ni-porep-32g");
  const sp_proof_shape *s = sp_proof_shape_find("snap-32g"),
                       *w = sp_proof_shape_find("window-post-32g");
  const sp_proof_shape *w64 = sp_proof_shape_find("window-post-64g");
  const sp_proof_shape *win = sp_proof_shape_find("winning-post-32g");
  if (!p || !n || !s || !w || !w64 || !win) {
    CHECK(0, "a proof type is missing");
    return;
  }
  CHECK(p->partitions == 10 && p->constraints == 130278869 && p->inputs == 328 &&
            p->aux == 130169893 && p->log_domain == 27 && !p->estimate,
        "porep-32g");
  CHECK(n->partitions == 126 && n->constraints == p->constraints && n->aux == p->aux,
        "ni-porep-32g: the PoRep circuit, 126 partitions");
  CHECK(s->partitions == 16 && s->constraints == 81049499 && s->inputs == 5 && s->log_domain == 27,
        "snap-32g");
  CHECK(w->partitions == 1 && w->constraints == 125279217 && w->inputs == 25840, "window-post-32g");
  CHECK(w64->constraints == 129887900 && w64->inputs == 25301, "window-post-64g");
  CHECK(win->partitions == 1 && win->inputs == 68 && win->log_domain == 19 && win->estimate,
        "winning-post-32g");
  /* the sealing-shaped densities for PoRep, as bench gpu --partition uses */
  CHECK(p->a_permille == 997 && p->b_permille == 254 && p->bits_percent == 85, "porep densities");
  /* a 32 GiB PoRep file of bellperson's layout is about 44 GiB (cuzk's notes) */
  double gib = (double)sp_proof_shape_params_bytes(p) / (1u << 30);
  CHECK(gib > 43.5 && gib < 44.5, "porep-32g file %.2f GiB", gib);
}

/* The layout's arithmetic on a shape small enough to count by hand. */
static void test_bytes(void) {
  const sp_proof_shape t = {"t", "t", 1, 1, 10, 2, 100, 4, false, 500, 250, 0};
  /* vk 864, six u32 lengths; ic 2, h 15, l 100, a 2 + 50, b 2 + 25 (G1 and G2) */
  unsigned long long want = 864 + 24 + 96ull * (2 + 15 + 100 + 52 + 27) + 192ull * 27;
  CHECK(sp_proof_shape_params_bytes(&t) == want, "bytes %llu, want %llu",
        (unsigned long long)sp_proof_shape_params_bytes(&t), want);
  char err[512];
  sp_proof_shape bad = sp_proof_shapes[0];
  bad.log_domain = 26; /* rows do not fit */
  CHECK(!sp_proof_shape_check(&bad, err, sizeof err) && strstr(err, "porep-32g") &&
            strstr(err, "2^26"),
        "a domain too small: %s", err);
  bad.log_domain = 28; /* fits, but not the smallest */
  CHECK(!sp_proof_shape_check(&bad, err, sizeof err), "a domain too large");
  bad = sp_proof_shapes[0];
  bad.b_permille = 1001;
  CHECK(!sp_proof_shape_check(&bad, err, sizeof err), "a density over 1");
}

static void test_parse(void) {
  const sp_proof_shape *out[16];
  size_t n = 0;
  char err[1024] = "";
  CHECK(sp_proof_shapes_parse("all", out, 16, &n, err, sizeof err) && n == sp_proof_shapes_count &&
            out[0] == &sp_proof_shapes[0],
        "all: %s", err);
  CHECK(sp_proof_shapes_parse("snap-64g,porep-32g", out, 16, &n, err, sizeof err) && n == 2 &&
            out[0] == sp_proof_shape_find("snap-64g") && out[1] == sp_proof_shape_find("porep-32g"),
        "a list, in its order: %s", err);
  CHECK(!sp_proof_shapes_parse("porep-32g,bogus", out, 16, &n, err, sizeof err) &&
            strstr(err, "\"bogus\"") && strstr(err, "unknown proof type") &&
            strstr(err, "valid: all, porep-32g") && strstr(err, "winning-post-64g"),
        "unknown: %s", err);
  CHECK(!sp_proof_shapes_parse("snap-32g,snap-32g", out, 16, &n, err, sizeof err) &&
            strstr(err, "named twice"),
        "twice: %s", err);
  CHECK(!sp_proof_shapes_parse("", out, 16, &n, err, sizeof err) && strstr(err, "empty"),
        "empty: %s", err);
  CHECK(!sp_proof_shapes_parse("porep-32g,", out, 16, &n, err, sizeof err), "trailing comma");
  CHECK(!sp_proof_shapes_parse("all", out, 2, &n, err, sizeof err), "all over the cap");
}

int main(void) {
  test_table();
  test_sources();
  test_bytes();
  test_parse();
  printf("%d checks, %d failures\n", checks, fails);
  return fails ? 1 : 0;
}
