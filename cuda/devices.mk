# cuda/devices.mk -- GPU enumeration behind cuda/util/cuda_api.h (used by plugin/runtime/config.c).
if HAVE_CUDA
cuda_libsealprov_cuda_la_SOURCES += cuda/util/cuda_devices.cu
endif
EXTRA_DIST += cuda/util/cuda_devices.cu
