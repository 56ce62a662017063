# SP_CHECK_CUDA: --with-cuda[=PREFIX] / --without-cuda, --with-cuda-arch=LIST.
# Detection compiles and links a real __global__ kernel with nvcc; finding a file
# named nvcc is not enough. Sets HAVE_CUDA (AM_CONDITIONAL and config.h), NVCC,
# NVCC_GENCODE, CUDA_CFLAGS, CUDA_LIBS, sp_cuda_summary.
AC_DEFUN([SP_CHECK_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda@<:@=PREFIX@:>@],
       [build the CUDA engine (default: auto-detect in /usr/local/cuda and PATH)])],
    [], [with_cuda=check])
  AC_ARG_WITH([cuda-arch],
    [AS_HELP_STRING([--with-cuda-arch=LIST],
       [comma-separated compute capabilities to build for (default: 90)])],
    [], [with_cuda_arch=90])
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
    sp_save_IFS=$IFS; IFS=,
    for sp_arch in $with_cuda_arch; do
      IFS=$sp_save_IFS
      AS_CASE([$sp_arch], [*[[!0-9a]]*|""],
        [AC_MSG_ERROR([--with-cuda-arch: '$sp_arch' is not a compute capability like 90 or 90a])])
      NVCC_GENCODE="$NVCC_GENCODE -gencode arch=compute_$sp_arch,code=sm_$sp_arch"
    done
    IFS=$sp_save_IFS
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
      sp_cuda_summary="yes ($NVCC, archs: $with_cuda_arch)"
      AC_DEFINE([HAVE_CUDA], [1], [Define if the CUDA engine is built.])
    ], [sp_cuda_summary="no (nvcc not found or cannot compile a kernel)"])
  ])
  AC_SUBST([NVCC])
  AC_SUBST([NVCC_GENCODE])
  AC_SUBST([CUDA_CFLAGS])
  AC_SUBST([CUDA_LIBS])
  AC_SUBST([CUDA_PREFIX])
  AM_CONDITIONAL([HAVE_CUDA], [test "x$have_cuda" = xyes])
])
