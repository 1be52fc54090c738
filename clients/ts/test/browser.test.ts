// The sign-in page in real Chromium (Debian's chromium, driven by
// playwright-core: no browser download) against a real `kexlab serve`:
// sign up, a wrong password, sign in, a password change, sign out, a rate
// limit and a service that is down, through the page's own controls; no
// request URL or body may ever contain a password; a screenshot of each
// step, checked to be a rendered page. Then the latency split of logins
// per scheme (browser, network, web server, PAKE server; the Performance
// API and the service's Server-Timing header), with an idle and, for two
// schemes, a busy server (kexlab load beside the page), written as a
// results file that `kexlab report` renders.
//
// Output ($KEXLAB_BROWSER_OUT, default out/browser at the repository
// root): NN-step.png, phases.json, report.html.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { phases, type Trace } from '../src/trace.js';
import { schemes, type Scheme } from '../src/schemes.js';
import { bin, repoRoot, startService, type Service } from './serve.js';

const out = path.resolve(process.env.KEXLAB_BROWSER_OUT ?? path.join(repoRoot, 'out/browser'));
/** Logins measured per scheme (after one warm-up login). */
const rounds = Number(process.env.KEXLAB_BROWSER_N ?? 15);

function findChromium(): string | undefined {
  for (const p of [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']) {
    if (p && existsSync(p)) return p;
  }
  return undefined;
}

let browser: Browser;
let svc: Service;
const sent: { url: string; body: string }[] = [];
const passwords = new Set<string>();

before(async () => {
  const exe = findChromium();
  if (!exe) throw new Error('no chromium: make test installs Debian\'s (apt-get install chromium), or set CHROMIUM');
  mkdirSync(out, { recursive: true });
  browser = await chromium.launch({ executablePath: exe, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  svc = await startService('-server-timing');
});

after(async () => {
  await browser?.close();
  await svc?.stop();
});

async function newPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
  page.on('request', (r) => sent.push({ url: r.url(), body: r.postData() ?? '' }));
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text()); });
  (page as unknown as { errors: string[] }).errors = errors;
  return page;
}

function pw(p: string): string {
  passwords.add(p);
  return p;
}

async function fill(page: Page, scheme: Scheme, user: string, password: string) {
  await page.selectOption('#scheme', scheme);
  await page.fill('#user', user);
  await page.fill('#password', password);
}

/** Waits until the status line matches re (after the page's "Working…"). */
async function message(page: Page, re: RegExp): Promise<string> {
  await page.waitForFunction(
    ([src, flags]) => new RegExp(src!, flags).test(document.getElementById('message')!.textContent ?? ''),
    [re.source, re.flags], { timeout: 60000 },
  ).catch(async (e) => {
    throw new Error(`message ${re}: the page says ${JSON.stringify(await page.textContent('#message'))}: ${e}`);
  });
  return (await page.textContent('#message')) ?? '';
}

let shot = 0;
let lastShot: Buffer | undefined;
const shots: string[] = [];

/** A screenshot of the page, checked to be a rendered page: a PNG of the viewport's size with varied pixels, unlike the previous one. */
async function screenshot(page: Page, name: string) {
  const file = `${String(++shot).padStart(2, '0')}-${name}.png`;
  const buf = await page.screenshot({ path: path.join(out, file), fullPage: false });
  const { width, height, distinct } = pngStats(buf);
  assert.equal(width, 800, `${file}: width`);
  assert.equal(height, 900, `${file}: height`);
  assert.ok(distinct >= 16, `${file}: ${distinct} distinct byte values: a blank page?`);
  assert.ok(!lastShot || !buf.equals(lastShot), `${file} is the same image as the previous step`);
  lastShot = buf;
  shots.push(file);
}

/** PNG size and the number of distinct byte values in its (filtered) pixel data. */
function pngStats(buf: Buffer): { width: number; height: number; distinct: number } {
  assert.equal(buf.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', 'not a PNG');
  const idat: Buffer[] = [];
  for (let off = 8; off + 8 <= buf.length;) {
    const len = buf.readUInt32BE(off);
    if (buf.toString('latin1', off + 4, off + 8) === 'IDAT') idat.push(buf.subarray(off + 8, off + 8 + len));
    off += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const seen = new Set<number>();
  for (let i = 0; i < raw.length; i += 7) seen.add(raw[i]!);
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20), distinct: seen.size };
}

test('the page: sign up, wrong password, sign in, change password, sign out', async () => {
  const page = await newPage();
  await page.goto(svc.url + '/');
  assert.equal(await page.title(), 'kexlab — sign in');
  await screenshot(page, 'page');

  const user = 'ada';
  await fill(page, 'opaque', user, pw('Correct-Horse-42'));
  await page.click('#signup-button');
  await message(page, /^Account ada created/);
  await screenshot(page, 'signed-up');

  await page.fill('#password', pw('Not-The-Password-7'));
  await page.click('#signin-button');
  await message(page, /^Wrong user name or password\.$/);
  await screenshot(page, 'wrong-password');

  await page.fill('#password', 'Correct-Horse-42');
  await page.click('#signin-button');
  await message(page, /^Signed in as ada\.$/);
  assert.equal(await page.isVisible('#account'), true);
  assert.equal(await page.textContent('#account-user'), 'ada');
  assert.equal(await page.textContent('#account-scheme'), 'opaque');
  assert.ok((await page.locator('#phases tbody tr').count()) >= 2, 'the latency table of the login');
  await screenshot(page, 'signed-in');

  await page.fill('#new-password', pw('Battery-Staple-99'));
  await page.click('#password-button');
  await message(page, /^Password changed/);
  assert.equal(await page.isVisible('#signin'), true);
  await screenshot(page, 'password-changed');

  await fill(page, 'opaque', user, 'Correct-Horse-42');
  await page.click('#signin-button');
  await message(page, /^Wrong user name or password\.$/);
  await page.fill('#password', 'Battery-Staple-99');
  await page.click('#signin-button');
  await message(page, /^Signed in as ada\.$/);
  await page.click('#signout-button');
  await message(page, /^Signed out\.$/);
  assert.equal(await page.isVisible('#signin'), true);
  await screenshot(page, 'signed-out');

  // The session is gone on the server too.
  const whoami = await page.evaluate(async () => (await fetch('/v1/session', { credentials: 'include' })).status);
  assert.equal(whoami, 401);
  assert.deepEqual((page as unknown as { errors: string[] }).errors, []);
  await page.close();
});

test('the page: a rate limit, then a service that is down', async () => {
  // A service of its own, with a login budget of 2 per address.
  const limited = await startService('-addr-burst', '2', '-addr-rate', '0.01');
  try {
    const page = await newPage();
    await page.goto(limited.url + '/');
    await fill(page, 'srp-2048', 'bob', pw('Bobs-Secret-1'));
    await page.click('#signup-button');
    await message(page, /^Account bob created/);
    await page.fill('#password', pw('Bobs-Wrong-2'));
    for (let i = 0; i < 2; i++) {
      await page.click('#signin-button');
      await message(page, /^Wrong user name or password\.$/);
      await page.evaluate(() => { document.getElementById('message')!.textContent = ''; });
    }
    await page.click('#signin-button');
    const m = await message(page, /^Too many attempts: try again in \d+ s\.$/);
    assert.match(m, /in [1-9]\d* s/);
    await screenshot(page, 'rate-limited');

    await limited.stop();
    await page.click('#signin-button');
    await message(page, /^The service cannot be reached/);
    await screenshot(page, 'service-down');
    await page.close();
  } finally {
    await limited.stop();
  }
});

/** Signs up a new account with `scheme`, logs in n + 1 times (the first login warms up) and returns the traces of the other n. */
async function timedLogins(page: Page, scheme: Scheme, user: string, n: number): Promise<Trace[]> {
  const password = pw(`Timing-${user}-Pass`);
  await fill(page, scheme, user, password);
  await page.click('#signup-button');
  await message(page, /created/);
  for (let i = 0; i <= n; i++) {
    await page.fill('#password', password);
    await page.click('#signin-button');
    await message(page, /^Signed in as /);
    await page.click('#signout-button');
    await message(page, /^Signed out\.$/);
  }
  const all = await page.evaluate((s) => (window as unknown as { kexlab: { traces: Trace[] } }).kexlab.traces.filter((t) => t.op === 'login' && t.scheme === s), scheme);
  const mine = all.slice(-(n + 1));
  assert.equal(mine.length, n + 1, `${scheme}: traces`);
  for (const t of mine) {
    for (const r of t.requests) assert.ok(r.server.app !== undefined && r.server.pake !== undefined, `${scheme} ${r.path}: no Server-Timing`);
  }
  return mine.slice(1);
}

/** Schemes and logins of the busy-server phase (the Heterogeneous-PAKE study's Tables 14–17: client latency with an idle and a busy server). */
const busySchemes: Scheme[] = ['opaque', 'srp-2048'];
const busyRounds = Number(process.env.KEXLAB_BROWSER_BUSY_N ?? 8);

test('latency split of logins per scheme, idle and busy server, rendered by kexlab report', async () => {
  const page = await newPage();
  await page.goto(svc.url + '/');
  // Main-thread tasks over 50 ms (the Long Tasks API): the stretching runs
  // in the worker, so none should come near its duration (~150 ms).
  await page.evaluate(() => {
    const w = window as unknown as { longTasks: number[] };
    w.longTasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) w.longTasks.push(e.duration); }).observe({ type: 'longtask' });
  });
  // The instrument sees a task it should: 80 ms of busy main thread.
  await page.evaluate(() => { setTimeout(() => { const t = performance.now(); while (performance.now() - t < 80); }, 0); });
  await page.waitForFunction(() => (window as unknown as { longTasks: number[] }).longTasks.some((d) => d >= 80), null, { timeout: 5000 });
  await page.evaluate(() => { (window as unknown as { longTasks: number[] }).longTasks.length = 0; });
  const traces: Record<string, Trace[]> = {};
  for (const scheme of schemes) {
    traces[scheme] = await timedLogins(page, scheme, `timing-${scheme}`, rounds);
    const { longest, progress } = await page.evaluate(() => {
      const w = window as unknown as { longTasks: number[]; kexlab: { progressEvents: number } };
      const longest = Math.max(0, ...w.longTasks);
      w.longTasks.length = 0;
      return { longest, progress: w.kexlab.progressEvents };
    });
    console.log(`${scheme}: longest main-thread task ${longest.toFixed(0)} ms; ${progress} progress events so far`);
    assert.ok(longest < 100, `${scheme}: a ${longest} ms task froze the page`);
    assert.ok(page.workers().some((w) => w.url().endsWith('/app/worker.js')), 'the key-stretching worker is not running');
    assert.ok(progress > 10 * (rounds + 1), `${scheme}: ${progress} progress events`);
  }
  await page.close();

  // A busy server: the same service (its rate limits lifted), driven by
  // kexlab load in a closed loop of 2 OPAQUE clients while the page logs
  // in. On a 2-core machine the generator, the service and the browser
  // share the cores: "busy" is the whole machine's load.
  const busy = await startService('-server-timing', '-addr-rate', '1000000', '-addr-burst', '1000000', '-register-rate', '1000', '-register-burst', '1000');
  const gen = spawn(bin, ['load', '-url', busy.url, '-scheme', 'opaque', '-accounts', '4', '-c', '2', '-duration', '600s', '-warmup', '0s'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let genLog = '';
  gen.stderr!.on('data', (d: Buffer) => { genLog = (genLog + d.toString()).slice(-2000); });
  try {
    // Wait until the generator has logged in (its progress line).
    const t0 = Date.now();
    while (!/[1-9]\d* logins/.test(genLog)) {
      assert.ok(gen.exitCode === null && Date.now() - t0 < 30000, `kexlab load did not start: ${genLog}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const bpage = await newPage();
    await bpage.goto(busy.url + '/');
    for (const scheme of busySchemes) {
      traces[`${scheme} (busy)`] = await timedLogins(bpage, scheme, `busy-${scheme}`, busyRounds);
    }
    await bpage.close();
    assert.ok(gen.exitCode === null, `kexlab load stopped during the busy phase: ${genLog}`);
  } finally {
    gen.kill('SIGTERM');
    await busy.stop();
  }

  const version = browser.version();
  const file = path.join(out, 'phases.json');
  writeFileSync(file, JSON.stringify(results(traces, version), null, 1));
  const html = path.join(out, 'report.html');
  const stdout = execFileSync(bin, ['report', '-o', html, file], { encoding: 'utf8' });
  assert.match(stdout, /wrote .*report\.html/);
  const page2 = readFileSync(html, 'utf8');
  assert.match(page2, /Where a browser login's time goes/);
  for (const s of Object.keys(traces)) assert.ok(page2.includes(`>${s}<`), `report: no row for ${s}`);
});

test('no request URL or body ever contained a password', () => {
  assert.ok(sent.length > 100, `${sent.length} requests seen`);
  assert.ok(passwords.size >= 8);
  for (const p of passwords) {
    const forms = [p, encodeURIComponent(p), Buffer.from(p).toString('base64'), Buffer.from(p).toString('base64url').replace(/=+$/, ''), Buffer.from(p).toString('hex')];
    for (const r of sent) {
      for (const f of forms) {
        assert.ok(!r.url.includes(f) && !r.body.includes(f), `a request to ${r.url} carries a password (${f})`);
      }
    }
  }
});

/** The traces as a kexlab-results/1 file (package bench's Results): one "full" sample per login, its phases as steps. */
function results(traces: Record<string, Trace[]>, version: string) {
  const cpus = os.cpus();
  const samples: Record<string, unknown>[] = [];
  let seq = 0;
  for (const [scheme, ts] of Object.entries(traces)) {
    ts.forEach((t, iter) => {
      samples.push({
        scheme, op: 'full', seq: seq++, iter,
        wall_ns: Math.round((t.end - t.start) * 1e6), allocs: 0, alloc_bytes: 0,
        steps: phases(t).map((p) => ({ party: p.where, name: p.round, ns: Math.round(p.ms * 1e6), in: 0, out: 0 })),
      });
    });
  }
  const now = new Date().toISOString();
  return {
    format: 'kexlab-results/1',
    label: `headless Chromium ${version}`,
    source: 'chromium',
    machine: {
      host: os.hostname(), cpu_model: cpus[0]?.model ?? '', cores: cpus.length, gomaxprocs: 0,
      os: os.platform(), arch: os.arch(), kernel: os.release(), loadavg: os.loadavg().map((x) => x.toFixed(2)).join(' '), time: now,
    },
    settings: { n: rounds, min_n: rounds, warmup: 1, budget_ns: 0, seed: 0 },
    energy: { measured: false, reason: 'a browser has no energy meter' },
    schemes: Object.keys(traces).map((name) => ({ name, suite: 'kexlab serve (loopback) + headless Chromium', augmented: true, key_confirmation: true, size: 0, study_size: 0, planned: rounds, n: traces[name]!.length })),
    samples,
    started: now,
    finished: now,
  };
}
