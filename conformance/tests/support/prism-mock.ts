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
export interface Prism {
  request: (input: unknown, operations: unknown[]) => () => Promise<Either<Error & { status?: number; name: string; detail?: string }, PrismOutput>>;
}
const prismHttp = require('@stoplight/prism-http') as {
  getHttpOperationsFromSpec: (spec: string) => Promise<{ path: string }[]>;
  createInstance: (config: unknown, components: { logger: unknown }) => Prism;
};
/** A silent logger with every level Prism calls (pino's, and its own `success`). */
const silent: object = new Proxy({}, { get: (_target, name) => (name === 'child' ? () => silent : () => undefined) });

export interface MockServer {
  url: string;
  close(): Promise<void>;
}

/** Prism's split of a path into fragments (router/matchPath.js `fragmentize`): after the leading slash, each decoded. */
function fragments(path: string): string[] {
  return path
    .split('/')
    .slice(1)
    .map((fragment) => {
      try {
        return fragment && decodeURIComponent(fragment);
      } catch {
        return fragment;
      }
    });
}

/**
 * The operations Prism's router could match `path` to, by its own rules (router/matchPath.js): as many
 * fragments, and each fragment without a `{param}` equal. A templated fragment is left to Prism, so the
 * list holds every operation Prism would match and Prism still decides among them (404, 405, the
 * concrete path before the templated one). Prism's router scores and sorts every operation of the
 * document for every request: on fusionauth.yaml (hundreds of operations) that was 11 of the 24 s of
 * CPU the mock spent in one run (router/index.js, matchPath.js, fp-ts), most of the test's time.
 */
export function candidatesFor<T extends { path: string }>(operations: readonly T[]): (path: string) => T[] {
  const shapes = operations.map((operation) => ({
    operation,
    fragments: fragments(operation.path).map((fragment) => (/{(.+)}/.test(fragment) ? undefined : fragment)),
  }));
  return (path) => {
    if (!path.startsWith('/')) return [...operations];
    const wanted = fragments(path);
    const matching = shapes
      .filter(({ fragments: own }) => own.length === wanted.length && own.every((fragment, i) => fragment === undefined || fragment === wanted[i]))
      .map(({ operation }) => operation);
    // No candidate: Prism matches none of them either, and answers its "route not found" from any one.
    return matching.length > 0 ? matching : operations.slice(0, 1);
  };
}

/** The operations of the document at `file`, as Prism reads them. */
export function prismOperations(file: string): Promise<{ path: string }[]> {
  return prismHttp.getHttpOperationsFromSpec(file);
}

/** Prism's HTTP engine as `prism mock` configures it: static mocking, requests validated, security checked. */
export function createPrism(): Prism {
  return prismHttp.createInstance(
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
}

/** Starts a Prism mock of the document at `file` on 127.0.0.1, on a free port. */
export async function startPrismMock(file: string): Promise<MockServer> {
  const operations = await prismOperations(file);
  const candidates = candidatesFor(operations);
  const prism = createPrism();
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
        const result = await prism.request(input, candidates(url.pathname))();
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
