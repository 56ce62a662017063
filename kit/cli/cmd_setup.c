/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_setup.c -- `sealprov setup`: a synthetic circuit, an INSECURE Groth16 setup and
 * one assignment file per partition (kit/circuit.c does the work). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "circuit.h"
#include "cli.h"
#include "g16_util.h"
#ifdef HAVE_CUDA
#include "gpu/sp_cuda_setup.h"
#endif

static void setup_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov setup --constraints N --inputs K --partitions P --out DIR\n"
          "                      [--shape sealing|random] [--seed S] [--threads T]\n"
          "                      [--gpu[=ORDINAL]] [--force] [--json]\n"
          "  Generates an R1CS with N constraints (bellperson's input constraints included;\n"
          "  the FFT domain is the next power of two) and K public inputs besides ONE, runs\n"
          "  a Groth16 setup with toxic waste derived from the seed, and writes\n"
          "  DIR/circuit.params, DIR/circuit.vk and DIR/partition-NN.spa (P partitions with\n"
          "  different witnesses and inputs), and DIR/circuit.r1cs (the constraint system as\n"
          "  circom writes it, for prove --r1cs). N may be written 2^K.\n"
          "  --shape sealing (default): mostly bits, a-density ~99 %%, b-density ~25 %%;\n"
          "  random: uniformly random sparse rows. Without --seed a random seed is used\n"
          "  (and printed).\n"
          "  DIR must be new or empty; --force writes into a non-empty DIR after removing\n"
          "  the circuit.params, circuit.vk, circuit.r1cs and partition-*.spa files there (so\n"
          "  no stale partition of an earlier setup stays next to the new ones).\n"
          "  --gpu[=ORDINAL]: the fixed-base products (every point of the parameters) on\n"
          "  CUDA device ORDINAL (default 0); the files are the CPU setup's bytes. It needs\n"
          "  a build with CUDA (configure --with-cuda)%s.\n"
          "  INSECURE: whoever knows the seed can forge proofs. Testing and benchmarks only.\n",
#ifdef HAVE_CUDA
          ", which this one is"
#else
          "; this one has none"
#endif
  );
}

/* The files setup writes into DIR: circuit.params, circuit.vk, circuit.r1cs,
 * partition-NN.spa. */
static bool setup_file(const char *name) {
  size_t len = strlen(name);
  return !strcmp(name, "circuit.params") || !strcmp(name, "circuit.vk") ||
         !strcmp(name, "circuit.r1cs") ||
         (!strncmp(name, "partition-", 10) && len > 14 && !strcmp(name + len - 4, ".spa"));
}

/* An existing --out: refused when it holds anything, unless --force; with --force the
 * files of an earlier setup are removed first, so old and new never mix. */
static bool prepare_existing_dir(const char *dir, bool force) {
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    sp_cli_error("--out %s: exists and is not a directory", dir);
    return false;
  }
  DIR *d = opendir(dir);
  if (d == NULL) {
    sp_cli_error("--out %s: cannot read the directory: %s", dir, strerror(errno));
    return false;
  }
  size_t entries = 0, removed = 0;
  char first[256] = "";
  bool ok = true;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (!entries++) snprintf(first, sizeof first, "%s", e->d_name);
    if (!force || !setup_file(e->d_name)) continue;
    size_t l = strlen(dir) + strlen(e->d_name) + 2;
    char *p = malloc(l);
    if (p == NULL) {
      sp_cli_error("out of memory");
      ok = false;
      break;
    }
    snprintf(p, l, "%s/%s", dir, e->d_name);
    if (unlink(p) != 0) {
      sp_cli_error("--force: cannot remove %s: %s", p, strerror(errno));
      ok = false;
    } else {
      removed++;
    }
    free(p);
  }
  closedir(d);
  if (!ok) return false;
  if (entries > 0 && !force) {
    sp_cli_error(
        "--out %s: the directory is not empty (%zu entr%s, e.g. \"%s\"); give a new or "
        "empty directory, or --force to replace an earlier setup there",
        dir, entries, entries == 1 ? "y" : "ies", first);
    return false;
  }
  if (removed > 0)
    sp_cli_warn("--force: removed %zu file%s of an earlier setup from %s", removed,
                removed == 1 ? "" : "s", dir);
  return true;
}

/* The files written (each whole under its name: the kit writes a temporary file and
 * renames it) to the disk, and the directory's entries, before setup says it wrote them. */
static bool sync_files(const char *dir, uint32_t parts) {
  for (uint32_t i = 0; i < parts + 4; i++) {
    char name[64], path[4096];
    if (i < parts)
      sp_partition_name(name, sizeof name, i, parts);
    else
      snprintf(name, sizeof name, "%s",
               (const char *[]){"circuit.params", "circuit.vk", "circuit.r1cs", "."}[i - parts]);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
      sp_cli_error("%s: cannot flush it to the disk: %s", path, strerror(errno));
      if (fd >= 0) close(fd);
      return false;
    }
    close(fd);
  }
  return true;
}

int cmd_setup(int argc, char **argv) {
  static const struct option opts[] = {
      {"constraints", required_argument, NULL, 'n'},
      {"inputs", required_argument, NULL, 'k'},
      {"partitions", required_argument, NULL, 'p'},
      {"shape", required_argument, NULL, 's'},
      {"seed", required_argument, NULL, 'S'},
      {"threads", required_argument, NULL, 't'},
      {"out", required_argument, NULL, 'o'},
      {"gpu", optional_argument, NULL, 'G'},
      {"force", no_argument, NULL, 'f'},
      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {.usage = setup_usage, .takes = SP_CLI_JSON, .opts = opts};
  uint64_t n = 0, k = 0, parts = 0, seed = 0, threads = 0;
  bool have_n = false, have_k = false, have_p = false, have_seed = false;
  uint64_t gpu = 0;
  bool use_gpu = false;
  bool force = false;
  sp_shape shape = SP_SHAPE_SEALING;
  const char *out = NULL;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case 'n':
        if (!sp_cli_u64("--constraints", optarg, UINT64_C(1) << 28, &n)) return 2;
        have_n = true;
        break;
      case 'k':
        if (!sp_cli_u64("--inputs", optarg, UINT32_MAX - 1, &k)) return 2;
        have_k = true;
        break;
      case 'p':
        if (!sp_cli_u64("--partitions", optarg, 100000, &parts)) return 2;
        have_p = true;
        break;
      case 's':
        if (!strcmp(optarg, "sealing"))
          shape = SP_SHAPE_SEALING;
        else if (!strcmp(optarg, "random"))
          shape = SP_SHAPE_RANDOM;
        else {
          sp_cli_error("--shape \"%s\": expected sealing or random", optarg);
          return 2;
        }
        break;
      case 'S':
        if (!sp_cli_u64("--seed", optarg, UINT64_MAX, &seed)) return 2;
        have_seed = true;
        break;
      case 't':
        if (!sp_cli_u64("--threads", optarg, 1024, &threads)) return 2;
        break;
      case 'o': out = optarg; break;
      case 'G':
        if (optarg && !sp_cli_u64("--gpu", optarg, 1023, &gpu)) return 2;
        use_gpu = true;
        break;
      case 'f': force = true; break;
    }
  }
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 0, 0, "")) return a.status;
  bool json = a.json;
  if (!have_n || !have_k || !have_p || !out)
    return sp_cli_usage_error(&a, "missing %s",
                              !have_n   ? "--constraints"
                              : !have_k ? "--inputs"
                              : !have_p ? "--partitions"
                                        : "--out");
  if (parts == 0) {
    sp_cli_error("--partitions must be at least 1");
    return 2;
  }
  if (mkdir(out, 0755) != 0) {
    if (errno != EEXIST) {
      sp_cli_error("--out %s: cannot create the directory: %s", out, strerror(errno));
      return 1;
    }
    if (!prepare_existing_dir(out, force)) return 1;
  }
  if (!have_seed) seed = sp_random_seed();
  sp_cli_warn(
      "INSECURE parameters, for testing and benchmarks only: the toxic waste comes\n"
      "  from seed %llu; anyone who knows it can forge proofs.",
      (unsigned long long)seed);

  g16_setup_meter gm = {.stage = ""};
  sp_progress pr = {.fn = g16_setup_progress, .user = &gm};
  sp_setup_opts o = {.progress = &pr,
                     .constraints = n,
                     .inputs = (uint32_t)k,
                     .partitions = (uint32_t)parts,
                     .shape = shape,
                     .seed = seed,
                     .out_dir = out,
                     .nthreads = threads ? (unsigned)threads : g16_ncpus()};
  sp_setup_result r;
  char err[1024] = "";
  sp_cli_note("making the circuit, its parameters and %llu partition file%s in %s",
              (unsigned long long)parts, parts == 1 ? "" : "s", out);
#ifdef HAVE_CUDA
  sp_cuda_setup *gs = NULL;
  sp_fixed_base fb;
  if (use_gpu) {
    if (sp_cuda_setup_create((int)gpu, &gs, err, sizeof err) != SEALPROV_OK) {
      sp_cli_error("--gpu=%llu: %s", (unsigned long long)gpu, err);
      return 1;
    }
    fb = sp_cuda_setup_fixed_base(gs);
    o.fixed_base = &fb;
  }
  int rc = sp_setup_run(&o, &r, err, sizeof err);
  sp_cuda_setup_destroy(gs);
#else
  if (use_gpu) {
    sp_cli_error(
        "--gpu: this build has no CUDA support: configure --with-cuda (and nvcc) builds it");
    return 1;
  }
  int rc = sp_setup_run(&o, &r, err, sizeof err);
#endif
  if (rc != SEALPROV_OK) {
    sp_cli_error("%s", err);
    return 1;
  }
  /* and the circuit's constraint system, for witness-only proving (prove --r1cs) */
  rc = sp_setup_write_r1cs(&o, err, sizeof err);
  if (rc != SEALPROV_OK) {
    sp_cli_error("%s", err);
    return 1;
  }
  if (!sync_files(out, (uint32_t)parts)) return 1;
  const sp_circuit_info *in = &r.info;
  double ad = in->aux_size ? (double)in->a_aux_popcount / (double)in->aux_size : 0;
  double bd = in->aux_size ? (double)in->b_aux_popcount / (double)in->aux_size : 0;
  double bits = in->aux_size ? (double)in->bit_vars / (double)in->aux_size : 0;
  if (json) {
    printf("{\"out\": ");
    sp_cli_json_str(stdout, out);
    printf(
        ", \"shape\": \"%s\", \"seed\": %llu, \"insecure\": true, \"constraints\": %llu, "
        "\"domain\": %llu, \"inp_size\": %llu, \"aux_size\": %llu, \"a_aux_density\": %.4f, "
        "\"b_aux_density\": %.4f, \"b_inp_popcount\": %llu, \"bit_fraction\": %.4f, "
        "\"partitions\": %llu, \"circuit_ms\": %.1f, \"params_ms\": %.1f, "
        "\"partitions_ms\": %.1f}\n",
        shape == SP_SHAPE_SEALING ? "sealing" : "random", (unsigned long long)seed,
        (unsigned long long)in->abc_size, (unsigned long long)in->domain,
        (unsigned long long)in->inp_size, (unsigned long long)in->aux_size, ad, bd,
        (unsigned long long)in->b_inp_popcount, bits, (unsigned long long)parts, r.circuit_ms,
        r.params_ms, r.partitions_ms);
  } else {
    char first[64], last[64], range[160];
    sp_partition_name(first, sizeof first, 0, (uint32_t)parts);
    sp_partition_name(last, sizeof last, (uint32_t)parts - 1, (uint32_t)parts);
    if (parts == 1)
      snprintf(range, sizeof range, "%s", first);
    else
      snprintf(range, sizeof range, "%s to %s", first, last);
    printf("circuit      %s shape, %llu constraints (domain 2^%u), %llu inputs + ONE, %llu aux\n",
           shape == SP_SHAPE_SEALING ? "sealing" : "random", (unsigned long long)in->abc_size,
           in->log_domain, (unsigned long long)in->inp_size - 1, (unsigned long long)in->aux_size);
    printf("density      a %.1f %%, b %.1f %% of aux; %.1f %% of aux are bits\n", 100 * ad,
           100 * bd, 100 * bits);
    printf(
        "wrote        %s/circuit.params, %s/circuit.vk, %s/circuit.r1cs, %llu partition "
        "file%s (%s)\n",
        out, out, out, (unsigned long long)parts, sp_cli_plural(parts), range);
    printf("time         circuit %.0f ms, parameters %.0f ms, partitions %.0f ms\n", r.circuit_ms,
           r.params_ms, r.partitions_ms);
  }
  return 0;
}
