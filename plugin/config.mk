# plugin/config.mk -- the INI device table (plugin/config.c, inih).
plugin_libsealprov_core_la_SOURCES += plugin/config.c plugin/config.h plugin/cuda_api.h
