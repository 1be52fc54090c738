// @kexlab/client: the client of the kexlab PAKE authentication service.
export { Client, schemes } from './client.js';
export type { Scheme, Session, KDFParams, ClientOptions } from './client.js';
export { KexlabError, AuthError, RateLimitError, NetworkError, ProtocolError, ServiceError } from './errors.js';
export { scryptHere } from './stretch.js';
export type { Scrypt, ScryptParams } from './stretch.js';
export { workerScrypt } from './worker-scrypt.js';
export { phases, parseServerTiming } from './trace.js';
export type { Trace, TraceRequest, Phase } from './trace.js';
export { SRPParams, SRPClient, group2048, group3072 } from './srp.js';
