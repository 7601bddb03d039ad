/**
 * A transparent HTTP proxy that checks every exchange against spec/openapi.yaml with Stoplight
 * Prism's validator (@stoplight/prism-http: its router, `validateSecurity`, `validateInput` and
 * `validateOutput`, the engine of `prism proxy`). `prism proxy` itself cannot stand between the
 * conformance suite and a server: it turns every HEAD answer into a 500 ("invalid json response
 * body"), adds CORS headers, rewrites `Accept` and refuses the multi-file description (its resolver
 * does not find `validation-error-item.schema.json` under the schemas' `$id`s). This proxy forwards
 * bytes unchanged (raw headers, duplicates and all) and validates on the side; the description is
 * bundled into one document first by Redocly CLI.
 *
 * A method a path does not allow is no operation of the description (D-METHODS), so Prism's router
 * finds none for it. Such a request is judged against an operation the proxy builds for the path and
 * method: the path's parameters, no security, and the responses D-METHODS gives it, 405 being
 * components/responses/MethodNotAllowed (and 404 only where the path has an id, D-IDS). Every 405
 * must also carry as `Allow` exactly the path's `x-allow`: the one check that is the proxy's own.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { type AddressInfo, type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

const require = createRequire(import.meta.url);

interface Diagnostic {
  code?: string | number;
  message: string;
  path?: (string | number)[];
  severity: number;
}
type Either<T> = { _tag: 'Left'; left: Diagnostic[] | Error } | { _tag: 'Right'; right: T };
interface PrismRequest {
  method: string;
  url: { path: string; query: Record<string, string | string[]> };
  headers: Record<string, string>;
  body?: unknown;
}
interface PrismResponse {
  statusCode: number;
  headers: Record<string, string>;
  body?: unknown;
}
interface Operation {
  method: string;
  path: string;
}
type Check<E> = (args: { resource: Operation; element: E }) => Either<unknown>;

const { getHttpOperationsFromSpec } = require('@stoplight/prism-http') as { getHttpOperationsFromSpec: (spec: unknown) => Promise<Operation[]> };
const route = (
  require('@stoplight/prism-http/dist/router/index.js') as { default: (args: { resources: Operation[]; input: PrismRequest }) => Either<Operation> }
).default;
const validator = require('@stoplight/prism-http/dist/validator/index.js') as {
  validateSecurity: Check<PrismRequest>;
  validateInput: Check<PrismRequest>;
  validateOutput: Check<PrismResponse>;
};

/** One finding: which exchange, on which side, and what Prism said. */
export interface Violation {
  side: 'request' | 'response';
  method: string;
  target: string;
  status: number;
  message: string;
}

export interface ProxyReport {
  /** Exchanges forwarded and checked. */
  requests: number;
  /** Requests the description does not allow (the suite sends many on purpose: hostile bodies, missing tokens, unknown methods). */
  requestViolations: Violation[];
  /** Responses that disagree with the description: must be none. */
  responseViolations: Violation[];
  /** Requests that matched no operation (a method the path does not allow, an unknown path or method). */
  unmatched: number;
  /** Of those, requests to a known path with a method of OpenAPI's set it does not allow: judged against MethodNotAllowed. */
  notAllowed: number;
  /** 405 answers whose `Allow` was compared with the path's `x-allow`. */
  allowChecked: number;
  /** Requests Node's parser refuses (an unknown method token such as BREW, CONNECT): relayed as bytes, their answers checked. */
  relayed: number;
}

export interface ValidatingProxy {
  url: string;
  report(): ProxyReport;
  close(): Promise<void>;
}

const SPEC = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));
const REDOCLY = fileURLToPath(new URL('../../../node_modules/.bin/redocly', import.meta.url));
/** Where a request that matches no operation is checked: the responses any path may give to any method. */
const NO_ROUTE = '/__no-route__';
/** Where a method outside OpenAPI's set (BREW) is checked: its 405 is components/responses/UnknownMethodNotAllowed (D-METHODS). */
const UNKNOWN_METHOD = '/__unknown-method__';
/** The prefix of the built operations of the methods a path does not allow (`/__not-allowed__/users/{id}`, D-METHODS). */
const NOT_ALLOWED = '/__not-allowed__';
const METHOD_TOKENS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

type PathItem = Record<string, unknown> & { parameters?: unknown[]; 'x-allow'?: string[] };

/** Matches a request path to the description's path templates: the literal-most one wins (`/users/{id}` before a deeper template). */
function pathMatcher(paths: string[]): (path: string) => string | undefined {
  const compiled = paths
    .map((template) => ({ template, regexp: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`), params: (template.match(/\{/g) ?? []).length }))
    .sort((a, b) => a.params - b.params);
  return (path) => compiled.find((entry) => entry.regexp.test(path))?.template;
}

/**
 * Removes every `$id`: after bundling, every reference is a local pointer, and Prism compiles each
 * schema together with the whole bundle, so a second schema carrying an `$id` already seen makes
 * Ajv throw "schema with key or id already exists", which Prism's validator swallows (the body
 * is then not checked at all).
 */
function withoutIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIds);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(Object.entries(node).filter(([key]) => key !== '$id').map(([key, value]) => [key, withoutIds(value)]));
}

/**
 * The description bundled into one document by `redocly bundle`, plus the NO_ROUTE path of the
 * fallback answers, the UNKNOWN_METHOD path of BREW's, and under NOT_ALLOWED, for every path, an
 * operation for each method of OpenAPI's set it does not allow (D-METHODS).
 */
function bundledDescription(): { doc: Record<string, unknown>; allow: Map<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'hac-openapi-'));
  try {
    const out = join(dir, 'openapi.json');
    const run = spawnSync(REDOCLY, ['bundle', SPEC, '-o', out], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    if (run.status !== 0) throw new Error(`redocly bundle failed: ${run.stderr}`);
    const doc = withoutIds(parseYaml(readFileSync(out, 'utf8'))) as {
      paths: Record<string, PathItem>;
      components: { responses: Record<string, { headers?: Record<string, unknown> }> };
    };
    const responses = Object.fromEntries(
      [
        ['400', 'BadRequest'], ['404', 'NotFound'], ['405', 'MethodNotAllowed'], ['414', 'UriTooLong'], ['429', 'TooManyRequests'],
        ['500', 'InternalServerError'], ['503', 'ServiceUnavailable'],
      ].map(([status, name]) => [status, { $ref: `#/components/responses/${name}` }]),
    );
    // HEAD answers carry no body: every status of the fallback is the body-less HeadError there.
    const headResponses = Object.fromEntries(Object.keys(responses).map((status) => [status, { $ref: '#/components/responses/HeadError' }]));
    doc.paths[NO_ROUTE] = Object.fromEntries(
      ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].map((m) => [
        m,
        { security: [{}], responses: m === 'head' ? headResponses : responses, operationId: `no-route-${m}` },
      ]),
    );
    doc.paths[UNKNOWN_METHOD] = {
      get: {
        security: [{}],
        responses: { ...responses, '405': { $ref: '#/components/responses/UnknownMethodNotAllowed' } },
        operationId: 'unknown-method',
      },
    };
    // The answers of D-METHODS to a method a path does not allow: 405 with Allow, or what comes before
    // routing (400, 414, 429, 500, 503); 404 only where an id may be outside the table (D-IDS).
    const allow = new Map<string, string>();
    const headMethodNotAllowed = {
      description: 'MethodNotAllowed without its body (HEAD).',
      headers: doc.components.responses.MethodNotAllowed?.headers ?? {},
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      if (path.startsWith('/__')) continue;
      allow.set(path, (item['x-allow'] ?? []).join(', '));
      const notAllowed: PathItem = item.parameters ? { parameters: item.parameters } : {};
      for (const method of METHOD_TOKENS) {
        if (item[method] !== undefined) continue;
        const { '404': notFound, ...others } = method === 'head' ? headResponses : responses;
        notAllowed[method] = {
          security: [{}],
          operationId: `not-allowed-${method}-${path}`,
          responses: {
            ...others,
            ...(path.includes('{') ? { '404': notFound } : {}),
            '405': method === 'head' ? headMethodNotAllowed : { $ref: '#/components/responses/MethodNotAllowed' },
          },
        };
      }
      doc.paths[`${NOT_ALLOWED}${path}`] = notAllowed;
    }
    return { doc, allow };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function diagnosticsOf(result: Either<unknown>): Diagnostic[] {
  if (result._tag === 'Right') return [];
  return Array.isArray(result.left) ? result.left : [{ message: String(result.left.message), severity: 0 }];
}

function headerObject(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let index = 0; index < raw.length; index += 2) {
    const name = (raw[index] ?? '').toLowerCase();
    const value = raw[index + 1] ?? '';
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

/** The body as Prism's own server reads it: JSON for a JSON media type, else text; undefined when empty. */
function bodyOf(bytes: Buffer, contentType: string | undefined): unknown {
  if (bytes.length === 0) return undefined;
  const text = bytes.toString('utf8');
  if (contentType !== undefined && /^application\/([\w.-]+\+)?json\b/i.test(contentType)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts the proxy on 127.0.0.1 (port 0) in front of `upstream` (`http://host:port`). */
export async function startValidatingProxy(upstream: string): Promise<ValidatingProxy> {
  const { doc, allow } = bundledDescription();
  const operations = await getHttpOperationsFromSpec(doc);
  const fallback = new Map(operations.filter((op) => op.path === NO_ROUTE).map((op) => [op.method, op]));
  const unknownMethod = operations.find((op) => op.path === UNKNOWN_METHOD) as Operation;
  const notAllowedResources = operations.filter((op) => op.path.startsWith(`${NOT_ALLOWED}/`));
  const resources = operations.filter((op) => !op.path.startsWith('/__'));
  const templateOf = pathMatcher([...allow.keys()]);
  const target = new URL(upstream);
  const report: ProxyReport = {
    requests: 0,
    requestViolations: [],
    responseViolations: [],
    unmatched: 0,
    notAllowed: 0,
    allowChecked: 0,
    relayed: 0,
  };

  function check(method: string, rawTarget: string, reqHeaders: string[], reqBody: Buffer, status: number, resHeaders: string[], resBody: Buffer): void {
    report.requests += 1;
    const url = new URL(rawTarget, 'http://proxy.invalid');
    const query: Record<string, string | string[]> = {};
    for (const key of new Set(url.searchParams.keys())) {
      const values = url.searchParams.getAll(key);
      query[key] = values.length === 1 ? (values[0] ?? '') : values;
    }
    const requestHeaders = headerObject(reqHeaders);
    const input: PrismRequest = {
      method: method.toLowerCase(),
      url: { path: url.pathname, query },
      headers: requestHeaders,
      body: bodyOf(reqBody, requestHeaders['content-type']),
    };
    const responseHeaders = headerObject(resHeaders);
    const output: PrismResponse = {
      statusCode: status,
      headers: responseHeaders,
      body: method === 'HEAD' ? undefined : bodyOf(resBody, responseHeaders['content-type']),
    };
    const add = (side: Violation['side'], diagnostics: Diagnostic[]) => {
      for (const d of diagnostics) {
        const where = d.path && d.path.length > 0 ? `${d.path.join('.')}: ` : '';
        (side === 'request' ? report.requestViolations : report.responseViolations).push({
          side,
          method,
          target: rawTarget.slice(0, 200),
          status,
          message: `${where}${d.message}`,
        });
      }
    };
    const routed = route({ resources, input });
    let resource: Operation;
    if (routed._tag === 'Right') {
      resource = routed.right;
      add('request', [
        ...diagnosticsOf(validator.validateSecurity({ resource, element: input })),
        ...diagnosticsOf(validator.validateInput({ resource, element: input })),
      ]);
    } else {
      report.unmatched += 1;
      add('request', diagnosticsOf(routed));
      const notAllowed = METHOD_TOKENS.has(input.method)
        ? route({ resources: notAllowedResources, input: { ...input, url: { ...input.url, path: `${NOT_ALLOWED}${input.url.path}` } } })
        : undefined;
      if (notAllowed?._tag === 'Right') {
        // A known path, a method it does not allow (D-METHODS): MethodNotAllowed, not the any-path fallback.
        report.notAllowed += 1;
        resource = notAllowed.right;
      } else if (METHOD_TOKENS.has(input.method)) resource = fallback.get(input.method) ?? (fallback.get('get') as Operation);
      else {
        resource = unknownMethod;
        input.method = 'get';
      }
    }
    add('response', diagnosticsOf(validator.validateOutput({ resource, element: output })));
    // METHOD-ALLOW-HEADER: a 405 names exactly the path's methods, which the path item lists as x-allow (D-METHODS).
    const template = status === 405 ? templateOf(url.pathname) : undefined;
    if (template !== undefined && responseHeaders.allow !== undefined) {
      report.allowChecked += 1;
      const expected = allow.get(template) ?? '';
      if (responseHeaders.allow !== expected) {
        add('response', [{ message: `header.allow: Allow "${responseHeaders.allow}" is not the x-allow of ${template} ("${expected}")`, severity: 0 }]);
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const rawTarget = req.url ?? '/';
    const reqBody = await readAll(req);
    const upstreamReply = await new Promise<IncomingMessage>((resolve, reject) => {
      const forward = httpRequest({ host: target.hostname, port: target.port, method, path: rawTarget, headers: req.rawHeaders, setHost: false }, resolve);
      forward.on('error', reject);
      forward.end(reqBody);
    });
    const resBody = await readAll(upstreamReply);
    const status = upstreamReply.statusCode ?? 502;
    check(method, rawTarget, req.rawHeaders, reqBody, status, upstreamReply.rawHeaders, resBody);
    res.writeHead(status, upstreamReply.statusMessage, upstreamReply.rawHeaders);
    res.end(resBody);
  }

  /**
   * What Node's parser refuses never becomes a request here, so its bytes go to the upstream as they
   * came and its answer comes back as it went; the answer is parsed and checked against the
   * responses any path may give (the method is not one of OpenAPI's).
   */
  function relay(client: Socket, bytes: Buffer, method: string, rawTarget: string): void {
    report.relayed += 1;
    const chunks: Buffer[] = [];
    const upstreamSocket = connect(Number(target.port), target.hostname, () => upstreamSocket.end(bytes));
    upstreamSocket.on('data', (chunk: Buffer) => chunks.push(chunk));
    upstreamSocket.on('error', () => client.destroy());
    upstreamSocket.on('close', () => {
      const answer = Buffer.concat(chunks);
      const headEnd = answer.indexOf('\r\n\r\n');
      const lines = answer.subarray(0, Math.max(0, headEnd)).toString('latin1').split('\r\n');
      const status = Number(lines[0]?.split(' ')[1] ?? 0);
      const rawHeaders = lines.slice(1).flatMap((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon), line.slice(colon + 1).trim()];
      });
      check(method, rawTarget, [], Buffer.alloc(0), status, rawHeaders, headEnd < 0 ? Buffer.alloc(0) : answer.subarray(headEnd + 4));
      if (client.writable) client.end(answer);
    });
  }

  const server: Server = createServer({ requireHostHeader: false }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      report.responseViolations.push({ side: 'response', method: req.method ?? '', target: req.url ?? '', status: 502, message: `proxy: ${String(error)}` });
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  server.on('clientError', (error: Error & { rawPacket?: Buffer }, socket: Socket) => {
    const bytes = error.rawPacket;
    if (!bytes || bytes.length === 0) return socket.destroy();
    const [method = '', rawTarget = '/'] = bytes.subarray(0, Math.min(bytes.length, 8192)).toString('latin1').split(' ');
    relay(socket, bytes, method, rawTarget);
  });
  server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const lines = [`${req.method ?? 'CONNECT'} ${req.url ?? ''} HTTP/${req.httpVersion}`];
    for (let index = 0; index < req.rawHeaders.length; index += 2) lines.push(`${req.rawHeaders[index] ?? ''}: ${req.rawHeaders[index + 1] ?? ''}`);
    relay(socket, Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]), req.method ?? 'CONNECT', req.url ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    report: () => report,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
