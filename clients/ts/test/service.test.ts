// The client against a real `kexlab serve` (the Go binary, bin/kexlab or
// $KEXLAB_BIN), started on a free loopback port with a temporary data
// directory: register, log in, wrong password and unknown user refused
// alike, password change, logout, for each scheme the client speaks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, schemes, AuthError, ServiceError, NetworkError, ProtocolError, RateLimitError, parseServerTiming } from '../src/index.js';
import { startService, type Service } from './serve.js';

let svc: Service;
let url = '';

before(async () => {
  svc = await startService();
  url = svc.url;
});

after(() => svc?.stop());

for (const scheme of schemes) {
  test(`${scheme}: register, log in, refuse, change password, log out`, async () => {
    const c = new Client(url);
    const user = `alice-${scheme}`;
    await c.register(scheme, user, 'correct horse');
    const s = await c.login(scheme, user, 'correct horse');
    assert.equal(s.user, user);
    assert.equal(await c.whoami(s), user);
    assert.match(s.assertion, /^[\w-]+\.[\w-]+\.[\w-]+$/);

    // A wrong password and an unknown user fail alike.
    const wrong = await c.login(scheme, user, 'wrong').then(() => null, (e) => e);
    const unknown = await c.login(scheme, `nobody-${scheme}`, 'wrong').then(() => null, (e) => e);
    assert.ok(wrong instanceof AuthError, `wrong password: ${wrong}`);
    assert.ok(unknown instanceof AuthError, `unknown user: ${unknown}`);
    assert.equal(wrong.code, unknown.code);
    assert.equal(wrong.message, unknown.message);

    // Registering again is refused; the password change revokes sessions.
    await assert.rejects(c.register(scheme, user, 'other'), (e) => e instanceof ServiceError && e.status === 409);
    await c.changePassword(s, scheme, 'battery staple');
    await assert.rejects(c.whoami(s), (e) => e instanceof ServiceError && e.status === 401);
    await assert.rejects(c.login(scheme, user, 'correct horse'), AuthError);
    const s2 = await c.login(scheme, user, 'battery staple');
    await c.logout(s2);
    await assert.rejects(c.whoami(s2), (e) => e instanceof ServiceError && e.status === 401);
  });
}

test('progress events during the key stretching', async () => {
  const seen: number[] = [];
  const c = new Client(url, { onProgress: (f) => seen.push(f) });
  await c.register('srp-2048', 'progress', 'pw');
  assert.ok(seen.length > 1 && seen.at(-1)! >= 0.99, `progress ${seen}`);
});

test('a service that is down is a NetworkError', async () => {
  const c = new Client('http://127.0.0.1:9');
  await assert.rejects(c.login('srp-2048', 'alice', 'pw'), NetworkError);
});

test('429 is a RateLimitError with the server\'s Retry-After (1 s without one)', async () => {
  for (const [header, want] of [['7', 7], [null, 1], ['', 1]] as const) {
    const fake = (async () => new Response(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }), {
      status: 429, headers: header === null ? {} : { 'Retry-After': header },
    })) as typeof fetch;
    const c = new Client('http://127.0.0.1:9', { fetch: fake });
    await assert.rejects(c.login('srp-2048', 'alice', 'pw'), (e) => e instanceof RateLimitError && e.retryAfter === want && e.message === 'slow down');
  }
});

test('parseServerTiming takes any header without throwing and keeps only finite durations', () => {
  assert.deepEqual(parseServerTiming('queue;dur=0.010, pake;dur=1.234, app;dur=1.902'), { queue: 0.01, pake: 1.234, app: 1.902 });
  assert.deepEqual(parseServerTiming(null), {});
  assert.deepEqual(parseServerTiming('cache;desc="hit", db;dur=-1, x;dur=1e3, y;dur=., ;dur=2'), {});
  // Random headers: never a throw, never a non-finite value.
  const alphabet = 'ab;=,.0123456789 "dur-e';
  for (let i = 0; i < 2000; i++) {
    let h = '';
    for (let j = 0; j < (i % 40); j++) h += alphabet[Math.floor(Math.random() * alphabet.length)];
    for (const v of Object.values(parseServerTiming(h))) assert.ok(Number.isFinite(v) && v >= 0, `${JSON.stringify(h)} -> ${v}`);
  }
});

test('caller mistakes are RangeErrors before any request; scrypt work over the memory bound is a ProtocolError', async () => {
  let calls = 0;
  const counting = (async () => {
    calls++;
    throw new Error('no request expected');
  }) as typeof fetch;
  const c = new Client('http://127.0.0.1:9', { fetch: counting });
  await assert.rejects(c.login('opaque', 'alice', ''), RangeError);
  await assert.rejects(c.register('spake2plus', '', 'pw'), RangeError);
  assert.equal(calls, 0);
  // N = 2^22, r = 8: 4 GiB, within the Go client's bounds but not this one's.
  const greedy = (async () => new Response(JSON.stringify({ kdf: { alg: 'scrypt', n: 1 << 22, r: 8, p: 1, salt: 'AAAAAAAAAAAAAAAAAAAAAA' } }))) as typeof fetch;
  await assert.rejects(new Client('http://127.0.0.1:9', { fetch: greedy }).login('spake2plus', 'alice', 'pw'),
    (e) => e instanceof ProtocolError && /MiB/.test(e.message));
});
