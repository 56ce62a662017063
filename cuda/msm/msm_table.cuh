/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* msm_table.cuh -- the fixed-base MSM of msm.cu: tables of precomputed copies of points
 * that stay on the device, the plan that says whether a table pays, and the MSM over a
 * table. Part of msm.cu's translation unit (included once, where it stands there): it
 * uses msm.cu's kernels and host drivers, and msm_dev calls msm_tab. */
#ifndef SEALPROV_CUDA_MSM_TABLE_CUH
#define SEALPROV_CUDA_MSM_TABLE_CUH

/* ---- fixed-base MSM: precomputed copies of the points -------------------------------
 * A table of copies T_j = 2^(c j) P, j < k, for points that stay on the device lets one
 * bucket set take k windows: window w of a scalar adds its digit's multiple of
 * T_(w mod k) to bucket set w div k, since d 2^(c w) P = d 2^(c (w - j)) T_j. The MSM
 * then reduces ceil(W / k) bucket sets instead of W = ceil(256 / c), so a larger c
 * (fewer windows, fewer additions) pays; the group sums are combined by Horner with
 * c k doublings (tests/cuda/msm_table_model.py checks this arithmetic exactly;
 * cuda/DESIGN.md says when a table pays). */

/* Copy j from copy j - 1: out[i] = 2^c in[i]. SP_TAB_CHUNK points per thread, c
 * doublings each (XYZZ), then one inversion per chunk (sp_chunk_to_affine). Infinity
 * stays infinity; no other point doubles to it (odd cofactors: no point of order 2 on
 * either curve). */
#define SP_TAB_CHUNK 32
template <class F>
__global__ void k_msm_table_step(const spc_affine<F> *in, spc_affine<F> *out, size_t n,
                                 unsigned c) {
  typedef spc_xyzz<F> X;
  size_t first = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * SP_TAB_CHUNK;
  if (first >= n) return;
  unsigned cnt = n - first < SP_TAB_CHUNK ? (unsigned)(n - first) : SP_TAB_CHUNK;
  sp_chunk_to_affine_at<F, SP_TAB_CHUNK>(
      cnt,
      [&](unsigned i) {
        spc_affine<F> p = in[first + i];
        X a = p.is_inf() ? X::inf() : X::dbl_affine(p);
        for (unsigned b = 1; b < c; b++) a = X::dbl(a);
        return a;
      },
      out + first);
}

static unsigned table_shift(size_t npoints) {
  unsigned sl = 0;
  while (sl < 63 && ((size_t)1 << sl) < npoints) sl++;
  return sl;
}

extern "C" uint64_t sp_gpu_msm_table_bytes(bool g2, size_t npoints, unsigned copies) {
  size_t psz = g2 ? sizeof(spc_g2_affine) : sizeof(spc_g1_affine);
  return copies > 1 ? (uint64_t)(copies - 1) * npoints * psz : 0;
}

extern "C" int sp_gpu_msm_table_make(sp_gpu *g, bool g2, const void *d_points, size_t npoints,
                                     unsigned window, unsigned copies, sp_msm_table *out, char *err,
                                     size_t errlen) {
  memset(out, 0, sizeof *out);
  const unsigned c = window;
  if (c < 2 || c > 24 || copies < 2 || copies > (256 + c - 1) / c) {
    snprintf(err, errlen, "MSM table: window %u and %u copies (want 2..24 and 2..%u)", c, copies,
             c >= 2 ? (256 + c - 1) / c : 0);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  const unsigned shift = table_shift(npoints);
  if (npoints == 0 || npoints > 0x7fffffffu || ((uint64_t)copies << shift) > (1ull << 31)) {
    snprintf(err, errlen, "MSM table: %zu points in %u copies do not fit the 31-bit point index",
             npoints, copies);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  const size_t psz = g2 ? sizeof(spc_g2_affine) : sizeof(spc_g1_affine);
  const size_t bytes = (size_t)sp_gpu_msm_table_bytes(g2, npoints, copies);
  void *ext = NULL;
  /* long-lived, beside the parameter points: cudaMalloc outside the pool (the engine
   * counts it), as sp_gpu_alloc_upload_persistent */
  SP_CUDA_CHECK(cudaMalloc(&ext, bytes));
  int st = SEALPROV_OK;
  size_t threads = (npoints + SP_TAB_CHUNK - 1) / SP_TAB_CHUNK;
  for (unsigned j = 1; j < copies; j++) {
    const uint8_t *in =
        j == 1 ? (const uint8_t *)d_points : (uint8_t *)ext + (j - 2) * npoints * psz;
    uint8_t *o = (uint8_t *)ext + (j - 1) * npoints * psz;
    if (g2)
      k_msm_table_step<spc_fp2><<<sp_blocks(threads, 64), 64, 0, g->stream>>>(
          (const spc_g2_affine *)in, (spc_g2_affine *)o, npoints, c);
    else
      k_msm_table_step<spc_fp><<<sp_blocks(threads, 128), 128, 0, g->stream>>>(
          (const spc_g1_affine *)in, (spc_g1_affine *)o, npoints, c);
    SP_CUDA_LAUNCH_CHECK_GOTO(st, fail);
  }
  SP_CUDA_CHECK_GOTO(cudaStreamSynchronize(g->stream), st, fail);
  out->d_points = d_points;
  out->d_ext = ext;
  out->npoints = npoints;
  out->ext_bytes = bytes;
  out->window = c;
  out->copies = copies;
  out->shift = shift;
  out->g2 = g2;
  return SEALPROV_OK;
fail:
  cudaStreamSynchronize(g->stream);
  cudaFree(ext);
  (void)cudaGetLastError();
  return st;
}

extern "C" void sp_gpu_msm_table_free(int ordinal, sp_msm_table *t) {
  if (!t) return;
  if (t->d_ext) sp_gpu_free_persistent(ordinal, t->d_ext);
  memset(t, 0, sizeof *t);
}

/* Cost model of one MSM of n points (seconds on an H200): W
 * windows of c bits, k copies (1: today's path, W bucket sets), wb windows per sort
 * batch. Per pair (point x window): the bucket accumulation's mixed addition, plus
 * digits, sort and record levels; per bucket of every set: the reduction (two full
 * additions); per batch after the first of a table's bucket set: one full addition per
 * bucket (the runs added into the set). Fitted to the H200's phase times of the 2^27
 * H MSM and its medians of the G1 2^24 / 2^26 and G2 2^24 MSMs. */
static double msm_model(bool g2, size_t n, unsigned c, unsigned k, unsigned wb) {
  const double t_add = g2 ? 1.30e-9 : 0.382e-9, t_pair = 0.0346e-9;
  const double t_bucket = g2 ? 4.0e-9 : 1.3e-9, t_merge = t_bucket / 2;
  const unsigned W = (256 + c - 1) / c;
  if (k > W) k = W;
  const double nb = (double)(1u << (c - 1));
  double t = (double)W * n * (t_add + t_pair * (c > 24 ? 4.0 / 3 : 1.0));
  if (k <= 1) return t + W * nb * t_bucket;
  unsigned G = (W + k - 1) / k;
  t += G * nb * t_bucket;
  for (unsigned gi = 0; gi < G; gi++) {
    unsigned nw = W - gi * k < k ? W - gi * k : k;
    t += (double)((nw + wb - 1) / wb - 1) * nb * t_merge;
  }
  return t;
}

/* Windows per sort batch: the sort buffers (16 bytes per pair) near 4 GiB. */
static unsigned batch_windows(size_t n) {
  size_t wb = ((size_t)4 << 30) / (16 * (n ? n : 1));
  return wb < 1 ? 1 : wb > 128 ? 128 : (unsigned)wb;
}

extern "C" void sp_gpu_msm_plan(bool g2, size_t npoints, uint64_t budget, bool force,
                                unsigned *window, unsigned *copies, double *gain) {
  const unsigned max_window = g2 ? sp_host_g2::max_window : sp_host_g1::max_window;
  const unsigned big_lg = g2 ? sp_host_g2::big_lg : sp_host_g1::big_lg;
  const unsigned big_window = g2 ? sp_host_g2::big_window : sp_host_g1::big_window;
  const size_t n = npoints ? npoints : 1;
  const unsigned c0 = choose_window(n, max_window, big_lg, big_window);
  const unsigned wb = batch_windows(n);
  const double today = msm_model(g2, n, c0, 1, wb);
  double best = 0;
  unsigned bc = 0, bk = 0;
  const unsigned shift = table_shift(n);
  for (unsigned c = 8; c <= 24; c++) {
    const unsigned W = (256 + c - 1) / c;
    for (unsigned k = 2; k <= W; k++) {
      if (sp_gpu_msm_table_bytes(g2, n, k) > budget || ((uint64_t)k << shift) > (1ull << 31)) break;
      double t = msm_model(g2, n, c, k, wb);
      if (!bk || t < best) best = t, bc = c, bk = k;
    }
  }
  double g = bk ? 1.0 - best / today : 0;
  /* a table must be predicted 3 % faster (the model's constants are one GPU's), and the
   * MSM large enough that kernel launches, which the model leaves out, do not rule */
  if (!bk || (!force && (g < 0.03 || n < ((size_t)1 << 16)))) bc = bk = 0;
  *window = bc;
  *copies = bk;
  if (gain) *gain = bk ? g : 0;
}

/* The table MSM's batches and buffers (msm_layout; bytes not set): wb windows per sort
 * (table_batch, else batch_windows; at most a set's k, and one sort's int items), chunks
 * of L pairs to fill the card, S partial sums for a set's reduction. */
static void tab_layout(msm_layout *ly, size_t n, unsigned c, unsigned k, unsigned table_batch,
                       int sm_count) {
  unsigned wb = table_batch ? table_batch : batch_windows(n);
  if (wb > k) wb = k;
  while ((size_t)wb * n > 0x7fffffffu && wb > 1) wb--; /* one sort: int items */
  ly->wb = wb;
  ly->T = (size_t)wb * n;
  size_t target = (size_t)sm_count * 1024;
  unsigned L = (unsigned)pow2_floor(ly->T / (target ? target : 1));
  if (L < 8) L = 8;
  if (L > 256) L = 256;
  ly->L = L;
  ly->recA = 2 * ((ly->T + L - 1) / L);
  ly->recB = 2 * ((ly->recA + MSM_L1 - 1) / MSM_L1);
  unsigned S = 65536, nb = 1u << (c - 1);
  ly->S = S > nb ? nb : S;
  ly->bytes = 0;
}

/* Windows w0..w1 of the bucket set that starts at window wg0, one batch of the table's
 * MSM: the digits, one sort, the accumulation into the set's buckets (its first batch)
 * or into bk2, then added into them; the set reduced to its sum in s->part when this
 * batch completes it (last). */
template <class F>
static int tab_batch(sp_gpu *g, msm_scratch<spc_xyzz<F>> *s, const sp_msm_args *a, unsigned wg0,
                     unsigned w0, unsigned w1, bool last, spc_xyzz<F> *buckets, spc_xyzz<F> *bk2,
                     unsigned L, unsigned S, sp_prof *prof, char *err, size_t errlen) {
  typedef spc_xyzz<F> X;
  const sp_msm_table *tb = a->table;
  const size_t n = a->n;
  const unsigned c = tb->window, nb = 1u << (c - 1);
  const size_t Tb = (size_t)(w1 - w0) * n;
  X *dst = w0 > wg0 ? bk2 : buckets; /* bk2 is added into the set below */
  if (dst == bk2) SP_CUDA_CHECK(cudaMemsetAsync(bk2, 0, (size_t)nb * sizeof(X), g->stream));
  prof_mark(prof, 0);
  k_msm_digits<true><<<sp_blocks(n, 256), 256, 0, g->stream>>>(
      (const spc_fr *)a->d_scalars, n, c, w0, w1, s->keys, s->vals, a->d_index, a->index_base,
      a->log_bitrev, a->flags, wg0, tb->shift);
  SP_CUDA_LAUNCH_CHECK();
  prof_mark(prof, 1);
  cub::DoubleBuffer<uint32_t> dk(s->keys, s->keys2), dv(s->vals, s->vals2);
  SP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(s->temp, s->temp_bytes, dk, dv, (int)Tb, 0, (int)c,
                                                g->stream));
  prof_mark(prof, 2);
  SP_CUDA_CHECK(
      launch_accum_tab<F>(g, dk.Current(), dv.Current(), Tb, c, tb, dst, L, s->rkA, s->rpA));
  prof_mark(prof, 3);
  SP_TRY(accum_levels<F>(g, s, (Tb + L - 1) / L, dst, err, errlen));
  if (dst == bk2) {
    k_bucket_merge<F><<<sp_blocks(nb, 64), 64, 0, g->stream>>>(buckets, bk2, nb);
    SP_CUDA_LAUNCH_CHECK();
  }
  prof_mark(prof, 4);
  if (last) {
    /* the set is complete: its sum of (b + 1) B_b, as one window of today's path */
    k_msm_bucket_reduce<F><<<sp_blocks(S, 64), 64, 0, g->stream>>>(buckets, 1, nb, S, s->part);
    SP_CUDA_LAUNCH_CHECK();
    SP_TRY(reduce_windows<F>(g, s->part, 1, S, err, errlen));
  }
  prof_mark(prof, 5);
  prof_batch_end(prof);
  return SEALPROV_OK;
}

/* The MSM over a fixed-base table (a->table; a->d_points is not read). Bucket set by
 * bucket set (group of `copies` windows): the windows' digits are sorted together in
 * batches of at most wb windows (the sort buffers' bound of today's path) and
 * accumulated, the first batch into the set, later ones into a second array that is
 * then added into it (k_bucket_merge); the set is reduced on the GPU, and the host
 * combines the group sums by Horner. */
template <class H>
static int msm_tab(sp_gpu *g, typename H::jac *out, const sp_msm_args *a, char *err,
                   size_t errlen) {
  typedef typename H::F F;
  typedef spc_xyzz<F> X;
  const sp_msm_table *tb = a->table;
  const bool g2 = sizeof(F) != sizeof(spc_fp);
  typename H::xyzz total;
  H::set_inf(&total);
  if (tb->g2 != g2 || tb->copies < 2 || tb->window < 2 || tb->window > 24 || !tb->d_points ||
      !tb->d_ext || (a->window_bits && a->window_bits != tb->window)) {
    snprintf(err, errlen, "MSM: the table (%s, window %u, %u copies) does not fit this %s MSM%s",
             tb->g2 ? "G2" : "G1", tb->window, tb->copies, g2 ? "G2" : "G1",
             a->window_bits && a->window_bits != tb->window ? " (another window asked)" : "");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (a->n == 0) {
    H::to_jac(out, &total);
    return SEALPROV_OK;
  }
  SP_TRY(msm_n_check(a->n, err, errlen));
  const size_t n = a->n;
  const unsigned c = tb->window, W = (256 + c - 1) / c;
  const unsigned k = tb->copies < W ? tb->copies : W, G = (W + k - 1) / k, nb = 1u << (c - 1);
  msm_layout ly;
  tab_layout(&ly, n, c, k, a->table_batch, g->sm_count);
  const unsigned wb = ly.wb, L = ly.L, S = ly.S;
  const size_t T = ly.T;
  msm_scratch<X> s;
  memset(&s, 0, sizeof s);
  s.T = T;
  s.recA = ly.recA;
  s.recB = ly.recB;
  s.nparts = S;

  X *buckets = NULL, *bk2 = NULL;
  const size_t bk2_n = k > wb ? nb : 0; /* a set of more than one batch */
  typename H::xyzz *gsum = NULL;
  int st = SEALPROV_OK;
  sp_prof prof;
  memset(&prof, 0, sizeof prof);
  {
    cub::DoubleBuffer<uint32_t> dk(s.keys, s.keys2), dv(s.vals, s.vals2);
    SP_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(NULL, s.temp_bytes, dk, dv, (int)T, 0, (int)c, g->stream));
  }
  gsum = (typename H::xyzz *)malloc(G * sizeof *gsum);
  if (!gsum) {
    snprintf(err, errlen, "MSM: out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  SP_TRY_GOTO(msm_sort_alloc(g, &s, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&buckets, (size_t)nb * sizeof(X), err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&bk2, bk2_n * sizeof(X), err, errlen), st, done);
  SP_TRY_GOTO(msm_rec_alloc(g, &s, err, errlen), st, done);

  prof_init(&prof, g);
  for (unsigned gi = 0; gi < G; gi++) {
    const unsigned wg0 = gi * k, wg1 = wg0 + k < W ? wg0 + k : W;
    SP_CUDA_CHECK_GOTO(cudaMemsetAsync(buckets, 0, (size_t)nb * sizeof(X), g->stream), st, done);
    for (unsigned w0 = wg0; w0 < wg1; w0 += wb) {
      const unsigned w1 = w0 + wb < wg1 ? w0 + wb : wg1;
      SP_TRY_GOTO(
          tab_batch<F>(g, &s, a, wg0, w0, w1, w1 == wg1, buckets, bk2, L, S, &prof, err, errlen),
          st, done);
    }
    static_assert(sizeof(X) == sizeof(typename H::xyzz), "device and host XYZZ layouts differ");
    SP_CUDA_CHECK_GOTO(
        cudaMemcpyAsync(gsum + gi, s.part, sizeof(X), cudaMemcpyDeviceToHost, g->stream), st, done);
  }
  SP_CUDA_CHECK_GOTO(cudaStreamSynchronize(g->stream), st, done);
  prof_done(&prof, g2 ? "msm_g2_table" : "msm_g1_table", n, c, wb);
  horner<H>(&total, gsum, G, c * k);
  H::to_jac(out, &total);
done:
  msm_scratch_free(g, &s);
  sp_gpu_free(g, buckets, (size_t)nb * sizeof(X));
  sp_gpu_free(g, bk2, bk2_n * sizeof(X));
  free(gsum);
  return st;
}

#endif
