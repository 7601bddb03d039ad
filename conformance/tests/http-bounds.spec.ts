/**
 * D-BOUNDED-RUN, one request at a time: the suite's HTTP client (conformance/transport/http.ts) ends every
 * exchange with a hostile target (fixtures/hostile/server.ts) within its deadline, drops a body past
 * the size limit, refuses JSON nested too deep, and names the request and the server's fault.
 */
import { test, expect } from '@playwright/test';
import { startHostileServer } from '../../fixtures/hostile/server.ts';
import type { HostileMode } from '../../fixtures/hostile/server.ts';
import { jsonDepthOver, send, TransportError } from '../transport/http.ts';

const LIMIT = 1024 * 1024;

/** The error `send` rejects with against `mode`, and how long it took. */
async function failure(mode: HostileMode, options: { timeoutMs?: number; deadlineMs?: number } = {}): Promise<{ error: Error; ms: number }> {
  const server = await startHostileServer(mode);
  const started = performance.now();
  try {
    await send(server.url, 'GET', '/me', { maxResponseBytes: LIMIT, timeoutMs: 1500, deadlineMs: 3000, ...options });
    throw new Error(`${mode}: send resolved`);
  } catch (error) {
    return { error: error as Error, ms: performance.now() - started };
  } finally {
    await server.close();
  }
}

test('headers then silence: the idle timeout names the stall', { tag: ['@cli'] }, async () => {
  const { error, ms } = await failure('headers-then-stall');
  expect(error).toBeInstanceOf(TransportError);
  expect(error.message).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/me: the server sent headers, then nothing for 1\.5 s\n/);
  // The 1.5 s idle timeout, plus scheduling on a loaded machine.
  expect(ms).toBeGreaterThanOrEqual(1400);
  expect(ms).toBeLessThan(2900);
});

test('a dripping body ends at the deadline of the whole exchange, not at an idle timeout', { tag: ['@cli'] }, async () => {
  const { error, ms } = await failure('drip');
  expect(error.message).toContain('/me: the body did not finish within 3 s');
  // The 3 s deadline (the 1 s drip never leaves the socket idle for 1.5 s), plus scheduling.
  expect(ms).toBeGreaterThanOrEqual(2900);
  expect(ms).toBeLessThan(5000);
});

for (const mode of ['endless-body', 'json-50mb'] as const) {
  test(`${mode}: the body is dropped past the size limit`, { tag: ['@cli'] }, async () => {
    const { error } = await failure(mode);
    expect(error.message).toMatch(new RegExp(`/me: response larger than ${LIMIT} bytes`));
  });
}

test('a Content-Length past the limit is refused before the body is read', { tag: ['@cli'] }, async () => {
  const { error } = await failure('huge-content-length');
  expect(error.message).toContain(`response larger than ${LIMIT} bytes (Content-Length: 1000000000000)`);
});

test('JSON nested 100,000 levels deep fails the request by name instead of a RangeError later', { tag: ['@cli'] }, async () => {
  const { error } = await failure('deep-json');
  expect(error.message).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/me: the JSON body nests deeper than 256 levels/);
});

test('a silent server: no answer within the idle timeout', { tag: ['@cli'] }, async () => {
  const { error } = await failure('silent');
  expect(error.message).toContain('/me: no answer within 1.5 s');
});

test('jsonDepthOver counts nesting outside strings only', () => {
  expect(jsonDepthOver('[[[]]]', 3)).toBe(false);
  expect(jsonDepthOver('[[[[]]]]', 3)).toBe(true);
  expect(jsonDepthOver(`{"a":"${'['.repeat(10)}\\"["}`, 2)).toBe(false);
  expect(jsonDepthOver('not json [[[[', 1)).toBe(false);
});
