# SPDX-License-Identifier: Apache-2.0 OR MIT
EXTRA_DIST += docs/abi.md docs/configuration.md docs/formats.md docs/PERFORMANCE.md \
  docs/design.md docs/snarkjs.md
