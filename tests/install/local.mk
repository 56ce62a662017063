# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/install -- `make installcheck` (run by `make distcheck` after its `make install`):
# the installed CLI, module and sample INI (sealprov check-config, sealprov devices), and
# the C host of docs/integration.md's section 8 built with pkg-config against the
# installed libsealprov_c2 and run, as its shell block says (installcheck.sh).
EXTRA_DIST += tests/install/installcheck.sh tests/install/conf_keep.sh
# make install and make uninstall keep an INI the operator edited (conf/local.mk)
TESTS += tests/install/conf_keep.sh
installcheck-local:
	bindir='$(bindir)' libdir='$(libdir)' sysconfdir='$(sysconfdir)' \
	  top_srcdir='$(abs_top_srcdir)' $(SHELL) $(top_srcdir)/tests/install/installcheck.sh
