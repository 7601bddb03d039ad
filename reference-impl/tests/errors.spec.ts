/**
 * The one error envelope (spec/decisions.md D-ERRORS, D-METHODS, D-BODY, D-STORE-DOWN): every
 * error of the reference server, including the framework's, is an application/problem+json
 * document whose status equals the HTTP status and whose instance is the request path.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { expect, test } from '@playwright/test';
import { INJECTED_SECRET } from '../middleware/fault-injection.ts';
import { allowedMethods } from '../route-table.ts';
import { apiRouteTable } from '../routes/index.ts';

const ROUTES = apiRouteTable().routes;
import { createMemoryStores } from '../stores/memory/index.ts';
import { sequenced } from '../stores/sequences.ts';
import { StoreUnavailableError, type Stores } from '../stores/types.ts';
import { ALICE, type Reply, type TestServer, client, rawExchange, startTestServer } from './support/harness.ts';

let server: TestServer;
test.beforeAll(async () => {
  server = await startTestServer({ faultInjection: true, bodyLimitBytes: 1024 });
});
test.afterAll(async () => {
  await server.close();
});

function expectProblem(reply: Reply, status: number, instance: string): void {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toBe('application/problem+json');
  expect(reply.json).toMatchObject({ status, instance });
  expect(typeof reply.json.type).toBe('string');
  expect(typeof reply.json.title).toBe('string');
  expect(typeof reply.json.detail).toBe('string');
  expect(reply.headers.get('cache-control')).toBe('no-store');
}

function concrete(pattern: string): string {
  return pattern.replace(/\{[A-Za-z]+\}/g, '1');
}

/** Sends a request with any method token (fetch refuses some) and reads the answer. */
function rawRequest(base: string, method: string, path: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (typeof value === 'string') headers.set(name, value);
        }
        resolve({ status: res.statusCode ?? 0, headers, text, json: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

test('an unknown path is a 404 problem for every method', async () => {
  const api = client(server.url);
  for (const method of ['GET', 'POST', 'DELETE']) {
    expectProblem(await api.send(method, '/nowhere'), 404, '/nowhere');
  }
  expectProblem(await api.get('/users/'), 404, '/users/');
  expectProblem(await api.get('/Users'), 404, '/Users');
  for (const id of ['abc', '-1', '007', '1.5', '0']) expectProblem(await api.get(`/users/${id}`), 404, `/users/${id}`);
});

test('an unknown id is a 404 problem', async () => {
  expectProblem(await client(server.url).get('/users/999999'), 404, '/users/999999');
});

test('every other method on every path is 405 with exactly the allowed methods in Allow', async () => {
  const api = client(server.url);
  const candidates = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
  for (const route of ROUTES) {
    const path = concrete(route.pattern);
    const allowed = allowedMethods(route);
    for (const method of candidates.filter((name) => !allowed.includes(name))) {
      const reply = await api.send(method, path, { token: ALICE });
      if (method === 'HEAD') expect(reply.status).toBe(405);
      else expectProblem(reply, 405, path);
      expect(reply.headers.get('allow'), `${method} ${path}`).toBe(allowed.join(', '));
    }
    const options = await api.send('OPTIONS', path);
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe(allowed.join(', '));
  }
});

test('an unknown method such as BREW is 405 with Allow on a known path and 404 elsewhere', async () => {
  // Node's HTTP parser refuses the method before Koa runs: client-error.ts answers it from the route table.
  for (const route of ROUTES) {
    const path = concrete(route.pattern);
    const reply = await rawRequest(server.url, 'BREW', path);
    expectProblem(reply, 405, path);
    expect(reply.headers.get('allow')).toBe(allowedMethods(route).join(', '));
  }
  expectProblem(await rawRequest(server.url, 'BREW', '/nowhere'), 404, '/nowhere');
});

test('malformed JSON is a 400 problem', async () => {
  const reply = await client(server.url).post('/payments', {
    token: ALICE,
    raw: '{"amount": 10,',
    headers: { 'Content-Type': 'application/json' },
  });
  expectProblem(reply, 400, '/payments');
  expect(reply.json.type).toBe('about:blank');
});

test('a body over the limit is a 413 problem', async () => {
  const reply = await client(server.url).post('/users', {
    token: ALICE,
    body: { name: 'x'.repeat(2000), email: 'big@example.com' },
  });
  expectProblem(reply, 413, '/users');
});

test('a body over the limit sent in chunks without Content-Length is a 413 problem', async () => {
  const chunks = ['{"name":"', 'y'.repeat(800), 'y'.repeat(800), '","email":"c@example.com"}'];
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  const response = await fetch(`${server.url}/users`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ALICE}`, 'Content-Type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  expect(response.status).toBe(413);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(((await response.json()) as { status: number }).status).toBe(413);
});

test('a 5 MB chunked body written whole before reading gets the 413, not a reset, and the connection stays usable (RFC 9112 §9.6)', async () => {
  const { hostname, port } = new URL(server.url);
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const head = [
    'POST /users HTTP/1.1',
    `Host: ${hostname}:${port}`,
    `Authorization: Bearer ${ALICE}`,
    'Content-Type: application/json',
    'Transfer-Encoding: chunked',
    '',
    '',
  ].join('\r\n');
  const chunks = Array.from({ length: 80 }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
  const request = Buffer.concat([Buffer.from(head), ...chunks, Buffer.from('0\r\n\r\n')]);
  const next = `GET /users/1 HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`;
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    const text = (): string => Buffer.concat(received).toString('latin1');
    socket.on('data', (data: Buffer) => {
      received.push(data);
      // The 413, then the answer to the next request on the same connection.
      if (/HTTP\/1\.1 200 /.test(text())) socket.destroy();
    });
    socket.on('error', (error) => reject(error));
    socket.on('close', () => resolve(text()));
    // The whole request first, then the read, as simple clients do: nothing is read until it is written.
    socket.pause();
    socket.write(request);
    socket.write(next, () => socket.resume());
    setTimeout(() => socket.destroy(new Error(`no answer within 10 s: ${text().slice(0, 200)}`)), 10_000).unref();
  });
  expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
  expect(answer).toContain('application/problem+json');
  expect(answer).toMatch(/HTTP\/1\.1 200 OK/);
});

test('a body with another or no media type is a 415 problem; +json is accepted', async () => {
  const api = client(server.url);
  const body = JSON.stringify({ amount: 100, currency: 'eur' });
  expectProblem(await api.post('/payments', { token: ALICE, raw: body, headers: { 'Content-Type': 'text/plain' } }), 415, '/payments');
  expectProblem(await api.post('/payments', { token: ALICE, raw: body, headers: { 'Content-Type': '' } }), 415, '/payments');
  const accepted = await api.post('/payments', {
    token: ALICE,
    raw: body,
    headers: { 'Content-Type': 'application/vnd.shop+json; charset=utf-8' },
  });
  expect(accepted.status).toBe(201);
});

test('a JSON value that is not an object is a 422 naming (body)', async () => {
  for (const raw of ['[1,2]', '"text"', '42', 'null']) {
    const reply = await client(server.url).post('/payments', { token: ALICE, raw, headers: { 'Content-Type': 'application/json' } });
    expectProblem(reply, 422, '/payments');
    expect(reply.json.errors).toEqual([{ field: '(body)', message: expect.any(String) }]);
  }
});

test('a 422 lists every invalid field, missing and unknown ones included', async () => {
  const reply = await client(server.url).post('/payments', {
    token: ALICE,
    body: { amount: 1.5, currency: 'EUR', colour: 'red' },
  });
  expectProblem(reply, 422, '/payments');
  expect(reply.json.type).toBe('https://http-api-conformance.dev/problems/validation-error');
  const fields = (reply.json.errors as { field: string }[]).map((error) => error.field).sort();
  expect(fields).toEqual(['amount', 'colour', 'currency']);
  const missing = await client(server.url).post('/payments', { token: ALICE, body: {} });
  expect((missing.json.errors as { field: string }[]).map((error) => error.field).sort()).toEqual(['amount', 'currency']);
});

test('__proto__ and constructor members are rejected without polluting prototypes', async () => {
  const reply = await client(server.url).post('/users', {
    token: ALICE,
    raw: '{"name":"mallory","email":"m@example.com","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    headers: { 'Content-Type': 'application/json' },
  });
  expectProblem(reply, 422, '/users');
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  const fields = (reply.json.errors as { field: string }[]).map((error) => error.field);
  expect(fields).toEqual(expect.arrayContaining(['__proto__', 'constructor']));
});

test('an unhandled fault is a generic 500 without stack or internals, and is logged', async () => {
  const before = server.logged.length;
  const reply = await client(server.url).get('/users', { headers: { 'X-Fault-Inject': '500' } });
  expectProblem(reply, 500, '/users');
  expect(reply.json.detail).toBe('An unexpected error occurred.');
  for (const leak of ['SECRET', 'hunter2', 'handler.ts', 'Unhandled fault', 'Error:', '    at ', INJECTED_SECRET]) expect(reply.text).not.toContain(leak);
  expect(server.logged.length).toBe(before + 1);
});

test('a client error is not logged as a server error', async () => {
  const before = server.logged.length;
  await client(server.url).get('/users/424242');
  expect(server.logged.length).toBe(before);
});

test('an injected store failure is a 503 with Retry-After', async () => {
  const reply = await client(server.url).get('/users', { headers: { 'X-Fault-Inject': '503' } });
  expectProblem(reply, 503, '/users');
  expect(reply.headers.get('retry-after')).toBe('2');
  expect(reply.text).not.toContain('SECRET');
});

test('fault injection is off unless configured', async () => {
  const plain = await startTestServer();
  try {
    const reply = await client(plain.url).get('/users', { headers: { 'X-Fault-Inject': '500' } });
    expect(reply.status).toBe(200);
  } finally {
    await plain.close();
  }
});

function unreachable(stores: Stores, failing: 'resources' | 'rateLimits' | 'idempotency'): Stores {
  const fail = async (): Promise<never> => {
    throw new StoreUnavailableError('connect ECONNREFUSED 127.0.0.1:6390');
  };
  const broken = new Proxy(stores[failing], { get: () => fail });
  return sequenced({ ...stores, [failing]: broken });
}

test('a store whose operations fail answers 503 with the configured Retry-After', async () => {
  for (const failing of ['resources', 'rateLimits', 'idempotency'] as const) {
    const healthy = createMemoryStores();
    const api = await startTestServer({ seed: false, storeUnavailableRetryAfterSeconds: 7 }, healthy);
    await api.close();
    const down = await startTestServer({ seed: false, storeUnavailableRetryAfterSeconds: 7 }, unreachable(healthy, failing));
    try {
      const reply = await client(down.url).post('/payments', {
        token: ALICE,
        body: { amount: 100, currency: 'eur' },
        headers: { 'Idempotency-Key': `down-${failing}` },
      });
      expectProblem(reply, 503, '/payments');
      expect(reply.headers.get('retry-after'), failing).toBe('7');
      expect(reply.text).not.toContain('ECONNREFUSED');
    } finally {
      await down.close();
    }
  }
});

test('ambiguous heads are 400 problems: a duplicated singleton header, no Host, CONNECT', async () => {
  const cases = [
    'GET /account HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer dev-token-alice\r\nAuthorization: Bearer dev-token-bob\r\nConnection: close\r\n\r\n',
    'POST /payments HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer dev-token-alice\r\nContent-Type: application/json\r\nContent-Type: ' +
    'text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    'GET /users HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n',
    'GET /users HTTP/1.1\r\nConnection: close\r\n\r\n',
    'CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n',
  ];
  for (const request of cases) {
    const reply = await rawExchange(server.port, request);
    expect(reply.status, request).toBe(400);
    expect(reply.text).toContain('application/problem+json');
    expect(reply.text).toContain('"status":400');
  }
});

test('a JSON body that is not valid UTF-8 is a 400 problem', async () => {
  const body = Buffer.concat([Buffer.from('{"amount":100,"currency":"eur","description":"a'), Buffer.from([0xff]), Buffer.from('"}')]);
  const head = `POST /payments HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${ALICE}\r\nContent-Type: application/json\r\nContent-Length: ` +
    `${body.length}\r\nConnection: close\r\n\r\n`;
  const reply = await rawExchange(server.port, Buffer.concat([Buffer.from(head), body]));
  expect(reply.status).toBe(400);
  expect(reply.text).toContain('application/problem+json');
});

test('a request target over 8 KiB is a 414 problem, also past Node\'s head limit', async () => {
  for (const target of [`/users?name=${'a'.repeat(9000)}`, `/users/${'1'.repeat(20_000)}`]) {
    const reply = await rawExchange(server.port, `GET ${target} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`);
    expect(reply.status, `${target.length} bytes`).toBe(414);
    expect(reply.text).toContain('"status":414');
  }
  const headers = await rawExchange(server.port, `GET /users HTTP/1.1\r\nHost: a\r\nX-Pad: ${'p'.repeat(20_000)}\r\nConnection: close\r\n\r\n`);
  expect(headers.status).toBe(431);
  expect(headers.text).toContain('"status":431');
});
