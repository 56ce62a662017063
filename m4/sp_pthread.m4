dnl SPDX-License-Identifier: Apache-2.0 OR MIT
# AX_PTHREAD_SIMPLE: -pthread works with the C compiler (gcc/clang on Linux).
AC_DEFUN([AX_PTHREAD_SIMPLE], [
  AC_MSG_CHECKING([whether $CC accepts -pthread])
  sp_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -pthread"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <pthread.h>]],
                   [[pthread_t t; return pthread_create(&t, 0, 0, 0);]])],
    [AC_MSG_RESULT([yes]); PTHREAD_CFLAGS=-pthread; PTHREAD_LIBS=-pthread],
    [AC_MSG_RESULT([no]); AC_MSG_ERROR([POSIX threads are required])])
  CFLAGS=$sp_save_CFLAGS
  AC_SUBST([PTHREAD_CFLAGS])
  AC_SUBST([PTHREAD_LIBS])
])
