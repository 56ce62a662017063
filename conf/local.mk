# SPDX-License-Identifier: Apache-2.0 OR MIT
# conf -- the sample configuration, installed as $(sysconfdir)/sealprov/sealprov.ini.
# It names CPU devices only, so it works on any machine; its cuda examples are
# commented out. docs/configuration.md documents every key.
sealprovconfdir = $(sysconfdir)/sealprov
sealprovconf_DATA = conf/sealprov.ini
EXTRA_DIST += conf/sealprov.ini
