# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/cuda -- the CUDA engine against the CPU library and the CPU prover. Plain
# programs (no libcheck: the GPU machine has none); each exits 77 (SKIP) when no GPU
# is visible, so CI, which has nvcc but no GPU, builds them and skips them. The GPU
# machine builds them from the release tarball (dev/device-build.sh).
EXTRA_DIST += tests/cuda/ff_model.py tests/cuda/msm_table_model.py tests/cuda/msm_affine_model.py \
  tests/cuda/gpu_session.sh tests/cuda/seeds.sh tests/cuda/fatbin_archs.sh tests/cuda/fatbin_archs.c tests/cuda/child_gpu.sh \
  tests/cuda/ff_ptx_run.py
# a cubin's machine instructions by class per function (no cuobjdump needed)
EXTRA_DIST += dev/sass-count.py
# the engine's memory plan and streaming on a GPU, run by hand there (its figures)
EXTRA_DIST += dev/gpu-budget.sh
GPU_SEED_SUITES =
if HAVE_CUDA
check_PROGRAMS += tests/cuda/test_cuda_kernels tests/cuda/test_cuda_engine tests/cuda/test_cuda_checks \
  tests/cuda/test_cuda_spmv tests/cuda/test_cuda_load tests/cuda/test_cuda_capacity \
  tests/cuda/test_cuda_plan
TESTS += tests/cuda/test_cuda_kernels tests/cuda/test_cuda_engine tests/cuda/test_cuda_checks \
  tests/cuda/test_cuda_spmv tests/cuda/test_cuda_load tests/cuda/test_cuda_capacity \
  tests/cuda/test_cuda_plan
tests_cuda_test_cuda_kernels_SOURCES = tests/cuda/test_cuda_kernels.c tests/cuda/gpu_check.h
tests_cuda_test_cuda_kernels_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
tests_cuda_test_cuda_engine_SOURCES = tests/cuda/test_cuda_engine.c tests/cuda/gpu_check.h
tests_cuda_test_cuda_engine_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
tests_cuda_test_cuda_checks_SOURCES = tests/cuda/test_cuda_checks.c tests/cuda/gpu_check.h \
  tests/bls12_381/cofactor.c tests/bls12_381/cofactor.h
tests_cuda_test_cuda_checks_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
tests_cuda_test_cuda_spmv_SOURCES = tests/cuda/test_cuda_spmv.c tests/cuda/gpu_check.h
tests_cuda_test_cuda_spmv_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
tests_cuda_test_cuda_load_SOURCES = tests/cuda/test_cuda_load.c tests/cuda/gpu_check.h
tests_cuda_test_cuda_load_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
tests_cuda_test_cuda_capacity_SOURCES = tests/cuda/test_cuda_capacity.c tests/cuda/gpu_check.h
tests_cuda_test_cuda_capacity_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
# the plan's ring arithmetic (no GPU needed: it runs wherever the backend builds)
tests_cuda_test_cuda_plan_SOURCES = tests/cuda/test_cuda_plan.c tests/cuda/gpu_check.h
tests_cuda_test_cuda_plan_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
# The full-size run (dev/fullsize.sh): GPU setup, the checked load, proofs verified, at
# sizes no test runs; built with the tests, run by hand.
check_PROGRAMS += tests/cuda/fullsize
tests_cuda_fullsize_SOURCES = tests/cuda/fullsize_main.c
tests_cuda_fullsize_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)

# The device code in the built module (issue 25 item 1): the architectures configure
# chose, read from the module's fatbinary by a reader of our own (cuobjdump, not in every
# CUDA installation, cross-checks it where there is one). Needs no GPU.
check_PROGRAMS += tests/cuda/fatbin_archs
tests_cuda_fatbin_archs_SOURCES = tests/cuda/fatbin_archs.c
tests_cuda_fatbin_archs_LDADD =
TESTS += tests/cuda/fatbin_archs.sh

# A sealing daemon's per-proof child on a real GPU (CUDA_VISIBLE_DEVICES=0, one INI for
# the whole host naming an absent GPU too: [provider] unseen_gpus); SKIP without a GPU.
TESTS += tests/cuda/child_gpu.sh

# The suites whose inputs come from SP_TEST_SEED, for `make check-gpu-seeds` below.
GPU_SEED_SUITES += tests/cuda/test_cuda_engine tests/cuda/test_cuda_checks \
  tests/cuda/test_cuda_load tests/cuda/test_cuda_kernels
endif

# `make check-gpu-seeds [SEEDS="S1 S2 ..."] [GPU_SEED_SUITES=...]`: each GPU suite once
# per seed (tests/cuda/seeds.sh; default 3 seeds from the clock, printed), since some
# faults show for a few seeds only (issue 22 item 9). make check runs each suite once.
check-gpu-seeds: $(GPU_SEED_SUITES)
	@if test -z "$(GPU_SEED_SUITES)"; then echo "check-gpu-seeds: this build has no CUDA: nothing to run"; exit 0; fi; \
	seeds='$(SEEDS)'; rc=0; for t in $(GPU_SEED_SUITES); do \
	  $(SHELL) $(srcdir)/tests/cuda/seeds.sh $${seeds:+-s "$$seeds"} $$t; r=$$?; \
	  if test $$r -ne 0 && test $$r -ne 77; then rc=1; fi; \
	done; exit $$rc
.PHONY: check-gpu-seeds
