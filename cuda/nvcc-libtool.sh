#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Lets libtool drive nvcc: libtool adds gcc-style -fPIC/-DPIC and dependency flags
# that nvcc does not take directly; pass them through -Xcompiler.
nvcc=$1; shift
for a in "$@"; do
  shift
  case $a in
    -fPIC|-fpic) set -- "$@" -Xcompiler "$a" ;;
    -pthread)    set -- "$@" -Xcompiler -pthread ;;
    -fsanitize=*|-fno-omit-frame-pointer|-fno-sanitize-recover=*) ;;  # host sanitizers stay on the C side
    *)           set -- "$@" "$a" ;;
  esac
done
exec "$nvcc" "$@"
