# tests/bls
