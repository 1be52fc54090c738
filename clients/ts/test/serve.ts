// Starts a real `kexlab serve` (the Go binary: bin/kexlab or $KEXLAB_BIN)
// on a free loopback port with a temporary data directory, for the
// service and browser tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The repository's root (dist/test -> clients/ts -> root). */
export const repoRoot = path.resolve(here, '../../../..');
export const bin = process.env.KEXLAB_BIN ?? path.join(repoRoot, 'bin/kexlab');

export interface Service {
  url: string;
  stop(): Promise<void>;
}

/** Runs kexlab serve with extra flags; resolves once it listens. */
export async function startService(...flags: string[]): Promise<Service> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run make build (or set KEXLAB_BIN)`);
  const dir = mkdtempSync(path.join(tmpdir(), 'kexlab-ts-'));
  const proc: ChildProcess = spawn(bin, ['serve', '-addr', '127.0.0.1:0', '-data', dir, '-insecure-http', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stderr!.on('data', (d: Buffer) => { log = (log + d.toString()).slice(-4000); });
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('kexlab serve did not start within 20 s: ' + out + log)), 20000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.on('exit', (code) => reject(new Error(`kexlab serve exited (${code}): ${out}${log}`)));
  });
  return {
    url,
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
