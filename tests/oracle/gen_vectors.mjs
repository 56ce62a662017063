// SPDX-License-Identifier: Apache-2.0 OR MIT
// Test vectors for sealprov's BLS12-381 library, computed by @noble/curves.
//
// Why: plugin/bls12_381 must be exactly right (the CUDA engine is tested against it),
// so its tests compare against an implementation nobody here wrote. The vectors are
// committed under tests/bls12_381/vectors/ so that `make check` needs no node or npm; run
// `make regen-vectors` (or `node gen_vectors.mjs OUTDIR`) after changing this script.
//
// Output is deterministic: every random value comes from a SHA-256 counter DRBG seeded
// with SEED below, and noble's own results are deterministic.
//
// File format (all files): one case per line, space-separated tokens, '#' comments.
// Numbers are big-endian hex without 0x: Fr 64 digits, Fp 96 digits. Composite field
// elements are one token, the concatenation of their Fp coefficients:
//   Fp2  = c0 c1                                     (192 digits)
//   Fp6  = c0.c0 c0.c1 c1.c0 c1.c1 c2.c0 c2.c1       (576 digits)
//   Fp12 = the order of fp12_to_bytes in bls12_381.h (1152 digits):
//          c0.c0.c0 c0.c0.c1 c0.c1.c0 ... c1.c2.c1
// Point encodings are the zcash/bellperson byte strings in hex (see bls12_381.h).
// Each file's header says what its lines mean.

import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';
import { rootsOfUnity, FFT } from '@noble/curves/abstract/fft.js';

const SEED = 'sealprov-bls12-381-vectors-v1';
const here = dirname(fileURLToPath(import.meta.url));
const NOBLE_VERSION = JSON.parse(
  readFileSync(join(here, 'node_modules/@noble/curves/package.json'), 'utf8')).version;
const outDir = process.argv[2] || join(here, '../bls12_381/vectors');

const { Fp, Fp2, Fp6, Fp12, Fr } = bls.fields;
const G1 = bls.G1.Point;
const G2 = bls.G2.Point;
const P = Fp.ORDER;
const R = Fr.ORDER;

// ---------------------------------------------------------------- randomness
class Drbg {
  constructor(seed) { this.seed = seed; this.counter = 0; this.pool = Buffer.alloc(0); }
  bytes(n) {
    while (this.pool.length < n) {
      const h = createHash('sha256').update(this.seed).update(String(this.counter++)).digest();
      this.pool = Buffer.concat([this.pool, h]);
    }
    const out = this.pool.subarray(0, n);
    this.pool = this.pool.subarray(n);
    return Buffer.from(out);
  }
  big(nbytes) { return BigInt('0x' + this.bytes(nbytes).toString('hex')); }
  below(m) { return this.big(64) % m; }          // bias < 2^-128, irrelevant here
  int(n) { return Number(this.big(4) % BigInt(n)); }
}
const rng = new Drbg(SEED);

// ---------------------------------------------------------------- encoding
const hexN = (v, digits) => {
  const s = v.toString(16);
  if (s.length > digits) throw new Error(`value ${s} wider than ${digits} hex digits`);
  return s.padStart(digits, '0');
};
const frHex = (v) => hexN(v, 64);
const fpHex = (v) => hexN(v, 96);
const fp2Hex = (a) => fpHex(a.c0) + fpHex(a.c1);
const fp6Hex = (a) => fp2Hex(a.c0) + fp2Hex(a.c1) + fp2Hex(a.c2);
const fp12Hex = (a) => fp6Hex(a.c0) + fp6Hex(a.c1);
const bytesHex = (b) => Buffer.from(b).toString('hex');
const fromHex = (h) => Uint8Array.from(Buffer.from(h, 'hex'));

const HALF_P = (P - 1n) / 2n;
const fpLargest = (v) => v > HALF_P;
const fp2Largest = (a) => (a.c1 !== 0n ? fpLargest(a.c1) : fpLargest(a.c0));

// Our own zcash encoder: noble refuses to serialize points outside the subgroup, and
// the rejection tests need exactly those. It is checked against noble's toBytes on
// every valid point below, so it cannot drift from the oracle.
function g1Encode(x, y, inf, compressed) {
  const len = compressed ? 48 : 96;
  const out = new Uint8Array(len);
  if (inf) { out[0] = compressed ? 0xc0 : 0x40; return out; }
  out.set(fromHex(fpHex(x)), 0);
  if (!compressed) out.set(fromHex(fpHex(y)), 48);
  else out[0] |= 0x80 | (fpLargest(y) ? 0x20 : 0);
  return out;
}
function g2Encode(x, y, inf, compressed) {
  const len = compressed ? 96 : 192;
  const out = new Uint8Array(len);
  if (inf) { out[0] = compressed ? 0xc0 : 0x40; return out; }
  out.set(fromHex(fpHex(x.c1) + fpHex(x.c0)), 0);
  if (!compressed) out.set(fromHex(fpHex(y.c1) + fpHex(y.c0)), 96);
  else out[0] |= 0x80 | (fp2Largest(y) ? 0x20 : 0);
  return out;
}
const g1Bytes = (pt, compressed) => {
  const inf = pt.is0();
  const a = inf ? { x: 0n, y: 0n } : pt.toAffine();
  const mine = g1Encode(a.x, a.y, inf, compressed);
  // noble will not encode infinity; check that it decodes our encoding to infinity
  if (inf ? !G1.fromBytes(mine).is0() : bytesHex(pt.toBytes(compressed)) !== bytesHex(mine))
    throw new Error('G1 encoder disagrees with noble');
  return bytesHex(mine);
};
const g2Bytes = (pt, compressed) => {
  const inf = pt.is0();
  const a = inf ? { x: Fp2.ZERO, y: Fp2.ZERO } : pt.toAffine();
  const mine = g2Encode(a.x, a.y, inf, compressed);
  if (inf ? !G2.fromBytes(mine).is0() : bytesHex(pt.toBytes(compressed)) !== bytesHex(mine))
    throw new Error('G2 encoder disagrees with noble');
  return bytesHex(mine);
};

function writeVectors(name, header, lines) {
  const text = header.map((l) => '# ' + l).join('\n') + '\n' + lines.join('\n') + '\n';
  writeFileSync(join(outDir, name), text);
  console.log(`${name}: ${lines.length} lines, ${text.length} bytes`);
}
const provenance = `generated by tests/oracle/gen_vectors.mjs with @noble/curves ${NOBLE_VERSION}, seed "${SEED}"`;

// ---------------------------------------------------------------- helpers
const pick = (n) => rng.int(n);
function fpRand() { return rng.below(P); }
function frRand() { return rng.below(R); }
function fp2Rand() { return Fp2.create({ c0: fpRand(), c1: fpRand() }); }
function fp6Rand() { return Fp6.create({ c0: fp2Rand(), c1: fp2Rand(), c2: fp2Rand() }); }
function fp12Rand() { return Fp12.create({ c0: fp6Rand(), c1: fp6Rand() }); }

// Edge values every prime-field pool starts with: they hit the carries and the final
// conditional subtractions that random values almost never reach.
function edgeValues(m, limbBits) {
  const v = [0n, 1n, 2n, 3n, m - 1n, m - 2n, (m - 1n) / 2n, (m + 1n) / 2n,
    (1n << 64n) - 1n, 1n << 64n, (1n << 128n) % m, (1n << 192n) % m,
    (1n << BigInt(limbBits)) % m, ((1n << BigInt(limbBits)) - 1n) % m];
  return [...new Set(v)];
}

// ---------------------------------------------------------------- Fr
function genFr() {
  const pool = edgeValues(R, 256);
  while (pool.length < 96) pool.push(frRand());
  const lines = pool.map((v) => 'v ' + frHex(v));
  const two = () => [pick(pool.length), pick(pool.length)];
  let cases = 0;
  for (let k = 0; k < 250; k++) { const [i, j] = two(); lines.push(`add ${i} ${j} ${frHex(Fr.add(pool[i], pool[j]))}`); cases++; }
  for (let k = 0; k < 250; k++) { const [i, j] = two(); lines.push(`sub ${i} ${j} ${frHex(Fr.sub(pool[i], pool[j]))}`); cases++; }
  for (let k = 0; k < 300; k++) { const [i, j] = two(); lines.push(`mul ${i} ${j} ${frHex(Fr.mul(pool[i], pool[j]))}`); cases++; }
  for (let k = 0; k < 150; k++) { const i = pick(pool.length); lines.push(`sqr ${i} ${frHex(Fr.sqr(pool[i]))}`); cases++; }
  for (let k = 0; k < 200; k++) {
    const i = pick(pool.length);
    // inverse of 0 is defined by bls12_381.h as "returns false, result 0"
    lines.push(`inv ${i} ${pool[i] === 0n ? 'none' : frHex(Fr.inv(pool[i]))}`); cases++;
  }
  lines.push(`inv 0 none`); cases++;
  for (let k = 0; k < 100; k++) { const i = pick(pool.length); lines.push(`neg ${i} ${frHex(Fr.neg(pool[i]))}`); cases++; }
  for (let k = 0; k < 80; k++) {
    const i = pick(pool.length);
    const e = k < 10 ? BigInt(k) : rng.big(32); // exponents up to 2^256, not reduced
    lines.push(`pow ${i} ${frHex(e)} ${frHex(Fr.pow(pool[i], e))}`); cases++;
  }
  for (let k = 0; k < 80; k++) {
    const wide = rng.bytes(64);
    if (k === 0) wide.fill(0xff);
    // fr_from_bytes_wide reads 64 bytes little-endian and reduces mod r
    const val = BigInt('0x' + Buffer.from(wide).reverse().toString('hex')) % R;
    lines.push(`wide ${wide.toString('hex')} ${frHex(val)}`); cases++;
  }
  // fr_root_of_unity(k): the primitive 2^k-th root 7^((r-1)/2^k) (noble's rootsOfUnity
  // with generator 7; bellperson/blst use the same one).
  const roots = rootsOfUnity(Fr, 7n);
  for (let k = 0; k <= 32; k++) {
    const w = Fr.pow(7n, (R - 1n) >> BigInt(k));
    // noble's table stops at 2^31; for k = 32 check primitivity directly: w^(2^31) = -1
    if (k < 32 && w !== roots.omega(k)) throw new Error('root of unity mismatch');
    if (k === 32 && Fr.pow(w, 1n << 31n) !== R - 1n) throw new Error('2^32-th root not primitive');
    lines.push(`root ${k} ${frHex(w)}`); cases++;
  }
  writeVectors('fr.txt', [
    provenance,
    'Fr (scalar field), values canonical big-endian, 64 hex digits.',
    'v X            pool entry (index = order of appearance, from 0)',
    'add I J X / sub I J X / mul I J X: pool[I] op pool[J]',
    'sqr I X / neg I X: op(pool[I]);  inv I X|none: inverse, none for 0',
    'pow I E X: pool[I]^E, E a 256-bit integer (not reduced mod r)',
    'wide B X: B = 64 bytes as hex (little-endian number), X = B mod r',
    'root K X: primitive 2^K-th root of unity 7^((r-1)/2^K)',
    `${cases} cases`,
  ], lines);
}

// ---------------------------------------------------------------- Fp
function genFp() {
  const pool = edgeValues(P, 384);
  pool.push(4n, P - 4n); // x = 0 on G1 gives y^2 = 4
  while (pool.length < 120) pool.push(fpRand());
  const lines = pool.map((v) => 'v ' + fpHex(v));
  const two = () => [pick(pool.length), pick(pool.length)];
  let cases = 0;
  for (let k = 0; k < 220; k++) { const [i, j] = two(); lines.push(`add ${i} ${j} ${fpHex(Fp.add(pool[i], pool[j]))}`); cases++; }
  for (let k = 0; k < 220; k++) { const [i, j] = two(); lines.push(`sub ${i} ${j} ${fpHex(Fp.sub(pool[i], pool[j]))}`); cases++; }
  for (let k = 0; k < 300; k++) { const [i, j] = two(); lines.push(`mul ${i} ${j} ${fpHex(Fp.mul(pool[i], pool[j]))}`); cases++; }
  for (let k = 0; k < 150; k++) { const i = pick(pool.length); lines.push(`sqr ${i} ${fpHex(Fp.sqr(pool[i]))}`); cases++; }
  for (let k = 0; k < 150; k++) {
    const i = pick(pool.length);
    lines.push(`inv ${i} ${pool[i] === 0n ? 'none' : fpHex(Fp.inv(pool[i]))}`); cases++;
  }
  lines.push(`inv 0 none`); cases++;
  for (let k = 0; k < 80; k++) { const i = pick(pool.length); lines.push(`neg ${i} ${fpHex(Fp.neg(pool[i]))}`); cases++; }
  // sqrt: noble returns one of the two roots; the test accepts either sign but checks
  // it against noble's root, and 'none' for non-residues.
  for (let k = 0; k < 200; k++) {
    let i = pick(pool.length);
    if (k % 2 === 0) { // make half of them squares so both branches are exercised
      const sq = Fp.sqr(pool[i]);
      pool.push(sq); lines.push('v ' + fpHex(sq)); i = pool.length - 1;
    }
    let root = 'none';
    try { root = fpHex(Fp.sqrt(pool[i])); } catch (e) { root = 'none'; }
    lines.push(`sqrt ${i} ${root}`); cases++;
  }
  for (let k = 0; k < 60; k++) {
    const i = pick(pool.length);
    const e = k < 6 ? BigInt(k) : rng.big(48);
    lines.push(`pow ${i} ${fpHex(e)} ${fpHex(Fp.pow(pool[i], e))}`); cases++;
  }
  for (let i = 0; i < 40; i++) { lines.push(`largest ${i} ${fpLargest(pool[i]) ? 1 : 0}`); cases++; }
  writeVectors('fp.txt', [
    provenance,
    'Fp (base field), values canonical big-endian, 96 hex digits.',
    'v X: pool entry (index = order of appearance among v lines, from 0)',
    'add/sub/mul I J X, sqr/neg I X, inv I X|none, pow I E X (E 384-bit)',
    'sqrt I X|none: X is noble\'s root (either sign is correct), none = non-residue',
    'largest I B: B = 1 if pool[I] > (p-1)/2 (zcash sign rule)',
    `${cases} cases`,
  ], lines);
}

// ---------------------------------------------------------------- Fp2
function genFp2() {
  const pool = [Fp2.ZERO, Fp2.ONE, Fp2.create({ c0: 0n, c1: 1n }), Fp2.create({ c0: P - 1n, c1: P - 1n }),
    Fp2.create({ c0: 1n, c1: 1n }), Fp2.create({ c0: 5n, c1: 0n }), Fp2.create({ c0: 0n, c1: P - 1n })];
  while (pool.length < 80) pool.push(fp2Rand());
  const lines = pool.map((v) => 'v ' + fp2Hex(v));
  const two = () => [pick(pool.length), pick(pool.length)];
  let cases = 0;
  for (let k = 0; k < 150; k++) { const [i, j] = two(); lines.push(`add ${i} ${j} ${fp2Hex(Fp2.add(pool[i], pool[j]))}`); cases++; }
  for (let k = 0; k < 150; k++) { const [i, j] = two(); lines.push(`sub ${i} ${j} ${fp2Hex(Fp2.sub(pool[i], pool[j]))}`); cases++; }
  for (let k = 0; k < 250; k++) { const [i, j] = two(); lines.push(`mul ${i} ${j} ${fp2Hex(Fp2.mul(pool[i], pool[j]))}`); cases++; }
  for (let k = 0; k < 120; k++) { const i = pick(pool.length); lines.push(`sqr ${i} ${fp2Hex(Fp2.sqr(pool[i]))}`); cases++; }
  for (let k = 0; k < 150; k++) {
    const i = pick(pool.length);
    lines.push(`inv ${i} ${Fp2.is0(pool[i]) ? 'none' : fp2Hex(Fp2.inv(pool[i]))}`); cases++;
  }
  for (let k = 0; k < 40; k++) { const i = pick(pool.length); lines.push(`neg ${i} ${fp2Hex(Fp2.neg(pool[i]))}`); cases++; }
  for (let k = 0; k < 40; k++) { const i = pick(pool.length); lines.push(`conj ${i} ${fp2Hex(Fp2.frobeniusMap(pool[i], 1)) /* conjugation = Frobenius on Fp2 */}`); cases++; }
  for (let k = 0; k < 60; k++) { const i = pick(pool.length); lines.push(`mulnr ${i} ${fp2Hex(Fp2.mulByNonresidue(pool[i]))}`); cases++; }
  for (let k = 0; k < 40; k++) {
    const i = pick(pool.length); const pw = k % 4;
    lines.push(`frob ${i} ${pw} ${fp2Hex(Fp2.frobeniusMap(pool[i], pw))}`); cases++;
  }
  for (let k = 0; k < 120; k++) {
    let i = pick(pool.length);
    if (k % 2 === 0) {
      const sq = Fp2.sqr(pool[i]);
      pool.push(sq); lines.push('v ' + fp2Hex(sq)); i = pool.length - 1;
    }
    let root = 'none';
    try { root = fp2Hex(Fp2.sqrt(pool[i])); } catch (e) { root = 'none'; }
    lines.push(`sqrt ${i} ${root}`); cases++;
  }
  for (let i = 0; i < 40; i++) { lines.push(`largest ${i} ${fp2Largest(pool[i]) ? 1 : 0}`); cases++; }
  writeVectors('fp2.txt', [
    provenance,
    'Fp2 = Fp[u]/(u^2+1); element token = c0 then c1, each 96 hex digits big-endian.',
    'v X: pool entry; add/sub/mul I J X; sqr/neg/conj I X; inv I X|none',
    'mulnr I X: pool[I] * (u+1);  frob I K X: Frobenius^K',
    'sqrt I X|none: X = noble\'s root (either sign is correct)',
    'largest I B: zcash sign rule (c1, or c0 when c1 = 0)',
    `${cases} cases`,
  ], lines);
}

// ---------------------------------------------------------------- Fp6 and Fp12
function genFp12() {
  const pool6 = [Fp6.ZERO, Fp6.ONE];
  while (pool6.length < 12) pool6.push(fp6Rand());
  const lines = pool6.map((v) => 'v6 ' + fp6Hex(v));
  let cases6 = 0;
  for (let k = 0; k < 30; k++) {
    const i = pick(pool6.length), j = pick(pool6.length);
    lines.push(`mul6 ${i} ${j} ${fp6Hex(Fp6.mul(pool6[i], pool6[j]))}`); cases6++;
  }
  for (let k = 0; k < 10; k++) { const i = pick(pool6.length); lines.push(`sqr6 ${i} ${fp6Hex(Fp6.sqr(pool6[i]))}`); cases6++; }
  for (let k = 0; k < 15; k++) {
    const i = 1 + pick(pool6.length - 1);
    lines.push(`inv6 ${i} ${fp6Hex(Fp6.inv(pool6[i]))}`); cases6++;
  }
  for (let k = 0; k < 10; k++) { const i = pick(pool6.length); lines.push(`mulnr6 ${i} ${fp6Hex(Fp6.mulByNonresidue(pool6[i]))}`); cases6++; }
  for (let k = 0; k < 18; k++) {
    const i = pick(pool6.length); const pw = k % 6;
    lines.push(`frob6 ${i} ${pw} ${fp6Hex(Fp6.frobeniusMap(pool6[i], pw))}`); cases6++;
  }

  const pool = [Fp12.ONE];
  while (pool.length < 24) pool.push(fp12Rand());
  for (const v of pool) lines.push('v ' + fp12Hex(v));
  let cases = 0;
  for (let k = 0; k < 520; k++) {
    const i = pick(pool.length), j = pick(pool.length);
    lines.push(`mul ${i} ${j} ${fp12Hex(Fp12.mul(pool[i], pool[j]))}`); cases++;
  }
  for (let k = 0; k < 150; k++) { const i = pick(pool.length); lines.push(`sqr ${i} ${fp12Hex(Fp12.sqr(pool[i]))}`); cases++; }
  for (let k = 0; k < 250; k++) { const i = pick(pool.length); lines.push(`inv ${i} ${fp12Hex(Fp12.inv(pool[i]))}`); cases++; }
  for (let k = 0; k < 24; k++) { const i = pick(pool.length); lines.push(`conj ${i} ${fp12Hex(Fp12.conjugate(pool[i]))}`); cases++; }
  for (let k = 0; k < 48; k++) {
    const i = pick(pool.length); const pw = [1, 2, 3, 6, 0, 4, 5, 7, 8, 9, 10, 11][k % 12];
    lines.push(`frob ${i} ${pw} ${fp12Hex(Fp12.frobeniusMap(pool[i], pw))}`); cases++;
  }
  for (let k = 0; k < 10; k++) {
    const i = pick(pool.length); const e = k < 2 ? BigInt(k) : rng.big(32);
    lines.push(`pow ${i} ${frHex(e)} ${fp12Hex(Fp12.pow(pool[i], e))}`); cases++;
  }
  writeVectors('fp12.txt', [
    provenance,
    'Fp6 = Fp2[v]/(v^3 - (u+1)); token = c0.c0 c0.c1 c1.c0 c1.c1 c2.c0 c2.c1 (96 hex each).',
    'Fp12 = Fp6[w]/(w^2 - v); token = the 576 bytes of fp12_to_bytes (bls12_381.h) in hex.',
    'v6 X: Fp6 pool entry; mul6 I J X, sqr6/inv6/mulnr6 I X (mulnr6 = times v), frob6 I K X',
    'v X: Fp12 pool entry; mul I J X, sqr/inv/conj I X, frob I K X, pow I E X (E 256-bit)',
    `${cases6} Fp6 cases, ${cases} Fp12 cases`,
  ], lines);
}

// ---------------------------------------------------------------- curves
// Double-and-add with noble's point operations, for multiples noble's multiply()
// refuses (scalars >= r, points outside the subgroup).
function mulAny(pt, k, Zero) {
  let acc = Zero;
  for (let b = BigInt(k.toString(2).length) - 1n; b >= 0n; b--) {
    acc = acc.double();
    if ((k >> b) & 1n) acc = acc.add(pt);
  }
  return acc;
}

const ERR = ['LENGTH', 'FLAGS', 'NONCANONICAL', 'NOT_ON_CURVE', 'NOT_IN_SUBGROUP'];

function genCurve(which) {
  const isG1 = which === 'g1';
  const Pt = isG1 ? G1 : G2;
  const enc = isG1 ? g1Bytes : g2Bytes;
  const rawEnc = isG1 ? g1Encode : g2Encode;
  const ulen = isG1 ? 96 : 192, clen = ulen / 2;
  const lines = [];
  const pts = [];
  const addPt = (k) => {
    const pt = k === 0n ? Pt.ZERO : Pt.BASE.multiply(k);
    pts.push({ k, pt });
    lines.push(`pt ${frHex(k)} ${enc(pt, false)} ${enc(pt, true)}`);
  };
  for (const k of [0n, 1n, 2n, 3n, R - 1n, R - 2n, (R - 1n) / 2n]) addPt(k);
  while (pts.length < 64) addPt(1n + rng.below(R - 1n));
  // scalar multiplication of arbitrary points (not only the generator)
  for (let n = 0; n < 40; n++) {
    const i = 1 + pick(pts.length - 1);
    const k = n < 4 ? [0n, 1n, 2n, R - 1n][n] : rng.below(R);
    const res = k === 0n ? Pt.ZERO : pts[i].pt.multiply(k);
    lines.push(`mul ${i} ${frHex(k)} ${enc(res, false)}`);
  }
  // additions including P + P, P + (-P), P + 0
  for (let n = 0; n < 40; n++) {
    let i = pick(pts.length), j = pick(pts.length);
    if (n === 0) j = i;
    if (n === 1) { i = 1; j = 4; } // G + (r-1)G = 0
    if (n === 2) j = 0;
    lines.push(`add ${i} ${j} ${enc(pts[i].pt.add(pts[j].pt), false)}`);
  }
  for (let n = 0; n < 10; n++) {
    const i = pick(pts.length);
    lines.push(`dbl ${i} ${enc(pts[i].pt.double(), false)}`);
  }

  // ---- points on the curve but outside the prime-order subgroup
  const F = isG1 ? Fp : Fp2;
  const B = isG1 ? 4n : Fp2.create({ c0: 4n, c1: 4n });
  const rhs = (x) => F.add(F.mul(F.sqr(x), x), B);
  const randX = isG1 ? fpRand : fp2Rand;
  const nosub = [];
  const addNosub = (x, y) => {
    const pt = new Pt(x, y, F.ONE);
    if (pt.isTorsionFree()) throw new Error('expected a point outside the subgroup');
    if (!F.eql(F.sqr(y), rhs(x))) throw new Error('expected a point on the curve');
    nosub.push({ x, y, pt });
  };
  if (isG1) addNosub(0n, 2n);            // (0, 2) has order 3
  while (nosub.length < 12) {
    const x = randX();
    let y;
    try { y = F.sqrt(rhs(x)); } catch (e) { continue; }
    addNosub(x, y);
  }
  // r * (random curve point): a pure torsion point of order dividing the cofactor
  for (const src of [nosub[nosub.length - 1], nosub[nosub.length - 2]]) {
    const a = mulAny(src.pt, R, Pt.ZERO).toAffine();
    addNosub(a.x, a.y);
  }
  // G1 point plus a point of order 3: order 3r, passes naive-looking shortcuts
  {
    const a = Pt.BASE.multiply(12345n).add(nosub[0].pt).toAffine();
    addNosub(a.x, a.y);
  }
  for (const { x, y, pt } of nosub) {
    const u = bytesHex(rawEnc(x, y, false, false)), c = bytesHex(rawEnc(x, y, false, true));
    // noble's decoder rejects these; ours must too when asked for the subgroup check
    for (const h of [u, c]) {
      let threw = false;
      try { Pt.fromBytes(fromHex(h)); } catch (e) { threw = true; }
      if (!threw) throw new Error('noble accepted a point outside the subgroup');
    }
    lines.push(`nosub ${u} ${c}`);
    void pt;
  }

  // ---- rejection cases: bytes, expected error (with and without subgroup check)
  const rejects = [];
  const reject = (why, bytes, err) => {
    if (!ERR.includes(err)) throw new Error(err);
    let threw = false;
    try { Pt.fromBytes(bytes); } catch (e) { threw = true; }
    if (!threw) throw new Error(`noble accepted reject case "${why}"`);
    rejects.push(`reject ${err} ${bytes.length ? bytesHex(bytes) : '-'} ${why}`);
  };
  const base = pts[5 + pick(pts.length - 5)].pt.toAffine();
  const U = fromHex(enc(Pt.fromAffine(base), false));
  const C = fromHex(enc(Pt.fromAffine(base), true));
  const mod = (b, f) => { const c = Uint8Array.from(b); f(c); return c; };

  for (const len of isG1 ? [0, 1, 47, 49, 95, 97, 192] : [0, 48, 95, 97, 191, 193, 384]) {
    const b = new Uint8Array(len);
    b.set((len >= ulen ? U : C).subarray(0, Math.min(len, len >= ulen ? ulen : clen)));
    reject(`length_${len}`, b, 'LENGTH');
  }
  reject('compressed_without_c_flag', mod(C, (c) => { c[0] &= 0x7f; }), 'FLAGS');
  reject('uncompressed_with_c_flag', mod(U, (c) => { c[0] |= 0x80; }), 'FLAGS');
  reject('uncompressed_with_sign', mod(U, (c) => { c[0] |= 0x20; }), 'FLAGS');
  reject('uncompressed_with_inf_flag_and_point', mod(U, (c) => { c[0] |= 0x40; }), 'FLAGS');
  reject('compressed_with_inf_flag_and_point', mod(C, (c) => { c[0] |= 0x40; }), 'FLAGS');
  reject('compressed_inf_with_sign', mod(new Uint8Array(clen), (c) => { c[0] = 0xe0; }), 'FLAGS');
  reject('compressed_inf_nonzero_last', mod(new Uint8Array(clen), (c) => { c[0] = 0xc0; c[clen - 1] = 1; }), 'FLAGS');
  reject('compressed_inf_nonzero_first', mod(new Uint8Array(clen), (c) => { c[0] = 0xc1; }), 'FLAGS');
  reject('uncompressed_inf_nonzero_y', mod(new Uint8Array(ulen), (c) => { c[0] = 0x40; c[ulen - 1] = 1; }), 'FLAGS');
  reject('uncompressed_inf_with_sign', mod(new Uint8Array(ulen), (c) => { c[0] = 0x60; }), 'FLAGS');
  reject('uncompressed_inf_with_c_flag', mod(new Uint8Array(ulen), (c) => { c[0] = 0xc0; }), 'FLAGS');

  // non-canonical coordinates: a valid point with p added to one coordinate, so that
  // the coordinate's only defect is being >= p. Needs coordinate + p < 2^381.
  const LIMIT = (1n << 381n) - P;
  const findPoint = (pred) => {
    for (let n = 0; n < 5000; n++) {
      const pt = Pt.BASE.multiply(1n + rng.below(R - 1n));
      if (pred(pt.toAffine())) return pt.toAffine();
    }
    throw new Error('no suitable point');
  };
  const setFp = (b, off, v) => b.set(fromHex(fpHex(v)), off);
  const setFpFlags = (b, off, v) => { const f = b[off] & 0xe0; setFp(b, off, v); b[off] |= f; };
  if (isG1) {
    const a = findPoint((q) => q.x < LIMIT);
    const ua = fromHex(enc(Pt.fromAffine(a), false)), ca = fromHex(enc(Pt.fromAffine(a), true));
    reject('x_plus_p_uncompressed', mod(ua, (c) => setFpFlags(c, 0, a.x + P)), 'NONCANONICAL');
    reject('x_plus_p_compressed', mod(ca, (c) => setFpFlags(c, 0, a.x + P)), 'NONCANONICAL');
    const b = findPoint((q) => q.y < LIMIT);
    const ub = fromHex(enc(Pt.fromAffine(b), false));
    reject('y_plus_p_uncompressed', mod(ub, (c) => setFp(c, 48, b.y + P)), 'NONCANONICAL');
    reject('x_eq_p_compressed', mod(C, (c) => setFpFlags(c, 0, P)), 'NONCANONICAL');
    reject('x_max_compressed', mod(C, (c) => setFpFlags(c, 0, (1n << 381n) - 1n)), 'NONCANONICAL');
    reject('x_eq_p_uncompressed', mod(U, (c) => setFpFlags(c, 0, P)), 'NONCANONICAL');
    reject('y_eq_p_uncompressed', mod(U, (c) => setFp(c, 48, P)), 'NONCANONICAL');
    reject('y_plus_one', mod(U, (c) => setFp(c, 48, Fp.add(base.y, 1n))), 'NOT_ON_CURVE');
    reject('x_plus_one_uncompressed', mod(U, (c) => setFpFlags(c, 0, Fp.add(base.x, 1n))), 'NOT_ON_CURVE');
    reject('origin_uncompressed', new Uint8Array(96), 'NOT_ON_CURVE');
  } else {
    // G2 bytes: x.c1 at 0, x.c0 at 48, y.c1 at 96, y.c0 at 144
    const fields = [['x_c1', 0, (q) => q.x.c1], ['x_c0', 48, (q) => q.x.c0],
      ['y_c1', 96, (q) => q.y.c1], ['y_c0', 144, (q) => q.y.c0]];
    for (const [name, off, get] of fields) {
      const a = findPoint((q) => get(q) < LIMIT);
      const ua = fromHex(enc(Pt.fromAffine(a), false));
      reject(`${name}_plus_p_uncompressed`, mod(ua, (c) => setFpFlags(c, off, get(a) + P)), 'NONCANONICAL');
      if (off < 96) {
        const ca = fromHex(enc(Pt.fromAffine(a), true));
        reject(`${name}_plus_p_compressed`, mod(ca, (c) => setFpFlags(c, off, get(a) + P)), 'NONCANONICAL');
      }
      reject(`${name}_eq_p_uncompressed`, mod(U, (c) => setFpFlags(c, off, P)), 'NONCANONICAL');
    }
    reject('x_c1_max_compressed', mod(C, (c) => setFpFlags(c, 0, (1n << 381n) - 1n)), 'NONCANONICAL');
    reject('y_c0_plus_one', mod(U, (c) => setFp(c, 144, Fp.add(base.y.c0, 1n))), 'NOT_ON_CURVE');
    reject('y_c1_plus_one', mod(U, (c) => setFp(c, 96, Fp.add(base.y.c1, 1n))), 'NOT_ON_CURVE');
    reject('origin_uncompressed', new Uint8Array(192), 'NOT_ON_CURVE');
  }
  // compressed x for which x^3 + b has no square root
  for (let n = 0, found = 0; found < 4 && n < 1000; n++) {
    const x = randX();
    let ok = true;
    try { F.sqrt(rhs(x)); } catch (e) { ok = false; }
    if (ok) continue;
    found++;
    const zeroY = isG1 ? 0n : Fp2.ZERO;
    reject(`x_without_y_${found}`, rawEnc(x, zeroY, false, true), 'NOT_ON_CURVE');
  }
  // the valid infinity encodings decode to infinity
  lines.push(`inf ${bytesHex(rawEnc(0n, 0n, true, false))} ${bytesHex(rawEnc(0n, 0n, true, true))}`);
  for (const enc0 of [rawEnc(0n, 0n, true, false), rawEnc(0n, 0n, true, true)])
    if (!Pt.fromBytes(enc0).is0()) throw new Error('noble: infinity');
  lines.push(...rejects);

  const name = isG1 ? 'G1' : 'G2';
  writeVectors(`${which}.txt`, [
    provenance,
    `${name} points. Encodings: zcash/bellperson, uncompressed ${ulen} bytes, compressed ${clen} bytes, hex.`,
    'pt K U C: K*generator (K in Fr, 64 hex digits), U uncompressed, C compressed (index = order among pt lines)',
    'mul I K U: K * pt[I];  add I J U: pt[I] + pt[J];  dbl I U: 2 pt[I]',
    'nosub U C: a point on the curve outside the prime-order subgroup (decodes without the',
    '           subgroup check; rejected with BLS_ERR_NOT_IN_SUBGROUP with it)',
    'inf U C: the infinity encodings',
    'reject ERR HEX WHY: decoding HEX fails with BLS_ERR_<ERR> (with and without the subgroup',
    '           check); HEX "-" = empty input. noble rejects every one of these too.',
  ], lines);
}

// ---------------------------------------------------------------- pairing
function genPairing() {
  const lines = [];
  const gt = bls.pairing(G1.BASE, G2.BASE);
  lines.push(`gen ${fp12Hex(gt)}`);
  for (let n = 0; n < 6; n++) {
    const a = 1n + rng.below(R - 1n), b = 1n + rng.below(R - 1n);
    const res = bls.pairing(G1.BASE.multiply(a), G2.BASE.multiply(b));
    if (!Fp12.eql(res, Fp12.pow(gt, Fr.mul(a, b)))) throw new Error('noble bilinearity');
    lines.push(`pair ${frHex(a)} ${frHex(b)} ${fp12Hex(res)}`);
  }
  // product of pairings, computed by noble with one final exponentiation
  for (const n of [2, 3, 5]) {
    const ks = [];
    const pairs = [];
    for (let i = 0; i < n; i++) {
      const a = 1n + rng.below(R - 1n), b = 1n + rng.below(R - 1n);
      ks.push(frHex(a), frHex(b));
      pairs.push({ g1: G1.BASE.multiply(a), g2: G2.BASE.multiply(b) });
    }
    const res = bls.pairingBatch(pairs);
    lines.push(`multi ${n} ${ks.join(' ')} ${fp12Hex(res)}`);
  }
  writeVectors('pairing.txt', [
    provenance,
    'Optimal ate pairing, results as fp12_to_bytes hex (1152 digits).',
    'gen X: e(G1 generator, G2 generator)',
    'pair A B X: e(A*g1, B*g2)',
    'multi N A1 B1 ... AN BN X: prod_i e(Ai*g1, Bi*g2) (noble pairingBatch)',
  ], lines);
}

// ---------------------------------------------------------------- NTT
function genNtt() {
  const roots = rootsOfUnity(Fr, 7n);
  const fft = FFT(roots, {
    add: (a, b) => Fr.add(a, b), sub: (a, b) => Fr.sub(a, b),
    mul: (a, b) => Fr.mul(a, b), inv: (a) => Fr.inv(a),
  });
  const lines = [];
  const g = 7n;
  for (const logn of [1, 2, 3, 4, 5, 6]) {
    const n = 1 << logn;
    const coeffs = Array.from({ length: n }, () => frRand());
    const evals = fft.direct(coeffs);
    lines.push(`fwd ${logn} ${coeffs.map(frHex).join(' ')} ${evals.map(frHex).join(' ')}`);
    const vals = Array.from({ length: n }, () => frRand());
    lines.push(`inv ${logn} ${vals.map(frHex).join(' ')} ${fft.inverse(vals).map(frHex).join(' ')}`);
    // coset: evaluations at g * omega^i = NTT of (a_i g^i)
    const c2 = Array.from({ length: n }, () => frRand());
    const scaled = c2.map((c, i) => Fr.mul(c, Fr.pow(g, BigInt(i))));
    lines.push(`cfwd ${logn} ${c2.map(frHex).join(' ')} ${fft.direct(scaled).map(frHex).join(' ')}`);
    const v2 = Array.from({ length: n }, () => frRand());
    const ginv = Fr.inv(g);
    const back = fft.inverse(v2).map((c, i) => Fr.mul(c, Fr.pow(ginv, BigInt(i))));
    lines.push(`cinv ${logn} ${v2.map(frHex).join(' ')} ${back.map(frHex).join(' ')}`);
  }
  writeVectors('ntt.txt', [
    provenance,
    'NTT over Fr with omega = 7^((r-1)/n) (noble rootsOfUnity(Fr, 7) + FFT), natural order.',
    'OP LOGN IN[0..n-1] OUT[0..n-1], values canonical big-endian 64 hex digits:',
    'fwd: coefficients -> evaluations at omega^i;  inv: the inverse (with 1/n)',
    'cfwd: coefficients -> evaluations at 7 omega^i;  cinv: its inverse',
  ], lines);
}

mkdirSync(outDir, { recursive: true });
genFr();
genFp();
genFp2();
genFp12();
genCurve('g1');
genCurve('g2');
genPairing();
genNtt();
