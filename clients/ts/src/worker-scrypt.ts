// scrypt in a Web Worker (worker.ts), for pages: the stretching takes
// hundreds of milliseconds and would otherwise freeze the page.

import type { Scrypt } from './stretch.js';

/**
 * A Scrypt that runs in the Web Worker at url (the bundled worker.js;
 * `kexlab serve` serves it at /app/worker.js). One worker serves every
 * call; concurrent jobs share it (scryptAsync yields between chunks).
 */
export function workerScrypt(url: string | URL): Scrypt {
  let w: Worker | undefined;
  let next = 0;
  const jobs = new Map<number, { resolve(k: Uint8Array): void; reject(e: Error): void; onProgress?: (f: number) => void }>();
  const fail = (e: Error) => {
    for (const j of jobs.values()) j.reject(e);
    jobs.clear();
    w?.terminate();
    w = undefined;
  };
  return (password, salt, { N, r, p, dkLen }, onProgress) => {
    if (!w) {
      w = new Worker(url, { type: 'module', name: 'kexlab scrypt' });
      w.onmessage = (ev: MessageEvent<{ id: number; progress?: number; key?: Uint8Array; error?: string }>) => {
        const j = jobs.get(ev.data.id);
        if (!j) return;
        if (ev.data.progress !== undefined) j.onProgress?.(ev.data.progress);
        else {
          jobs.delete(ev.data.id);
          if (ev.data.key) j.resolve(ev.data.key);
          else j.reject(new Error(`scrypt: ${ev.data.error}`));
        }
      };
      w.onerror = (ev) => fail(new Error(`the key-stretching worker failed: ${ev.message || 'it did not load'}`));
    }
    const id = next++;
    return new Promise<Uint8Array>((resolve, reject) => {
      jobs.set(id, { resolve, reject, ...(onProgress ? { onProgress } : {}) });
      // A copy, moved (not cloned) to the worker, which clears it when done.
      const copy = password.slice();
      w!.postMessage({ id, password: copy, salt, N, r, p, dkLen }, [copy.buffer]);
    });
  };
}
