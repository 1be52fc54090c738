// SPAKE2+ prover (client) of RFC 9383 with the ciphersuite
// P256-SHA256-HKDF-SHA256-HMAC-SHA256 (RFC 9383 §4), byte for byte as the
// Go package pake/spake2plus and kexlab's service run it:
//
//   registration (§3.2), offline, on the client:
//     w0s || w1s = PBKDF(len(pw) || pw || len(idProver) || idProver ||
//                        len(idVerifier) || idVerifier)        40 + 40 bytes
//     w0 = w0s mod p,  w1 = w1s mod p,  L = w1*P
//
//   online (§3.3, §3.4; the verifier sends shareV and confirmV together):
//     prover   -> verifier  shareP = X = x*P + w0*M                 65 bytes
//     verifier -> prover    shareV = Y = y*P + w0*N,
//                           confirmV = MAC(K_confirmV, shareP)      65 + 32 bytes
//     prover   -> verifier  confirmP = MAC(K_confirmP, shareV)      32 bytes
//
//   Z = x*(Y - w0*N),  V = w1*(Y - w0*N)         (cofactor h = 1 for P-256)
//   TT = len(Context) || Context || len(idProver) || idProver || len(idVerifier) ||
//        idVerifier || len(M) || M || len(N) || N || len(shareP) || shareP ||
//        len(shareV) || shareV || len(Z) || Z || len(V) || V || len(w0) || w0
//   K_main = SHA-256(TT)
//   K_confirmP || K_confirmV = HKDF-SHA256(salt = none, K_main, "ConfirmationKeys", 64)
//   K_shared = HKDF-SHA256(salt = none, K_main, "SharedKey", 32)
//
// len() is an 8-byte little-endian length; points are SEC 1 uncompressed
// (65 bytes), scalars 32-byte big-endian. The service uses Context
// "kexlab service v1", idProver = the user name, idVerifier "kexlab", and
// as PBKDF scrypt with the account's salt and cost (/v1/login/params).
//
// Timing. Every multiplication of a point by a secret scalar (x, w0, w1)
// goes through @noble/curves' Point.multiply, which is "algorithmically
// constant time": a fixed sequence of point operations independent of the
// scalar, with the scalar blinded by a random multiple of the group order
// (cofactor-1 curve). That is not a constant-time guarantee in the sense of
// the Go side (filippo.io/nistec): the field arithmetic underneath is
// JavaScript BigInt, whose operations take value-dependent time, and the JIT
// and garbage collector add their own variation. The reduction of w0s and
// w1s modulo p in registration, the draw of x (48 random bytes mod p-1),
// and the parsing of w0, w1 and x into BigInt are plain BigInt operations,
// not constant time. BigInt values are
// immutable, so secret scalars cannot be wiped; only the byte arrays this
// module owns (its copy of w0, the transcript, Z, V, the PBKDF input and
// output, the key schedule) are zeroed when done. The confirmV check is
// constant time (equalBytes).

import { p256 } from '@noble/curves/nist.js';
import { bytesToNumberBE } from '@noble/curves/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hmac } from '@noble/hashes/hmac.js';
import { extract, expand } from '@noble/hashes/hkdf.js';
import { equalBytes, randomBytes, utf8 } from './bytes.js';
import { AuthError, ProtocolError } from './errors.js';
import type { Scrypt, ScryptParams } from './stretch.js';

const Point = p256.Point;
const Fn = Point.Fn;
type P256Point = InstanceType<typeof Point>;

/** Size of w0, w1 and x: big-endian integers modulo the group order p. */
const SCALAR_SIZE = 32;
/** Size of shareP, shareV and L: SEC 1 uncompressed P-256 points. */
const SHARE_SIZE = 65;
/** Size of confirmP and confirmV (HMAC-SHA256) and of K_shared. */
const MAC_SIZE = 32;
/** Length of w0s and of w1s: ceil(log2(p)) + 64 bits = 40 bytes (RFC 9383 §3.2). */
const PBKDF_HALF = 40;

// M and N for P-256, RFC 9383 §4 (SEC 1 compressed), as in pake/spake2plus.
const M = Point.fromHex('02886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f');
const N = Point.fromHex('03d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49');
const M_BYTES = M.toBytes(false);
const N_BYTES = N.toBytes(false);

/** Each field preceded by its length, an 8-byte little-endian integer (RFC 9383's len()). */
function lengthPrefixed(...fields: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const f of fields) n += 8 + f.length;
  const out = new Uint8Array(n);
  const view = new DataView(out.buffer);
  let off = 0;
  for (const f of fields) {
    view.setBigUint64(off, BigInt(f.length), true);
    out.set(f, off + 8);
    off += 8 + f.length;
  }
  return out;
}

/** Decodes w0, w1 or x: 32 bytes, big-endian, in [1, p-1]; anything else is a RangeError. */
function parseScalar(name: string, b: Uint8Array): bigint {
  if (!(b instanceof Uint8Array) || b.length !== SCALAR_SIZE) throw new RangeError(`SPAKE2+: ${name} must be ${SCALAR_SIZE} bytes`);
  const s = bytesToNumberBE(b);
  if (!Fn.isValidNot0(s)) throw new RangeError(`SPAKE2+: ${name} is zero or not below the group order`);
  return s;
}

/** A PBKDF (RFC 9383 §3.2): maps input to n bytes, with its own salt and cost. */
export type SPAKE2PlusPBKDF = (input: Uint8Array, n: number) => Promise<Uint8Array>;

/**
 * The service's PBKDF: scrypt(input, salt, N, r, p, n bytes), run through the
 * key-stretching seam (stretch.ts), as KDFParams.Key does in the Go client.
 */
export function spake2plusScryptPBKDF(scrypt: Scrypt, salt: Uint8Array, params: Omit<ScryptParams, 'dkLen'>, onProgress?: (fraction: number) => void): SPAKE2PlusPBKDF {
  const s = salt.slice();
  return (input, n) => scrypt(input, s, { N: params.N, r: params.r, p: params.p, dkLen: n }, onProgress);
}

/**
 * Registration, RFC 9383 §3.2, exactly as the Go spake2plus.Register:
 * w0s || w1s = pbkdf(len(pw) || pw || len(idProver) || idProver ||
 * len(idVerifier) || idVerifier, 80) with 8-byte little-endian lengths,
 * w0 = w0s mod p, w1 = w1s mod p (40-byte halves, bias below 2^-64),
 * L = w1*P. Returns w0 and w1 (32 bytes big-endian each) and L (65 bytes,
 * SEC 1 uncompressed). An empty password, a PBKDF output that is not 80
 * bytes, and the negligible case w0 = 0 or w1 = 0 throw a RangeError.
 * The input array handed to pbkdf is zeroed once its promise settles: a
 * callback that keeps it must copy it.
 */
export async function spake2plusRegister(
  password: Uint8Array,
  idProver: Uint8Array,
  idVerifier: Uint8Array,
  pbkdf: SPAKE2PlusPBKDF,
): Promise<{ w0: Uint8Array; w1: Uint8Array; L: Uint8Array }> {
  const { w0, w1 } = await spake2plusW(password, idProver, idVerifier, pbkdf);
  return { w0, w1, L: Point.BASE.multiply(Fn.fromBytes(w1)).toBytes(false) };
}

/**
 * w0 and w1 of spake2plusRegister without L: what a prover needs at each
 * login (L = w1*P is the verifier's, and costs a scalar multiplication).
 */
export async function spake2plusW(
  password: Uint8Array,
  idProver: Uint8Array,
  idVerifier: Uint8Array,
  pbkdf: SPAKE2PlusPBKDF,
): Promise<{ w0: Uint8Array; w1: Uint8Array }> {
  if (password.length === 0) throw new RangeError('SPAKE2+: empty password');
  const input = lengthPrefixed(password, idProver, idVerifier);
  let out: Uint8Array;
  try {
    out = await pbkdf(input, 2 * PBKDF_HALF);
  } finally {
    input.fill(0);
  }
  if (out.length !== 2 * PBKDF_HALF) throw new RangeError(`SPAKE2+: PBKDF returned ${out.length} bytes, want ${2 * PBKDF_HALF}`);
  const s0 = Fn.create(bytesToNumberBE(out.subarray(0, PBKDF_HALF)));
  const s1 = Fn.create(bytesToNumberBE(out.subarray(PBKDF_HALF)));
  out.fill(0);
  if (s0 === 0n || s1 === 0n) throw new RangeError('SPAKE2+: w0 or w1 is zero');
  return { w0: Fn.toBytes(s0), w1: Fn.toBytes(s1) };
}

/**
 * TT, RFC 9383 §3.3: every field preceded by its 8-byte little-endian
 * length, with the suite's M and N. Exported for the known-answer tests;
 * not part of the package's entry point.
 */
export function spake2plusTranscript(
  context: Uint8Array, idProver: Uint8Array, idVerifier: Uint8Array,
  shareP: Uint8Array, shareV: Uint8Array, Z: Uint8Array, V: Uint8Array, w0: Uint8Array,
): Uint8Array {
  return lengthPrefixed(context, idProver, idVerifier, M_BYTES, N_BYTES, shareP, shareV, Z, V, w0);
}

/** The key schedule of RFC 9383 §3.4. */
export interface SPAKE2PlusKeys {
  K_main: Uint8Array;
  K_confirmP: Uint8Array;
  K_confirmV: Uint8Array;
  K_shared: Uint8Array;
}

/**
 * The key schedule of RFC 9383 §3.4 from TT: K_main = SHA-256(TT), then
 * HKDF-SHA256 with no salt (RFC 5869's zero-filled one, as Go's nil).
 * Exported for the known-answer tests; not part of the package's entry point.
 */
export function spake2plusKeySchedule(tt: Uint8Array): SPAKE2PlusKeys {
  const K_main = sha256(tt);
  const prk = extract(sha256, K_main);
  const ck = expand(sha256, prk, utf8('ConfirmationKeys'), 2 * MAC_SIZE);
  const K_shared = expand(sha256, prk, utf8('SharedKey'), MAC_SIZE);
  prk.fill(0);
  const keys = { K_main, K_confirmP: ck.slice(0, MAC_SIZE), K_confirmV: ck.slice(MAC_SIZE), K_shared };
  ck.fill(0);
  return keys;
}

/** Decodes shareV: exactly 65 bytes, an uncompressed point on P-256 (never the identity), as Go's parseShare. */
function parseShare(b: Uint8Array): P256Point {
  if (b.length !== SHARE_SIZE || b[0] !== 4) throw new ProtocolError(`SPAKE2+: shareV: want a ${SHARE_SIZE}-byte uncompressed point`);
  try {
    return Point.fromBytes(b); // checks the curve equation; cofactor 1: every point is in the group
  } catch (e) {
    throw new ProtocolError(`SPAKE2+: shareV: ${(e as Error).message}`);
  }
}

type State = 'start' | 'active' | 'done' | 'failed';

/**
 * The prover (client) of RFC 9383 (Appendix A, "Prover"): start() returns
 * shareP, finish(shareV || confirmV) checks the verifier's confirmation and
 * returns confirmP; sharedKey is K_shared afterwards. As the Go Prover, any
 * error kills it: every later call throws.
 */
export class SPAKE2PlusProver {
  readonly #context: Uint8Array;
  readonly #idProver: Uint8Array;
  readonly #idVerifier: Uint8Array;
  readonly #w0Bytes: Uint8Array;
  readonly #w0: bigint;
  readonly #w1: bigint;
  #x: bigint | undefined;
  #shareP: Uint8Array | undefined;
  #key: Uint8Array | undefined;
  #state: State = 'start';

  /**
   * context, idProver and idVerifier are bound into TT (§3.3) and must equal
   * the verifier's. w0 and w1 (from spake2plusRegister): 32 bytes each,
   * big-endian, in [1, p-1], else a RangeError; they are copied, the
   * caller's arrays are not touched. x fixes the ephemeral scalar (same
   * format) for test vectors only; without it, start() draws x uniformly
   * from [1, p-1].
   */
  constructor(context: Uint8Array, idProver: Uint8Array, idVerifier: Uint8Array, w0: Uint8Array, w1: Uint8Array, x?: Uint8Array) {
    this.#w0 = parseScalar('w0', w0);
    this.#w1 = parseScalar('w1', w1);
    if (x !== undefined) this.#x = parseScalar('x', x);
    this.#context = context.slice();
    this.#idProver = idProver.slice();
    this.#idVerifier = idVerifier.slice();
    this.#w0Bytes = w0.slice();
  }

  /** shareP = X = x*P + w0*M (§3.3; Appendix A, ProverInit), 65 bytes. Only once. */
  start(): Uint8Array {
    if (this.#state !== 'start') throw this.#fail(new Error('SPAKE2+: start called twice or after the end'));
    if (this.#x === undefined) {
      // 48 random bytes reduced into [1, p-1]: bias below 2^-128.
      const r = randomBytes(48);
      this.#x = (bytesToNumberBE(r) % (Fn.ORDER - 1n)) + 1n;
      r.fill(0);
    }
    this.#shareP = Point.BASE.multiply(this.#x).add(M.multiply(this.#w0)).toBytes(false);
    this.#state = 'active';
    return this.#shareP.slice();
  }

  /**
   * Takes the verifier's shareV || confirmV (65 + 32 bytes, the service's
   * login/start answer) and returns confirmP = MAC(K_confirmP, shareV)
   * (§3.3, §3.4; Appendix A, ProverFinish). A message of the wrong length,
   * a shareV that is not a point of P-256, or one equal to w0*N (which
   * would make Z and V the identity) throws a ProtocolError; a confirmV
   * other than MAC(K_confirmV, shareP) (compared in constant time) throws
   * an AuthError: wrong password, or not the registered server.
   */
  finish(msg: Uint8Array): Uint8Array {
    if (this.#state !== 'active') throw this.#fail(new Error('SPAKE2+: finish called before start or after the end'));
    if (msg.length !== SHARE_SIZE + MAC_SIZE) {
      throw this.#fail(new ProtocolError(`SPAKE2+: shareV || confirmV is ${msg.length} bytes, want ${SHARE_SIZE + MAC_SIZE}`));
    }
    const shareV = msg.slice(0, SHARE_SIZE);
    const confirmV = msg.subarray(SHARE_SIZE);
    let Y: P256Point;
    try {
      Y = parseShare(shareV);
    } catch (e) {
      throw this.#fail(e as Error);
    }
    const u = Y.subtract(N.multiply(this.#w0));
    if (u.is0()) throw this.#fail(new ProtocolError('SPAKE2+: shareV cancels the password mask'));
    const Z = u.multiply(this.#x!).toBytes(false);
    const V = u.multiply(this.#w1).toBytes(false);
    this.#x = undefined;
    const shareP = this.#shareP!;
    const tt = spake2plusTranscript(this.#context, this.#idProver, this.#idVerifier, shareP, shareV, Z, V, this.#w0Bytes);
    const k = spake2plusKeySchedule(tt);
    for (const b of [tt, Z, V, this.#w0Bytes, k.K_main]) b.fill(0);
    try {
      const expect = hmac(sha256, k.K_confirmV, shareP);
      if (!equalBytes(expect, confirmV)) {
        k.K_shared.fill(0);
        throw this.#fail(new AuthError('wrong user name or password (SPAKE2+ confirmV does not verify)'));
      }
      this.#key = k.K_shared;
      this.#state = 'done';
      return hmac(sha256, k.K_confirmP, shareV);
    } finally {
      k.K_confirmP.fill(0);
      k.K_confirmV.fill(0);
    }
  }

  /** K_shared (32 bytes, a copy), the session key, once finish has succeeded; before, an Error. */
  get sharedKey(): Uint8Array {
    if (this.#state !== 'done' || this.#key === undefined) throw new Error('SPAKE2+: no shared key before the exchange finished');
    return this.#key.slice();
  }

  /** Marks the prover dead (a finished one keeps its key, as in Go) and returns err. */
  #fail(err: Error): Error {
    if (this.#state !== 'done') {
      this.#state = 'failed';
      this.#x = undefined;
      this.#w0Bytes.fill(0);
      this.#key?.fill(0);
      this.#key = undefined;
    }
    return err;
  }
}
