# tests/groth16
