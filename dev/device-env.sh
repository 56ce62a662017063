# SPDX-License-Identifier: Apache-2.0 OR MIT
# Sourced on the GPU machine (no network, no libtool/libinih/check there): unpacks the
# Debian packages carried in .deb/ (libinih, check, subunit, libxxhash0 and
# libxxhash-dev: fetched on a machine with network by `apt-get download libinih1
# libinih-dev check libsubunit0 libsubunit-dev libxxhash0 libxxhash-dev`) into
# /tmp/sp-prefix, each once (a package added later is unpacked at the next sourcing), and
# points pkg-config, the compiler and the loader at them. The tree must carry the
# generated build files (configure, Makefile.in, config.h.in, aclocal.m4, build-aux/):
# a `make dist` tarball. dev/device-build.sh builds one with it (the commands are there);
# by hand: `. dev/device-env.sh` at the top of the repository (where .deb/ is), then in
# the unpacked tarball `./configure --with-cuda --enable-fault-injection && make`.
sp_px=/tmp/sp-prefix
sp_new=
for f in .deb/*.deb; do
  [ -f "$sp_px/.unpacked-${f##*/}" ] && continue
  mkdir -p "$sp_px" && dpkg -x "$f" "$sp_px" && touch "$sp_px/.unpacked-${f##*/}" && sp_new=1
done
if [ -n "$sp_new" ]; then
  for pc in "$sp_px"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc; do
    sed -i "s|^prefix=/usr|prefix=$sp_px/usr|; s|=/usr/|=$sp_px/usr/|g" "$pc"
  done
  # .so symlinks in -dev packages are absolute on some packages; recreate them. None is
  # made for a library whose runtime package is not carried (libINIReader), and such a
  # name is no error (callers may set -e).
  (cd "$sp_px/usr/lib/x86_64-linux-gnu" && for l in *.so; do
     [ -e "$l" ] && continue
     t=$(ls "$l".* 2>/dev/null | head -1)
     [ -z "$t" ] || ln -sf "${t##*/}" "$l"
   done; true)
fi
export PKG_CONFIG_PATH="$sp_px/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$sp_px/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LIBRARY_PATH="$sp_px/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
export CPATH="$sp_px/usr/include${CPATH:+:$CPATH}"
export NCCL_NVLS_ENABLE=0
