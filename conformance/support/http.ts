/**
 * The suite's HTTP client: exact control over method, headers and body bytes (no implicit
 * Content-Type), one fresh connection per request, a timeout, and every response remembers the
 * request that produced it so a failure can print a `curl` line reproducing it.
 */
import http from 'node:http';
import https from 'node:https';
import { curlFor } from './curl.ts';
import { tlsTrust } from './tls.ts';
import { noteAnswered, noteSent } from './exchange-log.ts';

export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface HttpResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
  /** The parsed body, or undefined when the body is empty or not JSON. */
  json: unknown;
  request: SentRequest;
  /** performance.now() just before the request was sent. */
  sentAt: number;
  /** performance.now() when the whole body was written (an early answer: when it arrived). */
  flushedAt: number;
  /** performance.now() when the response headers arrived. */
  receivedAt: number;
  durationMs: number;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Serialised as JSON with `Content-Type: application/json` unless a content type is given. */
  json?: unknown;
  /** Raw body bytes; no Content-Type is added. */
  body?: string | Buffer;
  timeoutMs?: number;
  /** A connection pool to use (default: a fresh connection per request). */
  agent?: http.Agent;
}

/** Thrown when the target does not answer; the message carries the curl line. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
}

/**
 * A request the suite refuses to send (D-FINDINGS): its path was built from a missing value
 * (`undefined`, `null`, `NaN` in it), or it would change the API root. Nothing is sent; the check fails
 * with this message.
 */
export class UnsendableRequestError extends Error {
  override readonly name = 'UnsendableRequestError';
}

const CHANGES = new Set(['PUT', 'PATCH', 'DELETE']);

/** Why `method path` must not be sent, or undefined when it may. */
export function unsendable(method: string, path: string): string | undefined {
  const bare = path.split(/[?#]/)[0] ?? '';
  if (/(^|[/=&])(undefined|null|NaN|\[object Object\])([/&#?]|$)/.test(path)) {
    return `its path ${JSON.stringify(path)} was built from a missing value (a Location, an id or a link the target did not give)`;
  }
  if (CHANGES.has(method.toUpperCase()) && (bare === '' || bare === '/')) {
    return `a ${method.toUpperCase()} of the API root changes no resource: the item path it needed is missing`;
  }
  return undefined;
}

/** Socket errors that mean the target closed the connection (possibly after answering early). */
const CLOSED = new Set(['EPIPE', 'ECONNRESET']);

/** The upload is written in chunks of this size, so an early answer is noticed between two writes. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Sends one request to `baseUrl + path` and reads the whole response, over http or https (TLS trust:
 * tls.ts). A response that arrives before the body is fully sent (413, 401, 415 answered early) stops
 * the upload and is returned, whatever EPIPE or ECONNRESET the rest of the upload meets. A connection
 * closed during the upload before any answer is tried again (twice): an incomplete body cannot have
 * been processed.
 */
export async function send(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await sendOnce(baseUrl, method, path, options);
    } catch (error) {
      if (!(error instanceof UploadInterrupted) || attempt === 3) throw error;
    }
  }
}

/** The connection closed while the body was being written and before any answer arrived. */
class UploadInterrupted extends TransportError {}

function sendOnce(baseUrl: string, method: string, path: string, options: RequestOptions): Promise<HttpResponse> {
  const refused = unsendable(method, path);
  if (refused !== undefined) return Promise.reject(new UnsendableRequestError(`refused to send ${method} ${path}: ${refused}`));
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  const headers: Record<string, string> = { accept: 'application/json, application/problem+json', ...lowerKeys(options.headers ?? {}) };
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const bytes = body === undefined ? 0 : Buffer.byteLength(body);
  if (body !== undefined) headers['content-length'] = String(bytes);
  // A large upload asks to keep the connection: a server that answers early (413) then reads the rest
  // instead of closing on it, so the answer is not lost to a reset (D-SUITE-TRUST).
  if (bytes > CHUNK_BYTES) headers.connection ??= 'keep-alive';
  const request: SentRequest = { method, url: url.toString(), headers, ...(body !== undefined ? { body } : {}) };
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? 15_000;
  const secure = url.protocol === 'https:';
  const transport = secure ? https : http;
  const tls = secure ? tlsTrust() : undefined;
  noteSent(request);
  const answered = new Promise<HttpResponse>((resolve, reject) => {
    let responded = false;
    let uploaded = body === undefined;
    let flushedAt = body === undefined ? started : Number.NaN;
    const agent = options.agent ?? (secure ? resumingAgent() : false);
    const req = transport.request(url, { method, headers, agent, ...(tls ?? {}) }, (res) => {
      responded = true;
      const receivedAt = performance.now();
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => reject(new TransportError(`${error.message}\n  ${curlFor(request)}`)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (!uploaded) req.destroy();
        resolve({
          status: res.statusCode ?? 0,
          headers: flattenHeaders(res.headers),
          text,
          json: parseJson(text),
          request,
          sentAt: started,
          flushedAt: Number.isNaN(flushedAt) ? receivedAt : flushedAt,
          receivedAt,
          durationMs: performance.now() - started,
        });
      });
    });
    req.setTimeout(timeoutMs, () => {
      req.destroy(new TransportError(`no answer within ${timeoutMs} ms: ${method} ${url.toString()}\n  ${curlFor(request)}`));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // An early answer was read: the rest of the upload failing is expected, the response decides.
      if (responded && CLOSED.has(error.code ?? '')) return;
      if (error instanceof TransportError) return reject(error);
      const message = `${error.message}: ${method} ${url.toString()}\n  ${curlFor(request)}`;
      // Reset before any answer: an unfinished upload, or a large one whose early answer the reset
      // discarded, cannot have been processed, so it is sent again.
      const unsent = (!uploaded || bytes > CHUNK_BYTES) && CLOSED.has(error.code ?? '');
      reject(unsent ? new UploadInterrupted(`the connection closed before the body was sent and before any answer: ${message}`) : new TransportError(message));
    });
    req.on('finish', () => {
      uploaded = true;
      flushedAt = performance.now();
    });
    void upload(req, body === undefined ? undefined : Buffer.from(body), () => responded);
  });
  // The evidence a failing test attaches (conformance/report/exchange.ts).
  answered.then((response) => noteAnswered(request, { response }), (error: unknown) => noteAnswered(request, { error }));
  return answered;
}

/** Writes `body` in chunks, waiting for the socket to drain, and stops as soon as an answer arrived. */
async function upload(req: http.ClientRequest, body: Buffer | undefined, answered: () => boolean): Promise<void> {
  if (body === undefined || body.length <= CHUNK_BYTES) {
    req.end(body);
    return;
  }
  for (let offset = 0; offset < body.length; offset += CHUNK_BYTES) {
    if (answered() || req.destroyed) return;
    if (!req.write(body.subarray(offset, offset + CHUNK_BYTES))) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          req.off('drain', done);
          req.off('close', done);
          req.off('response', done);
          resolve();
        };
        req.on('drain', done);
        req.on('close', done);
        req.on('response', done);
      });
    }
  }
  if (!answered() && !req.destroyed) req.end();
}

let resuming: https.Agent | undefined;

/**
 * The https agent of requests without their own: still one fresh connection per request (no
 * keep-alive), but TLS sessions are resumed, so a loaded machine is not spent on full handshakes.
 */
function resumingAgent(): https.Agent {
  resuming ??= new https.Agent({ keepAlive: false, maxCachedSessions: 100, ...tlsTrust() });
  return resuming;
}

/** A keep-alive connection pool for `baseUrl` (one socket unless told), with the suite's TLS trust. */
export function keepAliveAgent(baseUrl: string, maxSockets = 1): http.Agent {
  return new URL(baseUrl).protocol === 'https:'
    ? new https.Agent({ keepAlive: true, maxSockets, ...tlsTrust() })
    : new http.Agent({ keepAlive: true, maxSockets });
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Resolves after `ms` milliseconds (used only to wait out a duration the target announced). */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** The `Retry-After` header as delta-seconds, or undefined when absent or not delta-seconds. */
export function retryAfterSeconds(response: HttpResponse): number | undefined {
  const value = response.headers['retry-after'];
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}
