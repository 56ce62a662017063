# plugin/config.mk -- the INI device table (plugin/runtime/config.c, inih).
plugin_libsealprov_core_la_SOURCES += plugin/runtime/config.c plugin/runtime/config.h
