// apakepq client: kexlab's post-quantum augmented PAKE, the KEM-AE
// compiler of Lyu, Liu and Han ("Efficient Asymmetric PAKE Compiler from
// KEM and AE", ASIACRYPT 2024, ePrint 2024/1400) over OCAKE (ocake.ts) with
// ML-KEM-512, AES-256-GCM and SHA-256. Byte-identical with the Go package
// github.com/kexlab/kexlab/pake/apakepq, which is the specification:
//
//   H(label, x1, …, xn) = SHA-256(lp("kexlab LLH-OCAKE ML-KEM-512 v1 " ‖ label) ‖ lp(x1) ‖ … ‖ lp(xn))
//                         lp(x) = x preceded by its length as 8 big-endian bytes
//   m  = PBKDF2-HMAC-SHA256(password, H("salt", ClientID, ServerID), iterations, 32)
//   rw = H("rw", m)                                       OCAKE's password key
//   (ek, dk) = ML-KEM-512.KeyGen_internal(H("kem d", m), H("kem z", m))
//   record = rw ‖ ek                                      832 bytes, sent at registration
//
//   message 1 (832 bytes): OCAKE's message 1 under rw
//   message 2 (1596 bytes): c_e ‖ Auth (OCAKE, 800) ‖ nonce (12) ‖ ψ (784)
//     τ = OCAKE's session key (after checking Auth)
//     c = AES-256-GCM-Open(H("ae key", τ), nonce, ψ)     no associated data
//   message 3 (32 bytes): σ = H("confirm", ClientID, ServerID, Context, τ,
//                               ML-KEM-512.Decaps(dk, c), nonce, ψ)
//   session key = H("session key", τ)
//
// The service (server/flow_apakepq.go) passes the password already
// stretched with the account's scrypt parameters (32 bytes), one PBKDF2
// iteration (wire.APAKEPQIterations), ClientID = the user name in UTF-8,
// ServerID = "kexlab" and Context = "kexlab service v1".
//
// SECURITY. The compiler's guarantees are conditional on the PAKE's, and
// the OCAKE layer is the AES-CBC configuration kexlab evaluated: a passive
// eavesdropper who records one message 1 can test password guesses offline
// (guess → m → rw → kEnc → does the last CBC block decrypt to the PKCS#7
// padding?), at the cost of one PBKDF2 (and, in the service, one scrypt)
// per guess. See ocake.ts and the Go package documentation. A stolen
// record allows the same guessing. The salt is fixed by the identities,
// so the protocol alone is not a "strong" aPAKE; the service's random
// per-account scrypt salt supplies that.
//
// SIDE CHANNELS. Not constant time in any formal sense: PBKDF2 and SHA-256
// (@noble/hashes) and ML-KEM-512 KeyGen and Decaps (@noble/post-quantum)
// are pure JavaScript, whose JIT and garbage collector give no timing
// guarantee, and @noble/post-quantum explicitly makes no constant-time
// claim. AES-128-CBC and AES-256-GCM run in the platform's WebCrypto
// (native); GCM's tag check is WebCrypto's. OCAKE's Auth is compared with
// equalBytes (time depends on the lengths only). Whether the failure is at
// Auth or at ψ is visible in the error message only; both are AuthError.
//
// SECRETS. The PBKDF2 output, the KEM seeds, the password keys, the
// decapsulation keys, τ, the AE key and the shared secrets are overwritten
// with zeros when no longer needed, where this module holds them in a
// Uint8Array; WebCrypto key objects, copies made inside @noble and the
// garbage-collected heap cannot be cleared from JavaScript.
//
// WebCrypto (globalThis.crypto.subtle) is needed: Node 20+, or a browser
// page in a secure context (https or localhost).

import { sha256 } from '@noble/hashes/sha2.js';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { ml_kem512 } from '@noble/post-quantum/ml-kem.js';
import { concat } from './bytes.js';
import { AuthError, ProtocolError } from './errors.js';
import {
  OCAKEInitiator,
  ocakeMessage1Size,
  ocakeMessage2Size,
  pbkdf2Iterations,
  transcriptHash,
} from './ocake.js';
import type { OCAKESession, RandomSource } from './ocake.js';

export type { RandomSource } from './ocake.js';

/** Length of the registration record rw ‖ ek. */
export const apakepqRecordSize = 32 + 800;
/** Length of message 1 (client → server). */
export const apakepqMessage1Size = ocakeMessage1Size;
/** Length of message 2 (server → client): c_e ‖ Auth ‖ nonce ‖ ψ. */
export const apakepqMessage2Size = ocakeMessage2Size + 12 + 768 + 16;
/** Length of message 3 (client → server), σ. */
export const apakepqMessage3Size = 32;
/** Length of the session key. */
export const apakepqKeySize = 32;
/** The Go package's default PBKDF2 iteration count (zero selects it); the service uses 1. */
export const apakepqDefaultIterations = 100000;

/** The identities and context of a login: ClientID, ServerID and Context as bytes. */
export type APAKEPQSession = OCAKESession;

const hashPrefix = 'kexlab LLH-OCAKE ML-KEM-512 v1 ';
const nonceSize = 12;
const ciphertextSize = 768;

function H(label: string, ...inputs: Uint8Array[]): Uint8Array {
  return transcriptHash(hashPrefix, label, ...inputs);
}

interface Secrets {
  rw: Uint8Array;
  ek: Uint8Array;
  dk: Uint8Array; // @noble's secret-key encoding dk_PKE ‖ ek ‖ H(ek) ‖ z
}

/** Runs the password hash and the key generation of registration (and of every login). */
function deriveSecrets(password: Uint8Array, clientID: Uint8Array, serverID: Uint8Array, iterations: number): Secrets {
  if (!(password instanceof Uint8Array) || password.length === 0) throw new RangeError('apakepq: empty password');
  const c = pbkdf2Iterations(iterations, 'apakepq');
  const m = pbkdf2(sha256, password, H('salt', clientID, serverID), { c, dkLen: 32 });
  const rw = H('rw', m);
  const d = H('kem d', m);
  const z = H('kem z', m);
  const seed = concat(d, z);
  const { publicKey, secretKey } = ml_kem512.keygen(seed);
  m.fill(0);
  d.fill(0);
  z.fill(0);
  seed.fill(0);
  return { rw, ek: publicKey, dk: secretKey };
}

/**
 * The registration record rw ‖ ek (832 bytes) for password and the pair of
 * identities, which the server stores. Zero iterations selects
 * apakepqDefaultIterations; login must use the same count. An empty
 * password or a bad count is a RangeError.
 */
export function apakepqRegister(password: Uint8Array, clientID: Uint8Array, serverID: Uint8Array, iterations: number): Uint8Array {
  const s = deriveSecrets(password, clientID, serverID, iterations);
  const record = concat(s.rw, s.ek);
  s.rw.fill(0);
  s.dk.fill(0);
  return record;
}

/** AES-256-GCM open (12-byte nonce, 16-byte tag, no associated data) through WebCrypto; throws if it does not verify. */
async function gcmOpen(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey('raw', key.slice(), { name: 'AES-GCM' }, false, ['decrypt']);
  return new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: nonce.slice(), tagLength: 128 }, k, sealed.slice()));
}

type State = 'start' | 'busy' | 'waiting' | 'done' | 'failed';

/**
 * The apakepq client. The constructor re-derives the password's secrets
 * (PBKDF2 with iterations, synchronously, then two ML-KEM key derivations);
 * message1() returns message 1; message3(message 2) checks it, returns σ
 * and sets sessionKey.
 *
 * Errors: a wrong password gives AuthError at message3 (unless the server
 * has already refused message 1); a message 2 of the wrong length,
 * ProtocolError; an empty password or bad iteration count, RangeError; a
 * call out of order or after a failure, Error. A failed client forgets its
 * secrets and cannot be reused.
 */
export class APAKEPQClient {
  #state: State = 'start';
  readonly #sid: APAKEPQSession;
  readonly #ocake: OCAKEInitiator;
  #dk: Uint8Array | undefined;
  #key: Uint8Array | undefined;

  /**
   * @param password the password (for the service: already stretched with scrypt)
   * @param session ClientID, ServerID and Context (copied)
   * @param iterations PBKDF2 iterations, as at registration (zero: apakepqDefaultIterations)
   * @param rand injected randomness, read as OCAKE's ML-KEM-512 seed d ‖ z (64 bytes)
   *   then the CBC IV (16), in one call of 80 bytes; default crypto.getRandomValues
   */
  constructor(password: Uint8Array, session: APAKEPQSession, iterations: number, rand?: RandomSource) {
    const s = deriveSecrets(password, session.clientID, session.serverID, iterations);
    try {
      this.#ocake = new OCAKEInitiator(s.rw, session, rand);
    } catch (e) {
      s.dk.fill(0);
      throw e;
    } finally {
      s.rw.fill(0); // OCAKEInitiator keeps its own copy
    }
    this.#dk = s.dk;
    this.#sid = { clientID: session.clientID.slice(), serverID: session.serverID.slice(), context: session.context.slice() };
  }

  /** The session key (32 bytes, a copy) once message3 has succeeded. */
  get sessionKey(): Uint8Array | undefined {
    return this.#key?.slice();
  }

  /** Message 1 (832 bytes): OCAKE's message 1 under rw. */
  async message1(): Promise<Uint8Array> {
    if (this.#state !== 'start') throw new Error('apakepq: message1 out of order');
    this.#state = 'busy';
    try {
      const out = await this.#ocake.message1();
      this.#state = 'waiting';
      return out;
    } catch (e) {
      this.#fail();
      throw e;
    }
  }

  /** Checks message 2 (1596 bytes) and returns message 3, σ (32 bytes); sessionKey is then set. */
  async message3(message2: Uint8Array): Promise<Uint8Array> {
    const dk = this.#dk;
    if (this.#state !== 'waiting' || !dk) throw new Error('apakepq: message3 out of order');
    this.#state = 'busy';
    let tau: Uint8Array | undefined;
    try {
      if (!(message2 instanceof Uint8Array) || message2.length !== apakepqMessage2Size) {
        throw new ProtocolError(`apakepq: message 2 of ${message2?.length} bytes, want ${apakepqMessage2Size}`);
      }
      const msg = message2.slice(); // the caller's buffer may change while WebCrypto runs
      const pakeMsg = msg.subarray(0, ocakeMessage2Size);
      const nonce = msg.subarray(ocakeMessage2Size, ocakeMessage2Size + nonceSize);
      const psi = msg.subarray(ocakeMessage2Size + nonceSize);
      this.#ocake.finish(pakeMsg); // AuthError unless Auth verifies
      tau = this.#ocake.takeSessionKey();
      const aeKey = H('ae key', tau);
      let c: Uint8Array;
      try {
        c = await gcmOpen(aeKey, nonce, psi);
      } catch {
        throw new AuthError('apakepq: ψ does not open under the PAKE key (wrong password?)');
      } finally {
        aeKey.fill(0);
      }
      if (c.length !== ciphertextSize) throw new ProtocolError('apakepq: ψ opened to a ciphertext of the wrong length');
      const k = ml_kem512.decapsulate(c, dk);
      const sigma = H('confirm', this.#sid.clientID, this.#sid.serverID, this.#sid.context, tau, k, nonce, psi);
      k.fill(0);
      this.#key = H('session key', tau);
      dk.fill(0);
      this.#dk = undefined;
      this.#state = 'done';
      return sigma;
    } catch (e) {
      this.#fail();
      throw e;
    } finally {
      tau?.fill(0);
    }
  }

  #fail(): void {
    this.#state = 'failed';
    this.#dk?.fill(0);
    this.#dk = undefined;
    this.#key?.fill(0);
    this.#key = undefined;
  }
}
