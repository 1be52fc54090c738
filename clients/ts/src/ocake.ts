// OCAKE initiator (client side), byte-identical with the Go package
// github.com/kexlab/kexlab/pake/ocake: Beguinet, Chevalier, Pointcheval,
// Ricosset and Rossi, "GeT a CAKE" (ACNS 2023, ePrint 2023/470), with
// ML-KEM-512 (FIPS 203) and, in place of the paper's ideal cipher,
// AES-128-CBC under a password-derived key. It is the PAKE layer of
// apakepq (apakepq.ts); the service does not offer OCAKE on its own.
//
//   H(label, x1, …, xn) = SHA-256(lp("kexlab OCAKE ML-KEM-512 v1 " ‖ label) ‖ lp(x1) ‖ … ‖ lp(xn))
//                         lp(x) = x preceded by its length as 8 big-endian bytes
//   pwKey = PBKDF2-HMAC-SHA256(password, H("salt", ClientID, ServerID), iterations, 32)
//   kEnc  = H("enc", ClientID, ServerID, Context, pwKey)[:16]
//
//   message 1 (832 bytes): (ek, dk) = ML-KEM-512.KeyGen(d ‖ z), 64 random bytes;
//                          IV ‖ AES-128-CBC(kEnc, IV, ek ‖ PKCS#7 padding), 16 random IV bytes
//   message 2 (800 bytes): c ‖ Auth
//   K    = ML-KEM-512.Decaps(dk, c)
//   Auth = H("auth", ClientID, ServerID, Context, pwKey, apk, c, K)   checked
//   SK   = H("session key", ClientID, ServerID, Context, apk, c, Auth, K)
//
// SECURITY OF THIS CONFIGURATION (as the Go package documents): AES-CBC
// over the FIPS 203 encoding of ek is not an ideal cipher. A passive
// eavesdropper who records one message 1 can test password guesses
// offline, at the cost of one PBKDF2 per guess: decrypting the last block
// under a guessed key and comparing it with the full PKCS#7 padding block
// confirms the guess (and so would the 12-bit coefficient encoding even
// without padding). This is the configuration kexlab measured; it must not
// protect real passwords.
//
// Side channels: SHA-256, PBKDF2 (@noble/hashes) and ML-KEM-512
// (@noble/post-quantum) are pure JavaScript. They avoid secret-dependent
// branches and table look-ups in their algorithms, but JavaScript's JIT and
// garbage collector give no constant-time guarantee, and @noble/post-quantum
// explicitly does not claim constant-time execution. AES runs in the
// platform's WebCrypto (native code). The Auth comparison uses equalBytes,
// whose time depends on the lengths only.

import { sha256 } from '@noble/hashes/sha2.js';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { ml_kem512 } from '@noble/post-quantum/ml-kem.js';
import { concat, equalBytes, randomBytes } from './bytes.js';
import { AuthError, ProtocolError } from './errors.js';

/** Length of OCAKE's message 1, IV ‖ AES-128-CBC(ek ‖ padding). */
export const ocakeMessage1Size = 16 + 816;
/** Length of OCAKE's message 2, c ‖ Auth. */
export const ocakeMessage2Size = 768 + 32;
/** Length of OCAKE's session key and password key. */
export const ocakeKeySize = 32;
/** The Go package's default PBKDF2 iteration count (zero selects it). */
export const ocakeDefaultIterations = 100000;

const hashPrefix = 'kexlab OCAKE ML-KEM-512 v1 ';
const seedSize = 64; // ML-KEM-512 KeyGen seed d ‖ z
const ivSize = 16;
const encKeySize = 16; // AES-128
const ciphertextSize = 768;
const publicKeySize = 800;

/** The identities and context of an exchange; both sides must use the same bytes. */
export interface OCAKESession {
  clientID: Uint8Array;
  serverID: Uint8Array;
  context: Uint8Array;
}

/** A source of n random bytes (tests inject a fixed stream); the default is crypto.getRandomValues. */
export type RandomSource = (n: number) => Uint8Array;

const textEncoder = new TextEncoder();

function lengthPrefix(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
}

/**
 * SHA-256(lp(prefix ‖ label) ‖ lp(x1) ‖ … ‖ lp(xn)), lp(x) being x after
 * its length as 8 big-endian bytes: the transcriptHash of the Go packages
 * (ocake and apakepq differ only in the prefix).
 * @internal
 */
export function transcriptHash(prefix: string, label: string, ...inputs: Uint8Array[]): Uint8Array {
  const h = sha256.create();
  const l = textEncoder.encode(prefix + label);
  h.update(lengthPrefix(l.length)).update(l);
  for (const x of inputs) h.update(lengthPrefix(x.length)).update(x);
  return h.digest();
}

/**
 * Checks and normalises a PBKDF2 iteration count as the Go packages do:
 * zero selects the default, negative or non-integral counts are a RangeError.
 * @internal
 */
export function pbkdf2Iterations(iterations: number, pkg: string): number {
  if (iterations === 0) return ocakeDefaultIterations;
  if (!Number.isSafeInteger(iterations) || iterations < 0) throw new RangeError(`${pkg}: ${iterations} PBKDF2 iterations`);
  return iterations;
}

/**
 * n random bytes in a buffer this module owns (and may clear): rand's
 * output is copied, so the caller's buffer is never modified.
 * @internal
 */
export function drawRandom(rand: RandomSource | undefined, n: number, pkg: string): Uint8Array {
  if (!rand) return randomBytes(n);
  const b = rand(n);
  if (!(b instanceof Uint8Array) || b.length !== n) throw new Error(`${pkg}: the random source did not return ${n} bytes`);
  return b.slice();
}

/**
 * OCAKE's password key, PBKDF2-HMAC-SHA256(password, H("salt", clientID,
 * serverID), iterations, 32) (the Go package's DeriveKey; zero iterations
 * selects ocakeDefaultIterations).
 */
export function ocakeDeriveKey(password: Uint8Array, clientID: Uint8Array, serverID: Uint8Array, iterations: number): Uint8Array {
  if (password.length === 0) throw new RangeError('ocake: empty password');
  const c = pbkdf2Iterations(iterations, 'ocake');
  return pbkdf2(sha256, password, transcriptHash(hashPrefix, 'salt', clientID, serverID), { c, dkLen: ocakeKeySize });
}

/** AES-CBC(key, iv, msg ‖ PKCS#7 padding) through WebCrypto. */
async function cbcEncrypt(key: Uint8Array, iv: Uint8Array, msg: Uint8Array): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey('raw', key.slice(), { name: 'AES-CBC' }, false, ['encrypt']);
  return new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-CBC', iv: iv.slice() }, k, msg.slice()));
}

type State = 'start' | 'busy' | 'waiting' | 'done' | 'failed';

/**
 * OCAKE's initiator (Alice, the client): message1() returns message 1,
 * finish(message 2) checks the responder's Auth and sets sessionKey. A wrong
 * password makes finish throw AuthError (if the responder has not already
 * refused message 1); a message 2 of the wrong length, ProtocolError; a call
 * out of order, or after a failure, Error.
 */
export class OCAKEInitiator {
  #state: State = 'start';
  readonly #sid: OCAKESession;
  readonly #pwKey: Uint8Array;
  readonly #kEnc: Uint8Array;
  readonly #rand: RandomSource | undefined;
  #dk: Uint8Array | undefined;
  #apk: Uint8Array | undefined;
  #key: Uint8Array | undefined;

  /** Alice for session, with pwKey from ocakeDeriveKey (32 bytes; copied). */
  constructor(pwKey: Uint8Array, session: OCAKESession, rand?: RandomSource) {
    if (pwKey.length !== ocakeKeySize) throw new RangeError(`ocake: password key of ${pwKey.length} bytes, want ${ocakeKeySize}`);
    this.#sid = { clientID: session.clientID.slice(), serverID: session.serverID.slice(), context: session.context.slice() };
    this.#pwKey = pwKey.slice();
    const enc = transcriptHash(hashPrefix, 'enc', this.#sid.clientID, this.#sid.serverID, this.#sid.context, this.#pwKey);
    this.#kEnc = enc.slice(0, encKeySize);
    enc.fill(0);
    this.#rand = rand;
  }

  /** The session key SK once finish has succeeded. */
  get sessionKey(): Uint8Array | undefined {
    return this.#key?.slice();
  }

  /**
   * Hands the session key over to the caller, who then owns (and should
   * clear) it; the initiator keeps no copy. For apakepq, whose τ it is.
   * @internal
   */
  takeSessionKey(): Uint8Array {
    const k = this.#key;
    if (this.#state !== 'done' || !k) throw new Error('ocake: no session key');
    this.#key = undefined;
    return k;
  }

  /** Generates the ephemeral ML-KEM-512 key pair and returns message 1 (832 bytes). */
  async message1(): Promise<Uint8Array> {
    if (this.#state !== 'start') throw new Error('ocake: message1 out of order');
    this.#state = 'busy';
    try {
      // One read of d ‖ z ‖ IV, in the order of the Go initiator.
      const r = drawRandom(this.#rand, seedSize + ivSize, 'ocake');
      const { publicKey, secretKey } = ml_kem512.keygen(r.subarray(0, seedSize));
      r.fill(0, 0, seedSize);
      this.#dk = secretKey;
      const iv = r.slice(seedSize);
      const apk = concat(iv, await cbcEncrypt(this.#kEnc, iv, publicKey));
      if (apk.length !== ocakeMessage1Size) throw new Error('ocake: AES-CBC returned an unexpected length');
      this.#apk = apk;
      this.#state = 'waiting';
      return apk.slice();
    } catch (e) {
      this.#fail();
      throw e;
    }
  }

  /** Checks message 2 (c ‖ Auth, 800 bytes) and derives the session key. */
  finish(message2: Uint8Array): void {
    if (this.#state !== 'waiting' || !this.#dk || !this.#apk) throw new Error('ocake: finish out of order');
    try {
      if (!(message2 instanceof Uint8Array) || message2.length !== ocakeMessage2Size) {
        throw new ProtocolError(`ocake: message 2 of ${message2?.length} bytes, want ${ocakeMessage2Size}`);
      }
      const c = message2.slice(0, ciphertextSize);
      const auth = message2.slice(ciphertextSize);
      const { clientID, serverID, context } = this.#sid;
      const k = ml_kem512.decapsulate(c, this.#dk); // implicit rejection: never throws for 768 bytes
      const want = transcriptHash(hashPrefix, 'auth', clientID, serverID, context, this.#pwKey, this.#apk, c, k);
      if (!equalBytes(auth, want)) {
        k.fill(0);
        throw new AuthError("ocake: the responder's authenticator does not verify (wrong password?)");
      }
      this.#key = transcriptHash(hashPrefix, 'session key', clientID, serverID, context, this.#apk, c, auth, k);
      k.fill(0);
      this.#forget();
      this.#state = 'done';
    } catch (e) {
      this.#fail();
      throw e;
    }
  }

  /** Clears the password key, the cipher key and the ephemeral decapsulation key. */
  #forget(): void {
    this.#pwKey.fill(0);
    this.#kEnc.fill(0);
    this.#dk?.fill(0);
    this.#dk = undefined;
  }

  #fail(): void {
    this.#state = 'failed';
    this.#key?.fill(0);
    this.#key = undefined;
    this.#forget();
  }
}

// Sizes the client relies on; a different @noble/post-quantum would be caught here.
if (ml_kem512.lengths.publicKey !== publicKeySize || ml_kem512.lengths.cipherText !== ciphertextSize || ml_kem512.lengths.seed !== seedSize) {
  throw new Error('ocake: unexpected ML-KEM-512 sizes');
}
