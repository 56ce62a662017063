# SPDX-License-Identifier: Apache-2.0 OR MIT
# examples -- hosts of the module in other languages. examples/go: a Go host through
# cgo and include/sealprov.h, a Go module of its own (go.mod, no requirements);
# tests/examples/go_example.sh runs the build and run lines of its header as written
# (offline, caches in the build tree) when go is installed, else skips.
EXTRA_DIST += examples/go/main.go examples/go/go.mod tests/examples/go_example.sh
TESTS += tests/examples/go_example.sh
