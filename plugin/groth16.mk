# Groth16 proving on the CPU engine: parameters, proving, assignment files, setup.
plugin_libsealprov_core_la_SOURCES += \
  plugin/srs.h
