/**
 * The reference server on a Redis Cluster (D-RATE-LIMIT "shared store" for a fleet that outgrows one
 * Redis): a local 3-primary cluster on free loopback ports (reference-impl/tools/local-cluster.ts), stopped
 * afterwards even when a test fails. On it: the store contract suite, two reference instances through
 * the multi-target conformance run, and a primary killed while payments are in flight.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { compiledCli } from '../../fixtures/support/compiled-cli.ts';
import { readResults } from '../../spec/results.ts';
import { loadConfig, resolveConfig } from '../config.ts';
import { type LocalCluster, clusterToolsInstalled, startLocalCluster } from '../tools/local-cluster.ts';
import { uniqueKeyPrefix } from '../tools/redis-admin.ts';
import { type RunningServer, startServer } from '../server.ts';
import { createRedisStores } from '../stores/redis/index.ts';
import { CREATED_BY, type Stores } from '../stores/types.ts';
import type { AdapterUnderTest } from './stores-helpers.ts';
import { describeStoreContract } from './support/store-contract.ts';

test.describe.configure({ mode: 'default' });

const installed = clusterToolsInstalled();
let cluster: LocalCluster | undefined;

test.beforeAll(async () => {
  test.setTimeout(60_000);
  if (installed) cluster = await startLocalCluster();
});
test.afterAll(async () => {
  await cluster?.stop();
});

const running = (): LocalCluster => {
  if (!cluster) throw new Error('the local cluster is not running');
  return cluster;
};

const clusterAdapter: AdapterUnderTest = {
  name: 'redis-cluster',
  open() {
    const keyPrefix = uniqueKeyPrefix('test', 'cluster');
    const opened: Stores[] = [];
    return {
      instance() {
        const stores = createRedisStores({ url: '', cluster: running().nodes, keyPrefix });
        opened.push(stores);
        return stores;
      },
      async cleanup() {
        await Promise.all(opened.map((s) => s.close()));
        await running().deleteKeys(keyPrefix);
      },
    };
  },
};

/** Reference instances with the development configuration, each with its own connection to the cluster. */
async function instances(count: number, keyPrefix: string, idempotency?: { lockSeconds: number }): Promise<{ urls: string[]; close(): Promise<void> }> {
  const config = resolveConfig({
    host: '127.0.0.1',
    port: 0,
    faultInjection: true,
    store: { kind: 'redis', cluster: running().nodes, keyPrefix, commandTimeoutMs: 1000 },
    ...(idempotency ? { idempotency: { ttlSeconds: 86_400, ...idempotency } } : {}),
  });
  const servers: RunningServer[] = [];
  const stores: Stores[] = [];
  const close = async (): Promise<void> => {
    await Promise.allSettled(servers.map((s) => s.close()));
    await Promise.allSettled(stores.map((s) => s.close()));
    await running().deleteKeys(keyPrefix).catch(() => undefined);
  };
  try {
    for (let i = 0; i < count; i += 1) {
      stores.push(createRedisStores({ url: '', cluster: running().nodes, keyPrefix, commandTimeoutMs: 1000 }));
      servers.push(await startServer({ config, stores: stores[i]!, logError: () => undefined }));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { urls: servers.map((s) => s.url.replace(/\/+$/, '')), close };
}

test('the cluster seed nodes come from HAC_REDIS_CLUSTER or store.cluster, and a malformed node is refused by name', async () => {
  const config = await loadConfig({}, { HAC_STORE: 'redis', HAC_REDIS_CLUSTER: '127.0.0.1:7000, [::1]:7001' });
  expect(config.store).toMatchObject({ kind: 'redis', cluster: ['127.0.0.1:7000', '[::1]:7001'] });
  expect(() => resolveConfig({ store: { kind: 'redis', cluster: ['127.0.0.1'] } })).toThrow(/store\.cluster\.0/);
  expect(() => resolveConfig({ store: { kind: 'redis', cluster: [] } })).toThrow(/store\.cluster/);
});

test.describe('on a local 3-primary Redis Cluster', () => {
  test.skip(!installed, 'redis-server and redis-cli are not installed');

  describeStoreContract(clusterAdapter);

  test('serve --store redis --redis-cluster HOST:PORT,… serves on the cluster and exits 0 on SIGTERM', async () => {
    const keyPrefix = uniqueKeyPrefix('test', 'cluster-serve');
    const child = spawn(
      process.execPath,
      ['bin/http-api-conformance.js', 'serve', '--port', '0', '--store', 'redis', '--redis-cluster', running().nodes.join(',')],
      { env: { ...process.env, HAC_REDIS_KEY_PREFIX: keyPrefix }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await expect.poll(() => /listening on (http:\/\/\S+)/.exec(output)?.[1], { timeout: 30_000 }).toBeDefined();
      const url = (/listening on (http:\/\/\S+)/.exec(output)?.[1] ?? '').replace(/\/+$/, '');
      const account = await fetch(`${url}/account`, { headers: { authorization: 'Bearer dev-token-alice' } });
      expect(account.status).toBe(200);
      // The seed users live on the cluster, under the prefix of this server.
      const check = createRedisStores({ url: '', cluster: running().nodes, keyPrefix });
      try {
        expect(await check.resources.get('users', 1)).toMatchObject({ id: 1 });
      } finally {
        await check.close();
      }
      child.kill('SIGTERM');
      expect(await exited, output).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await running().deleteKeys(keyPrefix);
    }
  });

  test('two reference instances on the cluster pass the conformance run with both as targets (shared limits, replay across instances)', async () => {
    // 20-40 s on a quiet 2-core machine; 207 s measured at load average 33, hence the bound.
    test.setTimeout(300_000);
    const fleet = await instances(2, uniqueKeyPrefix('test', 'cluster-run'));
    const out = mkdtempSync(join(tmpdir(), 'hac-cluster-run-'));
    try {
      const args = [
        compiledCli(), 'run', '--profile', 'fixtures/profiles/reference.json', ...fleet.urls.flatMap((url) => ['--target', url]),
        '--out', out,
      ];
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code, output).toBe(0);
      const results = readResults(join(out, 'results.json'));
      const outcome = (id: string): string | undefined => results.requirements.find((r) => r.id === id)?.outcome;
      // The checks that need two instances ran and passed: one bucket and one idempotency record for the fleet.
      for (const id of ['STATELESS-ANY-INSTANCE', 'RATE-LIMIT-SHARED-STORE', 'IDEMPOTENCY-REPLAY']) expect(outcome(id), id).toBe('passed');
      console.log(`[cluster:conformance] ${output.split('\n').filter((line) => /^(MUST|SHOULD|MAY|PASS|FAIL|duration)/.test(line)).join(' | ')}`);
    } finally {
      rmSync(out, { recursive: true, force: true });
      await fleet.close();
    }
  });

  test('a killed primary: 503 with Retry-After on its slots, then recovery without a restart; no admitted payment lost, none made twice', async () => {
    test.setTimeout(120_000);
    const keyPrefix = uniqueKeyPrefix('test', 'cluster-failover');
    // A short lock: a claim whose request died with the primary frees itself quickly (D-IDEMPOTENCY).
    const fleet = await instances(2, keyPrefix, { lockSeconds: 1 });
    const nodes = running();
    const victim = await nodes.primaryOf(`${keyPrefix}{res}:item:payments:1`);
    const keys = Array.from({ length: 40 }, (_, i) => `failover-${i}`);
    const pay = (i: number): Promise<Response> =>
      fetch(`${fleet.urls[i % 2]}/payments`, {
        method: 'POST',
        headers: { authorization: 'Bearer dev-token-alice', 'content-type': 'application/json', 'idempotency-key': keys[i]! },
        body: JSON.stringify({ amount: 100 + i, currency: 'eur' }),
      });
    const created = new Map<number, { id: number; body: unknown }>();
    const record = async (i: number, response: Response): Promise<number> => {
      const body = (await response.json()) as { id: number };
      if (response.status === 201) created.set(i, { id: body.id, body });
      return response.status;
    };
    try {
      // Half the payments before the crash: all admitted.
      const before = await Promise.all(keys.slice(0, 20).map(async (_, i) => record(i, await pay(i))));
      expect(before.every((status) => status === 201)).toBe(true);
      // The other half in flight while the primary holding the resources dies.
      const inFlight = keys.slice(20).map((_, j) => pay(20 + j));
      await nodes.kill(victim);
      const during = await Promise.all(inFlight.map(async (sent, j) => {
        const response = await sent;
        if (response.status === 503) expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        return record(20 + j, response);
      }));
      expect(during.every((status) => status === 201 || status === 503)).toBe(true);
      expect(during.filter((status) => status === 503).length).toBeGreaterThan(0);

      const restartedAt = performance.now();
      await nodes.restart(victim);
      // Every unanswered payment is retried with its key until it is answered (409 while a dead claim waits out its lock).
      const deadline = performance.now() + 30_000;
      let recoveredMs: number | undefined;
      for (let i = 20; i < keys.length; i += 1) {
        while (!created.has(i)) {
          if (performance.now() > deadline) throw new Error(`payment ${i} not answered 30 s after the restart`);
          const status = await record(i, await pay(i));
          if (status === 201) recoveredMs ??= performance.now() - restartedAt;
          else await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      // No admitted payment lost, none made twice: every answer is readable, a replay gives the same
      // payment, and the store holds exactly one payment per key.
      for (const [i, { id, body }] of created) {
        const read = await fetch(`${fleet.urls[(i + 1) % 2]}/payments/${id}`, { headers: { authorization: 'Bearer dev-token-alice' } });
        expect(read.status, `payment ${id}`).toBe(200);
        expect(await read.json()).toEqual(body);
        const replay = await pay(i);
        expect(replay.status).toBe(201);
        expect(((await replay.json()) as { id: number }).id).toBe(id);
      }
      const check = createRedisStores({ url: '', cluster: nodes.nodes, keyPrefix });
      try {
        const payments = await check.resources.list('payments');
        expect(payments).toHaveLength(keys.length);
        expect(new Set(payments.map((p) => p[CREATED_BY])).size).toBe(keys.length);
      } finally {
        await check.close();
      }
      console.log(
        `[cluster:failover] ${during.filter((s) => s === 503).length} of 20 in-flight payments answered 503 with Retry-After; first success ` +
        `${Math.round(recoveredMs ?? 0)} ms after the restart began; 40 payments, 40 keys`,
      );
    } finally {
      await fleet.close();
    }
  });
});
