import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import type { ParserOptions } from '@readme/openapi-parser';
import { parse as parseYaml } from 'yaml';
import { SCHEMA_ID_BASE, getValidator, schemasDir } from '../schemas.ts';
import { allowedMethods } from '../../reference-impl/route-table.ts';
import { apiRouteTable } from '../../reference-impl/routes/index.ts';

const ROUTES = apiRouteTable().routes;
import { ALICE, startTestServer } from '../../reference-impl/tests/support/harness.ts';

const openapiPath = fileURLToPath(new URL('../openapi.yaml', import.meta.url));
const decisionsPath = fileURLToPath(new URL('../decisions.md', import.meta.url));
const HTTP_METHODS = ['get', 'head', 'post', 'put', 'delete', 'options', 'patch', 'trace'] as const;

interface Operation {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; $ref?: string }[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, Response>;
}
interface Response {
  $ref?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: { $ref?: string }; example?: unknown }>;
}
/** A path item: its operations by method, plus its description and `x-allow` (D-METHODS). */
type PathItem = Partial<Record<(typeof HTTP_METHODS)[number], Operation>> & { description?: string; 'x-allow'?: string[] };
interface Document {
  openapi: string;
  info: { description: string };
  paths: Record<string, PathItem>;
  components: { responses: Record<string, Response>; securitySchemes: Record<string, { type: string; scheme: string }> };
}

/**
 * Resolves `$ref`s by the schemas' `$id` (https://http-api-conformance.dev/schemas/...) to the local
 * files, so no reference ever leaves the machine; plain file paths are read as files.
 */
function localResolver(reads: Set<string>) {
  return {
    order: 1,
    canRead: (file: { url: string }) => file.url.startsWith(SCHEMA_ID_BASE) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(file.url) || file.url.startsWith('file:'),
    read: async (file: { url: string }) => {
      const url = file.url.split('#')[0] ?? file.url;
      const path = url.startsWith(SCHEMA_ID_BASE)
        ? schemasDir + url.slice(SCHEMA_ID_BASE.length)
        : url.startsWith('file:')
          ? fileURLToPath(url)
          : decodeURIComponent(url);
      reads.add(path);
      return readFile(path);
    },
  };
}

function parserOptions(reads: Set<string>): ParserOptions {
  return { resolve: { file: localResolver(reads) } } as unknown as ParserOptions;
}

const raw = parseYaml(readFileSync(openapiPath, 'utf8')) as Document;

/** Every operation of the description: each one a method its path allows (D-METHODS). */
function operations(doc: Document): { path: string; method: string; op: Operation }[] {
  const list: { path: string; method: string; op: Operation }[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (op) list.push({ path, method, op });
    }
  }
  return list;
}

/** The methods of OpenAPI's set a path item declares, upper case, in the order of `Allow` (route-table.ts). */
function declaredMethods(item: PathItem | undefined): string[] {
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE'];
  return order.filter((m) => item?.[m.toLowerCase() as (typeof HTTP_METHODS)[number]] !== undefined);
}

/** One request with node:http (fetch refuses TRACE): its status and `Allow`. */
function send(base: string, method: string, path: string): Promise<{ status: number; allow: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers: { Authorization: `Bearer ${ALICE}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Parses the D-METHODS table of spec/decisions.md into path → allowed methods. */
function decidedMethods(): Map<string, string[]> {
  const text = readFileSync(decisionsPath, 'utf8');
  const section = text.split(/^## /m).find((s) => s.startsWith('D-METHODS'));
  if (!section) throw new Error('spec/decisions.md has no D-METHODS section');
  const table = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || !cells[1]?.startsWith('`/')) continue;
    const paths = [...(cells[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
    const methods = (cells[2] ?? '').replace(/`/g, '').split(',').map((m) => m.trim().toLowerCase());
    for (const path of paths) table.set(path, methods);
  }
  return table;
}

function resolveResponse(doc: Document, response: Response): Response {
  if (!response.$ref) return response;
  const name = response.$ref.replace('#/components/responses/', '');
  const target = doc.components.responses[name];
  if (!target) throw new Error(`unknown response ${response.$ref}`);
  return target;
}

test.describe('openapi.yaml', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    expect(raw.openapi).toBe('3.1.0');
    const result = await validate(openapiPath, parserOptions(new Set()));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.warnings).toEqual([]);
  });

  test('every $ref resolves, including those into the schema files', async () => {
    const reads = new Set<string>();
    const doc = await dereference(openapiPath, parserOptions(reads));
    expect(JSON.stringify(doc)).not.toContain('"$ref"');
    const referenced = new Set([...readFileSync(openapiPath, 'utf8').matchAll(/\.\/schemas\/([a-z-]+)\.schema\.json/g)].map((m) => m[1]));
    expect(referenced.size).toBeGreaterThan(20);
    for (const name of referenced) expect([...reads], `${name} was read`).toContain(`${schemasDir}${name}.schema.json`);
  });

  test('every path of D-METHODS has exactly the decided methods', () => {
    const decided = decidedMethods();
    expect(decided.size).toBeGreaterThanOrEqual(18);
    for (const [path, methods] of decided) {
      const item = raw.paths[path];
      expect(item, `${path} is in openapi.yaml`).toBeDefined();
      const present = HTTP_METHODS.filter((m) => item?.[m]);
      expect([...present].sort(), path).toEqual([...methods].sort());
      expect(item?.['x-allow'], `${path} x-allow`).toEqual(methods.map((m) => m.toUpperCase()));
    }
    expect(Object.keys(raw.paths).sort()).toEqual([...decided.keys()].sort());
  });

  test('declares no operation the server does not serve: the operations of each path are its route-table methods (D-METHODS)', () => {
    expect(Object.keys(raw.paths).sort()).toEqual(ROUTES.map((r) => r.pattern).sort());
    for (const route of ROUTES) {
      const item = raw.paths[route.pattern];
      expect(declaredMethods(item), route.pattern).toEqual(allowedMethods(route));
      // x-allow is the Allow the server sends, in its order.
      expect(item?.['x-allow'], `${route.pattern} x-allow`).toEqual(allowedMethods(route));
    }
    expect(readFileSync(openapiPath, 'utf8')).not.toContain('x-method-not-allowed');
  });

  test('the 405 is described without operations: info, every path item and the reusable responses (D-METHODS)', () => {
    expect(raw.info.description).toContain('components/responses/MethodNotAllowed');
    expect(raw.info.description).toContain('`x-allow`');
    for (const [path, item] of Object.entries(raw.paths)) {
      const allow = (item['x-allow'] ?? []).join(', ');
      expect(item.description, path).toContain(`Allow: ${allow} (D-METHODS)`);
      expect(item.description, path).toContain('405');
      expect(item.description, path).toContain('components/responses/MethodNotAllowed');
      for (const { op } of operations({ ...raw, paths: { [path]: item } })) expect(Object.keys(op.responses), path).not.toContain('405');
      // The OPTIONS operation's 204 says the same Allow.
      expect(item.options?.responses['204'] && (item.options.responses['204'] as { description?: string }).description, path).toContain(
        `Allow: ${allow}`,
      );
    }
    const responses = raw.components.responses;
    for (const name of ['MethodNotAllowed', 'UnknownMethodNotAllowed']) {
      expect(Object.keys(responses[name]?.headers ?? {}), name).toContain('Allow');
      expect((responses[name]?.content?.['application/problem+json']?.example as { status?: number }).status, name).toBe(405);
    }
  });

  test('the reference server answers every declared operation, and 405 with x-allow as Allow to every other method (BREW too)', async () => {
    const server = await startTestServer();
    try {
      let checked = 0;
      for (const [path, item] of Object.entries(raw.paths)) {
        const target = path.replace(/\{[A-Za-z]+\}/g, '1');
        const allow = (item['x-allow'] ?? []).join(', ');
        for (const method of [...HTTP_METHODS.map((m) => m.toUpperCase()), 'BREW']) {
          const reply = await send(server.url, method, target);
          const declared = item[method.toLowerCase() as (typeof HTTP_METHODS)[number]] !== undefined;
          if (method === 'OPTIONS') expect(reply.allow, `OPTIONS ${target}`).toBe(allow);
          if (declared) expect(reply.status, `${method} ${target} is served`).not.toBe(405);
          else {
            expect(reply.status, `${method} ${target} is not declared`).toBe(405);
            expect(reply.allow, `${method} ${target}`).toBe(allow);
          }
          checked++;
        }
      }
      expect(checked).toBe(Object.keys(raw.paths).length * 9);
    } finally {
      await server.close();
    }
  });

  test('every request body is application/json', () => {
    const withBody = operations(raw).filter(({ op }) => op.requestBody);
    expect(withBody.length).toBeGreaterThanOrEqual(8);
    for (const { path, method, op } of withBody) {
      expect(Object.keys(op.requestBody?.content ?? {}), `${method} ${path}`).toEqual(['application/json']);
    }
  });

  test('every 4xx and 5xx response is application/problem+json', () => {
    let count = 0;
    for (const { path, method, op } of operations(raw)) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^[45]/.test(status)) continue;
        const resolved = resolveResponse(raw, response);
        if (method === 'head') {
          expect(resolved.content, `HEAD ${path} ${status} has no body`).toBeUndefined();
          continue;
        }
        count++;
        expect(Object.keys(resolved.content ?? {}), `${method} ${path} ${status}`).toEqual(['application/problem+json']);
      }
    }
    expect(count).toBeGreaterThan(100);
  });

  test('every response carries the RateLimit headers and Cache-Control', () => {
    for (const { path, method, op } of operations(raw)) {
      for (const [status, response] of Object.entries(op.responses)) {
        const headers = Object.keys(resolveResponse(raw, response).headers ?? {});
        for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Cache-Control']) {
          expect(headers, `${method} ${path} ${status}`).toContain(name);
        }
      }
    }
  });

  test('error responses carry their headers: WWW-Authenticate, Allow, Retry-After', () => {
    const responses = raw.components.responses;
    expect(Object.keys(responses.Unauthorized?.headers ?? {})).toContain('WWW-Authenticate');
    expect(Object.keys(responses.Forbidden?.headers ?? {})).toContain('WWW-Authenticate');
    expect(Object.keys(responses.MethodNotAllowed?.headers ?? {})).toContain('Allow');
    expect(Object.keys(responses.TooManyRequests?.headers ?? {})).toContain('Retry-After');
    expect(Object.keys(responses.ServiceUnavailable?.headers ?? {})).toContain('Retry-After');
    for (const name of [
      'BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'MethodNotAllowed', 'Conflict', 'PayloadTooLarge', 'UnsupportedMediaType',
      'UnprocessableEntity', 'TooManyRequests', 'InternalServerError', 'ServiceUnavailable',
    ]) {
      expect(responses[name], name).toBeDefined();
    }
  });

  test('every example of a reusable response is valid against its schema', () => {
    let checked = 0;
    for (const [name, response] of Object.entries(raw.components.responses)) {
      if (name === 'HeadError') {
        expect(response.content, 'HEAD answers have no body').toBeUndefined();
        continue;
      }
      const media = response.content?.['application/problem+json'];
      const ref = media?.schema?.$ref;
      const schemaName = ref?.match(/^\.\/schemas\/([a-z-]+)\.schema\.json$/)?.[1];
      const validate = getValidator(schemaName ?? 'problem');
      expect(media?.example, `${name} has an example`).toBeDefined();
      expect(validate(media?.example), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect((media?.example as { status?: number }).status, name).toBeGreaterThanOrEqual(400);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(12);
  });

  test('every 422 is the validation problem and every 400 the bad-request problem: one $ref each, errors[] checkable', () => {
    const responses = raw.components.responses;
    expect(responses.UnprocessableEntity?.content?.['application/problem+json']?.schema).toEqual({ $ref: './schemas/validation-problem.schema.json' });
    for (const name of ['BadRequest', 'InvalidQuery']) {
      expect(responses[name]?.content?.['application/problem+json']?.schema, name).toEqual({ $ref: './schemas/bad-request-problem.schema.json' });
    }
    expect(readFileSync(openapiPath, 'utf8')).not.toMatch(/^\s*(anyOf|oneOf):/m);
  });

  test('every operation lists 400, 414, 429, 500 and 503, and 404 when its path has an id', () => {
    let checked = 0;
    for (const { path, method, op } of operations(raw)) {
      const statuses = Object.keys(op.responses);
      expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['400', '414', '429', '500', '503']));
      if (path.includes('{')) expect(statuses, `${method} ${path}`).toContain('404');
      if (method !== 'head') expect(statuses, `${method} ${path}`).toContain('401');
      checked++;
    }
    // One per method the route table allows (63): no operation is declared for a 405 (D-METHODS).
    expect(checked).toBe(ROUTES.reduce((sum, route) => sum + allowedMethods(route).length, 0));
  });

  test('GET /account documents the 404 of a caller whose user was deleted', () => {
    const op = raw.paths['/account']?.get as Operation & { description?: string };
    expect(Object.keys(op.responses)).toContain('404');
    expect(op.description).toContain('404');
  });

  test('every POST accepts Idempotency-Key and creates answer 201 with Location', () => {
    for (const { path, method, op } of operations(raw)) {
      if (method !== 'post') continue;
      const refs = (op.parameters ?? []).map((p) => p.$ref);
      expect(refs, `POST ${path}`).toContain('#/components/parameters/IdempotencyKey');
      const isAction = /\/(cancel|payment)$/.test(path);
      const success = isAction ? op.responses['200'] : op.responses['201'];
      expect(success, `POST ${path} success status`).toBeDefined();
      if (!isAction) expect(Object.keys(success?.headers ?? {}), `POST ${path}`).toContain('Location');
      expect(Object.keys(success?.headers ?? {}), `POST ${path}`).toContain('Idempotent-Replayed');
    }
  });

  test('every collection GET pages with limit 1-100 (default 20), offset and sort (D-QUERY)', async () => {
    const doc = (await dereference(openapiPath, parserOptions(new Set()))) as unknown as Document;
    const lists = operations(doc).filter(
      ({ method, op }) =>
        method === 'get' && String(Object.keys(op.responses['200']?.content ?? {})) === 'application/json' && (op.parameters ?? []).length > 0,
    );
    expect(lists.length).toBe(8);
    for (const { path, op } of lists) {
      const params = new Map((op.parameters ?? []).map((p) => [p.name, p as unknown as { in: string; schema: Record<string, unknown> }]));
      expect(params.get('limit')?.schema, path).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
      expect(params.get('offset')?.schema, path).toMatchObject({ type: 'integer', minimum: 0, default: 0 });
      expect(params.get('sort')?.schema.enum, path).toEqual(expect.arrayContaining(['id', '-id']));
      for (const p of params.values()) expect(p.in, path).toBe('query');
    }
  });

  test('deletes answer 204, options answer 204 with Allow', () => {
    for (const { path, method, op } of operations(raw)) {
      if (method === 'delete') expect(Object.keys(op.responses), path).toContain('204');
      if (method === 'options') expect(Object.keys(op.responses['204']?.headers ?? {}), path).toContain('Allow');
    }
  });

  test('public reads accept no token; everything else requires the bearer scheme (D-AUTH)', () => {
    expect(raw.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const publicPath = /^\/(users(\/\{id\})?|authors(\/\{id\})?|posts(\/\{id\}(\/comments(\/\{commentId\})?)?)?)$/;
    for (const { path, method, op } of operations(raw)) {
      // OPTIONS needs no token; a token that is sent is still checked (D-AUTH, D-METHODS).
      const isPublic = (publicPath.test(path) && ['get', 'head'].includes(method)) || method === 'options';
      const security = op.security ?? [];
      expect(security.some((s) => 'bearer' in s), `${method} ${path} names bearer`).toBe(true);
      expect(security.some((s) => Object.keys(s).length === 0), `${method} ${path} public=${isPublic}`).toBe(isPublic);
    }
  });
});
