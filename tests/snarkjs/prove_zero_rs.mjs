// SPDX-License-Identifier: Apache-2.0 OR MIT
// prove_zero_rs.mjs ZKEY WTNS PROOF.json PUBLIC.json
// snarkjs's own Groth16 prover with its blinding factors r and s forced to zero (its
// curve object is a process-wide singleton, so Fr.random is replaced before proving),
// writing proof.json / public.json as `snarkjs groth16 prove` does (bfj, indent 1).
// The test compares sealprov's `prove --zkey --zero-rs` output with these files.
// A proof without blinding is NOT zero-knowledge: tests only.
import { buildBls12381 } from "ffjavascript";
import * as snarkjs from "snarkjs";
import bfj from "bfj";

const [zkey, wtns, proofOut, publicOut] = process.argv.slice(2);
if (!publicOut) {
  console.error("usage: node prove_zero_rs.mjs ZKEY WTNS PROOF.json PUBLIC.json");
  process.exit(2);
}
const curve = await buildBls12381();
curve.Fr.random = () => curve.Fr.zero;
const { proof, publicSignals } = await snarkjs.groth16.prove(zkey, wtns);
await bfj.write(proofOut, proof, { space: 1 });
await bfj.write(publicOut, publicSignals, { space: 1 });
await curve.terminate();
