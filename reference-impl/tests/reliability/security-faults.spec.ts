/**
 * Fault injection and 5xx bodies (spec/decisions.md D-ERRORS `STATUS-500-GENERIC`,
 * D-STORE-DOWN, D-AUTH): an injected 500 leaks no stack or internals, a failed POST keeps no
 * idempotency record, the hook is off by default, and production configuration refuses it.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { ConfigError, resolveConfig } from '../../config.ts';
import { INJECTED_SECRET } from '../../middleware/fault-injection.ts';
import { ALICE, type TestServer, client, startTestServer } from '../support/harness.ts';

const BIN = fileURLToPath(new URL('../../../bin/http-api-conformance.js', import.meta.url));
const LEAKS = [/SECRET/, /hunter2/, /postgres:/, /\bat [\w.<>]+ \(/, /\.ts:\d+/, /node_modules/, /Error:/, /stack/i];

let faulty: TestServer;
let plain: TestServer;

test.beforeAll(async () => {
  [faulty, plain] = await Promise.all([startTestServer({ faultInjection: true }), startTestServer()]);
});

test.afterAll(async () => {
  await Promise.all([faulty?.close(), plain?.close()]);
});

test('an injected 500 answers a generic problem document without stack or internals', async () => {
  const api = client(faulty.url);
  for (const [method, path] of [['GET', '/users'], ['GET', '/account'], ['POST', '/payments'], ['DELETE', '/users/4']] as const) {
    const reply = await api.send(method, path, {
      token: ALICE,
      headers: { 'X-Fault-Inject': '500' },
      ...(method === 'POST' ? { body: { amount: 1, currency: 'usd' } } : {}),
    });
    expect(reply.status, `${method} ${path}`).toBe(500);
    expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(reply.json).toEqual({ type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'An unexpected error occurred.', instance: path });
    for (const leak of LEAKS) expect(reply.text).not.toMatch(leak);
    for (const [name, value] of reply.headers) expect(`${name}: ${value}`).not.toMatch(/SECRET|hunter2/);
  }
  expect(faulty.logged.length).toBeGreaterThanOrEqual(4);
  expect(String(faulty.logged[0])).toContain(INJECTED_SECRET);
});

test('an injected store failure answers 503 with Retry-After and no internals', async () => {
  const reply = await client(faulty.url).get('/account', { token: ALICE, headers: { 'X-Fault-Inject': '503' } });
  expect(reply.status).toBe(503);
  expect(reply.headers.get('retry-after')).toBe('2');
  expect(reply.json).toMatchObject({ status: 503, type: 'about:blank' });
  for (const leak of LEAKS) expect(reply.text).not.toMatch(leak);
});

test('a POST that failed with 500 keeps no idempotency record: the retry runs the work once', async () => {
  const api = client(faulty.url);
  const key = `fault-${Date.now()}`;
  const body = { amount: 321, currency: 'usd' };
  const before = (await api.get('/payments', { token: ALICE })).json.page.total as number;
  const failed = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key, 'X-Fault-Inject': '500' } });
  expect(failed.status).toBe(500);
  const retried = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(retried.status).toBe(201);
  expect(retried.headers.get('idempotent-replayed')).toBeNull();
  const replay = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(replay.json).toEqual(retried.json);
  expect((await api.get('/payments', { token: ALICE })).json.page.total).toBe(before + 1);
});

test('fault injection is off by default: the header changes nothing', async () => {
  const api = client(plain.url);
  expect(resolveConfig({}).faultInjection).toBe(false);
  for (const fault of ['500', '503']) {
    const reply = await api.get('/account', { token: ALICE, headers: { 'X-Fault-Inject': fault } });
    expect(reply.status).toBe(200);
    expect(reply.json.userId).toBe(1);
  }
  expect(plain.logged).toEqual([]);
});

test('production configuration refuses fault injection and development tokens', () => {
  const ownToken = [{ token: 'prod-token-0123456789abcdef', userId: 1, permissions: ['orders:read'], plan: 'standard' }];
  expect(() => resolveConfig({ tokens: ownToken, faultInjection: true }, 'production')).toThrow(/faultInjection/);
  expect(() => resolveConfig({}, 'production')).toThrow(ConfigError);
  expect(() => resolveConfig({}, 'production')).toThrow(/development token/);
  expect(resolveConfig({ tokens: ownToken }, 'production').faultInjection).toBe(false);
});

function serveExit(env: Record<string, string>): Promise<{ code: number | null; output: string; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output, ms: performance.now() - started });
    });
  });
}

test('the serve command refuses to start in production with fault injection or dev tokens', async () => {
  const [devTokens, fault] = await Promise.all([
    serveExit({ NODE_ENV: 'production', HAC_FAULT_INJECTION: 'false' }),
    serveExit({ NODE_ENV: 'production', HAC_FAULT_INJECTION: 'true' }),
  ]);
  for (const run of [devTokens, fault]) {
    expect(run.code, run.output).toBe(2);
    expect(run.output).not.toContain('listening');
  }
  expect(devTokens.output).toMatch(/development token/);
});
