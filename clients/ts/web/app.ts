// The sign-in page that `kexlab serve` serves at /: sign up, sign in, the
// session, a password change and sign-out, with @kexlab/client. The key
// stretching runs in a Web Worker (/app/worker.js) with a progress bar.
//
// For tests and measurement the page keeps the traces of its operations
// (trace.ts) in window.kexlab.traces, and counts the worker's progress
// events in window.kexlab.progressEvents.

import { Client, schemes, type Scheme, type Session } from '../src/client.js';
import { AuthError, NetworkError, ProtocolError, RateLimitError, ServiceError } from '../src/errors.js';
import { phases, type Trace } from '../src/trace.js';
import { workerScrypt } from '../src/worker-scrypt.js';

const notes: Record<Scheme, string> = {
  opaque: 'Augmented, strong: the server never learns the password nor a salted hash of it before a breach.',
  spake2plus: 'Augmented: the server stores a verifier; the password is stretched with scrypt first.',
  'srp-3072': 'Augmented, the classic: modular exponentiation (not constant time in this browser client).',
  'srp-2048': 'Augmented, the classic, with a 2048-bit group (not constant time in this browser client).',
  apakepq: 'Augmented, post-quantum (ML-KEM-512); research code, not a standard.',
};

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const traces: Trace[] = [];
const kexlab = { traces, progressEvents: 0 };
(window as unknown as { kexlab: unknown }).kexlab = kexlab;
performance.setResourceTimingBufferSize?.(100000);

const progressBox = $('progress-box');
const progress = $<HTMLProgressElement>('progress');
const client = new Client(location.origin, {
  scrypt: workerScrypt(new URL('/app/worker.js', location.href)),
  onProgress: (f) => {
    progress.value = f;
    kexlab.progressEvents++;
  },
  onTrace: (t) => traces.push(t),
});

let session: Session | undefined;
let sessionScheme: Scheme | undefined;

function say(text: string, kind: 'ok' | 'error' | '' = '') {
  const m = $('message');
  m.textContent = text;
  m.className = kind;
}

function explain(e: unknown): string {
  if (e instanceof AuthError) return 'Wrong user name or password.';
  if (e instanceof RateLimitError) return `Too many attempts: try again in ${e.retryAfter} s.`;
  if (e instanceof NetworkError) return 'The service cannot be reached: it may be down. Try again later.';
  if (e instanceof ProtocolError) return `The server broke the protocol (${e.message}); nothing was signed in.`;
  if (e instanceof ServiceError) {
    if (e.code === 'user_exists') return 'That user name is taken.';
    if (e.code === 'stale_session' || e.code === 'unauthorized') return 'Sign in again first.';
    return `The service refused: ${e.message}.`;
  }
  return `Something went wrong: ${e instanceof Error ? e.message : String(e)}`;
}

/** Runs f with the buttons disabled and the progress bar shown; errors become the message. */
async function busy(f: () => Promise<void>) {
  const buttons = document.querySelectorAll('button');
  buttons.forEach((b) => (b.disabled = true));
  progress.value = 0;
  progressBox.hidden = false;
  say('Working…');
  try {
    await f();
  } catch (e) {
    say(explain(e), 'error');
  } finally {
    progressBox.hidden = true;
    buttons.forEach((b) => (b.disabled = false));
  }
}

function scheme(): Scheme {
  return $<HTMLSelectElement>('scheme').value as Scheme;
}

function credentials(): { user: string; password: string } | undefined {
  const user = $<HTMLInputElement>('user').value.trim();
  const password = $<HTMLInputElement>('password').value;
  if (!user || !password) {
    say('Enter a user name and a password.', 'error');
    return undefined;
  }
  return { user, password };
}

function showAccount() {
  const signedIn = session !== undefined;
  $('signin').hidden = signedIn;
  $('account').hidden = !signedIn;
  if (!session) return;
  $('account-user').textContent = session.user;
  $('account-scheme').textContent = sessionScheme ?? '';
  $('account-expires').textContent = session.expires.toLocaleString();
  $<HTMLInputElement>('username-hidden').value = session.user;
  const last = traces.filter((t) => t.op === 'login').at(-1);
  const body = $('phases').querySelector('tbody')!;
  body.replaceChildren();
  if (!last) return;
  const rows = new Map<string, Record<string, number>>();
  for (const p of phases(last)) {
    const r = rows.get(p.round) ?? {};
    r[p.where] = (r[p.where] ?? 0) + p.ms;
    rows.set(p.round, r);
  }
  for (const [round, r] of rows) {
    const tr = document.createElement('tr');
    for (const v of [round, r.browser, r.network, r['web server'], r['PAKE server']]) {
      const td = document.createElement('td');
      td.textContent = typeof v === 'number' ? `${v.toFixed(1)} ms` : v ?? '';
      tr.append(td);
    }
    body.append(tr);
  }
  const timed = last.requests.some((r) => r.server.app !== undefined);
  $('phases-note').textContent = timed
    ? 'Browser: this page\'s work (key stretching included); server times from the Server-Timing header.'
    : 'The service sends no Server-Timing header (kexlab serve -server-timing): server time is counted as network.';
}

$<HTMLSelectElement>('scheme').addEventListener('change', () => {
  $('scheme-note').textContent = notes[scheme()];
});
$('scheme-note').textContent = notes[scheme()];
for (const s of schemes) if (!notes[s]) throw new Error(`no note for ${s}`);

$<HTMLFormElement>('signin-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const c = credentials();
  if (!c) return;
  const s = scheme();
  void busy(async () => {
    session = await client.login(s, c.user, c.password);
    sessionScheme = s;
    $<HTMLInputElement>('password').value = '';
    say(`Signed in as ${session.user}.`, 'ok');
    showAccount();
  });
});

$('signup-button').addEventListener('click', () => {
  const c = credentials();
  if (!c) return;
  const s = scheme();
  void busy(async () => {
    await client.register(s, c.user, c.password);
    say(`Account ${c.user} created: sign in now.`, 'ok');
  });
});

$<HTMLFormElement>('password-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const pw = $<HTMLInputElement>('new-password');
  if (!session || !sessionScheme || !pw.value) return;
  const [s, sc] = [session, sessionScheme];
  void busy(async () => {
    await client.changePassword(s, sc, pw.value);
    pw.value = '';
    session = undefined;
    showAccount();
    say('Password changed; every session was ended. Sign in with the new password.', 'ok');
  });
});

$('signout-button').addEventListener('click', () => {
  if (!session) return;
  const s = session;
  void busy(async () => {
    await client.logout(s).catch((e) => {
      if (!(e instanceof ServiceError && e.status === 401)) throw e; // already ended
    });
    session = undefined;
    showAccount();
    say('Signed out.', 'ok');
  });
});
