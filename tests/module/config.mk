# tests/module/config.mk (fragment)
