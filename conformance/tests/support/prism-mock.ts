/**
 * A mock server of an OpenAPI document, made by a tool this project did not write: Stoplight Prism's
 * HTTP engine (@stoplight/prism-http, the engine of `prism mock`) behind a node:http server on a free
 * loopback port. Static mocking (examples first, else a sample of the schema), requests validated, and
 * Prism's errors answered as its CLI does: a problem document with Prism's status (404 no path,
 * 405 no method, 422 invalid request, 401 security).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type Either<L, R> = { _tag: 'Left'; left: L } | { _tag: 'Right'; right: R };
interface PrismOutput {
  output: { statusCode: number; headers?: Record<string, string>; body?: unknown };
}
interface Prism {
  request: (input: unknown, operations: unknown[]) => () => Promise<Either<Error & { status?: number; name: string; detail?: string }, PrismOutput>>;
}
const prismHttp = require('@stoplight/prism-http') as {
  getHttpOperationsFromSpec: (spec: string) => Promise<unknown[]>;
  createInstance: (config: unknown, components: { logger: unknown }) => Prism;
};
/** A silent logger with every level Prism calls (pino's, and its own `success`). */
const silent: object = new Proxy({}, { get: (_target, name) => (name === 'child' ? () => silent : () => undefined) });

export interface MockServer {
  url: string;
  close(): Promise<void>;
}

/** Starts a Prism mock of the document at `file` on 127.0.0.1, on a free port. */
export async function startPrismMock(file: string): Promise<MockServer> {
  const operations = await prismHttp.getHttpOperationsFromSpec(file);
  const prism = prismHttp.createInstance(
    {
      mock: { dynamic: false },
      checkSecurity: true,
      validateRequest: true,
      validateResponse: false,
      errors: false,
      upstreamProxy: undefined,
      isProxy: false,
    },
    { logger: silent },
  );
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://mock');
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text === '' ? undefined : text;
        if (text !== '' && /json/i.test(req.headers['content-type'] ?? ''))
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
        const query: Record<string, string | string[]> = {};
        for (const [k, v] of url.searchParams) query[k] = k in query ? [query[k] as string, v].flat() : v;
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
        const input = { method: (req.method ?? 'GET').toLowerCase(), url: { path: url.pathname, query }, headers, body };
        const result = await prism.request(input, operations)();
        if (result._tag === 'Right') {
          const { statusCode, headers: out = {}, body: payload } = result.right.output;
          const serialized = payload === undefined ? '' : typeof payload === 'string' ? payload : JSON.stringify(payload);
          const typed = Object.keys(out).some((k) => k.toLowerCase() === 'content-type');
          res.writeHead(statusCode, { ...out, ...(payload !== undefined && !typed ? { 'content-type': 'application/json' } : {}) });
          res.end(req.method === 'HEAD' ? undefined : serialized);
        } else {
          const error = result.left;
          const status = error.status ?? 500;
          const problem = { type: error.name, title: error.message, status, detail: error.detail ?? '' };
          res.writeHead(status, { 'content-type': 'application/problem+json' });
          res.end(req.method === 'HEAD' ? undefined : JSON.stringify(problem));
        }
      })().catch((error: unknown) => {
        if (process.env.HAC_MOCK_DEBUG) console.error(error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/problem+json' });
        res.end(JSON.stringify({ title: 'mock error', status: 500 }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
