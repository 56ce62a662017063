// SPDX-License-Identifier: Apache-2.0 OR MIT
// The Go example is a module of its own, with no requirements: it uses only "C" and the
// standard library, so `go build` needs no network. go 1.19 is Debian 12's Go.
module sealprov-go-example

go 1.19
