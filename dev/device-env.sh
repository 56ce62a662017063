# SPDX-License-Identifier: Apache-2.0 OR MIT
# Sourced on the GPU machine (no network, no libtool/libinih/check there): unpacks the
# Debian packages carried in .deb/ (libinih, check, subunit) into /tmp/sp-prefix and
# points pkg-config, the compiler and the loader at them. The tree must carry the
# generated build files (configure, Makefile.in, config.h.in, aclocal.m4, build-aux/):
# a `make dist` tarball. dev/device-build.sh builds one with it (the commands are there);
# by hand: `. dev/device-env.sh` at the top of the repository (where .deb/ is), then in
# the unpacked tarball `./configure --with-cuda --enable-fault-injection && make`.
sp_px=/tmp/sp-prefix
if [ ! -d "$sp_px/usr" ]; then
  for f in .deb/*.deb; do dpkg -x "$f" "$sp_px"; done
  for pc in "$sp_px"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc; do
    sed -i "s|^prefix=/usr|prefix=$sp_px/usr|; s|=/usr/|=$sp_px/usr/|g" "$pc"
  done
  # .so symlinks in -dev packages are absolute on some packages; recreate them.
  # (none is made for a library whose runtime package is not carried: libINIReader)
  (cd "$sp_px/usr/lib/x86_64-linux-gnu" && for l in *.so; do
     t=$(ls "$l".* 2>/dev/null | head -1)
     [ -e "$l" ] || [ -z "$t" ] || ln -sf "$(basename "$t")" "$l"; done)
fi
export PKG_CONFIG_PATH="$sp_px/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$sp_px/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LIBRARY_PATH="$sp_px/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
export CPATH="$sp_px/usr/include${CPATH:+:$CPATH}"
export NCCL_NVLS_ENABLE=0
