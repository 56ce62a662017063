# Groth16 proving on the CPU engine: parameters, proving, assignment files, setup.
plugin_libsealprov_core_la_SOURCES += \
  plugin/formats/srs.h \
  plugin/formats/srs.c \
  plugin/formats/blake2b.h \
  plugin/formats/blake2b.c \
  plugin/groth16/groth16.h \
  plugin/groth16/groth16.c \
  plugin/engine/engine_cpu.c \
  kit/spa.h \
  kit/spa.c \
  kit/circuit.h \
  kit/circuit.c \
  plugin/formats/cs.h \
  plugin/formats/cs.c
