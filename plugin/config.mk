# plugin/config.mk (fragment)
