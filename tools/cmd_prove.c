/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_prove.c -- `sealprov prove`: proves partition files through the module, exactly
 * as a host would (dlopen, open(ini), srs_load, one job, wait), and writes the proofs
 * in partition order. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* A developer mode, linked into the program with the kit (docs/design.md, "The CLI"):
 * a weak reference, so the host library links without it. */
#pragma weak sp_cli_prove_zkey
#include "g16_util.h"
#include "spa.h"
#include "witness.h"

static void prove_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov prove [--plugin MODULE] [-c INI] --params FILE --out PROOFS\n"
          "                      [--device N[,M...]] [--zero-rs] [--force] [--json]\n"
          "                      PARTITION.spa...\n"
          "       sealprov prove ... --r1cs CIRCUIT.r1cs WITNESS.wtns|PARTITION.spa...\n"
          "  Proves every partition file in one job on the devices of the INI file\n"
          "  (default $SEALPROV_CONFIG, else in a build tree the sample conf/sealprov.ini of\n"
          "  its sources, else " SP_DEFAULT_CONFIG
          ") and writes 192 bytes\n"
          "  per partition, in the order given, to PROOFS. --zero-rs uses r = s = 0: the\n"
          "  proofs are deterministic but NOT zero-knowledge (tests only).\n"
          "  --params FILE: a path (with a '/') is taken as given, like every other file\n"
          "  argument; a bare NAME is looked up in the Filecoin parameter cache\n"
          "  ($FIL_PROOFS_PARAMETER_CACHE, else " SP_CLI_DEFAULT_PARAM_CACHE
          "),\n"
          "  as hosts name it, and only when the cache has no NAME, in the current directory\n"
          "  (with a warning; ./NAME always means the current directory).\n"
          "  PROOFS is written to a temporary file next to it and renamed into place when\n"
          "  whole; it never replaces an input of the command (the parameters, a partition,\n"
          "  the INI), and an existing file that is not a proof file only with --force.\n"
          "  --device N[,M...]: run the job only on these devices (indexes as `sealprov\n"
          "  devices` lists them; a retry after a device fault stays among them).\n"
          "  --r1cs: witness-only proving: the module loads the circom constraint system\n"
          "  and computes a, b, c itself; each file gives only a witness (a circom .wtns,\n"
          "  or the inputs and aux of a .spa). Same proofs as the full assignments.\n"
          "       sealprov prove --zkey CIRCUIT.zkey --wtns WITNESS.wtns [--out-proof FILE]\n"
          "                      [--out-public FILE] [--zero-rs] [--force] [--json]\n"
          "  snarkjs interop (BLS12-381): proves on this host's CPUs with a snarkjs Groth16\n"
          "  key and a circom witness, checks the proof with the key's verifying key and\n"
          "  writes snarkjs's proof.json and public.json (default names in the current\n"
          "  directory); `snarkjs groth16 verify` accepts them. No module or INI needed.\n"
          "  They replace an existing proof.json / public.json, other files only with\n"
          "  --force.\n");
}

/* A partition's status as the table shows it: the module's status, "not run" when the
 * job never reached it (parameters that did not load, a refused submit), and "proved"
 * for a partition whose proof was made but not written because the job failed. */
static const char *part_status(const sealprov_partition_result *r, bool written) {
  if (r->status < 0) return "not run";
  if (r->status == SEALPROV_OK && !written) return "proved";
  return g16_status_name(r->status);
}

/* Prints the per-partition table (or JSON) of a job; stage says where it stopped when
 * it did not succeed ("parameters", "submit", "job", "write"). */
static void report(bool json, const char *params, const char *out, char **files, size_t n,
                   const g16_prove_report *rep, bool written) {
  if (json) {
    printf("{\"params\": ");
    sp_cli_json_str(stdout, params);
    printf(", \"proofs\": ");
    sp_cli_json_str(stdout, out);
    printf(
        ", \"status\": \"%s\", \"written\": %s, \"load_ms\": %.1f, \"prove_ms\": %.1f, "
        "\"devices_used\": %zu",
        rep->status == SEALPROV_OK && !written ? "I/O" : g16_status_name(rep->status),
        written ? "true" : "false", rep->load_ms, rep->prove_ms, rep->devices_used);
    if (rep->params_memory[0] != '\0') {
      printf(", \"params_memory\": ");
      sp_cli_json_str(stdout, rep->params_memory);
      printf(", \"params_image\": ");
      sp_cli_json_str(stdout, rep->params_image);
      printf(", \"params_host_bytes\": %" PRIu64, rep->params_bytes);
    }
    if (rep->status != SEALPROV_OK) {
      printf(", \"error\": ");
      sp_cli_json_str(stdout, rep->detail);
    }
    printf(", \"partitions\": [");
    for (size_t i = 0; i < n; i++) {
      const sealprov_partition_result *r = &rep->results[i];
      printf("%s{\"index\": %zu, \"file\": ", i ? ", " : "", i);
      sp_cli_json_str(stdout, files[i]);
      printf(", \"status\": \"%s\", \"device\": %d, \"device_name\": ", part_status(r, written),
             r->device);
      sp_cli_json_str(stdout, rep->device_names[i]);
      printf(", \"attempts\": %u, \"queued_ms\": %.1f, \"run_ms\": %.1f}", r->attempts,
             r->queued_ms, r->run_ms);
    }
    printf("]}\n");
    return;
  }
  if (rep->stage == G16_STAGE_PARAMS) {
    /* nothing ran: no table of partitions at all */
    printf("no proofs: the parameters %s did not load (%s)\n", params,
           g16_status_name(rep->status));
    return;
  }
  printf("%-5s %-16s %-12s %8s %10s %10s  %s\n", "part", "status", "device", "attempts",
         "queued_ms", "run_ms", "file");
  for (size_t i = 0; i < n; i++) {
    const sealprov_partition_result *r = &rep->results[i];
    printf("%-5zu %-16s %-12s %8u %10.1f %10.1f  %s\n", i, part_status(r, written),
           rep->device_names[i], r->attempts, r->queued_ms, r->run_ms, files[i]);
  }
  char mem[1200] = "";
  if (strcmp(rep->params_memory, "image") == 0)
    snprintf(mem, sizeof mem, " from the shared image %s, %" PRIu64 " bytes mapped",
             rep->params_image, rep->params_bytes);
  if (written)
    printf("%zu proof%s on %zu device%s in %.0f ms (parameters loaded in %.0f ms%s): %s\n", n,
           sp_cli_plural(n), rep->devices_used, sp_cli_plural(rep->devices_used), rep->prove_ms,
           rep->load_ms, mem, out);
  else
    printf("no proof file written: %s\n",
           rep->status == SEALPROV_OK ? "it could not be written" : g16_status_name(rep->status));
}

/* The module names partitions by index; the user knows them by file. Returns
 * "; partition 0 is FILE, ..." for the partitions that failed (by their results, or,
 * when the job was refused before any ran, the "partition N" of the module's
 * message), or "" when there is none to name. */
static const char *failed_files(const g16_prove_report *rep, char **files, size_t n, char *buf,
                                size_t len) {
  size_t used = 0, named = 0;
  buf[0] = 0;
  for (size_t i = 0; i < n && named < 8; i++) {
    int st = rep->results[i].status;
    if (st <= 0 || st == SEALPROV_ERR_CANCELLED || st == SEALPROV_ERR_SHUTDOWN) continue;
    int w =
        snprintf(buf + used, len - used, "%s partition %zu is %s", named ? "," : ";", i, files[i]);
    if (w < 0 || (size_t)w >= len - used) break;
    used += (size_t)w;
    named++;
  }
  if (named == 0) {
    const char *at = strstr(rep->detail, "partition ");
    unsigned long idx;
    char *end;
    if (at != NULL && (idx = strtoul(at + 10, &end, 10), end != at + 10) && idx < n)
      snprintf(buf, len, "; partition %lu is %s", idx, files[idx]);
  }
  return buf;
}

/* --device N[,M...] -> a device_mask (bit i = device i of devices()). */
static bool parse_devices(const char *arg, uint64_t *mask) {
  *mask = 0;
  const char *p = arg;
  for (;;) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(p, &end, 10);
    if (end == p || *p < '0' || *p > '9' || errno != 0 || v > 63 || (*end != ',' && *end != '\0')) {
      sp_cli_error(
          "--device '%s': not a list of device indexes (0 to 63, comma-separated; "
          "`sealprov devices` lists them)",
          arg);
      return false;
    }
    *mask |= UINT64_C(1) << v;
    if (*end == '\0') return true;
    p = end + 1;
  }
}

/* The job itself is built by the proving helpers (g16_prove.c, prove_witness.c), which know
 * nothing of --device: a copy of the module's vtable whose submit adds the mask stands
 * in for it, as a host could interpose. */
static sealprov_vtable devices_vt;
static int (*devices_submit)(sealprov_provider *, const sealprov_job *, sealprov_job_id *);
static uint64_t devices_mask;

static int submit_on_devices(sealprov_provider *p, const sealprov_job *job, sealprov_job_id *id) {
  if (job == NULL || job->struct_size < sizeof *job) return devices_submit(p, job, id);
  sealprov_job j = *job;
  j.device_mask = devices_mask;
  return devices_submit(p, &j, id);
}

static bool restrict_devices(sp_cli_host *h, uint64_t mask) {
  const sealprov_vtable *vt = h->vt;
  if (vt->abi_minor < 2) {
    sp_cli_error("--device: the module %s implements ABI %" PRIu32 ".%" PRIu32
                 ", which cannot restrict a job to devices (ABI 1.2 can)",
                 h->path, vt->abi_major, vt->abi_minor);
    return false;
  }
  size_t have = vt->struct_size < sizeof devices_vt ? vt->struct_size : sizeof devices_vt;
  memset(&devices_vt, 0, sizeof devices_vt);
  memcpy(&devices_vt, vt, have);
  devices_submit = vt->submit;
  devices_mask = mask;
  devices_vt.submit = submit_on_devices;
  h->vt = &devices_vt;
  return true;
}

/* ---- checks before the parameters load ----------------------------------------------
 * Everything that needs only the files' headers and the INI is checked before the load,
 * which takes minutes at production size; the messages speak of files and devices. */

typedef struct prove_opts {
  const char *params, *out, *r1cs, *zkey, *wtns, *out_proof, *out_public, *device_arg, *ini;
  bool zero_rs, force, json;
  uint64_t device_mask;
  char **files;
  size_t n;
} prove_opts;

/* Why a partition of these sizes does not fit the parameters' vectors ("" when it does).
 * witness: only its inputs and aux count (prove --r1cs: a, b, c are computed). */
static bool fits(const sp_cli_spa_hdr *a, const sp_cli_params_hdr *p, bool witness, char *why,
                 size_t len) {
  uint64_t domain = UINT64_C(1) << p->log_domain;
  if (!witness && (a->abc_size == 0 || a->abc_size > domain))
    snprintf(why, len, "%" PRIu64 " constraints (abc_size), the parameters' domain holds %" PRIu64,
             a->abc_size, domain);
  else if (a->inp_size != p->len[0])
    snprintf(why, len,
             "%" PRIu64 " inputs with ONE (inp_size), the parameters have %" PRIu64 " (ic)",
             a->inp_size, p->len[0]);
  else if (a->aux_size != p->len[2])
    snprintf(why, len, "%" PRIu64 " aux variables (aux_size), the parameters have %" PRIu64 " (l)",
             a->aux_size, p->len[2]);
  else if (!witness && a->inp_size + a->a_aux_popcount != p->len[3])
    snprintf(why, len,
             "%" PRIu64 " variables in A (inp_size + a_aux_popcount), the parameters have %" PRIu64
             " points (a)",
             a->inp_size + a->a_aux_popcount, p->len[3]);
  else if (!witness && (a->b_inp_popcount + a->b_aux_popcount != p->len[4] ||
                        a->b_inp_popcount + a->b_aux_popcount != p->len[5]))
    snprintf(why, len,
             "%" PRIu64
             " variables in B (b_inp_popcount + b_aux_popcount), the parameters have %" PRIu64
             " points (b_g1) and %" PRIu64 " (b_g2)",
             a->b_inp_popcount + a->b_aux_popcount, p->len[4], p->len[5]);
  else
    return true;
  return false;
}

/* rep->detail (cut at its size: a message, not data) */
static void detail(g16_prove_report *rep, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void detail(g16_prove_report *rep, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rep->detail, sizeof rep->detail, fmt, ap);
  va_end(ap);
}

static void hdr_of(const sealprov_assignment *a, sp_cli_spa_hdr *h) {
  *h = (sp_cli_spa_hdr){a->abc_size,       a->inp_size,       a->aux_size,
                        a->a_aux_bit_len,  a->a_aux_popcount, a->b_inp_bit_len,
                        a->b_inp_popcount, a->b_aux_bit_len,  a->b_aux_popcount};
}

/* The partitions against the parameters, from headers only (and input 0 of each .spa,
 * read whole already): rep says why when one does not fit (status, stage and detail as
 * if the module had refused the job, so --json and the table read the same). */
static bool partitions_fit(const prove_opts *o, const sp_cli_params_path *pp, sp_spa **spa,
                           g16_prove_report *rep) {
  sp_cli_params_hdr ph;
  if (!sp_cli_params_header_file(pp->file, &ph, rep->detail, sizeof rep->detail)) {
    rep->status = SEALPROV_ERR_PARAMS;
    rep->stage = G16_STAGE_PARAMS;
    return false;
  }
  rep->stage = G16_STAGE_SUBMIT;
  rep->status = SEALPROV_ERR_ASSIGNMENT;
  for (size_t i = 0; i < o->n; i++) {
    const char *f = o->files[i];
    sp_cli_spa_hdr a;
    char why[512];
    if (spa != NULL && spa[i] != NULL) {
      if (!sp_cli_input0_is_one(&spa[i]->asg, f, rep->detail, sizeof rep->detail)) return false;
      hdr_of(&spa[i]->asg, &a);
    } else if (sp_cli_spa_header(f, &a)) {
      /* a .spa as a witness: read whole after the load */
    } else {
      uint64_t nw;
      if (!sp_cli_wtns_count(f, &nw)) continue; /* its reader says what is wrong, later */
      if (nw != ph.len[0] + ph.len[2]) {
        detail(rep,
               "%s does not fit the parameters %s: %" PRIu64
               " witness values (nWitness), the parameters have %" PRIu64
               " inputs with ONE (ic) + %" PRIu64
               " aux variables (l); a witness of another "
               "circuit?",
               f, pp->file, nw, ph.len[0], ph.len[2]);
        return false;
      }
      continue;
    }
    if (!fits(&a, &ph, o->r1cs != NULL, why, sizeof why)) {
      detail(rep, "%s does not fit the parameters %s: %s; a partition of another circuit?", f,
             pp->file, why);
      return false;
    }
  }
  rep->status = SEALPROV_OK;
  return true;
}

/* --device against the devices the INI gave the provider. */
static bool devices_exist(sp_cli_host *h, const prove_opts *o) {
  size_t ndev = 0;
  if (h->vt->devices(h->p, NULL, 0, &ndev) != SEALPROV_OK) return true; /* submit says */
  uint64_t all = ndev >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << ndev) - 1;
  if ((o->device_mask & ~all) == 0) return true;
  unsigned bad = (unsigned)__builtin_ctzll(o->device_mask & ~all);
  const char *ini = sp_cli_config_path(o->ini);
  char have[64];
  if (ndev == 1)
    snprintf(have, sizeof have, "one device, 0");
  else
    snprintf(have, sizeof have, "%zu devices, 0 to %zu", ndev, ndev - 1);
  sp_cli_error(
      "--device %s: there is no device %u: %s has %s (`sealprov devices -c %s` lists them)",
      o->device_arg, bad, ini, have, ini);
  return false;
}

/* The kinds of the files given, and the outputs against the inputs. 0 or an exit status. */
static int check_files(const prove_opts *o, const sp_cli_params_path *pp) {
  /* a file that is not there is a failure, as the module's own "not found" was */
  if (o->r1cs && !g16_check_input_file("--r1cs", o->r1cs)) return 1;
  if (o->r1cs && !sp_cli_file_is("--r1cs", o->r1cs, SP_KIND_BIT(SP_KIND_R1CS),
                                 "a circom .r1cs constraint system"))
    return 2;
  unsigned parts = SP_KIND_BIT(SP_KIND_SPA) | (o->r1cs ? SP_KIND_BIT(SP_KIND_WTNS) : 0);
  for (size_t i = 0; i < o->n; i++)
    if (!sp_cli_file_is("prove", o->files[i], parts,
                        o->r1cs ? "witnesses (.wtns or .spa files) after its options"
                                : "partition files (.spa) after its options"))
      return 2;
  sp_cli_file *in = calloc(o->n + 5, sizeof *in);
  if (in == NULL) {
    sp_cli_error("out of memory");
    return 1;
  }
  size_t k = 0;
  in[k++] = (sp_cli_file){"--params file", pp->file};
  in[k++] = (sp_cli_file){"INI file", sp_cli_config_path(o->ini)};
  if (o->r1cs) in[k++] = (sp_cli_file){"--r1cs file", o->r1cs};
  for (size_t i = 0; i < o->n; i++)
    in[k++] = (sp_cli_file){o->r1cs ? "witness file" : "partition file", o->files[i]};
  int ret = 0;
  if (!sp_cli_output_check("--out", o->out, SP_KIND_PROOFS, o->force, in, k)) ret = 2;
  in[k++] = (sp_cli_file){"--out file", o->out};
  if (ret == 0 && !g16_check_env_outputs(o->force, in, k)) ret = 2;
  free(in);
  return ret;
}

static int parse(int argc, char **argv, prove_opts *o, sp_cli_args *a) {
  enum {
    O_PARAMS = 256,
    O_OUT,
    O_ZERO_RS,
    O_R1CS,
    O_ZKEY,
    O_WTNS,
    O_OUT_PROOF,
    O_OUT_PUBLIC,
    O_DEVICE,
    O_FORCE
  };
  static const struct option opts[] = {
      {"params", required_argument, NULL, O_PARAMS},
      {"out", required_argument, NULL, O_OUT},
      {"zero-rs", no_argument, NULL, O_ZERO_RS},
      {"r1cs", required_argument, NULL, O_R1CS},
      {"zkey", required_argument, NULL, O_ZKEY},
      {"wtns", required_argument, NULL, O_WTNS},
      {"out-proof", required_argument, NULL, O_OUT_PROOF},
      {"out-public", required_argument, NULL, O_OUT_PUBLIC},
      {"device", required_argument, NULL, O_DEVICE},
      {"force", no_argument, NULL, O_FORCE},
      {NULL, 0, NULL, 0},
  };
  *a = (sp_cli_args){
      .usage = prove_usage, .takes = SP_CLI_PLUGIN | SP_CLI_CONFIG | SP_CLI_JSON, .opts = opts};
  int c;
  while ((c = sp_cli_getopt(a, argc, argv)) > 0) {
    switch (c) {
      case O_PARAMS: o->params = optarg; break;
      case O_OUT: o->out = optarg; break;
      case O_ZERO_RS: o->zero_rs = true; break;
      case O_R1CS: o->r1cs = optarg; break;
      case O_ZKEY: o->zkey = optarg; break;
      case O_WTNS: o->wtns = optarg; break;
      case O_OUT_PROOF: o->out_proof = optarg; break;
      case O_OUT_PUBLIC: o->out_public = optarg; break;
      case O_FORCE: o->force = true; break;
      case O_DEVICE:
        if (!parse_devices(optarg, &o->device_mask)) return 2;
        o->device_arg = optarg;
        break;
    }
  }
  if (c < 0) return a->status;
  o->ini = a->config;
  o->json = a->json;
  o->files = argv + a->first;
  o->n = (size_t)(argc - a->first);
  return -1;
}

/* snarkjs interop: its own mode, a developer one (sealprov-kit runs it). */
static int prove_snarkjs(const prove_opts *o, sp_cli_args *a) {
  const char *clash = o->params       ? "--params"
                      : o->out        ? "--out"
                      : o->r1cs       ? "--r1cs"
                      : o->device_arg ? "--device"
                      : o->n          ? o->files[0]
                                      : NULL;
  if (clash)
    return sp_cli_usage_error(a, "%s cannot be combined with --zkey/--wtns (snarkjs proving)",
                              clash);
  if (!o->zkey || !o->wtns)
    return sp_cli_usage_error(a, "missing %s", !o->zkey ? "--zkey" : "--wtns");
  if (sp_cli_prove_zkey == NULL) {
    int st = sp_cli_run_kit();
    if (st >= 0) return st;
    sp_cli_error("--zkey: the snarkjs mode is not in this build (a developer command)");
    return 2;
  }
  return sp_cli_prove_zkey(o->zkey, o->wtns, o->out_proof ? o->out_proof : "proof.json",
                           o->out_public ? o->out_public : "public.json", o->zero_rs, o->force,
                           o->json);
}

/* The n partition files (.spa) into spa[] and their assignments into asg[]; false, with
 * the message said, at the first that cannot be read. */
static bool read_partitions(char **files, size_t n, sp_spa **spa, sealprov_assignment *asg) {
  sp_cli_note("reading %zu partition file%s", n, n == 1 ? "" : "s");
  for (size_t i = 0; i < n; i++) {
    char err[1024];
    if (sp_spa_read(files[i], &spa[i], err, sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s", err);
      return false;
    }
    asg[i] = spa[i]->asg;
  }
  return true;
}

int cmd_prove(int argc, char **argv) {
  prove_opts o = {0};
  sp_cli_args a;
  int st = parse(argc, argv, &o, &a);
  if (st >= 0) return st;
  size_t n = o.n;
  if (o.zkey || o.wtns || o.out_proof || o.out_public) return prove_snarkjs(&o, &a);
  if (!o.params || !o.out || n == 0)
    return sp_cli_usage_error(&a, "missing %s",
                              !o.params ? "--params"
                              : !o.out  ? "--out"
                                        : "partition files");
  /* Inputs and outputs first: a file that is not there or of another kind, or a proof
   * file that cannot be written, must not cost opening the devices and a proving run. */
  sp_cli_params_path pp;
  if ((st = g16_params_file("--params", o.params, SP_KIND_PARAMS, &pp)) != 0 ||
      (st = check_files(&o, &pp)) != 0)
    return st;
  char **files = o.files;
  sp_spa **spa = calloc(n, sizeof *spa);
  sealprov_assignment *asg = calloc(n, sizeof *asg);
  uint8_t *proofs = calloc(n, 192);
  g16_prove_report rep = {.results = calloc(n, sizeof(sealprov_partition_result)),
                          .device_names = calloc(n, 64)};
  int ret = 2;
  sp_cli_host h = {0};
  bool written = false, checked = false;
  if (!spa || !asg || !proofs || !rep.results || !rep.device_names) {
    sp_cli_error("out of memory");
    goto out;
  }
  for (size_t i = 0; i < n; i++) {
    rep.results[i] = (sealprov_partition_result){.status = -1, .device = -1};
    snprintf(rep.device_names[i], 64, "-");
  }
  if (o.r1cs == NULL && !read_partitions(files, n, spa, asg)) goto out;
  if (!partitions_fit(&o, &pp, o.r1cs ? NULL : spa, &rep)) {
    ret = 1;
    checked = true; /* the report below says what did not fit */
    goto report;
  }
  if (o.zero_rs) sp_cli_warn("--zero-rs: proofs are deterministic and NOT zero-knowledge");
  if (!sp_cli_host_open(&h, o.ini)) {
    ret = 1;
    goto out;
  }
  if (o.device_arg != NULL && (!devices_exist(&h, &o) || !restrict_devices(&h, o.device_mask))) {
    ret = 2;
    goto out;
  }
  if (o.r1cs != NULL) /* witness-only: the files are read once the system's sizes are known */
    ret = g16_prove_witness(&h, pp.module, o.r1cs, files, n, o.zero_rs, sp_cli_progress, proofs,
                            &rep);
  else
    ret = g16_prove_partitions(&h, pp.module, asg, n, o.zero_rs, sp_cli_progress, proofs, &rep);
  if (ret == 0) {
    sp_cli_note("writing %s", o.out);
    written = sp_cli_output_write("--out", o.out, proofs, 192 * n);
    if (!written) ret = 1;
  }
report:;
  char failed[1024];
  report(o.json, o.params, o.out, files, n, &rep, written);
  if (rep.status != SEALPROV_OK)
    sp_cli_error("%s: %s%s", g16_status_name(rep.status), rep.detail,
                 checked ? "" : failed_files(&rep, files, n, failed, sizeof failed));
out:
  sp_cli_host_close(&h);
  for (size_t i = 0; spa && i < n; i++) sp_spa_free(spa[i]);
  free(spa);
  free(asg);
  free(proofs);
  free(rep.results);
  free(rep.device_names);
  return ret;
}
