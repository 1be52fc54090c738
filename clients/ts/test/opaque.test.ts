// OPAQUE-3DH (RFC 9807, P-256) against the RFC 9807 Appendix D test vectors
// in ../shared/vectors/opaque/vectors.json, the malformed and forged KE2s
// a client must refuse, and the wiring of the service's scrypt KSF.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { scrypt } from '@noble/hashes/scrypt.js';
import { p256, p256_oprf } from '@noble/curves/nist.js';
import {
  OpaqueClient, identityKSF, scryptKSF, deriveKeyPair, deriveDiffieHellmanKeyPair,
  KE1Size, KE2Size, KE3Size, RegistrationRecordSize, type Identities,
} from '../src/opaque.js';
import { fromHex, toHex, utf8 } from '../src/bytes.js';
import { AuthError, ProtocolError } from '../src/errors.js';
import { scryptHere, type Scrypt } from '../src/stretch.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// dist/test -> repository root -> ../shared/vectors
const vectorsFile = path.resolve(here, '../../../../../shared/vectors/opaque/vectors.json');

interface Case {
  config: Record<string, string>;
  inputs: Record<string, string>;
  intermediates: Record<string, string>;
  outputs: Record<string, string>;
}

const all = JSON.parse(readFileSync(vectorsFile, 'utf8')) as Case[];
// The file holds the vectors of every configuration of Appendix D
// (ristretto255, curve25519, P-256); this client speaks only P-256, so the
// others are filtered out here on purpose.
const p256Cases = all.filter((c) => c.config.Group === 'P256_XMD:SHA-256_SSWU_RO_');
const real = p256Cases.filter((c) => c.config.Fake === 'False');
const fake = p256Cases.filter((c) => c.config.Fake === 'True');

const h = (s: string | undefined) => (s === undefined ? undefined : fromHex(s));
const ids = (c: Case): Identities => ({ client: h(c.inputs.client_identity), server: h(c.inputs.server_identity) });
const client = (c: Case) => new OpaqueClient({ ksf: identityKSF, context: fromHex(c.config.Context!) });

test('vector file: 9 cases, 2 real P-256 cases and 1 fake-KE2 P-256 case', () => {
  assert.equal(all.length, 9);
  assert.equal(real.length, 2);
  assert.equal(fake.length, 1);
  for (const c of p256Cases) {
    assert.equal(c.config.OPRF, 'P256-SHA256');
    assert.equal(c.config.KSF, 'Identity');
    assert.equal(c.config.Name, '3DH');
  }
});

let ran = 0;
for (const [i, c] of real.entries()) {
  const label = `RFC 9807 vector P-256 #${i + 1}${c.inputs.client_identity ? ' (with identities)' : ''}`;
  test(label, async () => {
    const inp = c.inputs, out = c.outputs;
    const password = fromHex(inp.password!);
    const cl = client(c);

    // Registration (§5.2).
    const req = cl.createRegistrationRequest(password, fromHex(inp.blind_registration!));
    assert.equal(toHex(req), out.registration_request, 'registration_request');
    const { record, exportKey } = await cl.finalizeRegistrationRequest(fromHex(out.registration_response!), ids(c), fromHex(inp.envelope_nonce!));
    assert.equal(record.length, RegistrationRecordSize);
    assert.equal(toHex(record), out.registration_upload, 'registration_upload (record)');
    assert.equal(toHex(record.subarray(0, 33)), c.intermediates.client_public_key, 'client_public_key');
    assert.equal(toHex(record.subarray(33, 65)), c.intermediates.masking_key, 'masking_key');
    assert.equal(toHex(record.subarray(65)), c.intermediates.envelope, 'envelope');
    assert.equal(toHex(exportKey), out.export_key, 'export_key (registration)');

    // Login (§6.2).
    const ke1 = cl.generateKE1(password, {
      blind: fromHex(inp.blind_login!),
      clientNonce: fromHex(inp.client_nonce!),
      clientKeyshareSeed: fromHex(inp.client_keyshare_seed!),
    });
    assert.equal(ke1.length, KE1Size);
    assert.equal(toHex(ke1), out.KE1, 'KE1');
    const ke2 = fromHex(out.KE2!);
    assert.equal(ke2.length, KE2Size);
    const r = await cl.generateKE3(ke2, ids(c));
    assert.equal(r.ke3.length, KE3Size);
    assert.equal(toHex(r.ke3), out.KE3, 'KE3');
    assert.equal(toHex(r.sessionKey), out.session_key, 'session_key');
    assert.equal(toHex(r.exportKey), out.export_key, 'export_key (login)');
    ran++;
  });
}

// The fake-KE2 vector (Appendix D.2.3) tests the server: it gives the
// server's inputs and the KE2 it must produce for an unknown user, and the
// client's KE1 but not the password or blind that made it. So the client
// side is checked as far as the inputs allow: the keyshare of KE1 derives
// from client_keyshare_seed, client_public_key from client_private_key, and
// a client in the state of that KE1 (its nonce and keyshare; any password
// and blind, since a fake record has no password) refuses the KE2 with
// AuthError.
for (const c of fake) {
  test('RFC 9807 vector P-256 fake KE2 (server-side vector): the client refuses it', async () => {
    const inp = c.inputs;
    const vke1 = fromHex(inp.KE1!);
    const kp = deriveDiffieHellmanKeyPair(fromHex(inp.client_keyshare_seed!));
    assert.equal(toHex(kp.publicKey), toHex(vke1.subarray(65)), 'client_public_keyshare of KE1');
    assert.equal(toHex(p256.getPublicKey(fromHex(inp.client_private_key!), true)), inp.client_public_key);
    const cl = client(c);
    const ke1 = cl.generateKE1(utf8('any password'), {
      blind: 1234567n,
      clientNonce: vke1.subarray(33, 65),
      clientKeyshareSeed: fromHex(inp.client_keyshare_seed!),
    });
    assert.equal(toHex(ke1.subarray(33)), toHex(vke1.subarray(33)), 'KE1 after blinded_message');
    await assert.rejects(cl.generateKE3(fromHex(c.outputs.KE2!), ids(c)), AuthError);
    ran++;
  });
}

test('every P-256 vector ran (2 real + 1 fake)', () => {
  assert.equal(ran, 3);
});

// DeriveKeyPair against RFC 9497 Appendix A.3.1 (P256-SHA256, OPRF mode):
// Seed = a3 x 32, KeyInfo = "test key", and noble's own RFC 9497 module.
test('deriveKeyPair: RFC 9497 A.3.1 skSm, and noble p256_oprf.deriveKeyPair', () => {
  const seed = new Uint8Array(32).fill(0xa3);
  const info = utf8('test key');
  const kp = deriveKeyPair(seed, info);
  assert.equal(toHex(kp.secretKey), '159749d750713afe245d2d39ccfaae8381c53ce92d098a9375ee70739c7ac0bf');
  const noble = p256_oprf.oprf.deriveKeyPair(seed, info);
  assert.equal(toHex(kp.secretKey), toHex(noble.secretKey));
  assert.equal(toHex(kp.publicKey), toHex(noble.publicKey));
  const dhkp = deriveDiffieHellmanKeyPair(seed);
  assert.equal(toHex(dhkp.secretKey), toHex(p256_oprf.oprf.deriveKeyPair(seed, utf8('OPAQUE-DeriveDiffieHellmanKeyPair')).secretKey));
});

// Negative cases on the first real vector: the client must refuse a forged,
// truncated or malformed KE2.
const v = real[0]!;
const vPassword = fromHex(v.inputs.password!);
function loginClient(password = vPassword): OpaqueClient {
  const cl = client(v);
  cl.generateKE1(password, {
    blind: fromHex(v.inputs.blind_login!),
    clientNonce: fromHex(v.inputs.client_nonce!),
    clientKeyshareSeed: fromHex(v.inputs.client_keyshare_seed!),
  });
  return cl;
}
const vKE2 = () => fromHex(v.outputs.KE2!);

test('KE2 with a tampered server MAC: AuthError', async () => {
  const ke2 = vKE2();
  ke2[ke2.length - 1]! ^= 1;
  await assert.rejects(loginClient().generateKE3(ke2, ids(v)), AuthError);
});

test('KE2 with a tampered transcript (server nonce): AuthError', async () => {
  const ke2 = vKE2();
  ke2[33 + 32 + 97]! ^= 0x80;
  await assert.rejects(loginClient().generateKE3(ke2, ids(v)), AuthError);
});

test('KE2 with a tampered masked response: AuthError', async () => {
  const ke2 = vKE2();
  ke2[33 + 32 + 40]! ^= 1;
  await assert.rejects(loginClient().generateKE3(ke2, ids(v)), AuthError);
});

test('wrong password: AuthError (the envelope does not open)', async () => {
  await assert.rejects(loginClient(utf8('wrong password')).generateKE3(vKE2(), ids(v)), AuthError);
});

test('other identities than at registration: AuthError', async () => {
  await assert.rejects(loginClient().generateKE3(vKE2(), { client: utf8('mallory'), server: utf8('bob') }), AuthError);
});

test('KE2 of the wrong length: ProtocolError', async () => {
  const ke2 = vKE2();
  await assert.rejects(loginClient().generateKE3(ke2.subarray(0, KE2Size - 1), ids(v)), ProtocolError);
  await assert.rejects(loginClient().generateKE3(new Uint8Array(0), ids(v)), ProtocolError);
  const longer = new Uint8Array(KE2Size + 1);
  longer.set(ke2);
  await assert.rejects(loginClient().generateKE3(longer, ids(v)), ProtocolError);
});

// x = 1 is not the x of a P-256 point (1 + a + b is not a square mod p,
// asserted below with noble); x = 2^256 - 1 is not even a field element.
const notOnCurve = fromHex('02' + '00'.repeat(31) + '01');
const notAField = fromHex('03' + 'ff'.repeat(32));
const badPrefix = (b: Uint8Array) => { const c = b.slice(); c[0] = 0x04; return c; };

test('KE2 carrying an invalid point: ProtocolError', async () => {
  assert.ok(!p256.utils.isValidPublicKey(notOnCurve));
  assert.ok(!p256.utils.isValidPublicKey(notAField));
  for (const [off, what] of [[0, 'evaluated element'], [33 + 32 + 97 + 32, 'server keyshare']] as const) {
    for (const bad of [notOnCurve, notAField, badPrefix(vKE2().subarray(off, off + 33))]) {
      const ke2 = vKE2();
      ke2.set(bad, off);
      await assert.rejects(loginClient().generateKE3(ke2, ids(v)), ProtocolError, what);
    }
  }
});

test('registration response of the wrong length or with an invalid point: ProtocolError', async () => {
  const resp = fromHex(v.outputs.registration_response!);
  const start = () => {
    const cl = client(v);
    cl.createRegistrationRequest(vPassword, fromHex(v.inputs.blind_registration!));
    return cl;
  };
  await assert.rejects(start().finalizeRegistrationRequest(resp.subarray(0, 65), ids(v)), ProtocolError);
  for (const off of [0, 33]) {
    const bad = resp.slice();
    bad.set(notOnCurve, off);
    await assert.rejects(start().finalizeRegistrationRequest(bad, ids(v)), ProtocolError);
  }
});

test('out-of-order calls throw Error; a finished state is consumed', async () => {
  const cl = client(v);
  await assert.rejects(cl.generateKE3(vKE2(), ids(v)), (e: unknown) => e instanceof Error && !(e instanceof AuthError) && !(e instanceof ProtocolError));
  await assert.rejects(cl.finalizeRegistrationRequest(fromHex(v.outputs.registration_response!)), Error);
  const lc = loginClient();
  await lc.generateKE3(vKE2(), ids(v));
  await assert.rejects(lc.generateKE3(vKE2(), ids(v)), /no login in progress/);
  // A failed finish consumes the state too.
  const fc = loginClient();
  await assert.rejects(fc.generateKE3(vKE2().subarray(1), ids(v)), ProtocolError);
  await assert.rejects(fc.generateKE3(vKE2(), ids(v)), /no login in progress/);
});

test('random randomness: fresh KE1s differ and have the right size', () => {
  const cl = new OpaqueClient({ ksf: identityKSF });
  const a = cl.generateKE1(utf8('pw')), b = cl.generateKE1(utf8('pw'));
  assert.equal(a.length, KE1Size);
  assert.notEqual(toHex(a), toHex(b));
  const r1 = cl.createRegistrationRequest(utf8('pw')), r2 = cl.createRegistrationRequest(utf8('pw'));
  assert.equal(r1.length, 33);
  assert.notEqual(toHex(r1), toHex(r2));
  assert.throws(() => cl.createRegistrationRequest(utf8('pw'), 0n), RangeError);
  assert.throws(() => cl.createRegistrationRequest(utf8('pw'), p256.Point.Fn.ORDER), RangeError);
});

// Not a test vector: a check that scryptKSF wires RFC 9807 §7's scrypt
// configuration (salt = 16 zero bytes, N = 32768, r = 8, p = 1, 32 bytes)
// through the Scrypt seam, against @noble/hashes' scrypt called directly.
test('scryptKSF wiring: equals scrypt(msg, zeroes(16), N=32768, r=8, p=1, 32) of @noble/hashes', async () => {
  const msg = utf8('opaque ksf wiring check');
  let seen: Parameters<Scrypt> | undefined;
  const spy: Scrypt = (...args) => {
    seen = args;
    return scryptHere(...args);
  };
  const got = await scryptKSF(spy)(msg);
  assert.deepEqual(seen?.[1], new Uint8Array(16));
  assert.deepEqual(seen?.[2], { N: 32768, r: 8, p: 1, dkLen: 32 });
  const want = scrypt(msg, new Uint8Array(16), { N: 32768, r: 8, p: 1, dkLen: 32 });
  assert.equal(toHex(got), toHex(want));
});
