/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* spmv.cu -- a = A z, b = B z, c = C z on the GPU for witness-only partitions
 * (spmv.h). The CPU reference is sp_cs_evaluate in plugin/cs.c: same layout (one
 * CSR over the 3 * n_rows linear combinations, A's, B's and C's terms of row i at
 * combinations 3i, 3i+1, 3i+2), same arithmetic on the witness's raw limbs, same bytes.
 *
 * One thread per linear combination: the rows of sealing-shaped circuits are short (a
 * few terms), so a warp reads a contiguous stretch of var/cix and writes about eleven
 * consecutive outputs of each vector. Coefficient index 0 is ONE (an addition, no
 * product), as on the CPU. The witness gathers (z[var]) are the random accesses; the
 * coefficient table is small and stays in cache.
 */
#include "gpu_internal.cuh"
#include "spmv.h"

struct sp_gpu_cs {
  int ordinal;
  uint64_t n_rows, abc_size, inp_size, nvars;
  uint64_t *off;  /* 3 n_rows + 1 */
  uint32_t *var;  /* nnz */
  uint32_t *cix;  /* nnz */
  spc_fr *coeffs; /* ncoeffs, Montgomery */
  uint64_t bytes;
};

static int cs_alloc_copy(sp_gpu *g, void **d, const void *h, size_t bytes, uint64_t *total,
                         char *err, size_t errlen) {
  *d = NULL;
  if (bytes == 0) return SEALPROV_OK;
  int st = sp_gpu_alloc_upload_persistent(g, d, h, bytes, err, errlen);
  if (st == SEALPROV_OK) *total += bytes;
  return st;
}

extern "C" void sp_gpu_cs_free(sp_gpu_cs *c) {
  if (!c) return;
  sp_gpu_free_persistent(c->ordinal, c->off);
  sp_gpu_free_persistent(c->ordinal, c->var);
  sp_gpu_free_persistent(c->ordinal, c->cix);
  sp_gpu_free_persistent(c->ordinal, c->coeffs);
  free(c);
}

extern "C" uint64_t sp_gpu_cs_bytes(const sp_gpu_cs *c) { return c ? c->bytes : 0; }

extern "C" int sp_gpu_cs_upload(sp_gpu *g, const sp_gpu_cs_desc *cs, sp_gpu_cs **out,
                                uint64_t *bytes_out, char *err, size_t errlen) {
  *out = NULL;
  if (bytes_out) *bytes_out = 0;
  if (!g || !cs) {
    snprintf(err, errlen, "sp_gpu_cs_upload: NULL %s", !g ? "context" : "constraint system");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  uint64_t combos = 3 * cs->n_rows;
  uint64_t nnz = cs->off[combos];
  sp_gpu_cs *c = (sp_gpu_cs *)calloc(1, sizeof *c);
  if (!c) {
    snprintf(err, errlen, "out of memory for the device copy of constraint system %s", cs->path);
    return SEALPROV_ERR_NO_MEMORY;
  }
  c->ordinal = sp_gpu_ordinal(g);
  c->n_rows = cs->n_rows;
  c->abc_size = cs->abc_size;
  c->inp_size = cs->inp_size;
  c->nvars = cs->inp_size + cs->aux_size;
  if (cs->abc_size < cs->n_rows || cs->abc_size - cs->n_rows != cs->inp_size || !cs->off ||
      cs->ncoeffs == 0 || !cs->coeffs) {
    free(c);
    snprintf(err, errlen, "constraint system %s: inconsistent sizes for the device copy", cs->path);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (cs->inp_size > UINT32_MAX || cs->inp_size + cs->aux_size > UINT32_MAX + 1ull) {
    free(c);
    snprintf(err, errlen,
             "constraint system %s: %llu variables: more than the 2^32 the device copy "
             "indexes",
             cs->path, (unsigned long long)(cs->inp_size + cs->aux_size));
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  int st = cs_alloc_copy(g, (void **)&c->off, cs->off, (combos + 1) * sizeof(uint64_t), &c->bytes,
                         err, errlen);
  if (!st)
    st =
        cs_alloc_copy(g, (void **)&c->var, cs->var, nnz * sizeof(uint32_t), &c->bytes, err, errlen);
  if (!st)
    st =
        cs_alloc_copy(g, (void **)&c->cix, cs->cix, nnz * sizeof(uint32_t), &c->bytes, err, errlen);
  if (!st)
    st = cs_alloc_copy(g, (void **)&c->coeffs, cs->coeffs, (size_t)cs->ncoeffs * sizeof(fr_t),
                       &c->bytes, err, errlen);
  if (st) {
    sp_gpu_cs_free(c);
    return st;
  }
  *out = c;
  if (bytes_out) *bytes_out = c->bytes;
  return SEALPROV_OK;
}

/* Lowest index (inputs first, then aux) whose raw limbs are not below r. */
__global__ void k_cs_check_witness(const spc_fr *inp, uint64_t ninp, const spc_fr *aux, uint64_t n,
                                   unsigned long long *bad) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (!spc_fr::lt_mod(i < ninp ? inp[i] : aux[i - ninp])) atomicMin(bad, (unsigned long long)i);
}

extern "C" int sp_gpu_cs_check_witness(sp_gpu *g, const sp_gpu_cs *c, const void *d_inp,
                                       const void *d_aux, uint64_t *first_bad, char *err,
                                       size_t errlen) {
  *first_bad = UINT64_MAX;
  if (c->nvars == 0) return SEALPROV_OK;
  unsigned long long *dbad = NULL, hbad = ~0ull;
  int st = sp_gpu_alloc(g, (void **)&dbad, sizeof *dbad, err, errlen);
  if (st) return st;
  SP_CUDA_CHECK_GOTO(cudaMemcpyAsync(dbad, &hbad, sizeof hbad, cudaMemcpyHostToDevice, g->stream),
                     st, done);
  k_cs_check_witness<<<sp_blocks(c->nvars, 256), 256, 0, g->stream>>>(
      (const spc_fr *)d_inp, c->inp_size, (const spc_fr *)d_aux, c->nvars, dbad);
  SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
  SP_TRY_GOTO(sp_gpu_download(g, &hbad, dbad, sizeof hbad, err, errlen), st, done);
  *first_bad = hbad;
done:
  sp_gpu_free(g, dbad, sizeof *dbad);
  return st;
}

/* Thread j computes linear combination j = 3 i + q of row i (q: 0 A, 1 B, 2 C). Variable
 * v is inp[v] below ninp, else aux[v - ninp]. */
__global__ void k_cs_spmv(const uint64_t *__restrict__ off, const uint32_t *__restrict__ var,
                          const uint32_t *__restrict__ cix, const spc_fr *__restrict__ coeffs,
                          const spc_fr *__restrict__ inp, uint32_t ninp,
                          const spc_fr *__restrict__ aux, uint64_t combos, spc_fr *a, spc_fr *b,
                          spc_fr *c) {
  uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= combos) return;
  uint64_t k = off[j], end = off[j + 1];
  spc_fr acc = spc_fr::zero();
  for (; k < end; k++) {
    uint32_t v = var[k];
    spc_fr zv = v < ninp ? inp[v] : aux[v - ninp];
    uint32_t ci = cix[k];
    acc = spc_fr::add(acc, ci == 0 ? zv : spc_fr::mul(coeffs[ci], zv));
  }
  uint64_t i = j / 3;
  unsigned q = (unsigned)(j - 3 * i);
  spc_fr *o = q == 0 ? a : q == 1 ? b : c;
  o[i] = acc;
}

/* bellperson's input constraints, rows n_rows + t: a = input t, b = c = 0. */
__global__ void k_cs_inputs(const spc_fr *inp, uint64_t n_rows, uint64_t ninp, spc_fr *a, spc_fr *b,
                            spc_fr *c) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= ninp) return;
  a[n_rows + t] = inp[t];
  b[n_rows + t] = spc_fr::zero();
  c[n_rows + t] = spc_fr::zero();
}

extern "C" int sp_gpu_cs_eval(sp_gpu *g, const sp_gpu_cs *c, const void *d_inp, const void *d_aux,
                              void *d_a, void *d_b, void *d_c, char *err, size_t errlen) {
  uint64_t combos = 3 * c->n_rows;
  if (combos) {
    k_cs_spmv<<<sp_blocks(combos, 128), 128, 0, g->stream>>>(
        c->off, c->var, c->cix, c->coeffs, (const spc_fr *)d_inp, (uint32_t)c->inp_size,
        (const spc_fr *)d_aux, combos, (spc_fr *)d_a, (spc_fr *)d_b, (spc_fr *)d_c);
    SP_CUDA_LAUNCH_CHECK();
  }
  uint64_t ninp = c->abc_size - c->n_rows;
  if (ninp) {
    k_cs_inputs<<<sp_blocks(ninp, 128), 128, 0, g->stream>>>(
        (const spc_fr *)d_inp, c->n_rows, ninp, (spc_fr *)d_a, (spc_fr *)d_b, (spc_fr *)d_c);
    SP_CUDA_LAUNCH_CHECK();
  }
  return SEALPROV_OK;
}
