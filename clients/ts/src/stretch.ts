// Key stretching. Every scheme of the service runs scrypt on the client
// (SRP, SPAKE2+ and apakepq with the account's parameters, OPAQUE as its
// KSF); this is the one seam through which they do, so that a page can run
// it in a Web Worker (see worker.ts) and Node in-process.

import { scryptAsync } from '@noble/hashes/scrypt.js';

/** scrypt's cost parameters and output length. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  dkLen: number;
}

/** scrypt(password, salt, params); onProgress gets 0..1 as it runs. */
export type Scrypt = (
  password: Uint8Array,
  salt: Uint8Array,
  params: ScryptParams,
  onProgress?: (fraction: number) => void,
) => Promise<Uint8Array>;

/** scrypt on the calling thread (@noble/hashes' scryptAsync, which yields to the event loop). */
export const scryptHere: Scrypt = (password, salt, { N, r, p, dkLen }, onProgress) =>
  scryptAsync(password, salt, { N, r, p, dkLen, maxmem: 2 ** 32, ...(onProgress ? { onProgress } : {}) });
