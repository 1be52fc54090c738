// The client side of each scheme as the service runs it: what each round
// sends and how the answer is checked. client.ts drives the HTTP rounds;
// this file knows the schemes' bindings (identities, context, key
// stretching), which must match the Go service byte for byte
// (server/flows.go, server/flow_spake2plus.go, server/flow_apakepq.go,
// server/internal/wire).

import { SRPClient, SRPParams, group2048, group3072 } from './srp.js';
import { spake2plusRegister, spake2plusScryptPBKDF, spake2plusW, SPAKE2PlusProver } from './spake2plus.js';
import { OpaqueClient, scryptKSF } from './opaque.js';
import { apakepqRegister, APAKEPQClient } from './apakepq.js';
import { concat, fromBase64url, utf8 } from './bytes.js';
import { AuthError, ProtocolError } from './errors.js';
import type { Scrypt } from './stretch.js';

/** A scheme of the service. */
export type Scheme = 'srp-2048' | 'srp-3072' | 'spake2plus' | 'opaque' | 'apakepq';

/** Every scheme this client speaks, in the page's order. */
export const schemes: readonly Scheme[] = ['opaque', 'spake2plus', 'srp-3072', 'srp-2048', 'apakepq'];

/** The account's key-stretching parameters, as the service sends them. */
export interface KDFParams {
  alg: string;
  n: number;
  r: number;
  p: number;
  salt: string; // base64url
}

/** The service's identity and context (server/internal/wire). */
export const serverID = utf8('kexlab');
export const context = utf8('kexlab service v1');
const apakepqIterations = 1;

/** What a scheme needs from the client: the stretching, with progress. */
export interface Env {
  scrypt: Scrypt;
  onProgress?: (fraction: number) => void;
}

/** A registration: the first message (none for most), then the record from the answer. */
export interface Registration {
  start?: Uint8Array;
  finish(reply: Uint8Array, kdf: KDFParams | undefined): Promise<Uint8Array>;
}

/** A login: an optional parameter fetch, message 1, message 3 from message 2, the server's last word. */
export interface Login {
  needsParams: boolean;
  start(kdf: KDFParams | undefined): Promise<Uint8Array>;
  answer(reply: Uint8Array, kdf: KDFParams | undefined): Promise<Uint8Array>;
  verify(last: Uint8Array | undefined): void;
}

/**
 * The most memory scrypt may take here, 128·r·(N + p + 1) bytes: 1 GiB
 * (the service's default, N = 32768, r = 8, takes 32 MiB). A browser tab
 * asked for more would fail or crash; the Go client's bounds (N ≤ 2^22,
 * r ≤ 32, p ≤ 16) allow up to 16 GiB.
 */
export const maxScryptMemory = 1 << 30;

/** The client's bounds on the scrypt work a server may ask for (the Go client's wire.KDFParams.Key, and maxScryptMemory). */
export function checkKDF(kdf: KDFParams | undefined): { salt: Uint8Array; N: number; r: number; p: number } {
  const k = kdf;
  if (!k || k.alg !== 'scrypt' || !Number.isInteger(k.n) || !Number.isInteger(k.r) || !Number.isInteger(k.p)) {
    throw new ProtocolError('the service sent no scrypt parameters');
  }
  if (k.n < 2 || k.n > 1 << 22 || (k.n & (k.n - 1)) !== 0 || k.r < 1 || k.r > 32 || k.p < 1 || k.p > 16 ||
    128 * k.r * (k.n + k.p + 1) > maxScryptMemory) {
    throw new ProtocolError(`scrypt N=${k.n} r=${k.r} p=${k.p} is not one this client runs (at most ${maxScryptMemory >> 20} MiB)`);
  }
  let salt: Uint8Array;
  try {
    salt = fromBase64url(typeof k.salt === 'string' ? k.salt : '!');
  } catch {
    throw new ProtocolError('the service\'s kdf.salt is not base64url');
  }
  return { salt, N: k.n, r: k.r, p: k.p };
}

/** scrypt of input with the account's parameters, dkLen bytes. */
function stretch(env: Env, input: Uint8Array, kdf: KDFParams | undefined, dkLen: number): Promise<Uint8Array> {
  const { salt, N, r, p } = checkKDF(kdf);
  return env.scrypt(input, salt, { N, r, p, dkLen }, env.onProgress);
}

/** SPAKE2+'s PBKDF (RFC 9383 §3.2) with the account's scrypt parameters. */
function spake2plusPBKDF(env: Env, kdf: KDFParams | undefined) {
  const { salt, N, r, p } = checkKDF(kdf);
  return spake2plusScryptPBKDF(env.scrypt, salt, { N, r, p }, env.onProgress);
}

/** Runs f on the password stretched to 32 bytes with the account's parameters, then clears the key. */
async function withKey<T>(env: Env, pw: Uint8Array, kdf: KDFParams | undefined, f: (key: Uint8Array) => T | Promise<T>): Promise<T> {
  const key = await stretch(env, pw, kdf, 32);
  try {
    return await f(key);
  } finally {
    key.fill(0);
  }
}

/** The service's OPAQUE KSF through env's scrypt, with progress. */
function opaqueKSF(env: Env) {
  return scryptKSF((input, salt, params) => env.scrypt(input, salt, params, env.onProgress));
}

function srpParams(scheme: Scheme): SRPParams {
  return scheme === 'srp-2048' ? (srp2048 ??= new SRPParams(group2048, 'sha256')) : (srp3072 ??= new SRPParams(group3072, 'sha256'));
}
let srp2048: SRPParams | undefined;
let srp3072: SRPParams | undefined;

/** The registration of user with password under scheme. */
export function registration(scheme: Scheme, user: string, password: string, env: Env): Registration {
  const id = utf8(user);
  const pw = utf8(password);
  switch (scheme) {
    case 'opaque': {
      const c = new OpaqueClient({ ksf: opaqueKSF(env) });
      const start = c.createRegistrationRequest(pw);
      return {
        start,
        finish: async (reply) => {
          const { record, exportKey } = await c.finalizeRegistrationRequest(reply);
          exportKey.fill(0);
          return record;
        },
      };
    }
    case 'spake2plus':
      return {
        finish: async (_, kdf) => {
          const { w0, w1, L } = await spake2plusRegister(pw, id, serverID, spake2plusPBKDF(env, kdf));
          w1.fill(0);
          try {
            return concat(w0, L);
          } finally {
            w0.fill(0);
          }
        },
      };
    case 'apakepq':
      return {
        finish: (_, kdf) => withKey(env, pw, kdf, (key) => apakepqRegister(key, id, serverID, apakepqIterations)),
      };
    case 'srp-2048':
    case 'srp-3072':
      return {
        finish: (salt, kdf) => withKey(env, pw, kdf, (key) => srpParams(scheme).verifier(id, key, salt)),
      };
  }
  throw new RangeError(`scheme ${JSON.stringify(scheme)} is not one this client speaks (${schemes.join(', ')})`);
}

/** The login of user with password under scheme. */
export function login(scheme: Scheme, user: string, password: string, env: Env): Login {
  const id = utf8(user);
  const pw = utf8(password);
  switch (scheme) {
    case 'opaque': {
      const c = new OpaqueClient({ ksf: opaqueKSF(env) });
      return {
        needsParams: false,
        start: async () => c.generateKE1(pw),
        answer: async (ke2) => {
          const { ke3, sessionKey, exportKey } = await c.generateKE3(ke2);
          sessionKey.fill(0);
          exportKey.fill(0);
          return ke3;
        },
        verify: () => {},
      };
    }
    case 'spake2plus': {
      let prover: SPAKE2PlusProver | undefined;
      return {
        needsParams: true,
        start: async (kdf) => {
          const { w0, w1 } = await spake2plusW(pw, id, serverID, spake2plusPBKDF(env, kdf));
          try {
            prover = new SPAKE2PlusProver(context, id, serverID, w0, w1); // keeps its own copies
          } finally {
            w0.fill(0);
            w1.fill(0);
          }
          return prover.start();
        },
        answer: async (reply) => prover!.finish(reply),
        verify: () => {},
      };
    }
    case 'apakepq': {
      let c: APAKEPQClient | undefined;
      return {
        needsParams: true,
        start: (kdf) => withKey(env, pw, kdf, (key) => {
          c = new APAKEPQClient(key, { clientID: id, serverID, context }, apakepqIterations);
          return c.message1();
        }),
        answer: async (reply) => c!.message3(reply),
        verify: () => {},
      };
    }
    case 'srp-2048':
    case 'srp-3072': {
      const c = new SRPClient(srpParams(scheme), id);
      return {
        needsParams: false,
        start: async () => c.start(),
        answer: (reply, kdf) => withKey(env, pw, kdf, (key) => c.answer(reply, key)),
        verify: (m2) => {
          try {
            c.verify(m2 ?? new Uint8Array());
          } catch (e) {
            // The service accepted M1 but cannot prove it knows the verifier.
            throw e instanceof AuthError ? new ProtocolError('the service\'s confirmation M2 is wrong') : e;
          }
        },
      };
    }
  }
  throw new RangeError(`scheme ${JSON.stringify(scheme)} is not one this client speaks (${schemes.join(', ')})`);
}
