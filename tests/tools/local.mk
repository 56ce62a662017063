# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/tools -- the `sealprov` CLI (tools/): its commands end to end, needing only the
# built tools/sealprov and the module; and its host objects against the module's.
# the CLI's Groth16 commands, end to end
TESTS += tests/tools/test_cli.sh
# `sealprov inspect`: every kind of file the project makes or reads, told by its content
TESTS += tests/tools/test_inspect.sh
# witness-only proving from the CLI: setup's circuit.r1cs, `wtns`, `prove --r1cs`
TESTS += tests/tools/test_witness_cli.sh
# what the CLI does with its files: outputs never replace inputs, interrupted writes leave
# nothing, each file option names the kind it got, header checks before the load, where a
# bare --params name is read
TESTS += tests/tools/test_cli_files.sh
# the CLI's progress lines from the module's load lines and its meters: units, each line
# once, the noun (the host library's code, fed the lines a long load logs)
check_PROGRAMS += tests/tools/test_cli_lines
TESTS += tests/tools/test_cli_lines
tests_tools_test_cli_lines_SOURCES = tests/tools/test_cli_lines.c
tests_tools_test_cli_lines_CPPFLAGS = $(SP_HOST_CPPFLAGS)
tests_tools_test_cli_lines_LDADD = tools/libsealprov_host.la $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
# the global options, help, messages, exit statuses
TESTS += tests/tools/cli.sh
# every command's --help: its usage alone, exit 0
TESTS += tests/tools/help_each.sh
# `sealprov prove --device` on three CPU devices
TESTS += tests/tools/prove_device.sh
# devices of different memory and speed (memory_limit, [testing] inject = slow) on CPU
# devices: placement, the refusal at srs_load, the devices and check-config capacity
TESTS += tests/tools/capacity.sh
# `sealprov devices` against fake sysfs trees (tests/runtime/fake_sysfs.sh) and an older
# module (tests/abi/old_module.la)
TESTS += tests/tools/topo_cli.sh
# [provider] unseen_gpus through the module and the CLI (check-config, devices, prove):
# SKIP in a build without CUDA, where cuda sections are refused before it applies.
TESTS += tests/tools/unseen_cli.sh
# The host objects (tools/'s and bench/'s soak and stress) against the module and the kit
# (docs/design.md, rule 15).
TESTS += tests/tools/host_symbols.sh
EXTRA_DIST += tests/tools/cli_lib.sh tests/tools/test_cli.sh tests/tools/test_inspect.sh tests/tools/test_witness_cli.sh \
  tests/tools/test_cli_files.sh tests/tools/cli.sh tests/tools/prove_device.sh \
  tests/tools/topo_cli.sh tests/tools/host_symbols.sh tests/tools/unseen_cli.sh \
  tests/tools/capacity.sh tests/tools/cli_prove_env.sh tests/tools/help_each.sh
