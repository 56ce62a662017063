# SPDX-License-Identifier: Apache-2.0 OR MIT
# examples -- hosts of the module in other languages. examples/go: a Go host through
# cgo and include/sealprov.h; tests/examples/go_example.sh builds it offline (no Go
# modules; caches in the build tree) and runs it when go is installed, else skips.
EXTRA_DIST += examples/go/main.go tests/examples/go_example.sh
TESTS += tests/examples/go_example.sh
