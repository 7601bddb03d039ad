/**
 * The suite's HTTP client: exact control over method, headers and body bytes (no implicit
 * Content-Type), one fresh connection per request, a timeout, and every response remembers the
 * request that produced it so a failure can print a `curl` line reproducing it.
 */
import http from 'node:http';
import https from 'node:https';
import { curlFor } from './curl.ts';
import { tlsTrust } from './tls.ts';
import type { TlsTrust } from './tls.ts';
import { noteAnswered, noteSent } from './exchange-log.ts';
import { runEnvironment } from '../run-environment.ts';
import type { HttpResponse, SentRequest } from './message.ts';

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Serialised as JSON with `Content-Type: application/json` unless a content type is given. */
  json?: unknown;
  /** Raw body bytes; no Content-Type is added. */
  body?: string | Buffer;
  timeoutMs?: number;
  /** A connection pool to use (default: a fresh connection per request). */
  agent?: http.Agent;
  /** The response-size limit of this request (default HAC_MAX_RESPONSE_BYTES, 8 MiB: D-BOUNDED-RUN). */
  maxResponseBytes?: number;
  /** The deadline of the whole exchange, head and body (default HAC_REQUEST_DEADLINE, 30 s: D-BOUNDED-RUN). */
  deadlineMs?: number;
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

/**
 * D-BOUNDED-RUN: JSON nested deeper than this is not parsed. JSON.parse itself copes, but the checks
 * walk bodies recursively (schemas, links, stringify), and 100,000 levels overflow their stack.
 */
export const MAX_JSON_DEPTH = 256;

let bounds: { maxResponseBytes: number; requestDeadlineMs: number } | undefined;
/** The run's per-request bounds (run-environment.ts), read once per process. */
function limits(): { maxResponseBytes: number; requestDeadlineMs: number } {
  if (!bounds) {
    const { maxResponseBytes, requestDeadlineMs } = runEnvironment();
    bounds = { maxResponseBytes, requestDeadlineMs };
  }
  return bounds;
}

/** A request of this process that has not finished yet (named when the run deadline passes). */
interface InFlight {
  method: string;
  url: string;
  sentAt: number;
  /** performance.now() when its headers arrived. */
  headersAt?: number;
  /** Body bytes received so far. */
  bytes: number;
}
const inFlight = new Set<InFlight>();

/** The requests of this process still waiting for an answer or reading one, as `METHOD URL (what came so far)`. */
export function unfinishedRequests(now: number = performance.now()): string[] {
  return [...inFlight].map((f) => {
    const state = f.headersAt === undefined ? 'no headers yet' : `headers after ${seconds(f.headersAt - f.sentAt)}, ${f.bytes} bytes of the body`;
    return `${f.method} ${f.url} (sent ${seconds(now - f.sentAt)} ago, ${state})`;
  });
}

/**
 * Resolves when every request of this process has finished, or after `limitMs`: a check that returns
 * at a burst's first 429 leaves the rest of the burst in flight, and their answers are evidence too
 * (D-TRAFFIC). Whatever is still unanswered after the limit is left alone.
 */
export async function inFlightSettled(limitMs: number): Promise<void> {
  const until = performance.now() + limitMs;
  while (inFlight.size > 0 && performance.now() < until) await delay(5);
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`;
}

/**
 * True when `text` nests arrays and objects deeper than `limit` (strings skipped, escapes honoured).
 * One pass over the characters; JSON-looking text only (the first non-blank character is `{` or `[`).
 */
export function jsonDepthOver(text: string, limit: number): boolean {
  const first = /\S/.exec(text)?.[0];
  if (first !== '{' && first !== '[') return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i += 1; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === 125 || c === 93) depth -= 1;
  }
  return false;
}

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

/**
 * One attempt of `send`: refuses an unsendable request, else runs the exchange within this run's
 * bounds (D-BOUNDED-RUN), noting it among the requests in flight and in the exchange log.
 */
function sendOnce(baseUrl: string, method: string, path: string, options: RequestOptions): Promise<HttpResponse> {
  const refused = unsendable(method, path);
  if (refused !== undefined) return Promise.reject(new UnsendableRequestError(`refused to send ${method} ${path}: ${refused}`));
  const { url, request, bytes } = prepareRequest(baseUrl, method, path, options);
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? 15_000;
  const tls = url.protocol === 'https:' ? tlsTrust() : undefined;
  noteSent(request);
  const maxBytes = options.maxResponseBytes ?? limits().maxResponseBytes;
  const deadlineMs = options.deadlineMs ?? limits().requestDeadlineMs;
  // D-BOUNDED-RUN: the idle timeout never outlasts the deadline of the whole exchange.
  const idleMs = Math.min(timeoutMs, deadlineMs);
  const flight: InFlight = { method, url: url.toString(), sentAt: started, bytes: 0 };
  inFlight.add(flight);
  const plan: ExchangePlan = { url, request, bytes, tls, agent: options.agent, maxBytes, deadlineMs, idleMs, flight };
  const answered = new Promise<HttpResponse>((resolve, reject) => exchange(plan, resolve, reject));
  // The evidence a failing test attaches (conformance/transport/exchange.ts).
  answered.then((response) => noteAnswered(request, { response }), (error: unknown) => noteAnswered(request, { error }));
  return answered;
}

/**
 * The request `method baseUrl + path` as it is sent: lower-case headers that accept JSON and problem
 * documents, the body (`options.json` serialised, else `options.body`) with its Content-Length, and
 * its length in bytes.
 */
function prepareRequest(baseUrl: string, method: string, path: string, options: RequestOptions): { url: URL; request: SentRequest; bytes: number } {
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
  return { url, request, bytes };
}

/** One exchange as sendOnce planned it: the request, how it travels, and its bounds (D-BOUNDED-RUN). */
interface ExchangePlan {
  url: URL;
  request: SentRequest;
  /** Length of the body in bytes (0 without one). */
  bytes: number;
  /** The TLS trust of an https request; undefined for http. */
  tls: TlsTrust | undefined;
  /** The caller's connection pool, if any. */
  agent: http.Agent | undefined;
  maxBytes: number;
  deadlineMs: number;
  idleMs: number;
  /** Its entry in `inFlight`, removed when the exchange ends. */
  flight: InFlight;
}

/**
 * Runs one exchange (a promise executor): sends the request, uploads the body and reads the answer,
 * ending it at the first of: the whole answer read, the deadline, the idle timeout, the size limit, a
 * connection error. Whatever ends it first settles it; what comes after is ignored.
 */
function exchange(plan: ExchangePlan, resolve: (response: HttpResponse) => void, reject: (error: Error) => void): void {
  const { url, request, bytes, tls, flight } = plan;
  const { method, headers, body } = request;
  const started = flight.sentAt;
  let responded = false;
  let uploaded = body === undefined;
  let flushedAt = body === undefined ? started : Number.NaN;
  let settled = false;
  let response: http.IncomingMessage | undefined;
  // Called only once this function has run (a timer), so `fail` below is defined by then.
  const deadline = setTimeout(() => fail(deadlineFault(flight, plan.deadlineMs, performance.now())), plan.deadlineMs);
  const settle = (): boolean => {
    if (settled) return false;
    settled = true;
    clearTimeout(deadline);
    inFlight.delete(flight);
    return true;
  };
  /** Ends the exchange with the server's fault, naming the request; the socket is closed and what was read is dropped. */
  const fail = (fault: string, type: new (message: string) => TransportError = TransportError): void => {
    if (!settle()) return;
    reject(new type(`${method} ${url.toString()}: ${fault}\n  ${curlFor(request)}`));
    response?.destroy();
    req.destroy();
  };
  const secure = url.protocol === 'https:';
  const agent = plan.agent ?? (secure ? resumingAgent() : false);
  const req = (secure ? https : http).request(url, { method, headers, agent, ...(tls ?? {}) }, (res) => {
    responded = true;
    response = res;
    const receivedAt = performance.now();
    flight.headersAt = receivedAt;
    readBody(res, plan.maxBytes, flight, {
      ended: () => settled,
      fail,
      done: (text) => {
        if (!uploaded) req.destroy();
        if (jsonDepthOver(text, MAX_JSON_DEPTH)) {
          fail(`the JSON body nests deeper than ${MAX_JSON_DEPTH} levels; it was not parsed`);
          return;
        }
        settle();
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
      },
    });
  });
  req.setTimeout(plan.idleMs, () => fail(idleFault(flight, plan.idleMs)));
  req.on('error', (error: NodeJS.ErrnoException) => {
    // An early answer was read: the rest of the upload failing is expected, the response decides.
    if (settled || (responded && CLOSED.has(error.code ?? ''))) return;
    // Reset before any answer: an unfinished upload, or a large one whose early answer the reset
    // discarded, cannot have been processed, so it is sent again.
    const unsent = (!uploaded || bytes > CHUNK_BYTES) && CLOSED.has(error.code ?? '');
    if (unsent) fail(`the connection closed before the body was sent and before any answer: ${error.message}`, UploadInterrupted);
    else fail(error.message);
  });
  req.on('finish', () => {
    uploaded = true;
    flushedAt = performance.now();
  });
  void upload(req, body === undefined ? undefined : Buffer.from(body), () => responded);
}

/** Why the deadline of the exchange `flight` (D-BOUNDED-RUN) passed at `now`: no headers, headers only, or a body too slow. */
function deadlineFault(flight: InFlight, deadlineMs: number, now: number): string {
  if (flight.headersAt === undefined) return `no answer within ${seconds(deadlineMs)}`;
  if (flight.bytes === 0) return `the server sent headers, then nothing for ${seconds(now - flight.headersAt)}`;
  return `the body did not finish within ${seconds(deadlineMs)} (${flight.bytes} bytes came, the headers after ${seconds(flight.headersAt - flight.sentAt)})`;
}

/** Why the exchange `flight` went idle for `idleMs`: no headers yet, or nothing more after the headers and what came of the body. */
function idleFault(flight: InFlight, idleMs: number): string {
  if (flight.headersAt === undefined) return `no answer within ${seconds(idleMs)}`;
  return `the server sent headers${flight.bytes > 0 ? ` and ${flight.bytes} bytes of the body` : ''}, then nothing for ${seconds(idleMs)}`;
}

/**
 * Reads the body of `res` within `maxBytes` (D-BOUNDED-RUN), counting in `flight` the bytes that came.
 * A body declared or found larger, a stream error or a connection closed before the end goes to
 * `fail`; the complete body goes to `done`, unless the exchange has `ended` meanwhile.
 */
function readBody(
  res: http.IncomingMessage,
  maxBytes: number,
  flight: InFlight,
  on: { ended: () => boolean; fail: (fault: string) => void; done: (text: string) => void },
): void {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    on.fail(`response larger than ${maxBytes} bytes (Content-Length: ${res.headers['content-length']}); the body was not read`);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    flight.bytes = size;
    if (size > maxBytes) on.fail(`response larger than ${maxBytes} bytes; the body was dropped after ${size} bytes`);
    else chunks.push(chunk);
  });
  res.on('error', (error) => on.fail(`${error.message} after ${size} bytes of the body`));
  res.on('close', () => {
    if (!res.complete) on.fail(`the server closed the connection after the headers and ${size} bytes of the body`);
  });
  res.on('end', () => {
    if (on.ended()) return;
    const text = Buffer.concat(chunks).toString('utf8');
    chunks.length = 0;
    on.done(text);
  });
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
