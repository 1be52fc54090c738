// OPAQUE-3DH client (RFC 9807) in the configuration of §7 that kexlab's
// service runs (Go: pake/opaque, server/flows.go):
//
//   OPRF  P256-SHA256 (RFC 9497 §4.3, mode modeOPRF 0x00), hash-to-curve
//         P256_XMD:SHA-256_SSWU_RO_ (RFC 9380)
//   KDF   HKDF-SHA256      MAC  HMAC-SHA256      Hash  SHA-256
//   Group P-256, elements as compressed SEC 1 points
//   Nn = Nseed = Nh = Nx = Nm = 32, Npk = Noe = 33, Nsk = 32
//   KSF   the service's: scrypt(msg, salt = 16 zero bytes, N = 32768,
//         r = 8, p = 1, 32 bytes) (RFC 9807 §7; scryptKSF)
//
// Wire sizes are fixed: registration request 33 bytes, registration
// response 66, record 129, KE1 98, KE2 259, KE3 32. The service uses the
// credential identifier = the user name, the default identities (client
// and server identity = the parties' public keys) and an empty context;
// the client never sees the credential identifier.
//
// All curve, hash-to-curve and hash arithmetic is @noble/curves and
// @noble/hashes; this module only arranges it as the RFCs say.
//
// Timing, honestly: noble's P-256 scalar multiplication (Point.multiply) is
// written to avoid secret-dependent branches and table look-ups, but it runs
// on JavaScript BigInt, whose arithmetic takes time that depends on the
// operands' values; so do hash-to-field's reductions and the blind's
// inversion (noble's invertCt: a Fermat power with a public exponent, no
// secret-dependent branches, still BigInt). None of it is constant time in
// the strict sense that Go's filippo.io/nistec is. The MAC comparisons
// (auth_tag, server_mac) use equalBytes, whose time depends on the lengths
// only. Secret byte arrays this module owns (password copies, OPRF output,
// the stretched password, randomized_password, the envelope keys, the 3DH
// input and the key-schedule secrets) are overwritten with zeros once used;
// secret scalars are BigInts, which cannot be cleared, and are dropped.

import { p256, p256_hasher } from '@noble/curves/nist.js';
import { invertCt } from '@noble/curves/abstract/modular.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hmac } from '@noble/hashes/hmac.js';
import { extract, expand } from '@noble/hashes/hkdf.js';
import { concat, equalBytes, randomBytes, utf8 } from './bytes.js';
import { AuthError, ProtocolError } from './errors.js';
import type { Scrypt } from './stretch.js';

/** A key stretching function, Stretch(msg) of RFC 9807 §2.3. The client clears its output after use. */
export type KSF = (msg: Uint8Array) => Promise<Uint8Array>;

/**
 * The service's KSF: scrypt(msg, S = zeroes(16), N = 32768, r = 8, p = 1,
 * dkLen = 32), RFC 9807 §7's scrypt configuration (Go: opaque.Scrypt), run
 * through the Scrypt seam of stretch.ts (in-process or in a worker).
 */
export function scryptKSF(scrypt: Scrypt): KSF {
  return (msg) => scrypt(msg, new Uint8Array(16), { N: 32768, r: 8, p: 1, dkLen: 32 });
}

/**
 * The Identity KSF, Stretch(msg) = msg, of the test vectors of RFC 9807
 * Appendix D. It gives no protection to a stolen record: tests only.
 */
export const identityKSF: KSF = async (msg) => msg.slice();

/** Lengths of the configuration (RFC 9807 §2, §7), in bytes. */
export const Nn = 32, Nseed = 32, Nh = 32, Nx = 32, Nm = 32, Npk = 33, Nsk = 32, Noe = 33;

/** Message sizes (RFC 9807 §4.1, §5.1, §6.1), in bytes. */
export const RegistrationRequestSize = Noe;
export const RegistrationResponseSize = Noe + Npk;
export const EnvelopeSize = Nn + Nm;
export const RegistrationRecordSize = Npk + Nh + EnvelopeSize;
export const KE1Size = Noe + Nn + Npk;
const MaskedResponseSize = Npk + EnvelopeSize;
export const KE2Size = Noe + Nn + MaskedResponseSize + Nn + Npk + Nm;
export const KE3Size = Nm;

/** client_identity and server_identity (RFC 9807 §4); an empty or missing one is the party's public key. */
export interface Identities {
  client?: Uint8Array;
  server?: Uint8Array;
}

/** Options of an OpaqueClient: the KSF and the context of the preamble (RFC 9807 §6.4.2, default empty). */
export interface OpaqueClientOptions {
  ksf: KSF;
  context?: Uint8Array;
}

/** Fixed randomness of GenerateKE1, for test vectors only. */
export interface KE1Fixed {
  blind: bigint | Uint8Array;
  clientNonce: Uint8Array;
  clientKeyshareSeed: Uint8Array;
}

const { Point } = p256;
const Fn = Point.Fn;
type Pt = ReturnType<typeof Point.fromBytes>;

// contextString = "OPRFV1-" || I2OSP(modeOPRF, 1) || "-" || "P256-SHA256" (RFC 9497 §3.1).
const contextString = 'OPRFV1-\x00-P256-SHA256';
const dstHashToGroup = utf8('HashToGroup-' + contextString);
const dstDeriveKeyPair = utf8('DeriveKeyPair' + contextString);
const maxLen = 0xffff;

function i2osp2(n: number): Uint8Array {
  return new Uint8Array([n >>> 8, n & 0xff]);
}

/** I2OSP(len(b), 2) || b. */
function prefixed(b: Uint8Array): Uint8Array {
  return concat(i2osp2(b.length), b);
}

function checkLen(what: string, b: Uint8Array): void {
  if (b.length > maxLen) throw new RangeError(`opaque: ${what} of ${b.length} bytes (at most ${maxLen})`);
}

/**
 * DeriveKeyPair(seed, info) of RFC 9497 §3.2.1 for P256-SHA256 (mode
 * modeOPRF): skS = HashToScalar(seed || I2OSP(len(info), 2) || info ||
 * I2OSP(counter, 1)) with DST "DeriveKeyPair" || contextString, for the
 * first counter in 0..255 that gives a non-zero scalar; pkS = skS·G.
 * Returns the scalar, its 32-byte big-endian encoding and the compressed
 * public key.
 */
export function deriveKeyPair(seed: Uint8Array, info: Uint8Array): { sk: bigint; secretKey: Uint8Array; publicKey: Uint8Array } {
  checkLen('info', info);
  const msg = concat(seed, prefixed(info), new Uint8Array(1));
  try {
    for (let counter = 0; counter <= 255; counter++) {
      msg[msg.length - 1] = counter;
      const sk = p256_hasher.hashToScalar(msg, { DST: dstDeriveKeyPair });
      if (sk !== 0n) return { sk, secretKey: Fn.toBytes(sk), publicKey: Point.BASE.multiply(sk).toBytes(true) };
    }
  } finally {
    msg.fill(0);
  }
  throw new Error('opaque: DeriveKeyPairError');
}

/**
 * DeriveDiffieHellmanKeyPair(seed) of RFC 9807 §6.4.1 for P-256:
 * DeriveKeyPair(seed, "OPAQUE-DeriveDiffieHellmanKeyPair") of RFC 9497.
 * The client's long-term key (from the envelope, §4.1.2) and its ephemeral
 * keyshare (from client_keyshare_seed, §6.4.3) both come from it.
 */
export function deriveDiffieHellmanKeyPair(seed: Uint8Array): { sk: bigint; secretKey: Uint8Array; publicKey: Uint8Array } {
  return deriveKeyPair(seed, utf8('OPAQUE-DeriveDiffieHellmanKeyPair'));
}

/** DeserializeElement (RFC 9497 §4.3): a compressed point of 33 bytes, on the curve; never the identity. */
function element(what: string, b: Uint8Array): Pt {
  if (b.length !== Noe || (b[0] !== 2 && b[0] !== 3)) throw new ProtocolError(`opaque: ${what} is not a compressed P-256 point`);
  let p: Pt;
  try {
    p = Point.fromBytes(b);
  } catch {
    throw new ProtocolError(`opaque: ${what} is not a point of P-256`);
  }
  if (p.equals(Point.ZERO)) throw new ProtocolError(`opaque: ${what} is the identity`);
  return p;
}

/** A blind given by the caller: a scalar in [1, n-1] (bigint, or 32 bytes big-endian). */
function blindScalar(b: bigint | Uint8Array | undefined): bigint {
  if (b === undefined) return Fn.fromBytes(p256.utils.randomSecretKey());
  const s = typeof b === 'bigint' ? b : b.length === Nsk ? Fn.fromBytes(b, true) : -1n;
  if (s <= 0n || s >= Fn.ORDER) throw new RangeError('opaque: blind must be a scalar in [1, n-1]');
  return s;
}

function fixedBytes(what: string, b: Uint8Array | undefined, n: number): Uint8Array {
  if (b === undefined) return randomBytes(n);
  if (b.length !== n) throw new RangeError(`opaque: ${what} must be ${n} bytes`);
  return b.slice();
}

/**
 * Blind(input) of RFC 9497 §3.3.1 with a given blind:
 * SerializeElement(blind·HashToGroup(input)), HashToGroup being
 * hash_to_curve P256_XMD:SHA-256_SSWU_RO_ with DST "HashToGroup-" ||
 * contextString.
 */
function blindElement(input: Uint8Array, blind: bigint): Uint8Array {
  checkLen('password', input);
  const p = p256_hasher.hashToCurve(input, { DST: dstHashToGroup });
  if (p.equals(Point.ZERO)) throw new Error('opaque: InvalidInputError');
  return p.multiply(blind).toBytes(true);
}

/**
 * Finalize(input, blind, evaluatedElement) of RFC 9497 §3.3.1: with
 * N = blind^-1·evaluatedElement, SHA-256(I2OSP(len(input), 2) || input ||
 * I2OSP(len(N), 2) || SerializeElement(N) || "Finalize").
 */
function finalizeOPRF(input: Uint8Array, blind: bigint, evaluated: Pt): Uint8Array {
  const n = evaluated.multiply(invertCt(blind, Fn.ORDER)).toBytes(true);
  const m = concat(prefixed(input), prefixed(n), utf8('Finalize'));
  try {
    return sha256(m);
  } finally {
    m.fill(0);
    n.fill(0);
  }
}

/**
 * randomized_password = Extract("", oprf_output || Stretch(oprf_output))
 * (RFC 9807 §5.2.3, §6.3.2.3), from the OPRF evaluation.
 */
async function randomizedPassword(ksf: KSF, password: Uint8Array, blind: bigint, evaluated: Pt): Promise<Uint8Array> {
  const out = finalizeOPRF(password, blind, evaluated);
  let stretched: Uint8Array | undefined;
  let ikm: Uint8Array | undefined;
  try {
    stretched = await ksf(out);
    ikm = concat(out, stretched);
    return extract(sha256, ikm, new Uint8Array(0));
  } finally {
    out.fill(0);
    stretched?.fill(0);
    ikm?.fill(0);
  }
}

const mac = (key: Uint8Array, msg: Uint8Array): Uint8Array => hmac(sha256, key, msg);

/** The envelope's keys (RFC 9807 §4.1.2): Expand(randomized_password, envelope_nonce || label, n). */
function envelopeKeys(rwd: Uint8Array, nonce: Uint8Array): { authKey: Uint8Array; exportKey: Uint8Array; seed: Uint8Array } {
  const info = (label: string) => concat(nonce, utf8(label));
  return {
    authKey: expand(sha256, rwd, info('AuthKey'), Nh),
    exportKey: expand(sha256, rwd, info('ExportKey'), Nh),
    seed: expand(sha256, rwd, info('PrivateKey'), Nseed),
  };
}

/** CleartextCredentials (RFC 9807 §4): server_public_key || prefixed(server_identity) || prefixed(client_identity). */
function cleartextCredentials(serverPublicKey: Uint8Array, serverIdentity: Uint8Array, clientIdentity: Uint8Array): Uint8Array {
  return concat(serverPublicKey, prefixed(serverIdentity), prefixed(clientIdentity));
}

const orDefault = (id: Uint8Array | undefined, publicKey: Uint8Array): Uint8Array => (id && id.length > 0 ? id : publicKey);

/**
 * Expand-Label(secret, label, context, Nx) of RFC 9807 §6.4.2:
 * Expand(secret, I2OSP(Nx, 2) || I2OSP(len, 1) || "OPAQUE-" || label ||
 * I2OSP(len(context), 1) || context, Nx).
 */
function expandLabel(secret: Uint8Array, label: string, context: Uint8Array): Uint8Array {
  const l = utf8('OPAQUE-' + label);
  return expand(sha256, secret, concat(i2osp2(Nx), new Uint8Array([l.length]), l, new Uint8Array([context.length]), context), Nx);
}

/** DiffieHellman(k, B) of RFC 9807 §6.4.1: SerializeElement(k·B). */
function dh(k: bigint, b: Pt): Uint8Array {
  const p = b.multiply(k);
  if (p.equals(Point.ZERO)) throw new ProtocolError('opaque: Diffie-Hellman result is the identity');
  return p.toBytes(true);
}

interface RegistrationState {
  password: Uint8Array;
  blind: bigint;
}

interface LoginState {
  password: Uint8Array;
  blind: bigint;
  secret: bigint; // client_secret, the ephemeral private key
  ke1: Uint8Array;
}

/**
 * The client of OPAQUE-3DH (RFC 9807), P-256 configuration. One instance
 * holds at most one registration (createRegistrationRequest, then
 * finalizeRegistrationRequest, §5.2) and one login (generateKE1, then
 * generateKE3, §6.2) in progress; a second start replaces the first, a
 * finish consumes its state even when it fails, and a finish without its
 * start throws Error. Registration and every login must use the same KSF,
 * context and identities.
 */
export class OpaqueClient {
  readonly #ksf: KSF;
  readonly #context: Uint8Array;
  #reg: RegistrationState | undefined;
  #login: LoginState | undefined;

  constructor({ ksf, context = new Uint8Array(0) }: OpaqueClientOptions) {
    checkLen('context', context);
    this.#ksf = ksf;
    this.#context = context.slice();
  }

  /**
   * CreateRegistrationRequest (RFC 9807 §5.2.1): blinds the password and
   * returns blinded_message (33 bytes). blind is drawn at random unless
   * given (test vectors only).
   */
  createRegistrationRequest(password: Uint8Array, blind?: bigint | Uint8Array): Uint8Array {
    const r = blindScalar(blind);
    const request = blindElement(password, r);
    this.#reg?.password.fill(0);
    this.#reg = { password: password.slice(), blind: r };
    return request;
  }

  /**
   * FinalizeRegistrationRequest (RFC 9807 §5.2.3): unblinds response
   * (evaluated_message || server_public_key), stretches the OPRF output into
   * randomized_password and seals the envelope (Store, §4.1.2) binding
   * identities into it. Returns the record (client_public_key || masking_key
   * || envelope, 129 bytes) and export_key. envelopeNonce is random unless
   * given (test vectors only).
   */
  async finalizeRegistrationRequest(
    response: Uint8Array,
    identities: Identities = {},
    envelopeNonce?: Uint8Array,
  ): Promise<{ record: Uint8Array; exportKey: Uint8Array }> {
    const st = this.#reg;
    if (!st) throw new Error('opaque: no registration in progress (createRegistrationRequest first)');
    this.#reg = undefined;
    try {
      checkLen('client identity', identities.client ?? new Uint8Array(0));
      checkLen('server identity', identities.server ?? new Uint8Array(0));
      const nonce = fixedBytes('envelope nonce', envelopeNonce, Nn);
      if (response.length !== RegistrationResponseSize) {
        throw new ProtocolError(`opaque: registration response of ${response.length} bytes, want ${RegistrationResponseSize}`);
      }
      const z = element('evaluated element', response.subarray(0, Noe));
      const serverPublicKey = response.slice(Noe);
      element('server public key', serverPublicKey);

      const rwd = await randomizedPassword(this.#ksf, st.password, st.blind, z);
      const { authKey, exportKey, seed } = envelopeKeys(rwd, nonce);
      try {
        const clientPublicKey = deriveDiffieHellmanKeyPair(seed).publicKey;
        const creds = cleartextCredentials(serverPublicKey, orDefault(identities.server, serverPublicKey), orDefault(identities.client, clientPublicKey));
        const authTag = mac(authKey, concat(nonce, creds));
        const maskingKey = expand(sha256, rwd, utf8('MaskingKey'), Nh);
        const record = concat(clientPublicKey, maskingKey, nonce, authTag);
        maskingKey.fill(0);
        return { record, exportKey };
      } finally {
        rwd.fill(0);
        authKey.fill(0);
        seed.fill(0);
      }
    } finally {
      st.password.fill(0);
    }
  }

  /**
   * GenerateKE1 (RFC 9807 §6.2.1): CreateCredentialRequest (the blinded
   * password) and AuthClientStart (client_nonce and the ephemeral keyshare
   * from client_keyshare_seed, §6.4.3). Returns KE1 = blinded_message ||
   * client_nonce || client_public_keyshare (98 bytes). fixed gives the
   * randomness, for test vectors only.
   */
  generateKE1(password: Uint8Array, fixed?: KE1Fixed): Uint8Array {
    const r = blindScalar(fixed?.blind);
    const nonce = fixedBytes('client nonce', fixed?.clientNonce, Nn);
    const seed = fixedBytes('client keyshare seed', fixed?.clientKeyshareSeed, Nseed);
    const blinded = blindElement(password, r);
    const { sk, secretKey, publicKey } = deriveDiffieHellmanKeyPair(seed);
    seed.fill(0);
    secretKey.fill(0);
    const ke1 = concat(blinded, nonce, publicKey);
    this.#login?.password.fill(0);
    this.#login = { password: password.slice(), blind: r, secret: sk, ke1 };
    return ke1.slice();
  }

  /**
   * GenerateKE3 (RFC 9807 §6.2.3): RecoverCredentials (unmasking, §6.3.2.3,
   * and Recover, §4.1.3), then AuthClientFinalize (§6.4.3): 3DH, the key
   * schedule and the check of server_mac. Returns KE3 (client_mac),
   * session_key and export_key. A KE2 of another length, or carrying an
   * invalid point, throws ProtocolError; an envelope that does not open
   * (wrong password, other identities, a fake record) or a wrong server_mac
   * throws AuthError.
   */
  async generateKE3(ke2: Uint8Array, identities: Identities = {}): Promise<{ ke3: Uint8Array; sessionKey: Uint8Array; exportKey: Uint8Array }> {
    const st = this.#login;
    if (!st) throw new Error('opaque: no login in progress (generateKE1 first)');
    this.#login = undefined;
    const secrets: Uint8Array[] = [st.password];
    try {
      checkLen('client identity', identities.client ?? new Uint8Array(0));
      checkLen('server identity', identities.server ?? new Uint8Array(0));
      if (ke2.length !== KE2Size) throw new ProtocolError(`opaque: KE2 of ${ke2.length} bytes, want ${KE2Size}`);
      let o = 0;
      const take = (n: number) => ke2.subarray(o, (o += n));
      const evaluated = take(Noe), maskingNonce = take(Nn), maskedResponse = take(MaskedResponseSize);
      take(Nn); // server_nonce
      const serverKeyshareBytes = take(Npk), serverMAC = take(Nm);
      const z = element('evaluated element', evaluated);
      const serverKeyshare = element('server keyshare', serverKeyshareBytes);

      const rwd = await randomizedPassword(this.#ksf, st.password, st.blind, z);
      secrets.push(rwd);

      // RecoverCredentials (§6.3.2.3).
      const maskingKey = expand(sha256, rwd, utf8('MaskingKey'), Nh);
      const pad = expand(sha256, maskingKey, concat(maskingNonce, utf8('CredentialResponsePad')), MaskedResponseSize);
      const unmasked = pad.map((x, i) => x ^ maskedResponse[i]!);
      secrets.push(maskingKey, pad, unmasked);
      const serverPublicKeyBytes = unmasked.slice(0, Npk);
      const envNonce = unmasked.subarray(Npk, Npk + Nn), authTag = unmasked.subarray(Npk + Nn);

      // Recover (§4.1.3).
      const { authKey, exportKey, seed } = envelopeKeys(rwd, envNonce);
      secrets.push(authKey, seed);
      const client = deriveDiffieHellmanKeyPair(seed);
      secrets.push(client.secretKey);
      const clientIdentity = orDefault(identities.client, client.publicKey);
      const serverIdentity = orDefault(identities.server, serverPublicKeyBytes);
      const creds = cleartextCredentials(serverPublicKeyBytes, serverIdentity, clientIdentity);
      if (!equalBytes(mac(authKey, concat(envNonce, creds)), authTag)) {
        exportKey.fill(0);
        throw new AuthError('opaque: envelope recovery failed (wrong password)');
      }
      const serverPublicKey = element('server public key', serverPublicKeyBytes);

      // AuthClientFinalize (§6.4.3).
      const ikm = concat(dh(st.secret, serverKeyshare), dh(st.secret, serverPublicKey), dh(client.sk, serverKeyshare));
      secrets.push(ikm);
      const preamble = concat(
        utf8('OPAQUEv1-'), prefixed(this.#context),
        prefixed(clientIdentity), st.ke1,
        prefixed(serverIdentity), ke2.subarray(0, KE2Size - Nm),
      );
      const preambleHash = sha256(preamble);
      const prk = extract(sha256, ikm, new Uint8Array(0));
      const handshakeSecret = expandLabel(prk, 'HandshakeSecret', preambleHash);
      const sessionKey = expandLabel(prk, 'SessionKey', preambleHash);
      const km2 = expandLabel(handshakeSecret, 'ServerMAC', new Uint8Array(0));
      const km3 = expandLabel(handshakeSecret, 'ClientMAC', new Uint8Array(0));
      secrets.push(prk, handshakeSecret, km2, km3);
      const expectedServerMAC = mac(km2, preambleHash);
      if (!equalBytes(expectedServerMAC, serverMAC)) {
        sessionKey.fill(0);
        exportKey.fill(0);
        throw new AuthError('opaque: server MAC mismatch');
      }
      const ke3 = mac(km3, sha256(concat(preamble, expectedServerMAC)));
      return { ke3, sessionKey, exportKey };
    } finally {
      for (const s of secrets) s.fill(0);
    }
  }
}
