# tools/groth16.mk (fragment)
