/**
 * Test harness of the reference server: starts it in-process on 127.0.0.1 port 0 with the memory
 * store (or given stores) and sends requests with plain fetch.
 */
import { connect } from 'node:net';
import { resolveConfig, type Config } from '../../config.ts';
import { type RunningServer, startServer } from '../../server.ts';
import { createMemoryStores } from '../../stores/memory/index.ts';
import type { Stores } from '../../stores/types.ts';

export const ALICE = 'dev-token-alice';
export const BOB = 'dev-token-bob';
export const READER = 'dev-token-reader';
export const LIMITED = 'dev-token-limited';

export interface TestServer extends RunningServer {
  config: Config;
  stores: Stores;
  /** 5xx errors the app logged. */
  logged: unknown[];
}

/** Starts a server with `overrides` merged over the default configuration (port 0, memory store). */
export async function startTestServer(overrides: Record<string, unknown> = {}, stores?: Stores): Promise<TestServer> {
  const config = resolveConfig({ host: '127.0.0.1', port: 0, ...overrides });
  const ownStores = stores ?? createMemoryStores();
  const logged: unknown[] = [];
  const server = await startServer({ config, stores: ownStores, logError: (error) => logged.push(error) });
  return { ...server, config, stores: ownStores, logged };
}

export interface Reply {
  status: number;
  headers: Headers;
  /** Parsed JSON body (undefined when empty). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export interface RequestOptions {
  token?: string;
  /** A JSON value to send (serialized, Content-Type application/json) or a raw string. */
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

/** Sends one request to `base` and reads the whole response. */
export async function call(base: string, method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(base + path, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** A client bound to one server. */
export function client(base: string) {
  return {
    get: (path: string, options?: RequestOptions) => call(base, 'GET', path, options),
    post: (path: string, options?: RequestOptions) => call(base, 'POST', path, options),
    put: (path: string, options?: RequestOptions) => call(base, 'PUT', path, options),
    delete: (path: string, options?: RequestOptions) => call(base, 'DELETE', path, options),
    send: (method: string, path: string, options?: RequestOptions) => call(base, method, path, options),
  };
}

/** Writes raw bytes to the server and resolves with the status code and text of the first response. */
export function rawExchange(port: number, bytes: string | Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0), text: data }));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
  });
}
