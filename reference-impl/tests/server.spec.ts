/**
 * The server module and the `serve` command (graceful shutdown, `serve` start-up): graceful shutdown finishes
 * in-flight requests, the command prints its URL and the token profile, and stops on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { resolveConfig } from '../config.ts';
import { startServer } from '../server.ts';
import { createMemoryStores } from '../stores/memory/index.ts';
import { client, startTestServer } from './support/harness.ts';

const BIN = fileURLToPath(new URL('../../bin/http-api-conformance.js', import.meta.url));

test('close() lets an in-flight request finish and then refuses new connections', async () => {
  // A leaky bucket of 1 request per second holds the second request about 1 s (less what the first took):
  // it is still in flight when close() begins 100 ms after it was sent, also on a busy machine.
  const server = await startTestServer({
    rateLimit: { algorithm: 'leaky-bucket' },
    anonymousPlan: 'queue',
    plans: { queue: { capacity: 5, refillPerSecond: 1 } },
  });
  const api = client(server.url);
  expect((await api.get('/users/1')).status).toBe(200);
  const inFlight = api.get('/users/2').then((reply) => ({ reply, answeredAt: performance.now() }));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const closeBegan = performance.now();
  const closing = server.close();
  const { reply, answeredAt } = await inFlight;
  expect(reply.status).toBe(200);
  expect(reply.json.name).toBe('bob');
  // The request was answered after close() began: it was in flight, and close() let it finish.
  expect(answeredAt).toBeGreaterThan(closeBegan);
  await closing;
  expect(performance.now() - answeredAt).toBeLessThan(2000);
  await expect(fetch(`${server.url}/users/1`)).rejects.toThrow();
});

test('startServer seeds users only when absent and does not close stores it was given', async () => {
  const stores = createMemoryStores();
  const config = resolveConfig({ port: 0 });
  const first = await startServer({ config, stores });
  await client(first.url).put('/users/1', { token: 'dev-token-alice', body: { name: 'Alice Renamed', email: 'alice@example.com' } });
  await first.close();
  const second = await startServer({ config, stores });
  try {
    expect((await client(second.url).get('/users/1')).json.name).toBe('Alice Renamed');
    const created = await client(second.url).post('/users', { token: 'dev-token-alice', body: { name: 'n', email: 'n@example.com' } });
    expect(created.json.id).toBe(5);
  } finally {
    await second.close();
  }
});

function runServe(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

test('serve prints its URL and the token profile, serves, and exits 0 on SIGTERM', async () => {
  const run = runServe(['--port', '0', '--host', '127.0.0.1']);
  try {
    await expect.poll(() => run.output().stdout, { timeout: 30_000 }).toContain('Tokens: the development tokens of');
    // Without --fault-injection the banner names the setting that differs from the reference profile.
    expect(run.output().stdout).toContain('Fault injection: off');
    const url = /listening on (http:\/\/[^\s]+)/.exec(run.output().stdout)?.[1];
    expect(url).toBeDefined();
    const reply = await client(url ?? '').get('/account', { token: 'dev-token-alice' });
    expect(reply.json.name).toBe('alice');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  } finally {
    run.child.kill('SIGKILL');
  }
});

test('serve rejects an unknown option with exit code 2 naming it', async () => {
  const run = runServe(['--bogus']);
  expect(await run.exited).toBe(2);
  expect(run.output().stderr).toContain('--bogus');
});

test('serve refuses dev tokens under NODE_ENV=production with exit code 2', async () => {
  const run = runServe(['--port', '0'], { NODE_ENV: 'production' });
  expect(await run.exited).toBe(2);
  expect(run.output().stderr).toContain('production');
});
