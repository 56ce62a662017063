# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/tree -- the rules of the tree (docs/design.md, "Layers"): no symbol of the
# developer kit or of bench/ in sealprov.so (nm, every symbol), no #include of a higher
# layer's header in plugin/, cuda/, kit/, tools/, bench/, no file of the product folders
# over 800 lines, no function of the shipped C over 80 lines without its reason, no
# tuning by environment variables and no stdout/stderr writes in the module (its sources
# and sealprov.so), no comment that cites an issue number or the lab notebook.
TESTS += tests/tree/kit_symbols.sh tests/tree/layers.sh tests/tree/file_lengths.sh \
  tests/tree/function_lengths.sh tests/tree/no_tuning_env.sh tests/tree/comment_refs.sh
EXTRA_DIST += tests/tree/kit_symbols.sh tests/tree/layers.sh tests/tree/file_lengths.sh \
  tests/tree/function_lengths.sh tests/tree/no_tuning_env.sh tests/tree/comment_refs.sh
