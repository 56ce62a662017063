# tests/cuda
