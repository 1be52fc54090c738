// Latency traces: where an operation's time goes, in the split the
// Android PAKE study measured (its Figure 11) — browser compute before
// and after each round, transmission, web server and PAKE server time.
//
// Times come from the Performance API: performance.now() around the
// client's work, the request's PerformanceResourceTiming entry where the
// runtime records one (browsers; fetchStart..responseEnd), and the
// service's Server-Timing header (`kexlab serve -server-timing`):
// app = the request in the handler, pake = the scheme's work, queue = the
// wait for a worker. Without the header a request's time is all
// "network" — say so where it is shown.

/** One HTTP round of an operation, in milliseconds on performance.now()'s clock. */
export interface TraceRequest {
  path: string;
  start: number;
  end: number;
  /** Server-Timing durations by name (app, pake, queue), when the service sent them. */
  server: Record<string, number>;
}

/** One operation (login, register, password) of one scheme. */
export interface Trace {
  op: string;
  scheme: string;
  start: number;
  end: number;
  requests: TraceRequest[];
}

/** One phase of a trace. */
export interface Phase {
  /** "browser", "network", "web server" or "PAKE server". */
  where: string;
  /** The round it belongs to: the request path's last segment ("start"), or "end" for the browser's work after the last round. */
  round: string;
  ms: number;
}

/** Records a trace as the client runs (client.ts). */
export class Tracer {
  private readonly t: Trace;

  constructor(op: string, scheme: string) {
    this.t = { op, scheme, start: now(), end: 0, requests: [] };
  }

  /** Marks the start of a request; call done(header) when its answer has arrived. */
  request(path: string): { done(serverTiming: string | null): void } {
    const r: TraceRequest = { path, start: now(), end: 0, server: {} };
    this.t.requests.push(r);
    return {
      done: (header) => {
        r.end = now();
        r.server = parseServerTiming(header);
        const e = resourceEntry(path, r.start);
        if (e) {
          r.start = Math.max(r.start, e.fetchStart);
          r.end = Math.min(r.end, e.responseEnd);
        }
      },
    };
  }

  end(): Trace {
    this.t.end = now();
    return this.t;
  }
}

/** The phases of t, in order: for each request the browser's work before it, then network, web server and PAKE server; last the browser's work after the last answer. */
export function phases(t: Trace): Phase[] {
  const out: Phase[] = [];
  let prev = t.start;
  for (const r of t.requests) {
    const round = r.path.slice(r.path.lastIndexOf('/') + 1);
    const app = r.server.app ?? 0;
    const pake = (r.server.pake ?? 0) + (r.server.queue ?? 0);
    out.push({ where: 'browser', round, ms: r.start - prev });
    out.push({ where: 'network', round, ms: Math.max(0, r.end - r.start - app) });
    out.push({ where: 'web server', round, ms: Math.max(0, app - pake) });
    out.push({ where: 'PAKE server', round, ms: pake });
    prev = r.end;
  }
  out.push({ where: 'browser', round: 'end', ms: t.end - prev });
  return out;
}

/** Parses a Server-Timing header: name;dur=ms entries (W3C Server Timing). */
export function parseServerTiming(h: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  if (!h) return out;
  for (const entry of h.split(',')) {
    const [name, ...params] = entry.split(';').map((s) => s.trim());
    if (!name) continue;
    for (const p of params) {
      const m = /^dur=([0-9.]+)$/.exec(p);
      if (m) {
        const v = Number(m[1]);
        if (Number.isFinite(v)) out[name] = v;
      }
    }
  }
  return out;
}

function now(): number {
  return performance.now();
}

/** The resource timing entry of the request to path that began at or after start, where the runtime records them. */
function resourceEntry(path: string, start: number): PerformanceResourceTiming | undefined {
  if (typeof performance.getEntriesByType !== 'function') return undefined;
  const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.startTime + 1 < start) break;
    if (e.name.endsWith(path) && e.responseEnd > 0) return e;
  }
  return undefined;
}
