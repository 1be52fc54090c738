// SPAKE2+ prover (RFC 9383, P256-SHA256-HKDF-SHA256-HMAC-SHA256) against
// the RFC's Appendix C vectors as the Go package transcribed them
// (pake/spake2plus/testdata), registration's encoding and reduction against
// values built here from their definitions, and the prover's refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { scrypt } from '@noble/hashes/scrypt.js';
import {
  SPAKE2PlusProver, spake2plusRegister, spake2plusTranscript, spake2plusKeySchedule, spake2plusScryptPBKDF,
} from '../src/spake2plus.js';
import { scryptHere } from '../src/stretch.js';
import { concat, fromHex, toHex, utf8 } from '../src/bytes.js';
import { AuthError, KexlabError, ProtocolError } from '../src/errors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// dist/test -> clients/ts -> repository root -> pake/spake2plus/testdata
const vectorFile = path.resolve(here, '../../../../pake/spake2plus/testdata/rfc9383-appendix-c.json');

const SUITE = 'P256-SHA256-HKDF-SHA256-HMAC-SHA256';
type Vector = Record<string, string>;
const all = (JSON.parse(readFileSync(vectorFile, 'utf8')) as { vectors: Vector[] }).vectors;
// This module implements the HMAC-SHA256 suite only. The file's other
// vector (P256-SHA256-HKDF-SHA256-CMAC-AES-128) is left out of the full
// prover test on purpose: its confirmP/confirmV are CMAC tags. It shares
// the group, hash and KDF, so its suite-independent values (shareP, TT,
// K_main, K_shared, the confirmation keys' bytes) are still checked below.
const hmacVectors = all.filter((v) => v.suite === SUITE);
const shared = all.filter((v) => v.suite === SUITE || v.suite === 'P256-SHA256-HKDF-SHA256-CMAC-AES-128');

const Point = p256.Point;
const n = Point.Fn.ORDER;
const b = (v: Vector, k: string) => {
  const s = v[k];
  assert.ok(s !== undefined, `vector has no ${k}`);
  return fromHex(s);
};
const s = (v: Vector, k: string) => utf8(v[k]!);
const be = (x: bigint, len: number) => fromHex(x.toString(16).padStart(2 * len, '0'));
const le64 = (len: number) => {
  const out = new Uint8Array(8);
  for (let i = 0, x = len; i < 8; i++, x = Math.floor(x / 256)) out[i] = x % 256;
  return out;
};

test('vector counts: 1 HMAC-SHA256 vector, 2 sharing group/hash/KDF', () => {
  assert.equal(all.length, 2);
  assert.equal(hmacVectors.length, 1);
  assert.equal(shared.length, 2);
});

for (const v of hmacVectors) {
  test(`RFC 9383 C ${v.suite}: prover messages and keys`, () => {
    const pr = new SPAKE2PlusProver(s(v, 'context'), s(v, 'idProver'), s(v, 'idVerifier'), b(v, 'w0'), b(v, 'w1'), b(v, 'x'));
    assert.throws(() => pr.sharedKey, Error);
    assert.equal(toHex(pr.start()), v.shareP, 'shareP');
    const confirmP = pr.finish(concat(b(v, 'shareV'), b(v, 'confirmV')));
    assert.equal(toHex(confirmP), v.confirmP, 'confirmP');
    assert.equal(toHex(pr.sharedKey), v.K_shared, 'K_shared');
    // Misuse after the end is refused; the key stays.
    assert.throws(() => pr.finish(concat(b(v, 'shareV'), b(v, 'confirmV'))), (e: unknown) => e instanceof Error && !(e instanceof KexlabError));
    assert.equal(toHex(pr.sharedKey), v.K_shared);
  });

  test(`RFC 9383 C ${v.suite}: transcript and key schedule`, () => {
    const k = spake2plusKeySchedule(b(v, 'TT'));
    assert.equal(toHex(k.K_main), v.K_main, 'K_main');
    assert.equal(toHex(k.K_confirmP), v.K_confirmP, 'K_confirmP');
    assert.equal(toHex(k.K_confirmV), v.K_confirmV, 'K_confirmV');
    assert.equal(toHex(k.K_shared), v.K_shared, 'K_shared');
  });

  test(`RFC 9383 C ${v.suite}: registration reproduces w0, w1, L`, async () => {
    // The RFC gives w0 and w1, not w0s || w1s: a PBKDF output of
    // 0^8 || w0 || 0^8 || w1 has w0s = w0 and w1s = w1 (both below p), so
    // Register must return them unchanged and L = w1*P must be the RFC's.
    const out = concat(new Uint8Array(8), b(v, 'w0'), new Uint8Array(8), b(v, 'w1'));
    const r = await spake2plusRegister(utf8('pw'), s(v, 'idProver'), s(v, 'idVerifier'), async () => out.slice());
    assert.equal(toHex(r.w0), v.w0);
    assert.equal(toHex(r.w1), v.w1);
    assert.equal(toHex(r.L), v.L, 'L');
  });
}

for (const v of shared) {
  test(`RFC 9383 C ${v.suite}: suite-independent values`, () => {
    const pr = new SPAKE2PlusProver(s(v, 'context'), s(v, 'idProver'), s(v, 'idVerifier'), b(v, 'w0'), b(v, 'w1'), b(v, 'x'));
    assert.equal(toHex(pr.start()), v.shareP, 'shareP');
    const tt = spake2plusTranscript(s(v, 'context'), s(v, 'idProver'), s(v, 'idVerifier'),
      b(v, 'shareP'), b(v, 'shareV'), b(v, 'Z'), b(v, 'V'), b(v, 'w0'));
    assert.equal(toHex(tt), v.TT, 'TT');
    const k = spake2plusKeySchedule(tt);
    assert.equal(toHex(k.K_main), v.K_main, 'K_main');
    assert.equal(toHex(k.K_shared), v.K_shared, 'K_shared');
    // HKDF output is a prefix of a longer one with the same info: the
    // vector's K_confirmP || K_confirmV (32 or 64 bytes) starts ours.
    const want = v.K_confirmP! + v.K_confirmV!;
    assert.equal(toHex(concat(k.K_confirmP, k.K_confirmV)).slice(0, want.length), want, 'K_confirmP || K_confirmV');
  });
}

test('register: PBKDF input encoding and output length', async () => {
  const pw = utf8('correct horse'), idP = utf8('alice'), idV = utf8('kexlab');
  let got: Uint8Array | undefined, gotRef: Uint8Array | undefined, gotN = 0;
  await spake2plusRegister(pw, idP, idV, async (input, len) => {
    got = input.slice();
    gotRef = input;
    gotN = len;
    return new Uint8Array(80).fill(1);
  });
  // Go Register's documented input: len(pw) || pw || len(idProver) ||
  // idProver || len(idVerifier) || idVerifier, 8-byte little-endian lengths.
  const want = concat(le64(13), pw, le64(5), idP, le64(6), idV);
  assert.equal(toHex(got!), toHex(want));
  assert.equal(gotN, 80);
  assert.ok(gotRef!.every((x) => x === 0), 'the input is wiped after the PBKDF settles');
  // Empty identities still get their length fields.
  await spake2plusRegister(utf8('p'), new Uint8Array(0), new Uint8Array(0), async (input) => {
    got = input.slice();
    return new Uint8Array(80).fill(1);
  });
  assert.equal(toHex(got!), toHex(concat(le64(1), utf8('p'), le64(0), le64(0))));
});

test('register: 40-byte halves reduced modulo the group order', async () => {
  const cases: [bigint, bigint][] = [
    [2n ** 320n - 1n, 2n ** 320n - 2n],
    [n + 5n, 7n * n + 7n],
    [1n, n - 1n],
  ];
  for (const [w0s, w1s] of cases) {
    const r = await spake2plusRegister(utf8('pw'), utf8('a'), utf8('b'), async () => concat(be(w0s, 40), be(w1s, 40)));
    assert.equal(toHex(r.w0), toHex(be(w0s % n, 32)));
    assert.equal(toHex(r.w1), toHex(be(w1s % n, 32)));
    assert.equal(toHex(r.L), toHex(Point.BASE.multiply(w1s % n).toBytes(false)), 'L = w1*P');
    assert.equal(r.L.length, 65);
  }
});

test('register: refusals are RangeErrors', async () => {
  const ok = async () => new Uint8Array(80).fill(1);
  await assert.rejects(spake2plusRegister(new Uint8Array(0), utf8('a'), utf8('b'), ok), RangeError);
  await assert.rejects(spake2plusRegister(utf8('pw'), utf8('a'), utf8('b'), async () => new Uint8Array(79).fill(1)), RangeError);
  await assert.rejects(spake2plusRegister(utf8('pw'), utf8('a'), utf8('b'), async () => concat(be(n, 40), be(1n, 40))), RangeError, 'w0 = 0');
  await assert.rejects(spake2plusRegister(utf8('pw'), utf8('a'), utf8('b'), async () => concat(be(1n, 40), be(3n * n, 40))), RangeError, 'w1 = 0');
});

test('register: the scrypt PBKDF is scrypt(input, salt, N, r, p, 80)', async () => {
  const salt = fromHex('000102030405060708090a0b0c0d0e0f');
  const pw = utf8('pw'), idP = utf8('u'), idV = utf8('kexlab');
  const r = await spake2plusRegister(pw, idP, idV, spake2plusScryptPBKDF(scryptHere, salt, { N: 1024, r: 8, p: 1 }));
  const direct = scrypt(concat(le64(2), pw, le64(1), idP, le64(6), idV), salt, { N: 1024, r: 8, p: 1, dkLen: 80 });
  const w0 = BigInt('0x' + toHex(direct.subarray(0, 40))) % n;
  assert.equal(toHex(r.w0), toHex(be(w0, 32)));
});

// A verifier written here from RFC 9383 §3.3-3.4 with @noble/curves, to run
// the prover with a random x.
function verifierRespond(shareP: Uint8Array, w0: bigint, L: Uint8Array, ctx: Uint8Array, idP: Uint8Array, idV: Uint8Array) {
  const M = Point.fromHex('02886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f');
  const N = Point.fromHex('03d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49');
  const y = 0x1234567890abcdefn * 0xfedcba987654321n;
  const shareV = Point.BASE.multiply(y).add(N.multiply(w0)).toBytes(false);
  const u = Point.fromBytes(shareP).subtract(M.multiply(w0));
  const Z = u.multiply(y).toBytes(false), V = Point.fromBytes(L).multiply(y).toBytes(false);
  const k = spake2plusKeySchedule(spake2plusTranscript(ctx, idP, idV, shareP, shareV, Z, V, be(w0, 32)));
  return { msg: concat(shareV, hmac(sha256, k.K_confirmV, shareP)), confirmP: hmac(sha256, k.K_confirmP, shareV), key: k.K_shared };
}

test('random x: an exchange with a verifier, and with a wrong password', async () => {
  const ctx = utf8('kexlab service v1'), idP = utf8('alice'), idV = utf8('kexlab');
  const pbkdf = (seed: number) => async () => new Uint8Array(80).map((_, i) => (i * 31 + seed) & 0xff);
  const reg = await spake2plusRegister(utf8('pw'), idP, idV, pbkdf(1));
  const w0 = BigInt('0x' + toHex(reg.w0));
  const p1 = new SPAKE2PlusProver(ctx, idP, idV, reg.w0, reg.w1);
  const X1 = p1.start();
  assert.equal(X1.length, 65);
  const ans = verifierRespond(X1, w0, reg.L, ctx, idP, idV);
  assert.equal(toHex(p1.finish(ans.msg)), toHex(ans.confirmP));
  assert.equal(toHex(p1.sharedKey), toHex(ans.key));
  // Two provers draw different x.
  const p2 = new SPAKE2PlusProver(ctx, idP, idV, reg.w0, reg.w1);
  assert.notEqual(toHex(p2.start()), toHex(X1));
  // Wrong password: other w0, w1; the verifier answers with the record's.
  const bad = await spake2plusRegister(utf8('pw2'), idP, idV, pbkdf(2));
  const p3 = new SPAKE2PlusProver(ctx, idP, idV, bad.w0, bad.w1);
  assert.throws(() => p3.finish(ans.msg), (e: unknown) => e instanceof Error && !(e instanceof KexlabError), 'finish before start');
  const p4 = new SPAKE2PlusProver(ctx, idP, idV, bad.w0, bad.w1);
  assert.throws(() => p4.finish(verifierRespond(p4.start(), w0, reg.L, ctx, idP, idV).msg), AuthError);
});

const v0 = hmacVectors[0]!;
function vectorProver(): SPAKE2PlusProver {
  const pr = new SPAKE2PlusProver(s(v0, 'context'), s(v0, 'idProver'), s(v0, 'idVerifier'), b(v0, 'w0'), b(v0, 'w1'), b(v0, 'x'));
  pr.start();
  return pr;
}

test('finish: a tampered confirmV is an AuthError, and the prover is dead', () => {
  const msg = concat(b(v0, 'shareV'), b(v0, 'confirmV'));
  msg[msg.length - 1]! ^= 1;
  const pr = vectorProver();
  assert.throws(() => pr.finish(msg), AuthError);
  assert.throws(() => pr.sharedKey, Error);
  assert.throws(() => pr.finish(concat(b(v0, 'shareV'), b(v0, 'confirmV'))), (e: unknown) => e instanceof Error && !(e instanceof KexlabError));
  // confirmV of another share: also AuthError.
  const msg2 = concat(b(v0, 'shareV'), b(v0, 'confirmP'));
  assert.throws(() => vectorProver().finish(msg2), AuthError);
});

test('finish: malformed shareV is a ProtocolError', () => {
  const shareV = b(v0, 'shareV'), confirmV = b(v0, 'confirmV');
  const offCurve = shareV.slice();
  offCurve[64]! ^= 1;
  const compressed = Point.fromBytes(shareV).toBytes(true);
  const w0N = Point.fromHex('03d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49')
    .multiply(BigInt('0x' + v0.w0)).toBytes(false);
  const xTooBig = concat(Uint8Array.of(4), be(Point.Fp.ORDER + 3n, 32), shareV.subarray(33));
  const bad: [string, Uint8Array][] = [
    ['not on the curve', concat(offCurve, confirmV)],
    ['identity as 04 || 0^64', concat(Uint8Array.of(4), new Uint8Array(64), confirmV)],
    ['identity as the byte 00', concat(Uint8Array.of(0), confirmV)],
    ['compressed shareV', concat(compressed, confirmV)],
    ['compressed prefix on 65 bytes', concat(Uint8Array.of(2), shareV.subarray(1), confirmV)],
    ['x not below the field prime', concat(xTooBig, confirmV)],
    ['shareV = w0*N, cancelling the mask', concat(w0N, confirmV)],
    ['one byte short', concat(shareV, confirmV).subarray(0, 96)],
    ['one byte long', concat(shareV, confirmV, Uint8Array.of(0))],
    ['empty', new Uint8Array(0)],
  ];
  for (const [name, msg] of bad) {
    const pr = vectorProver();
    assert.throws(() => pr.finish(msg), ProtocolError, name);
    assert.throws(() => pr.sharedKey, Error, name);
  }
});

test('out of order calls and bad scalars', () => {
  const ctx = s(v0, 'context'), idP = s(v0, 'idProver'), idV = s(v0, 'idVerifier');
  const pr = new SPAKE2PlusProver(ctx, idP, idV, b(v0, 'w0'), b(v0, 'w1'));
  assert.throws(() => pr.finish(concat(b(v0, 'shareV'), b(v0, 'confirmV'))), (e: unknown) => e instanceof Error && !(e instanceof KexlabError));
  assert.throws(() => pr.start(), Error, 'dead after misuse');
  const twice = new SPAKE2PlusProver(ctx, idP, idV, b(v0, 'w0'), b(v0, 'w1'));
  twice.start();
  assert.throws(() => twice.start(), Error);
  const w1 = b(v0, 'w1');
  for (const w0 of [new Uint8Array(32), be(n, 32), be(n + 1n, 32), new Uint8Array(31).fill(1), new Uint8Array(33).fill(1)]) {
    assert.throws(() => new SPAKE2PlusProver(ctx, idP, idV, w0, w1), RangeError);
    assert.throws(() => new SPAKE2PlusProver(ctx, idP, idV, w1, w0), RangeError);
    assert.throws(() => new SPAKE2PlusProver(ctx, idP, idV, w1, w1, w0), RangeError);
  }
  // The caller's w0 and w1 are not wiped.
  const w0 = b(v0, 'w0');
  const p = new SPAKE2PlusProver(ctx, idP, idV, w0, w1, b(v0, 'x'));
  p.start();
  p.finish(concat(b(v0, 'shareV'), b(v0, 'confirmV')));
  assert.equal(toHex(w0), v0.w0);
  assert.equal(toHex(w1), v0.w1);
});
