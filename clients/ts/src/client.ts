// The kexlab service's client: registration, login, password change and
// logout over the service's JSON API (package server of the Go module).
// This version speaks the SRP schemes (srp-2048, srp-3072); SPAKE2+,
// OPAQUE and apakepq follow.

import { scryptAsync } from '@noble/hashes/scrypt.js';
import { SRPClient, SRPParams, group2048, group3072 } from './srp.js';
import { fromBase64url, toBase64url, utf8 } from './bytes.js';
import { AuthError, KexlabError, NetworkError, ProtocolError, RateLimitError, ServiceError } from './errors.js';

/** A scheme this client speaks. */
export type Scheme = 'srp-2048' | 'srp-3072';

/** The schemes this client speaks. */
export const schemes: readonly Scheme[] = ['srp-2048', 'srp-3072'];

/** A login session: the token is also set as an HttpOnly cookie by the service. */
export interface Session {
  user: string;
  token: string;
  expires: Date;
  /** The signed assertion (JWT, EdDSA) for web servers that delegate login. */
  assertion: string;
}

/** The account's key-stretching parameters, as the service sends them. */
export interface KDFParams {
  alg: string;
  n: number;
  r: number;
  p: number;
  salt: string; // base64url
}

export interface ClientOptions {
  /** Called with the key stretching's progress, 0 to 1. */
  onProgress?: (fraction: number) => void;
  /** fetch to use (tests, or a fetch with other defaults). */
  fetch?: typeof fetch;
}
// The most scrypt work the client accepts from a server: N ≤ 2^22,
// r ≤ 32, p ≤ 16 (as the Go client).

const srpParams: Record<Scheme, () => SRPParams> = {
  'srp-2048': lazy(() => new SRPParams(group2048, 'sha256')),
  'srp-3072': lazy(() => new SRPParams(group3072, 'sha256')),
};

/** A client of one kexlab service at baseURL (e.g. "https://auth.example"). */
export class Client {
  private readonly base: string;
  private readonly opts: ClientOptions;

  constructor(baseURL: string, opts: ClientOptions = {}) {
    this.base = baseURL.replace(/\/+$/, '');
    this.opts = opts;
  }

  /** Creates the account user with scheme. */
  async register(scheme: Scheme, user: string, password: string): Promise<void> {
    await this.registerFlow('/v1/register', undefined, scheme, user, password);
  }

  /** Replaces the account's password (needs a session from a recent login); the service revokes every session. */
  async changePassword(session: Session, scheme: Scheme, password: string): Promise<void> {
    await this.registerFlow('/v1/password', session, scheme, session.user, password);
  }

  /** Logs user in. A wrong password or an unknown user is an AuthError. */
  async login(scheme: Scheme, user: string, password: string): Promise<Session> {
    const p = params(scheme);
    const c = new SRPClient(p, utf8(user));
    const start = await this.call('POST', '/v1/login/start', undefined, { user, scheme, msg: toBase64url(c.start()) });
    const handle = str(start.handle, 'handle');
    const pw = await this.stretch(password, start.kdf);
    let m1: Uint8Array;
    try {
      m1 = c.answer(bytes(start.msg, 'msg'), pw);
    } finally {
      pw.fill(0);
    }
    const fin = await this.call('POST', '/v1/login/finish', undefined, { handle, msg: toBase64url(m1) });
    try {
      c.verify(bytes(fin.msg, 'msg'));
    } catch (e) {
      // The service accepted M1 but cannot prove it knows the verifier.
      throw e instanceof AuthError ? new ProtocolError('the service\'s confirmation M2 is wrong') : e;
    }
    return {
      user,
      token: str(fin.session, 'session'),
      expires: new Date(str(fin.expires, 'expires')),
      assertion: str(fin.assertion, 'assertion'),
    };
  }

  /** Ends the session. */
  async logout(session: Session): Promise<void> {
    await this.call('POST', '/v1/logout', session);
  }

  /** The user name of a live session (an AuthError-free check of the token). */
  async whoami(session: Session): Promise<string> {
    return str((await this.call('GET', '/v1/session', session)).user, 'user');
  }

  private async registerFlow(prefix: string, session: Session | undefined, scheme: Scheme, user: string, password: string) {
    const p = params(scheme);
    const body: Record<string, unknown> = { scheme };
    if (!session) body.user = user;
    const start = await this.call('POST', prefix + '/start', session, body);
    const salt = bytes(start.msg, 'msg');
    const pw = await this.stretch(password, start.kdf);
    let verifier: Uint8Array;
    try {
      verifier = p.verifier(utf8(user), pw, salt);
    } catch (e) {
      throw e instanceof RangeError ? new ProtocolError(`registration: ${e.message}`) : e;
    } finally {
      pw.fill(0);
    }
    await this.call('POST', prefix + '/finish', session, { handle: str(start.handle, 'handle'), msg: toBase64url(verifier) });
  }

  /** scrypt with the account's parameters, bounded. */
  private async stretch(password: string, kdf: unknown): Promise<Uint8Array> {
    const k = kdf as KDFParams | undefined;
    if (!k || k.alg !== 'scrypt' || !Number.isInteger(k.n) || !Number.isInteger(k.r) || !Number.isInteger(k.p)) {
      throw new ProtocolError('the service sent no scrypt parameters');
    }
    if (k.n < 2 || k.n > 1 << 22 || (k.n & (k.n - 1)) !== 0 || k.r < 1 || k.r > 32 || k.p < 1 || k.p > 16) {
      throw new ProtocolError(`scrypt N=${k.n} r=${k.r} p=${k.p} is not one this client runs`);
    }
    const salt = bytes(k.salt, 'kdf.salt');
    const opts = { N: k.n, r: k.r, p: k.p, dkLen: 32, maxmem: 2 ** 32, ...(this.opts.onProgress ? { onProgress: this.opts.onProgress } : {}) };
    return scryptAsync(utf8(password), salt, opts);
  }

  private async call(method: string, path: string, session?: Session, body?: unknown): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (session) headers.Authorization = 'Bearer ' + session.token;
    let resp: Response;
    try {
      resp = await (this.opts.fetch ?? fetch)(this.base + path, {
        method, headers, credentials: 'include',
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (e) {
      throw new NetworkError(`${method} ${path}: the service cannot be reached`, { cause: e });
    }
    let data: unknown = {};
    const text = await resp.text().catch((e) => { throw new NetworkError(`${method} ${path}: the answer did not arrive`, { cause: e }); });
    if (text !== '') {
      try {
        data = JSON.parse(text);
      } catch {
        if (resp.ok) throw new ProtocolError(`${method} ${path}: the answer is not JSON`);
      }
    }
    if (!resp.ok) throw errorOf(resp, data);
    if (typeof data !== 'object' || data === null) throw new ProtocolError(`${method} ${path}: the answer is not an object`);
    return data as Record<string, unknown>;
  }
}

function errorOf(resp: Response, data: unknown): KexlabError {
  const e = (data as { error?: { code?: unknown; message?: unknown } })?.error ?? {};
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : `HTTP ${resp.status}`;
  if (resp.status === 429) {
    const h = resp.headers.get('Retry-After');
    const s = h === null || h.trim() === '' ? NaN : Number(h); // Number(null) and Number('') are 0
    return new RateLimitError(message, Number.isFinite(s) && s >= 0 ? s : 1, code || 'rate_limited');
  }
  if (code === 'auth_failed') return new AuthError(message, code);
  return new ServiceError(message, resp.status, code);
}

function params(scheme: Scheme): SRPParams {
  const f = srpParams[scheme];
  if (!f) throw new RangeError(`scheme ${JSON.stringify(scheme)} is not one this client speaks (${schemes.join(', ')})`);
  return f();
}

function str(v: unknown, name: string): string {
  if (typeof v !== 'string') throw new ProtocolError(`the service's answer has no ${name}`);
  return v;
}

function bytes(v: unknown, name: string): Uint8Array {
  try {
    return fromBase64url(str(v, name));
  } catch (e) {
    throw e instanceof ProtocolError ? e : new ProtocolError(`the service's ${name} is not base64url`);
  }
}

function lazy<T>(f: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= f());
}
