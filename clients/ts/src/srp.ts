// SRP-6a client (RFC 2945, RFC 5054) in the profile kexlab's service,
// pysrp's RFC 5054 mode, the RustCrypto srp crate and HomeKit speak
// (pake/srp.ProfileRFC5054 in the Go module):
//
//   k  = H(N | PAD(g))                      u  = H(PAD(A) | PAD(B))
//   x  = H(s | H(I | ":" | P))              v  = g^x mod N
//   S  = (B - k*g^x)^(a + u*x) mod N        K  = H(S)          (S minimal)
//   M1 = H(H(N) xor H(PAD(g)) | H(I) | s | A | B | K)          (A, B minimal)
//   M2 = H(A | M1 | K)
//
// A and B travel in their minimal big-endian encoding; message 2 is
// len(s) (one byte) | s | B.
//
// NOT CONSTANT TIME: the modular exponentiation runs on JavaScript BigInt,
// whose arithmetic takes time that depends on the values (as pysrp's pure
// Python backend does). The exponent a + u*x holds the stretched password,
// so an attacker who can time the client's exponentiation precisely (same
// machine, many logins) learns about it. The password itself never reaches
// BigInt: it is stretched (scrypt) and hashed into x first. Prefer SPAKE2+
// or OPAQUE (@noble/curves, constant time) where this matters.

import { sha1 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { ProtocolError, AuthError } from './errors.js';
import { concat, equalBytes, randomBytes, utf8 } from './bytes.js';

/** An SRP group: the prime N and generator g (RFC 5054 Appendix A). */
export interface SRPGroup {
  readonly N: bigint;
  readonly g: bigint;
}

/** RFC 5054 Appendix A, the 2048-bit group (g = 2). */
export const group2048: SRPGroup = {
  N: BigInt('0x' +
  'ac6bdb41324a9a9bf166de5e1389582faf72b6651987ee07fc3192943db56050' +
  'a37329cbb4a099ed8193e0757767a13dd52312ab4b03310dcd7f48a9da04fd50' +
  'e8083969edb767b0cf6095179a163ab3661a05fbd5faaae82918a9962f0b93b8' +
  '55f97993ec975eeaa80d740adbf4ff747359d041d5c33ea71d281e446b14773b' +
  'ca97b43a23fb801676bd207a436c6481f1d2b9078717461a5b9d32e688f87748' +
  '544523b524b0d57d5ea77a2775d2ecfa032cfbdbf52fb3786160279004e57ae6' +
  'af874e7303ce53299ccc041c7bc308d82a5698f3a8d0c38271ae35f8e9dbfbb6' +
  '94b5c803d89f7ae435de236d525f54759b65e372fcd68ef20fa7111f9e4aff73'),
  g: 2n,
};

/** RFC 5054 Appendix A, the 3072-bit group (g = 5). */
export const group3072: SRPGroup = {
  N: BigInt('0x' +
  'ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74' +
  '020bbea63b139b22514a08798e3404ddef9519b3cd3a431b302b0a6df25f1437' +
  '4fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed' +
  'ee386bfb5a899fa5ae9f24117c4b1fe649286651ece45b3dc2007cb8a163bf05' +
  '98da48361c55d39a69163fa8fd24cf5f83655d23dca3ad961c62f356208552bb' +
  '9ed529077096966d670c354e4abc9804f1746c08ca18217c32905e462e36ce3b' +
  'e39e772c180e86039b2783a2ec07a28fb5c55df06f4c52c9de2bcbf695581718' +
  '3995497cea956ae515d2261898fa051015728e5a8aaac42dad33170d04507a33' +
  'a85521abdf1cba64ecfb850458dbef0a8aea71575d060c7db3970f85a6e1e4c7' +
  'abf5ae8cdb0933d71e8c94e04a25619dcee3d2261ad2ee6bf12ffa06d98a0864' +
  'd87602733ec86a64521f2b18177b200cbbe117577a615d6c770988c0bad946e2' +
  '08e24fa074e5ab3143db5bfce0fd108e4b82d120a93ad2caffffffffffffffff'),
  g: 5n,
};

export type SRPHash = 'sha1' | 'sha256';

const hashes = { sha1, sha256 };

/** The size in bytes of the exponent a the client draws. */
export const exponentSize = 32;

/** SRP parameters: a group and a hash. */
export class SRPParams {
  readonly group: SRPGroup;
  readonly size: number; // |N| in bytes
  readonly k: bigint;
  private readonly hash: (m: Uint8Array) => Uint8Array;
  private readonly hNg: Uint8Array;

  constructor(group: SRPGroup, hash: SRPHash = 'sha256') {
    this.group = group;
    this.size = Math.ceil(bitLength(group.N) / 8);
    const h = hashes[hash];
    this.hash = (m) => h(m);
    const padG = this.pad(group.g);
    this.k = toBigInt(this.h(toBytes(group.N), padG)) % group.N;
    const hN = this.h(toBytes(group.N));
    const hg = this.h(padG);
    this.hNg = hN.map((b, i) => b ^ hg[i]!);
  }

  /** H over the concatenation of parts. */
  h(...parts: Uint8Array[]): Uint8Array {
    return this.hash(concat(...parts));
  }

  /** PAD(x): x big-endian in |N| bytes. */
  pad(x: bigint): Uint8Array {
    return toBytes(x, this.size);
  }

  /** x = H(s | H(I | ":" | P)), as bytes (the exponent, big-endian). */
  x(identity: Uint8Array, password: Uint8Array, salt: Uint8Array): Uint8Array {
    const inner = this.h(identity, utf8(':'), password);
    const x = this.h(salt, inner);
    inner.fill(0);
    return x;
  }

  /**
   * The verifier PAD(v), v = g^x mod N, that registration sends. The salt is
   * 1 to 255 bytes (the service draws it); the password must not be empty.
   */
  verifier(identity: Uint8Array, password: Uint8Array, salt: Uint8Array): Uint8Array {
    if (password.length === 0) throw new RangeError('srp: empty password');
    checkSalt(salt);
    const x = this.x(identity, password, salt);
    const v = this.pad(modPow(this.group.g, toBigInt(x), this.group.N));
    x.fill(0);
    return v;
  }

  /** H(N) xor H(PAD(g)), the first part of M1. */
  get hNxorHg(): Uint8Array {
    return this.hNg.slice();
  }
}

/** The client side of one SRP-6a exchange. */
export class SRPClient {
  private readonly p: SRPParams;
  private readonly identity: Uint8Array;
  private a: bigint;
  private readonly A: bigint;
  private m2: Uint8Array | undefined;
  private key: Uint8Array | undefined;
  private state: 'start' | 'sent' | 'confirm' | 'done' | 'failed' = 'start';

  /**
   * @param a the secret exponent (tests replay a vector's); drawn from
   *   crypto.getRandomValues (exponentSize bytes) when absent.
   */
  constructor(p: SRPParams, identity: Uint8Array, a?: Uint8Array) {
    this.p = p;
    this.identity = identity.slice();
    const aBytes = a ?? randomBytes(exponentSize);
    this.a = toBigInt(aBytes);
    if (a === undefined) aBytes.fill(0);
    if (this.a === 0n) throw new RangeError('srp: a = 0');
    this.A = modPow(p.group.g, this.a, p.group.N);
  }

  /** Message 1: A, minimal big-endian. */
  start(): Uint8Array {
    if (this.state !== 'start') throw new ProtocolError('srp: start called twice');
    this.state = 'sent';
    return toBytes(this.A);
  }

  /**
   * Consumes message 2 (len(s) | s | B) and returns M1. password is what
   * the client hashes into x: for the service, the scrypt-stretched
   * password. A malformed message or B = 0 mod N is a ProtocolError.
   */
  answer(message2: Uint8Array, password: Uint8Array): Uint8Array {
    if (this.state !== 'sent') throw new ProtocolError('srp: message 2 out of order');
    this.state = 'failed';
    const { salt, B } = parseMessage2(this.p, message2);
    if (password.length === 0) throw new RangeError('srp: empty password');
    const { N, g } = this.p.group;
    if (B % N === 0n) throw new ProtocolError('srp: B = 0 mod N');
    const u = toBigInt(this.p.h(this.p.pad(this.A), this.p.pad(B)));
    if (u === 0n) throw new ProtocolError('srp: u = 0');
    const xb = this.p.x(this.identity, password, salt);
    const x = toBigInt(xb);
    xb.fill(0);
    const base = (((B - this.p.k * modPow(g, x, N)) % N) + N) % N;
    const S = modPow(base, this.a + u * x, N);
    this.a = 0n;
    const K = this.p.h(toBytes(S));
    const A = toBytes(this.A);
    const M1 = this.p.h(this.p.hNxorHg, this.p.h(this.identity), salt, A, toBytes(B), K);
    this.m2 = this.p.h(A, M1, K);
    this.key = K;
    this.state = 'confirm';
    return M1;
  }

  /** Checks the server's M2: a wrong one is an AuthError. */
  verify(M2: Uint8Array): void {
    if (this.state !== 'confirm' || !this.m2) throw new ProtocolError('srp: M2 out of order');
    this.state = 'failed';
    if (!equalBytes(M2, this.m2)) throw new AuthError('srp: the server\'s M2 does not match');
    this.state = 'done';
  }

  /** The session key K = H(S), once M2 has been verified. */
  sessionKey(): Uint8Array {
    if (this.state !== 'done' || !this.key) throw new ProtocolError('srp: no session key before M2');
    return this.key.slice();
  }
}

/** Splits message 2: len(s) | s | B, B of 1 to |N| bytes, B < N. */
export function parseMessage2(p: SRPParams, m: Uint8Array): { salt: Uint8Array; B: bigint } {
  const n = m.length > 0 ? 1 + m[0]! : 0;
  if (m.length < 3 || m[0] === 0 || m.length < n + 1 || m.length > n + p.size) {
    throw new ProtocolError(`srp: message 2 of ${m.length} bytes does not parse`);
  }
  const B = toBigInt(m.subarray(n));
  if (B >= p.group.N) throw new ProtocolError('srp: B is not below N');
  return { salt: m.slice(1, n), B };
}

function checkSalt(salt: Uint8Array): void {
  if (salt.length < 1 || salt.length > 255) throw new RangeError(`srp: salt of ${salt.length} bytes, want 1 to 255`);
}

/** Big-endian bytes to a non-negative BigInt. */
export function toBigInt(b: Uint8Array): bigint {
  let hex = '';
  for (const x of b) hex += x.toString(16).padStart(2, '0');
  return hex === '' ? 0n : BigInt('0x' + hex);
}

/** x big-endian: minimal (at least one byte), or in exactly len bytes. */
export function toBytes(x: bigint, len?: number): Uint8Array {
  let hex = x.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  const minimal = hex.length / 2;
  const n = len ?? minimal;
  if (minimal > n) throw new RangeError('srp: value longer than its field');
  const out = new Uint8Array(n);
  for (let i = 0; i < minimal; i++) out[n - minimal + i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function bitLength(x: bigint): number {
  return x.toString(2).length;
}

/** base^e mod m, square and multiply (variable time: see the file's doc). */
export function modPow(base: bigint, e: bigint, m: bigint): bigint {
  let result = 1n;
  base %= m;
  while (e > 0n) {
    if (e & 1n) result = (result * base) % m;
    base = (base * base) % m;
    e >>= 1n;
  }
  return result;
}
