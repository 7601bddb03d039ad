/**
 * Reachability probe run before the suite (an unreachable target is exit 2 with a
 * clear message within seconds, never a hang): one GET per base URL with a hard deadline. Any HTTP
 * response counts as reachable, whatever its status; a refused connection, a silent server, a
 * response that is not HTTP or a closed socket do not.
 */
import http from 'node:http';
import https from 'node:https';
import { tlsTrust } from '../transport/tls.ts';

export interface ProbeResult {
  url: string;
  ok: boolean;
  /** The HTTP status when the target answered. */
  status?: number;
  /** Why the target is unusable, when not ok. */
  problem?: string;
  durationMs: number;
}

/** Human reason for a connection-level failure. */
function explain(error: NodeJS.ErrnoException, url: URL): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return `connection refused by ${url.host} (nothing listens there)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host ${url.hostname} not found`;
    case 'ECONNRESET':
      return `${url.host} closed the connection without answering`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${url.host} is unreachable`;
    default:
      if (error.code?.startsWith('HPE_')) return `${url.host} did not answer with HTTP (${error.code})`;
      // D-SUITE-TRUST: a private CA or a self-signed staging certificate is trusted with --ca FILE.
      if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(error.code ?? ''))
        return `the TLS certificate of ${url.host} is not trusted (${error.message}): give its CA certificate with --ca FILE (PEM), or --insecure ` +
          `to skip verification`;
      return `${error.code ?? 'error'}: ${error.message}`;
  }
}

/** GETs `url` once; resolves (never rejects) within `timeoutMs` plus a little. */
export function probeUrl(url: string, timeoutMs = 5000): Promise<ProbeResult> {
  const started = performance.now();
  const done = (r: Omit<ProbeResult, 'url' | 'durationMs'>): ProbeResult => ({ url, durationMs: Math.round(performance.now() - started), ...r });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(done({ ok: false, problem: 'not a URL' }));
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: ProbeResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => {
      finish(done({ ok: false, problem: `no HTTP response from ${target.host} within ${timeoutMs / 1000} s` }));
    }, timeoutMs);
    const tls = target.protocol === 'https:' ? tlsTrust() : {};
    const request = client.get(target, { headers: { accept: 'application/json', 'user-agent': 'http-api-conformance-probe' }, ...tls }, (response) => {
      response.resume();
      finish(done({ ok: true, status: response.statusCode ?? 0 }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => finish(done({ ok: false, problem: explain(error, target) })));
  });
}

/** Probes every base URL at `path` in parallel. */
export function probeTargets(baseUrls: string[], path = '/', timeoutMs = 5000): Promise<ProbeResult[]> {
  return Promise.all(baseUrls.map((base) => probeUrl(new URL(path.replace(/^\//, ''), base.endsWith('/') ? base : `${base}/`).toString(), timeoutMs)));
}
