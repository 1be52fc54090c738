// The key-stretching Web Worker: runs scrypt off the page's main thread
// and posts its progress. Bundled on its own (web/build.mjs); the page
// talks to it through workerScrypt (worker-scrypt.ts).
//
// Messages in:  { id, password, salt, N, r, p, dkLen }
// Messages out: { id, progress } while it runs, then { id, key } or { id, error }.

import { scryptAsync } from '@noble/hashes/scrypt.js';

interface Job {
  id: number;
  password: Uint8Array;
  salt: Uint8Array;
  N: number;
  r: number;
  p: number;
  dkLen: number;
}

const scope = globalThis as unknown as {
  onmessage: ((ev: MessageEvent<Job>) => void) | null;
  postMessage(msg: unknown, transfer?: Transferable[]): void;
};

scope.onmessage = async (ev) => {
  const { id, password, salt, N, r, p, dkLen } = ev.data;
  let last = 0;
  try {
    const key = await scryptAsync(password, salt, {
      N, r, p, dkLen, maxmem: 2 ** 32, asyncTick: 10,
      onProgress: (f: number) => {
        if (f - last >= 0.02 || f === 1) {
          last = f;
          scope.postMessage({ id, progress: f });
        }
      },
    });
    scope.postMessage({ id, key }, [key.buffer as ArrayBuffer]);
  } catch (e) {
    scope.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  } finally {
    password.fill(0);
  }
};
