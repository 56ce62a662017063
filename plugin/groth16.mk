# Groth16 proving on the CPU engine: parameters, proving, assignment files, setup.
plugin_libsealprov_core_la_SOURCES += \
  plugin/srs.h \
  plugin/srs.c \
  plugin/blake2b.h \
  plugin/blake2b.c \
  plugin/groth16.h \
  plugin/groth16.c \
  plugin/engine_cpu.c \
  plugin/spa.h \
  plugin/spa.c \
  plugin/circuit.h \
  plugin/circuit.c \
  plugin/cs.h \
  plugin/cs.c
