# SPDX-License-Identifier: Apache-2.0 OR MIT
# conf -- the sample configuration. It names CPU devices only, so it works on any
# machine; its cuda examples are commented out. docs/configuration.md documents every
# key. The operator edits the installed $(sysconfdir)/sealprov/sealprov.ini (README),
# so `make install` never writes over one: the sample goes to sealprov.ini.sample every
# time, and to sealprov.ini only where there is none. `make uninstall` removes
# sealprov.ini only while it is still the sample, and says so when it keeps it.
# (tests/install/conf_keep.sh runs these rules into a DESTDIR.)
sealprovconfdir = $(sysconfdir)/sealprov
EXTRA_DIST += conf/sealprov.ini
install-data-local: install-sealprov-ini
uninstall-local: uninstall-sealprov-ini
install-sealprov-ini:
	$(MKDIR_P) '$(DESTDIR)$(sealprovconfdir)'
	$(INSTALL_DATA) $(srcdir)/conf/sealprov.ini '$(DESTDIR)$(sealprovconfdir)/sealprov.ini.sample'
	@if test -f '$(DESTDIR)$(sealprovconfdir)/sealprov.ini'; then \
	  echo "kept $(DESTDIR)$(sealprovconfdir)/sealprov.ini (the new sample is sealprov.ini.sample next to it)"; \
	else \
	  echo " $(INSTALL_DATA) $(srcdir)/conf/sealprov.ini '$(DESTDIR)$(sealprovconfdir)/sealprov.ini'"; \
	  $(INSTALL_DATA) $(srcdir)/conf/sealprov.ini '$(DESTDIR)$(sealprovconfdir)/sealprov.ini'; \
	fi
uninstall-sealprov-ini:
	@d='$(DESTDIR)$(sealprovconfdir)'; \
	if test -f "$$d/sealprov.ini" && ! cmp -s "$$d/sealprov.ini" $(srcdir)/conf/sealprov.ini; then \
	  echo "kept $$d/sealprov.ini: it is not the sample (edited); remove it yourself if you mean to"; \
	else \
	  echo " rm -f '$$d/sealprov.ini'"; rm -f "$$d/sealprov.ini"; \
	fi; \
	echo " rm -f '$$d/sealprov.ini.sample'"; rm -f "$$d/sealprov.ini.sample"
.PHONY: install-sealprov-ini uninstall-sealprov-ini
