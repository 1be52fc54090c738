// The kexlab service's client: registration, login, password change and
// logout over the service's JSON API (package server of the Go module),
// for every scheme the service offers (schemes.ts).

import { fromBase64url, toBase64url } from './bytes.js';
import { AuthError, KexlabError, NetworkError, ProtocolError, RateLimitError, ServiceError } from './errors.js';
import { login as loginOf, registration, type KDFParams, type Scheme } from './schemes.js';
import { scryptHere, type Scrypt } from './stretch.js';
import { Tracer, type Trace } from './trace.js';

export { schemes } from './schemes.js';
export type { Scheme, KDFParams } from './schemes.js';

/** A login session: the token is also set as an HttpOnly cookie by the service. */
export interface Session {
  user: string;
  token: string;
  expires: Date;
  /** The signed assertion (JWT, EdDSA) for web servers that delegate login. */
  assertion: string;
}

export interface ClientOptions {
  /** Called with the key stretching's progress, 0 to 1. */
  onProgress?: (fraction: number) => void;
  /** fetch to use (tests, or a fetch with other defaults). */
  fetch?: typeof fetch;
  /**
   * The key stretching (scrypt). The default runs on the calling thread;
   * a page passes workerScrypt(url) to keep it off the main thread.
   */
  scrypt?: Scrypt;
  /** Called after each successful operation with its latency split (trace.ts). */
  onTrace?: (t: Trace) => void;
}

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
    checkCredentials(user, password);
    const t = new Tracer('login', scheme);
    const l = loginOf(scheme, user, password, this.env());
    let kdf: KDFParams | undefined;
    if (l.needsParams) kdf = (await this.call('POST', '/v1/login/params', undefined, { user, scheme }, t)).kdf as KDFParams | undefined;
    const m1 = await l.start(kdf);
    const start = await this.call('POST', '/v1/login/start', undefined, { user, scheme, msg: toBase64url(m1) }, t);
    kdf ??= start.kdf as KDFParams | undefined;
    const m3 = await l.answer(bytes(start.msg, 'msg'), kdf).catch(protocolError);
    const fin = await this.call('POST', '/v1/login/finish', undefined, { handle: str(start.handle, 'handle'), msg: toBase64url(m3) }, t);
    l.verify(fin.msg === undefined ? undefined : bytes(fin.msg, 'msg'));
    const expires = new Date(str(fin.expires, 'expires'));
    if (Number.isNaN(expires.getTime())) throw new ProtocolError('the service\'s expires is not a time');
    const session = { user, token: str(fin.session, 'session'), expires, assertion: str(fin.assertion, 'assertion') };
    this.opts.onTrace?.(t.end());
    return session;
  }

  /** Ends the session. */
  async logout(session: Session): Promise<void> {
    await this.call('POST', '/v1/logout', session);
  }

  /** The user name of a live session (an AuthError-free check of the token). */
  async whoami(session: Session): Promise<string> {
    return str((await this.call('GET', '/v1/session', session)).user, 'user');
  }

  private env() {
    return { scrypt: this.opts.scrypt ?? scryptHere, ...(this.opts.onProgress ? { onProgress: this.opts.onProgress } : {}) };
  }

  private async registerFlow(prefix: string, session: Session | undefined, scheme: Scheme, user: string, password: string) {
    checkCredentials(user, password);
    const t = new Tracer(session ? 'password' : 'register', scheme);
    const reg = registration(scheme, user, password, this.env());
    const body: Record<string, unknown> = { scheme };
    if (!session) body.user = user;
    if (reg.start) body.msg = toBase64url(reg.start);
    const start = await this.call('POST', prefix + '/start', session, body, t);
    const record = await reg.finish(bytes(start.msg, 'msg'), start.kdf as KDFParams | undefined).catch(protocolError);
    await this.call('POST', prefix + '/finish', session, { handle: str(start.handle, 'handle'), msg: toBase64url(record) }, t);
    this.opts.onTrace?.(t.end());
  }

  private async call(method: string, path: string, session?: Session, body?: unknown, t?: Tracer): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (session) headers.Authorization = 'Bearer ' + session.token;
    let resp: Response;
    const req = t?.request(path);
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
    req?.done(resp.headers.get('Server-Timing'));
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

/**
 * The caller's mistakes, before anything is sent: a RangeError, so that
 * the RangeErrors of the schemes' parsers below mean a malformed answer.
 */
function checkCredentials(user: string, password: string) {
  if (user === '') throw new RangeError('the user name is empty');
  if (password === '') throw new RangeError('the password is empty');
}

/** A scheme's RangeError on the server's message: the server broke the protocol. */
function protocolError(e: unknown): never {
  throw e instanceof RangeError ? new ProtocolError(`the service's message: ${e.message}`) : e;
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
