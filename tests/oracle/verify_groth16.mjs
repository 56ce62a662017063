// SPDX-License-Identifier: Apache-2.0 OR MIT
// verify_groth16.mjs -- an independent Groth16 verifier for sealprov's files, built
// only on @noble/curves (none of sealprov's C code is involved).
//
// usage: node verify_groth16.mjs --vk FILE.vk --proofs PROOFS.bin [--first N]
//            PARTITION.spa...
//        node verify_groth16.mjs --vk FILE.vk --proof-hex HEX --inputs-hex HEX,HEX,...
//
// Proof i of PROOFS.bin (192 bytes each: compressed A || B || C) is checked against the
// public inputs of the i-th .spa file (inputs without the leading ONE); --first N
// starts at proof N. Prints one line per proof ("proof 3: valid" / "proof 3: invalid:
// reason") and exits 0 if every proof verifies, 1 if any does not, 2 on bad usage or
// unreadable files.
//
// Check: e(A, B) == e(alpha, beta) * e(X, gamma) * e(C, delta),
//        X = ic[0] + sum_i inputs[i] * ic[i+1].
import { readFileSync } from 'node:fs';
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';

const { Fp12 } = bls.fields;
const G1 = bls.G1.Point;
const G2 = bls.G2.Point;
const P = bls.fields.Fp.ORDER;
const R = bls.fields.Fr.ORDER;

function fail(msg) {
  console.error(`verify_groth16: ${msg}`);
  process.exit(2);
}

function beBig(bytes) {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function leBig(bytes) {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]);
  return v;
}

// noble reduces non-canonical coordinates modulo p; the zcash encoding forbids them,
// so check each 48-byte big-endian coordinate (flag bits masked) ourselves.
function checkCanonical(bytes, what) {
  for (let off = 0; off < bytes.length; off += 48) {
    const c = Uint8Array.from(bytes.subarray(off, off + 48));
    if (off === 0) c[0] &= 0x1f;
    if (beBig(c) >= P) throw new Error(`${what}: coordinate >= p`);
  }
}

// Uncompressed (vk) or compressed (proof) point; fromBytes checks curve and subgroup.
function g1(bytes, what) {
  checkCanonical(bytes, what);
  const p = G1.fromBytes(bytes);
  if (p.is0()) throw new Error(`${what}: point at infinity`);
  return p;
}

function g2(bytes, what) {
  checkCanonical(bytes, what);
  const p = G2.fromBytes(bytes);
  if (p.is0()) throw new Error(`${what}: point at infinity`);
  return p;
}

// .vk: alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 (uncompressed), u32 BE
// ic_len, ic[ic_len]. Also accepts a whole .params file (only its head is read).
function readVk(path) {
  const buf = readFileSync(path);
  let off = 0;
  const take = (n, what) => {
    if (off + n > buf.length) fail(`${path}: truncated reading ${what} at byte offset ${off}`);
    const s = buf.subarray(off, off + n);
    off += n;
    return s;
  };
  try {
    const vk = {};
    vk.alpha = g1(take(96, 'alpha_g1'), 'alpha_g1');
    vk.beta1 = g1(take(96, 'beta_g1'), 'beta_g1');
    vk.beta = g2(take(192, 'beta_g2'), 'beta_g2');
    vk.gamma = g2(take(192, 'gamma_g2'), 'gamma_g2');
    vk.delta1 = g1(take(96, 'delta_g1'), 'delta_g1');
    vk.delta = g2(take(192, 'delta_g2'), 'delta_g2');
    const n = take(4, 'ic_len').readUInt32BE(0);
    vk.ic = [];
    for (let i = 0; i < n; i++) vk.ic.push(g1(take(96, `ic[${i}]`), `ic[${i}]`));
    return vk;
  } catch (e) {
    fail(`${path}: ${e.message}`);
  }
}

// Public inputs of a .spa file (docs/formats.md): header of 96 bytes with
// abc_size at 16 and inp_size at 24 (u64 LE); inputs follow a, b and c.
function readSpaInputs(path) {
  const buf = readFileSync(path);
  if (buf.length < 96 || buf.subarray(0, 8).toString('latin1') !== 'SEALSPA1')
    fail(`${path}: not a sealprov assignment file`);
  const abc = buf.readBigUInt64LE(16);
  const inp = buf.readBigUInt64LE(24);
  const start = 96n + 3n * 32n * abc;
  if (start + 32n * inp > BigInt(buf.length)) fail(`${path}: truncated`);
  const out = [];
  for (let i = 0n; i < inp; i++) {
    const o = Number(start + 32n * i);
    out.push(leBig(buf.subarray(o, o + 32)));
  }
  if (out.length === 0 || out[0] !== 1n) fail(`${path}: input 0 is not ONE`);
  return out.slice(1);
}

function verify(vk, proof, inputs) {
  if (proof.length !== 192) return `proof has ${proof.length} bytes, not 192`;
  if (inputs.length !== vk.ic.length - 1)
    return `${inputs.length} inputs, the key expects ${vk.ic.length - 1}`;
  let A, B, C;
  try {
    A = g1(proof.subarray(0, 48), 'A');
    B = g2(proof.subarray(48, 144), 'B');
    C = g1(proof.subarray(144, 192), 'C');
  } catch (e) {
    return `proof does not decode: ${e.message}`;
  }
  let X = vk.ic[0];
  for (let i = 0; i < inputs.length; i++) {
    if (inputs[i] >= R) return `input ${i + 1} is not < r`;
    X = X.add(vk.ic[i + 1].multiplyUnsafe(inputs[i]));
  }
  if (X.is0()) return 'accumulated input point is infinity';
  const lhs = bls.pairing(A, B);
  const rhs = Fp12.mul(
    Fp12.mul(bls.pairing(vk.alpha, vk.beta), bls.pairing(X, vk.gamma)),
    bls.pairing(C, vk.delta),
  );
  return Fp12.eql(lhs, rhs) ? null : 'pairing check failed';
}

const args = process.argv.slice(2);
let vkPath, proofsPath, proofHex, inputsHex;
let first = 0;
const spas = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--vk') vkPath = args[++i];
  else if (a === '--proofs') proofsPath = args[++i];
  else if (a === '--first') first = Number(args[++i]);
  else if (a === '--proof-hex') proofHex = args[++i];
  else if (a === '--inputs-hex') inputsHex = args[++i];
  else if (a.startsWith('--')) fail(`unknown option ${a}`);
  else spas.push(a);
}
if (!vkPath) fail('--vk is required');
const vk = readVk(vkPath);

const jobs = [];
if (proofHex !== undefined) {
  const inputs = inputsHex ? inputsHex.split(',').filter((s) => s.length).map((h) => BigInt('0x' + h)) : [];
  jobs.push({ name: 'proof 0', proof: Buffer.from(proofHex, 'hex'), inputs });
} else {
  if (!proofsPath || spas.length === 0) fail('need --proofs FILE and .spa files (or --proof-hex)');
  const all = readFileSync(proofsPath);
  if (all.length % 192 !== 0) fail(`${proofsPath}: ${all.length} bytes is not a multiple of 192`);
  spas.forEach((spa, k) => {
    const i = first + k;
    if (192 * (i + 1) > all.length) fail(`${proofsPath}: no proof ${i} (${all.length / 192} proofs)`);
    jobs.push({ name: `proof ${i}`, proof: all.subarray(192 * i, 192 * (i + 1)), inputs: readSpaInputs(spa) });
  });
}
let bad = 0;
for (const j of jobs) {
  const why = verify(vk, j.proof, j.inputs);
  if (why === null) console.log(`${j.name}: valid`);
  else {
    bad++;
    console.log(`${j.name}: invalid: ${why}`);
  }
}
process.exit(bad ? 1 : 0);
