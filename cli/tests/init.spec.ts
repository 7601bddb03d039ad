/**
 * `http-api-conformance init`: the profile drafted from an OpenAPI document (collections, methods,
 * bodies, invalid bodies, protected endpoint, idempotent POST, features), the values asked on a
 * terminal, the TODO markers `run` refuses, and --force. The installed-package flow (init, then run
 * to exit 0 on spec/openapi.yaml and on the widgets document) is in package-install.spec.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readResults } from '../../spec/results.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test, expect } from '@playwright/test';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { start as startWidgets } from '../../fixtures/widgets-api/server.ts';
import { askMissing } from '../init/answers.ts';
import { checkedBody, invalidBody, validBody } from '../../conformance/openapi/bodies.ts';
import { schemaValidator } from '../../conformance/openapi/schema-validator.ts';
import { draftProfile, serverUrlsOf } from '../init/draft.ts';
import { loadOpenApi, OpenApiError } from '../../conformance/openapi/document.ts';
import { getValidator } from '../../spec/schemas.ts';
import { profileProblems, readProfile, todoMarkers } from '../../conformance/target/profile.ts';
import { openApiRef } from '../init/command.ts';
import { compiledCli, PACKAGE_ROOT, runNode, tempOut } from '../../conformance/tests/support/subprocess.ts';

const SPEC_OPENAPI = join(PACKAGE_ROOT, 'spec', 'openapi.yaml');
const WIDGETS_OPENAPI = join(PACKAGE_ROOT, 'fixtures', 'widgets-api', 'openapi.yaml');

test('the widgets document gives one collection with its exact methods, bodies, the protected endpoint and the idempotent POST', async () => {
  const draft = draftProfile(await loadOpenApi(WIDGETS_OPENAPI), 'widgets');
  expect(draft.collections).toEqual([
    {
      name: 'widgets',
      path: '/widgets',
      itemPath: '/widgets/{id}',
      methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
      itemMethods: ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'],
      auth: { read: true, write: true },
      create: { name: 'widget', color: 'blue', weightGrams: 120 },
      invalid: { body: { name: '', color: 12345, unexpectedMember: 1 }, fields: ['name', 'color', 'unexpectedMember'] },
      replace: { name: 'renamed', color: 'green' },
    },
  ]);
  expect(draft.protected).toEqual({ method: 'GET', path: '/me' });
  expect(draft.idempotency?.path).toBe('/widgets');
  expect(draft.idempotency?.otherBody).not.toEqual(draft.idempotency?.body);
  // One collection: its POST is the idempotent one, so `everyPost` says nothing more.
  expect(draft.idempotency?.everyPost).toBeUndefined();
  expect(draft.limitedCandidate).toMatchObject({ method: 'POST', path: '/widgets' });
  expect(draft.features).toEqual({ exampleApi: false, hypermedia: false });
  expect(draft.notes.join('\n')).toContain('features.exampleApi is false');
});

test('spec/openapi.yaml gives the example API: every top-level collection, valid sampled bodies, {{unique}} in the email, hypermedia', async () => {
  const draft = draftProfile(await loadOpenApi(SPEC_OPENAPI), 'spec/openapi.yaml');
  expect(draft.collections.map((c) => c.path)).toEqual(expect.arrayContaining(['/users', '/orders', '/payments', '/transfers', '/authors']));
  expect(draft.features).toEqual({ exampleApi: true, hypermedia: true });
  expect(draft.protected).toEqual({ method: 'GET', path: '/account' });
  // Every POST of the example API declares Idempotency-Key (D-IDEMPOTENCY): the state model may key them all.
  expect(draft.idempotency?.everyPost).toBe(true);
  // Its sort parameters' enums hold `-id` (D-QUERY) and its ids are integers: the state model reads long listings newest first.
  expect(Object.fromEntries(draft.collections.map((c) => [c.path, c.newestFirst]))).toMatchObject({
    '/users': 'sort=-id',
    '/orders': 'sort=-id',
    '/payments': 'sort=-id',
    '/authors': 'sort=-id',
  });
  const users = draft.collections.find((c) => c.path === '/users');
  expect(users?.auth).toEqual({ read: false, write: true });
  // Exactly the methods that may succeed: an operation documented only as a 405 is not one.
  expect(users?.methods).toEqual(['GET', 'HEAD', 'POST', 'OPTIONS']);
  expect(users?.itemMethods).toEqual(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
  expect(String(users?.create?.email)).toMatch(/-\{\{unique\}\}@/);
  expect(users?.invalid?.fields).toEqual(['name', 'email', 'unexpectedMember']);
  expect(draft.collections.find((c) => c.path === '/transfers')?.create).toBeUndefined();
  expect(draft.notes.join('\n')).toContain('/posts/{id}/comments');
  // Every create body is valid against the project's own request schema once {{unique}} is filled.
  for (const [path, schema] of [
    ['/users', 'user-request'], ['/orders', 'order-request'], ['/payments', 'payment-request'], ['/authors', 'author-request'],
  ] as const) {
    const body = JSON.parse(
      JSON.stringify(draft.collections.find((c) => c.path === path)?.create)
        .split('{{unique}}')
        .join('x1'),
    ) as unknown;
    const validate = getValidator(schema);
    expect(validate(body), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
    expect(getValidator(schema)(draft.collections.find((c) => c.path === path)?.invalid?.body)).toBe(false);
  }
});

test('{{unique}} goes where a value must differ per request, and each invalid value breaks its own constraint', () => {
  const schema = {
    type: 'object',
    additionalProperties: false,
    required: ['email', 'homepage', 'handle', 'age', 'price', 'active'],
    properties: {
      email: { type: 'string', format: 'email' },
      homepage: { type: 'string', format: 'uri' },
      handle: { type: 'string', 'x-unique': true, minLength: 3 },
      age: { type: 'integer', minimum: 0 },
      price: { type: 'number' },
      active: { type: 'boolean' },
    },
  };
  const body = validBody({ schema });
  expect(body?.email).toMatch(/^.+-\{\{unique\}\}@.+$/);
  expect(body?.homepage).toMatch(/\/\{\{unique\}\}$/);
  expect(body?.handle).toContain('{{unique}}');
  expect(invalidBody(schema)).toEqual({
    body: { email: 'not-an-email', homepage: 'not a uri', handle: '', age: -1, price: 'not-a-number', active: 'not-a-boolean', unexpectedMember: 1 },
    fields: ['email', 'homepage', 'handle', 'age', 'price', 'active', 'unexpectedMember'],
  });
  expect(validBody({ schema, example: { email: 'a@b.example', homepage: 'https://b.example', handle: 'abc', age: 1, price: 2, active: true } })?.email).toBe(
    'a-{{unique}}@b.example',
  );
});

test('on a terminal the missing values are asked, an empty answer leaves a value out', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  input.end(['tok-valid', 'tok-other', 'tok-reader', '', 'tok-rl-1 tok-rl-2', ''].join('\n') + '\n');
  const answers = await askMissing({ tokens: [], rateLimitTokens: [] }, { input, output }, 'POST /widgets');
  expect(answers).toEqual({ tokens: ['tok-valid', 'tok-other'], limitedToken: 'tok-reader', rateLimitTokens: ['tok-rl-1', 'tok-rl-2'] });
  expect(shown).toContain('tokens.valid');
  expect(shown).toContain('[POST /widgets]');
});

test('without tokens init writes TODO markers, and run refuses the profile with exit 2 naming each field', async () => {
  const dir = tempOut('init-todo');
  const out = join(dir, 'profile.json');
  const init = await runNode([compiledCli(), 'init', '--openapi', WIDGETS_OPENAPI, '--out', out]);
  expect(init.code, init.stderr).toBe(0);
  expect(init.stdout).toContain('/tokens/valid: TODO');
  expect(init.stdout).toContain(`next: npx http-api-conformance run --profile ${out}`);
  const run = await runNode([compiledCli(), 'run', '--profile', out, '--out', join(dir, 'results')]);
  expect(run.code).toBe(2);
  expect(readResults(join(dir, 'results', 'results.json')).exitCode).toBe(2);
  expect(run.stderr).toContain('/tokens/valid: TODO');
  expect(run.stderr).toContain('/tokens/other: TODO');

  const before = readFileSync(out, 'utf8');
  const again = await runNode([compiledCli(), 'init', '--openapi', WIDGETS_OPENAPI, '--out', out, '--token', 'x']);
  expect(again.code).toBe(2);
  expect(again.stderr).toContain('give --force to replace it');
  expect(readFileSync(out, 'utf8')).toBe(before);
  const forced = await runNode([compiledCli(), 'init', '--openapi', WIDGETS_OPENAPI, '--out', out, '--token', 'tok-a', '--force']);
  expect(forced.code, forced.stderr).toBe(0);
  expect((JSON.parse(readFileSync(out, 'utf8')) as { tokens: { valid: string } }).tokens.valid).toBe('tok-a');
});

test('the document is read from a URL too', async () => {
  const text = readFileSync(WIDGETS_OPENAPI, 'utf8');
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/yaml' }).end(text));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const draft = draftProfile(await loadOpenApi(`http://127.0.0.1:${port}/openapi.yaml`), 'url');
    expect(draft.collections.map((c) => c.path)).toEqual(['/widgets']);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('init --target asks the server about HEAD and OPTIONS the document omits, and the smoke check names a method it does not allow', async () => {
  const dir = tempOut('init-smoke');
  const doc = parseYaml(readFileSync(WIDGETS_OPENAPI, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  delete doc.paths['/widgets']?.head;
  delete doc.paths['/widgets']?.options;
  // A method the document lists but the server does not serve.
  (doc.paths['/widgets'] as Record<string, unknown>).patch = { responses: { '200': { description: 'ok' } } };
  const openapi = join(dir, 'openapi.yaml');
  writeFileSync(openapi, stringifyYaml(doc));
  const widgets = await startWidgets(0);
  try {
    const out = join(dir, 'p.json');
    const init = await runNode([
      compiledCli(), 'init', '--openapi', openapi, '--target', widgets.url,
      '--token', 'widgets-admin-ann', '--limited-token', 'widgets-viewer-cy', '--out', out,
    ]);
    expect(init.code, init.stdout).toBe(1);
    // D-METHODS-IMPLICIT: HEAD and OPTIONS are asked of the server, found answered, listed, and the finding written.
    expect(init.stdout).toContain('HEAD and OPTIONS asked of the target');
    expect(init.stdout).toContain('HEAD answered (listed), OPTIONS answered (listed)');
    const profile = JSON.parse(readFileSync(out, 'utf8')) as { description: string; openapi?: string; collections: { methods: string[] }[] };
    expect(profile.openapi, 'the document init read, relative to the profile (D-SCHEMA-INPUTS)').toBe('openapi.yaml');
    expect(profile.collections[0]?.methods).toEqual(['GET', 'HEAD', 'POST', 'PATCH', 'OPTIONS']);
    expect(profile.description).toContain('HEAD and OPTIONS asked of the target');
    expect(init.stdout).toContain(
      "FAIL methods of /widgets: the target's Allow is GET, HEAD, POST, OPTIONS but the profile lists GET, HEAD, POST, PATCH, OPTIONS",
    );
    expect(init.stdout).toContain('ok   tokens.limited: POST /widgets -> 403');
    expect(init.stdout).toContain('ok   collections widgets create: POST /widgets -> 201');
  } finally {
    await widgets.close();
  }
});

test('the profile names the document init read relative to itself, and reading the profile makes that path absolute', () => {
  // D-SCHEMA-INPUTS: the run hands its suite a copy of the profile elsewhere, so the path is resolved where the profile lies.
  expect(openApiRef('api/openapi.yaml', '/home/me/project', '/home/me/project/conformance/my-api.json')).toBe('../api/openapi.yaml');
  expect(openApiRef('https://api.example.com/openapi.json', '/home/me', '/home/me/p.json')).toBe('https://api.example.com/openapi.json');
  const dir = tempOut('init-openapi-ref');
  const file = join(dir, 'p.json');
  writeFileSync(file, JSON.stringify({ openapi: '../api/openapi.yaml' }));
  expect(readProfile(file).openapi).toBe(join(dir, '..', 'api', 'openapi.yaml'));
  writeFileSync(file, JSON.stringify({ openapi: 'https://api.example.com/openapi.json' }));
  expect(readProfile(file).openapi).toBe('https://api.example.com/openapi.json');
});

test('only values that start with "TODO:" are markers, named by their JSON pointer', () => {
  expect(todoMarkers({ tokens: { valid: 'TODO: a token' }, collections: [{ create: { name: 'TODO app' } }] })).toEqual(['/tokens/valid: TODO: a token']);
});

test('a document that is not OpenAPI is refused with exit 2 and the reason', async () => {
  const dir = tempOut('init-bad');
  const bad = join(dir, 'not-openapi.yaml');
  writeFileSync(bad, 'hello: world\n');
  await expect(loadOpenApi(bad)).rejects.toBeInstanceOf(OpenApiError);
  const init = await runNode([compiledCli(), 'init', '--openapi', bad, '--out', join(dir, 'p.json')]);
  expect(init.code).toBe(2);
  expect(init.stderr).toContain('not-openapi.yaml');
  const missing = await runNode([compiledCli(), 'init', '--out', join(dir, 'p.json')]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('--openapi FILE|URL is required');
});

test('bodies without examples: required members sampled, readOnly members left out of create and invalid bodies, {} never a create body', () => {
  const schema = {
    type: 'object',
    required: ['id', 'name'],
    properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string', minLength: 1 }, tag: { type: 'string' } },
  };
  const body = validBody({ schema });
  expect(body).toHaveProperty('name');
  expect(body).not.toHaveProperty('id');
  expect(invalidBody(schema)?.fields).toEqual(['name']);
  // Nothing required: the writable members are sampled rather than sending {}.
  const optional = validBody({ schema: { type: 'object', properties: { id: { type: 'string', readOnly: true }, title: { type: 'string' } } } });
  expect(optional).toEqual({ title: expect.any(String) });
  // A documented example that shows the server's id: the id is not sent.
  expect(validBody({ schema, example: { id: 7, name: 'rex' } })).toEqual({ name: 'rex' });
});

test("bodies checked against the document's schema: an example that breaks it, or member examples that break their types, give way to a sample", () => {
  const doc = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} } as unknown as Parameters<typeof schemaValidator>[0];
  const compile = schemaValidator(doc);
  const check = (media: Parameters<typeof checkedBody>[0]): ReturnType<typeof checkedBody> => {
    const invalidFields = compile(media.schema);
    if (typeof invalidFields === 'string') throw new Error(invalidFields);
    return checkedBody(media, invalidFields);
  };
  const uuidSchema = {
    type: 'object',
    required: ['id', 'owner'],
    properties: { id: { type: 'string', readOnly: true }, owner: { type: 'string', format: 'uuid' }, name: { type: 'string' } },
  };
  // The document's example breaks its own format: a sample is written, and the note names the member.
  const replaced = check({ schema: uuidSchema, example: { owner: 'not-a-uuid', name: 'x' } });
  expect(replaced?.body?.owner).toMatch(/^[0-9a-f-]{36}$/);
  expect(replaced?.note).toContain("the document's example breaks its schema (owner)");
  // The required readOnly id is the server's: a body without it passes, with no note.
  const owner = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
  expect(check({ schema: uuidSchema, example: { owner } })).toEqual({ body: { owner } });
  // FusionAuth's ZonedDateTime: an integer whose example is a string; the sampler takes the example first.
  const instant = { type: 'integer', example: '1659380719000' };
  const key = { type: 'object', required: ['at'], properties: { at: instant } };
  const enveloped = check({ schema: { type: 'object', required: ['key'], properties: { key } } });
  expect(enveloped?.body).toEqual({ key: { at: expect.any(Number) } });
  expect(enveloped?.note).toContain("the examples of the schema's members break it (key.at)");
  // A string example leaves no body: a sample of the object schema is written instead.
  const named = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
  expect(check({ schema: named, example: 'name=rex' })?.body).toEqual({ name: expect.any(String) });
  // Nothing passes: no body (the API would refuse it and stop the run), with a note saying what to do.
  const impossible = check({ schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 5, maximum: 1 } } } });
  expect(impossible).toEqual({ note: expect.stringContaining('no sample passes it: no body written') });
});

test('server URLs with variables are written with their defaults; one with a variable without a default is not written', () => {
  const notes: string[] = [];
  const urls = serverUrlsOf(
    {
      servers: [
        { url: '{protocol}://{hostname}{basePath}', variables: { protocol: { enum: ['http', 'https'], default: 'https' }, hostname: { default: 'localhost:8008' }, basePath: { default: '/_matrix/' } } },
        { url: 'https://{tenant}.example.com', variables: {} },
        { url: '/relative' },
        { url: 'https://api.example.com/' },
      ],
    },
    notes,
  );
  expect(urls).toEqual(['https://localhost:8008/_matrix', 'https://api.example.com']);
  expect(notes).toEqual([
    'server {protocol}://{hostname}{basePath}: written as https://localhost:8008/_matrix/ (the variables\' defaults)',
    'server https://{tenant}.example.com: no default for {tenant}, not written; give --target',
  ]);
});

test('a profile whose base URL keeps a server variable is refused, naming the variable', () => {
  const profile = { name: 'p', tokens: { valid: 't' }, protected: { method: 'GET', path: '/x' }, collections: [{ name: 'c', path: '/c', methods: ['GET'] }] };
  expect(profileProblems({ ...profile, baseUrls: ['https://{defaultHost}/v1'] })).toEqual([
    '/baseUrls/0: https://{defaultHost}/v1 holds the OpenAPI server variable {defaultHost}: give the URL with its value (or --target URL)',
  ]);
  expect(profileProblems({ ...profile, baseUrls: ['https://api.example.com/v1'] })).toEqual([]);
});

test("a document that says 3.0 but is valid only as 3.1 (FastAPI's exclusiveMinimum: 0) is read as 3.1 with a note; one invalid as both is not", async () => {
  const dir = tempOut('openapi-31-keywords');
  const fastapi = {
    openapi: '3.0.2',
    info: { title: 'FastAPI', version: '0.1.0' },
    paths: {
      '/items/{id}': {
        get: {
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', exclusiveMinimum: 0 } }],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  };
  const file = join(dir, 'fastapi.json');
  writeFileSync(file, JSON.stringify(fastapi));
  const notes: string[] = [];
  const doc = await loadOpenApi(file, PACKAGE_ROOT, { onNote: (n) => notes.push(n) });
  expect(doc.paths['/items/{id}']?.get?.parameters?.[0]?.schema).toEqual({ type: 'integer', exclusiveMinimum: 0 });
  expect(notes).toEqual([expect.stringContaining('says openapi 3.0.2 but is valid only as OpenAPI 3.1')]);
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, JSON.stringify({ ...fastapi, paths: { '/x': { get: { responses: { '200': { description: 1 } } } } } }));
  await expect(loadOpenApi(broken, PACKAGE_ROOT)).rejects.toThrow(/is not a valid OpenAPI document/);
});

test('a multi-file document is read as YAML 1.2 and as 3.1 with its references; a syntax error names the file and line', async () => {
  const dir = tempOut('openapi-multi-file');
  mkdirSync(join(dir, 'paths'), { recursive: true });
  // js-yaml refuses this closing brace ("deficient indentation"); YAML 1.2 and the `yaml` package read it (matrix-spec's documents).
  const item = [
    'get:',
    '  parameters: [{name: id, in: path, required: true, schema: {type: string}}]',
    '  responses:',
    "    '200':",
    '      description: ok',
    '      content:',
    '        application/json:',
    '          example: {',
    '            "a": 1',
    '          }',
    '',
  ];
  writeFileSync(join(dir, 'paths', 'item.yaml'), item.join('\n'));
  // Says 3.0 and writes 3.1's info.summary (Algolia's): read as 3.1, the reference into paths/ still resolved.
  const root = ['openapi: 3.0.2', 'info: {title: t, summary: s, version: "1"}', 'paths:', '  /things/{id}:', "    $ref: './paths/item.yaml'", ''];
  writeFileSync(join(dir, 'root.yaml'), root.join('\n'));
  const notes: string[] = [];
  const doc = await loadOpenApi(join(dir, 'root.yaml'), PACKAGE_ROOT, { onNote: (n) => notes.push(n) });
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.paths['/things/{id}']?.get?.responses?.['200']?.content?.['application/json']?.example).toEqual({ a: 1 });
  expect(notes).toEqual([expect.stringContaining('says openapi 3.0.2 but is valid only as OpenAPI 3.1')]);
  // As the suite reads it at run time (no validation): the same YAML 1.2 is read.
  const unvalidated = await loadOpenApi(join(dir, 'root.yaml'), PACKAGE_ROOT, { validate: false });
  expect(unvalidated.paths['/things/{id}']?.get?.responses?.['200']?.content?.['application/json']?.example).toEqual({ a: 1 });
  writeFileSync(join(dir, 'paths', 'item.yaml'), ['get:', '  responses: [', ''].join('\n'));
  await expect(loadOpenApi(join(dir, 'root.yaml'), PACKAGE_ROOT)).rejects.toThrow(`${join(dir, 'paths', 'item.yaml')}:3:1: `);
});
