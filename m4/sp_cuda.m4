dnl SPDX-License-Identifier: Apache-2.0 OR MIT
# SP_CHECK_CUDA: --with-cuda[=PREFIX] / --without-cuda, --with-cuda-arch=LIST.
# Detection compiles and links a real __global__ kernel with nvcc; finding a file
# named nvcc is not enough. Sets HAVE_CUDA (AM_CONDITIONAL and config.h), NVCC,
# NVCC_GENCODE, CUDA_CFLAGS, CUDA_LIBS, CUDA_ARCHS, CUDA_PTX_ARCH, CUDA_ARCH_REQUEST,
# sp_cuda_summary.
#
# Architectures (README, "Building and installing by hand"; each one compiles every
# kernel again, so a build that knows its GPUs passes a list): by default
# (--with-cuda-arch=all) device code for every architecture this nvcc lists
# (nvcc --list-gpu-arch) from sm_80 up, so that one module runs on every GPU a storage
# provider has (A100 8.0, RTX 3090/A40 8.6, RTX 4090/L40 8.9, H100/H200 9.0, B200 10.0,
# RTX 5090 12.0, ...), plus PTX of the newest one, which the driver compiles for GPUs
# newer than the toolkit. A LIST (80,90 or 90a) builds those only, with PTX of its
# highest plain number. The module refuses a GPU it has no code for when it opens it
# (cuda/backend/code.c with sp_gpu_code_check), naming this option.
AC_DEFUN([SP_CHECK_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda@<:@=PREFIX@:>@],
       [build the CUDA engine (default: auto-detect in /usr/local/cuda and PATH)])],
    [], [with_cuda=check])
  AC_ARG_WITH([cuda-arch],
    [AS_HELP_STRING([--with-cuda-arch=LIST],
       [comma-separated compute capabilities to build device code for, e.g. 80,86,90
        (default: all, every one this nvcc lists from 80 up; PTX of the highest is
        added either way)])],
    [], [with_cuda_arch=all])
  have_cuda=no
  sp_cuda_summary="no (--without-cuda)"
  AS_IF([test "x$with_cuda" != xno], [
    AS_CASE([$with_cuda],
      [yes|check], [
        AS_IF([test -x /usr/local/cuda/bin/nvcc], [CUDA_PREFIX=/usr/local/cuda],
          [AC_PATH_PROG([sp_nvcc_in_path], [nvcc], [])
           AS_IF([test -n "$sp_nvcc_in_path"],
                 [CUDA_PREFIX=`dirname "$sp_nvcc_in_path"`; CUDA_PREFIX=`dirname "$CUDA_PREFIX"`],
                 [CUDA_PREFIX=])])],
      [CUDA_PREFIX=$with_cuda])
    NVCC_GENCODE=
    CUDA_ARCHS=
    CUDA_PTX_ARCH=
    sp_nvcc=
    AS_IF([test -n "$CUDA_PREFIX" && test -x "$CUDA_PREFIX/bin/nvcc"], [sp_nvcc="$CUDA_PREFIX/bin/nvcc"])
    sp_cuda_arch_list=$with_cuda_arch
    CUDA_ARCH_REQUEST=$with_cuda_arch
    AS_IF([test "x$with_cuda_arch" = xyes], [CUDA_ARCH_REQUEST=all])
    AS_IF([test "x$with_cuda_arch" = xall || test "x$with_cuda_arch" = xyes], [
      sp_cuda_arch_list=
      AS_IF([test -n "$sp_nvcc"], [
        AC_MSG_CHECKING([which GPU architectures nvcc builds for])
        dnl compute_NN lines; "a"/"f" variants are not forward compatible: left out
        for sp_arch in `"$sp_nvcc" --list-gpu-arch 2>/dev/null | sed -n 's/^compute_\(@<:@0-9@:>@*\)$/\1/p' | sort -n`; do
          test "$sp_arch" -ge 80 || continue
          sp_cuda_arch_list="$sp_cuda_arch_list${sp_cuda_arch_list:+,}$sp_arch"
        done
        dnl an nvcc without --list-gpu-arch (older than any we support): the families
        AS_IF([test -z "$sp_cuda_arch_list"], [sp_cuda_arch_list=80,86,89,90])
        AC_MSG_RESULT([$sp_cuda_arch_list])],
        dnl no nvcc: nothing to ask (the compiler check below turns CUDA off)
        [sp_cuda_arch_list=80,86,89,90])])
    sp_save_IFS=$IFS; IFS=,
    for sp_arch in $sp_cuda_arch_list; do
      IFS=$sp_save_IFS
      AS_CASE([$sp_arch], [*[[!0-9af]]*|""|[[af]]*],
        [AC_MSG_ERROR([--with-cuda-arch: '$sp_arch' is not a compute capability like 86, 90 or 90a (or 'all')])])
      CUDA_ARCHS="$CUDA_ARCHS${CUDA_ARCHS:+,}$sp_arch"
      dnl PTX: of the highest plain number (an "a"/"f" variant's PTX runs on that GPU only)
      AS_CASE([$sp_arch], [*[[af]]], [],
        [AS_IF([test -z "$CUDA_PTX_ARCH" || test "$sp_arch" -gt "$CUDA_PTX_ARCH"], [CUDA_PTX_ARCH=$sp_arch])])
    done
    IFS=$sp_save_IFS
    for sp_arch in `echo "$CUDA_ARCHS" | tr , ' '`; do
      AS_IF([test "x$sp_arch" = "x$CUDA_PTX_ARCH"],
        [NVCC_GENCODE="$NVCC_GENCODE -gencode arch=compute_$sp_arch,code=sm_$sp_arch -gencode arch=compute_$sp_arch,code=compute_$sp_arch"],
        [NVCC_GENCODE="$NVCC_GENCODE -gencode arch=compute_$sp_arch,code=sm_$sp_arch"])
    done
    AC_MSG_CHECKING([for a working CUDA compiler])
    AS_IF([test -n "$CUDA_PREFIX" && test -x "$CUDA_PREFIX/bin/nvcc"], [
      NVCC="$CUDA_PREFIX/bin/nvcc"
      sp_cuda_libdir="$CUDA_PREFIX/lib64"
      test -d "$sp_cuda_libdir" || sp_cuda_libdir="$CUDA_PREFIX/lib"
      cat > conftest.cu <<'_SPEOF'
__global__ void sp_probe(int *p) { p@<:@threadIdx.x@:>@ = (int)threadIdx.x; }
int main(void) { int *d = 0; if (cudaMalloc(&d, 4) == cudaSuccess) { sp_probe<<<1, 1>>>(d); cudaFree(d); } return 0; }
_SPEOF
      AS_IF([$NVCC $NVCC_GENCODE -Xcompiler -fPIC -o conftest.cuda conftest.cu -cudart static >&AS_MESSAGE_LOG_FD 2>&1],
        [have_cuda=yes], [have_cuda=no])
      rm -f conftest.cu conftest.cuda
    ])
    AC_MSG_RESULT([$have_cuda])
    AS_IF([test "x$have_cuda" = xno && test "x$with_cuda" != xcheck],
      [AC_MSG_ERROR([--with-cuda given but nvcc in '${CUDA_PREFIX:-PATH}' cannot compile a kernel (see config.log)])])
    AS_IF([test "x$have_cuda" = xyes], [
      CUDA_CFLAGS="-I$CUDA_PREFIX/include"
      CUDA_LIBS="-L$sp_cuda_libdir -lcudart_static -lrt -ldl -lstdc++"
      sp_cuda_summary="yes ($NVCC, code for sm_`echo $CUDA_ARCHS | sed 's/,/, sm_/g'`${CUDA_PTX_ARCH:+; PTX compute_$CUDA_PTX_ARCH})"
      AC_DEFINE([HAVE_CUDA], [1], [Define if the CUDA engine is built.])
      AC_DEFINE_UNQUOTED([SP_CUDA_ARCHS], ["$CUDA_ARCHS"],
        [The GPU architectures the CUDA code is built for (--with-cuda-arch).])
      AC_DEFINE_UNQUOTED([SP_CUDA_PTX_ARCH], [${CUDA_PTX_ARCH:-0}],
        [The architecture of the PTX the CUDA code carries (0: none).])
      AC_DEFINE_UNQUOTED([SP_CUDA_PREFIX], ["$CUDA_PREFIX"],
        [The CUDA toolkit configure found (bench gpu --trace looks for libcupti there).])
    ], [sp_cuda_summary="no (nvcc not found or cannot compile a kernel)"])
  ])
  AC_SUBST([NVCC])
  AC_SUBST([NVCC_GENCODE])
  AC_SUBST([CUDA_CFLAGS])
  AC_SUBST([CUDA_LIBS])
  AC_SUBST([CUDA_PREFIX])
  AC_SUBST([CUDA_ARCHS])
  AC_SUBST([CUDA_PTX_ARCH])
  dnl "all" or the list given: tests/cuda/fatbin_archs.sh checks "all" against nvcc
  AC_SUBST([CUDA_ARCH_REQUEST])
  AM_CONDITIONAL([HAVE_CUDA], [test "x$have_cuda" = xyes])
])
