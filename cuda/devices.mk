# cuda/devices.mk -- GPU enumeration behind plugin/cuda_api.h (used by plugin/config.c).
if HAVE_CUDA
cuda_libsealprov_cuda_la_SOURCES += cuda/cuda_devices.cu
endif
EXTRA_DIST += cuda/cuda_devices.cu
