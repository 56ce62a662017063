# tools/groth16.mk -- the Groth16 commands of the CLI: setup, prove, verify, inspect,
# demo, bench, stress, soak.
tools_sealprov_SOURCES += \
  tools/g16_util.h \
  tools/g16_util.c \
  tools/g16_prove.c \
  tools/cmd_setup.c \
  tools/cmd_prove.c \
  tools/cmd_verify.c \
  tools/snarkjs_json.h \
  tools/snarkjs_json.c \
  tools/cmd_inspect.c \
  tools/cmd_demo.c \
  tools/cmd_bench.c
tools_sealprov_SOURCES += tools/cmd_stress.c tools/cmd_soak.c
tools_sealprov_SOURCES += tools/witness.h tools/witness.c
