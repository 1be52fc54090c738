// apakepq (and its OCAKE layer) against the Go implementation, and
// ML-KEM-512 as used against Wycheproof.
//
// The transcripts in pake/apakepq/testdata/regression_apakepq.json and
// pake/ocake/testdata/regression_ocake.json are REGRESSION DATA recorded
// by kexlab's Go implementation, not official test vectors (this compiled
// protocol has none): replaying them is a cross-implementation
// byte-identity check of this client against the Go package. ML-KEM-512
// itself is checked against the published Wycheproof vectors
// (../shared/vectors/wycheproof).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { ml_kem512 } from '@noble/post-quantum/ml-kem.js';
import {
  APAKEPQClient,
  apakepqRegister,
  apakepqRecordSize,
  apakepqMessage1Size,
  apakepqMessage2Size,
  apakepqMessage3Size,
} from '../src/apakepq.js';
import type { APAKEPQSession } from '../src/apakepq.js';
import { OCAKEInitiator, ocakeDeriveKey, transcriptHash } from '../src/ocake.js';
import { concat, fromHex, randomBytes, toHex, utf8 } from '../src/bytes.js';
import { AuthError, KexlabError, ProtocolError } from '../src/errors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// dist/test -> clients/ts -> repository root
const repo = path.resolve(here, '../../../..');
// the repository's checkout sits next to shared/ (../shared/vectors from the root)
const wycheproof = path.resolve(repo, '../shared/vectors/wycheproof');

const readJSON = (p: string): any => JSON.parse(readFileSync(p, 'utf8'));

interface APAKEPQCase {
  name: string; password: string; clientID: string; serverID: string; context: string; iterations: number;
  clientRandom: string; serverRandom: string; record: string; message1: string; message2: string; message3: string; sessionKey: string;
}
interface OCAKECase {
  name: string; password: string; clientID: string; serverID: string; context: string; iterations: number;
  initiatorRandom: string; responderRandom: string; passwordKey: string; message1: string; message2: string; sessionKey: string;
}

const apakepqFile = readJSON(path.join(repo, 'pake/apakepq/testdata/regression_apakepq.json'));
const ocakeFile = readJSON(path.join(repo, 'pake/ocake/testdata/regression_ocake.json'));
const apakepqCases = apakepqFile.cases as APAKEPQCase[];
const ocakeCases = ocakeFile.cases as OCAKECase[];

/** A fixed stream of bytes served in order, as the Go parties read their io.Reader. */
function stream(hex: string) {
  const b = fromHex(hex);
  let off = 0;
  return {
    rand: (n: number): Uint8Array => {
      if (off + n > b.length) throw new Error('random stream exhausted');
      const out = b.subarray(off, off + n);
      off += n;
      return out;
    },
    left: () => b.length - off,
  };
}

const sessionOf = (c: { clientID: string; serverID: string; context: string }): APAKEPQSession => ({
  clientID: utf8(c.clientID), serverID: utf8(c.serverID), context: utf8(c.context),
});

const ocakeH = (label: string, ...x: Uint8Array[]) => transcriptHash('kexlab OCAKE ML-KEM-512 v1 ', label, ...x);
const apakepqH = (label: string, ...x: Uint8Array[]) => transcriptHash('kexlab LLH-OCAKE ML-KEM-512 v1 ', label, ...x);

/**
 * A test-only apakepq server (the Go Server's respond, from the record):
 * reads OCAKE's encapsulation seed (32), the record key's (32), then the
 * GCM nonce (12). Returns undefined where the Go server answers
 * ErrAuthFailed at message 1.
 */
async function serverRespond(record: Uint8Array, s: APAKEPQSession, apk: Uint8Array, rand: (n: number) => Uint8Array = randomBytes) {
  const rw = record.slice(0, 32), ek = record.slice(32);
  const kEnc = ocakeH('enc', s.clientID, s.serverID, s.context, rw).slice(0, 16);
  const cbc = await crypto.subtle.importKey('raw', kEnc, 'AES-CBC', false, ['decrypt']);
  let ekE: Uint8Array;
  try {
    ekE = new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-CBC', iv: apk.slice(0, 16) }, cbc, apk.slice(16)));
  } catch {
    return undefined; // bad padding
  }
  if (ekE.length !== 800) return undefined;
  let cE: Uint8Array, K: Uint8Array;
  try {
    ({ cipherText: cE, sharedSecret: K } = ml_kem512.encapsulate(ekE, rand(32)));
  } catch {
    return undefined; // FIPS 203 modulus check
  }
  const auth = ocakeH('auth', s.clientID, s.serverID, s.context, rw, apk, cE, K);
  const tau = ocakeH('session key', s.clientID, s.serverID, s.context, apk, cE, auth, K);
  const { cipherText: c, sharedSecret: k } = ml_kem512.encapsulate(ek, rand(32));
  const nonce = rand(12).slice();
  const gcm = await crypto.subtle.importKey('raw', apakepqH('ae key', tau).slice(), 'AES-GCM', false, ['encrypt']);
  const psi = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce }, gcm, c));
  const sigma = apakepqH('confirm', s.clientID, s.serverID, s.context, tau, k, nonce, psi);
  return { message2: concat(cE, auth, nonce, psi), sigma, key: apakepqH('session key', tau) };
}

// --- Go regression transcripts ---------------------------------------------

test('regression files: 2 apakepq and 2 OCAKE cases, marked as regression data', () => {
  assert.equal(apakepqCases.length, 2);
  assert.equal(ocakeCases.length, 2);
  assert.match(apakepqFile.note, /not official vectors/);
  assert.match(ocakeFile.note, /not official vectors/);
});

for (const v of apakepqCases) {
  test(`apakepq Go regression: ${v.name}`, async () => {
    const pw = utf8(v.password), s = sessionOf(v);
    const record = apakepqRegister(pw, s.clientID, s.serverID, v.iterations);
    assert.equal(record.length, apakepqRecordSize);
    assert.equal(toHex(record), v.record, 'record');

    const r = stream(v.clientRandom);
    const client = new APAKEPQClient(pw, s, v.iterations, r.rand);
    const m1 = await client.message1();
    assert.equal(m1.length, apakepqMessage1Size);
    assert.equal(toHex(m1), v.message1, 'message 1');
    assert.equal(r.left(), 0, 'the client reads 64 + 16 random bytes');
    assert.equal(client.sessionKey, undefined);

    const m3 = await client.message3(fromHex(v.message2));
    assert.equal(m3.length, apakepqMessage3Size);
    assert.equal(toHex(m3), v.message3, 'message 3');
    assert.equal(toHex(client.sessionKey!), v.sessionKey, 'session key');
  });

  test(`test-only server reproduces the Go server's message 2 and σ: ${v.name}`, async () => {
    const s = sessionOf(v);
    const r = stream(v.serverRandom);
    const out = await serverRespond(fromHex(v.record), s, fromHex(v.message1), r.rand);
    assert.ok(out);
    assert.equal(r.left(), 0);
    assert.equal(toHex(out.message2), v.message2);
    assert.equal(toHex(out.sigma), v.message3);
    assert.equal(toHex(out.key), v.sessionKey);
  });
}

for (const v of ocakeCases) {
  test(`OCAKE Go regression: ${v.name}`, () => {
    const s = sessionOf(v);
    const pwKey = ocakeDeriveKey(utf8(v.password), s.clientID, s.serverID, v.iterations);
    assert.equal(toHex(pwKey), v.passwordKey, 'password key');
    const r = stream(v.initiatorRandom);
    const alice = new OCAKEInitiator(pwKey, s, r.rand);
    return alice.message1().then((m1) => {
      assert.equal(toHex(m1), v.message1, 'message 1');
      assert.equal(r.left(), 0);
      alice.finish(fromHex(v.message2));
      assert.equal(toHex(alice.sessionKey!), v.sessionKey, 'session key');
    });
  });
}

// --- ML-KEM-512 against Wycheproof ------------------------------------------

interface KEMTest { tcId: number; comment?: string; seed?: string; ek: string; c: string; K: string; m?: string; result: string }
const kemGroups = readJSON(path.join(wycheproof, 'mlkem_512_test.json')).testGroups as { parameterSet: string; tests: KEMTest[] }[];
const encapsGroups = readJSON(path.join(wycheproof, 'mlkem_512_encaps_test.json')).testGroups as { parameterSet: string; tests: KEMTest[] }[];

test('Wycheproof ML-KEM-512 KeyGen(d ‖ z) and Decaps: every case of mlkem_512_test.json', () => {
  let valid = 0, invalid = 0;
  for (const g of kemGroups) {
    assert.equal(g.parameterSet, 'ML-KEM-512');
    for (const t of g.tests) {
      const id = `tcId ${t.tcId} (${t.comment ?? ''})`;
      const run = () => {
        const { publicKey, secretKey } = ml_kem512.keygen(fromHex(t.seed!));
        return { publicKey, K: ml_kem512.decapsulate(fromHex(t.c), secretKey) };
      };
      if (t.result === 'valid') {
        const { publicKey, K } = run();
        assert.equal(toHex(publicKey), t.ek.toLowerCase(), `${id}: ek`);
        assert.equal(toHex(K), t.K.toLowerCase(), `${id}: K`);
        valid++;
      } else {
        assert.throws(run, `${id} must be rejected`);
        invalid++;
      }
    }
  }
  assert.equal(valid + invalid, 193);
  assert.ok(valid >= 150 && invalid >= 40, `${valid} valid, ${invalid} invalid`);
});

test('Wycheproof ML-KEM-512 Encaps (the test-only server): every case of mlkem_512_encaps_test.json', () => {
  let n = 0;
  for (const g of encapsGroups) {
    for (const t of g.tests) {
      const run = () => ml_kem512.encapsulate(fromHex(t.ek), fromHex(t.m!));
      if (t.result === 'valid') {
        const { cipherText, sharedSecret } = run();
        assert.equal(toHex(cipherText), t.c.toLowerCase(), `tcId ${t.tcId}: c`);
        assert.equal(toHex(sharedSecret), t.K.toLowerCase(), `tcId ${t.tcId}: K`);
      } else {
        assert.throws(run, `tcId ${t.tcId} must be rejected`);
      }
      n++;
    }
  }
  assert.equal(n, 261);
});

// --- round trips with fresh randomness ---------------------------------------

const service = (user: string): APAKEPQSession => ({ clientID: utf8(user), serverID: utf8('kexlab'), context: utf8('kexlab service v1') });

test('round trip with the test-only server, the service parameters (1 iteration) and crypto.getRandomValues', async () => {
  for (const user of ['alice', 'zoë 😀', '']) {
    const pw = randomBytes(32), s = service(user);
    const record = apakepqRegister(pw, s.clientID, s.serverID, 1);
    const client = new APAKEPQClient(pw, s, 1);
    const m1 = await client.message1();
    const out = await serverRespond(record, s, m1);
    assert.ok(out, 'the server accepts message 1');
    assert.equal(out.message2.length, apakepqMessage2Size);
    const sigma = await client.message3(out.message2);
    assert.equal(toHex(sigma), toHex(out.sigma));
    assert.equal(toHex(client.sessionKey!), toHex(out.key));
  }
});

test('wrong password: the (test-only) server refuses message 1, as the Go server does', async () => {
  const s = service('bob');
  const record = apakepqRegister(utf8('right'), s.clientID, s.serverID, 1);
  for (let i = 0; i < 4; i++) {
    const client = new APAKEPQClient(utf8(`wrong ${i}`), s, 1);
    const out = await serverRespond(record, s, await client.message1());
    assert.equal(out, undefined);
  }
});

// --- negative: client-side checks on message 2 -------------------------------

const v0 = apakepqCases[1]!; // 1000 iterations: quicker
async function clientAtMessage2(password = v0.password, v: APAKEPQCase = v0) {
  const c = new APAKEPQClient(utf8(password), sessionOf(v), v.iterations, stream(v.clientRandom).rand);
  await c.message1();
  return c;
}

test('wrong password at the client: the Go message 2 fails Auth with AuthError', async () => {
  const c = await clientAtMessage2('not ' + v0.password);
  await assert.rejects(c.message3(fromHex(v0.message2)), (e: unknown) => e instanceof AuthError && /authenticator/.test(e.message));
  assert.equal(c.sessionKey, undefined);
  await assert.rejects(c.message3(fromHex(v0.message2)), (e: unknown) => e instanceof Error && !(e instanceof KexlabError));
});

test('tampered message 2 (c_e, Auth, nonce, ψ ciphertext, ψ tag): AuthError', async () => {
  // c_e or Auth: OCAKE's Auth check fails; nonce or ψ: AES-256-GCM does not open.
  const auth = /authenticator/, ae = /ψ does not open/;
  const where: [string, number, RegExp][] = [['c_e', 0, auth], ['c_e end', 767, auth], ['Auth', 768, auth], ['Auth end', 799, auth],
    ['nonce', 800, ae], ['ψ', 812, ae], ['ψ tag', apakepqMessage2Size - 1, ae]];
  for (const [what, i, why] of where) {
    const c = await clientAtMessage2();
    const m2 = fromHex(v0.message2);
    m2[i] ^= 1;
    await assert.rejects(c.message3(m2), (e: unknown) => e instanceof AuthError && why.test(e.message), what);
    assert.equal(c.sessionKey, undefined, what);
  }
});

test('a message 2 of the wrong length: ProtocolError', async () => {
  const good = fromHex(v0.message2);
  for (const m2 of [new Uint8Array(0), good.subarray(0, 800), good.subarray(0, apakepqMessage2Size - 1), concat(good, new Uint8Array(1))]) {
    const c = await clientAtMessage2();
    await assert.rejects(c.message3(m2), ProtocolError, `${m2.length} bytes`);
  }
  // OCAKE alone
  const alice = new OCAKEInitiator(new Uint8Array(32), sessionOf(v0), stream(v0.clientRandom).rand);
  await alice.message1();
  assert.throws(() => alice.finish(new Uint8Array(799)), ProtocolError);
});

test('calls out of order: Error (not a protocol error)', async () => {
  const isStateError = (e: unknown) => e instanceof Error && !(e instanceof KexlabError);
  const c = new APAKEPQClient(utf8(v0.password), sessionOf(v0), v0.iterations, stream(v0.clientRandom).rand);
  await assert.rejects(c.message3(fromHex(v0.message2)), isStateError, 'message 3 first');
  await c.message1();
  await assert.rejects(c.message1(), isStateError, 'message 1 twice');
  await c.message3(fromHex(v0.message2));
  await assert.rejects(c.message3(fromHex(v0.message2)), isStateError, 'message 3 twice');
  assert.equal(toHex(c.sessionKey!), v0.sessionKey, 'a misuse after the end keeps the key');
});

test('parameters: empty password, bad iteration counts, short random source', async () => {
  const s = sessionOf(v0);
  assert.throws(() => apakepqRegister(new Uint8Array(0), s.clientID, s.serverID, 1), RangeError);
  assert.throws(() => new APAKEPQClient(new Uint8Array(0), s, 1), RangeError);
  for (const n of [-1, 1.5, NaN]) assert.throws(() => apakepqRegister(utf8('p'), s.clientID, s.serverID, n), RangeError, `${n}`);
  assert.throws(() => new OCAKEInitiator(new Uint8Array(31), s), RangeError);
  const c = new APAKEPQClient(utf8('p'), s, 1, (n) => new Uint8Array(n - 1));
  await assert.rejects(c.message1(), Error);
});

test("the client neither keeps nor clears the caller's buffers", async () => {
  const v = v0, r = fromHex(v.clientRandom), pw = utf8(v.password), s = sessionOf(v);
  const c = new APAKEPQClient(pw, s, v.iterations, (n) => r.subarray(0, n));
  assert.equal(toHex(await c.message1()), v.message1);
  assert.equal(toHex(r), v.clientRandom, 'the injected randomness is not overwritten');
  s.context.fill(0); // the client copied the session
  pw.fill(0);
  assert.equal(toHex(await c.message3(fromHex(v.message2))), v.message3);
});
