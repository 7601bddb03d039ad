/**
 * The rate-limit token lock (conformance/support/token-lock.ts): one holder per target and token,
 * the next free token of the pool for the next caller, waiting while all are held, a lock of a dead
 * process taken over, and a clear error when the wait runs out.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { acquireToken } from '../support/token-lock.ts';

let dir: string;
test.beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hac-lock-test-'));
});
test.afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

test('concurrent holders get different tokens, starting at their own index', async () => {
  const a = await acquireToken('http://t', ['t1', 't2', 't3'], { dir, start: 1 });
  const b = await acquireToken('http://t', ['t1', 't2', 't3'], { dir, start: 1 });
  const c = await acquireToken('http://t', ['t1', 't2', 't3'], { dir, start: 1 });
  expect([a.token, b.token, c.token]).toEqual(['t2', 't3', 't1']);
  expect(readdirSync(dir)).toHaveLength(3);
  for (const held of [a, b, c]) held.release();
  expect(readdirSync(dir)).toHaveLength(0);
});

test('the same token on another target is a different lock', async () => {
  const a = await acquireToken('http://one', ['t'], { dir });
  const b = await acquireToken('http://two', ['t'], { dir, timeoutMs: 200 });
  expect(b.token).toBe('t');
  a.release();
  b.release();
});

test('a caller waits while every token is held and gets the first one released', async () => {
  const first = await acquireToken('http://t', ['only'], { dir });
  const started = performance.now();
  setTimeout(() => first.release(), 300);
  const second = await acquireToken('http://t', ['only'], { dir, pollMs: 10 });
  const waited = performance.now() - started;
  expect(waited).toBeGreaterThanOrEqual(250);
  expect(second.token).toBe('only');
  second.release();
});

test('a wait that runs out names the target and the lock directory', async () => {
  const held = await acquireToken('http://busy', ['only'], { dir });
  await expect(acquireToken('http://busy', ['only'], { dir, timeoutMs: 150, pollMs: 10 })).rejects.toThrow(
    /http:\/\/busy stayed in use .* 150 ms \(lock directory /,
  );
  held.release();
});

test('a lock left by a process that is gone is taken over; a live one is not', async () => {
  const held = await acquireToken('http://t', ['only'], { dir });
  const file = join(dir, readdirSync(dir)[0] as string);
  held.release();
  // A pid that certainly exited: a child that has already finished.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  writeFileSync(file, dead);
  const taken = await acquireToken('http://t', ['only'], { dir, timeoutMs: 500 });
  expect(taken.token).toBe('only');
  taken.release();
  writeFileSync(file, String(process.ppid));
  await expect(acquireToken('http://t', ['only'], { dir, timeoutMs: 150, pollMs: 10 })).rejects.toThrow(/stayed in use/);
  rmSync(file);
});

test('an empty pool is refused', async () => {
  await expect(acquireToken('http://t', [], { dir })).rejects.toThrow('the token pool is empty');
});
