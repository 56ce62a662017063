# tests/module
