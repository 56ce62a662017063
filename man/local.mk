# SPDX-License-Identifier: Apache-2.0 OR MIT
# man -- sealprov(1) and sealprov.ini(5), installed by `make install`. The pages are
# made from man/*.in with the configured paths and version; tests/man/man_pages.sh
# renders them and checks that every CLI command and INI key is documented.
nodist_man_MANS = man/sealprov.1 man/sealprov.ini.5
EXTRA_DIST += man/sealprov.1.in man/sealprov.ini.5.in
CLEANFILES += $(nodist_man_MANS)

# ([@]X[@]: config.status must not substitute these in the Makefile itself.) The pages
# are made in the build tree and not distributed (nodist): the .in files are.
SP_MAN_SED = sed -e 's|[@]PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g' \
  -e 's|[@]pkglibdir[@]|$(pkglibdir)|g' -e 's|[@]sysconfdir[@]|$(sysconfdir)|g' \
  -e 's|[@]pkglibexecdir[@]|$(pkglibexecdir)|g'

man/sealprov.1: $(srcdir)/man/sealprov.1.in Makefile
	$(AM_V_GEN)$(MKDIR_P) man && $(SP_MAN_SED) $(srcdir)/man/sealprov.1.in > $@.tmp && mv $@.tmp $@
man/sealprov.ini.5: $(srcdir)/man/sealprov.ini.5.in Makefile
	$(AM_V_GEN)$(MKDIR_P) man && $(SP_MAN_SED) $(srcdir)/man/sealprov.ini.5.in > $@.tmp && mv $@.tmp $@

# Rendered with man(1) or groff; every command of tools/main.c's table and every key
# of plugin/runtime/ini.c's key tables must appear (skips with 77 without either tool).
TESTS += tests/man/man_pages.sh
EXTRA_DIST += tests/man/man_pages.sh
