/**
 * The suite's HTTP client: exact control over method, headers and body bytes (no implicit
 * Content-Type), one fresh connection per request, a timeout, and every response remembers the
 * request that produced it so a failure can print a `curl` line reproducing it.
 */
import http from 'node:http';
import https from 'node:https';
import { curlFor } from './curl.ts';

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

/** Sends one request to `baseUrl + path` and reads the whole response. */
export function send(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  const headers: Record<string, string> = { accept: 'application/json, application/problem+json', ...lowerKeys(options.headers ?? {}) };
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  const request: SentRequest = { method, url: url.toString(), headers, ...(body !== undefined ? { body } : {}) };
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? 15_000;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<HttpResponse>((resolve, reject) => {
    const req = transport.request(url, { method, headers, agent: options.agent ?? false }, (res) => {
      const receivedAt = performance.now();
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => reject(new TransportError(`${error.message}\n  ${curlFor(request)}`)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: flattenHeaders(res.headers),
          text,
          json: parseJson(text),
          request,
          sentAt: started,
          receivedAt,
          durationMs: performance.now() - started,
        });
      });
    });
    req.setTimeout(timeoutMs, () => {
      req.destroy(new TransportError(`no answer within ${timeoutMs} ms: ${method} ${url.toString()}\n  ${curlFor(request)}`));
    });
    req.on('error', (error) => {
      reject(error instanceof TransportError ? error : new TransportError(`${error.message}: ${method} ${url.toString()}\n  ${curlFor(request)}`));
    });
    req.end(body);
  });
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
