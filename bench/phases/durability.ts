/**
 * The cost of `store.durability` (D-STORE-DURABILITY) per write: keyed `POST /payments` answered by
 * one reference server (in this process) on a private Redis primary with one replica, and on a local
 * 3-primary cluster with one replica each, with the option off and on (1 replica, 100 ms), in
 * alternating rounds so a busy machine weighs on both alike. Latency per write is measured at the
 * client, `concurrency` writes at a time. Its own Redis servers: the shared Redis has no replica.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { resolveConfig } from '../../reference-impl/config.ts';
import { clusterToolsInstalled, startLocalCluster } from '../../reference-impl/tools/local-cluster.ts';
import { startServer } from '../../reference-impl/server.ts';
import { createRedisStores } from '../../reference-impl/stores/redis/index.ts';
import { CREATED_BY } from '../../reference-impl/stores/types.ts';
import type { DurabilityCell } from '../types.ts';

export type { DurabilityCell };


const DURABILITY = { replicas: 1, timeoutMs: 100 };
/** The cells of one round, reversed every other round. */
const ORDER: readonly (readonly [boolean, 'http' | 'store'])[] = [
  [false, 'store'],
  [true, 'store'],
  [false, 'http'],
  [true, 'http'],
];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A private Redis primary with one replica (no persistence), in sync; `stop` kills both. */
async function primaryWithReplica(): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'hac-bench-replica-'));
  const [primary, replica] = [await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  const launch = (port: number, extra: string[]): void => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...extra];
    children.push(spawn('redis-server', args, { stdio: 'ignore' }));
  };
  launch(primary, []);
  launch(replica, ['--replicaof', '127.0.0.1', String(primary)]);
  const stop = async (): Promise<void> => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = performance.now() + 15_000;
  while (performance.now() < deadline) {
    const admin = new Redis({ port: replica, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    admin.on('error', () => undefined);
    try {
      await admin.connect();
      if ((await admin.info('replication')).includes('master_link_status:up')) return { url: `redis://127.0.0.1:${primary}`, stop };
    } catch {
      // not up yet
    } finally {
      admin.disconnect();
    }
    await sleep(100);
  }
  await stop();
  throw new Error('the private Redis replica did not sync within 15 s');
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** `writes` payment creations (with their idempotency result) straight on the store, one at a time: the store's round trip alone. */
async function measureStore(
  store: { kind: 'redis'; url: string; cluster?: string[]; keyPrefix: string },
  durable: boolean,
  writes: number,
): Promise<{ latencies: number[]; failed: number }> {
  const stores = createRedisStores({ ...store, commandTimeoutMs: 2000, ...(durable ? { durability: DURABILITY } : {}) });
  const latencies: number[] = [];
  let failed = 0;
  const tag = Math.random().toString(36).slice(2);
  try {
    await stores.ping();
    for (let i = 0; i < writes; i += 1) {
      const marker = `${tag}-${i}`;
      const started = performance.now();
      try {
        await stores.create({
          kinds: ['payments'],
          marker: { kind: 'payments', value: marker },
          build: ([id = 0]) => ({
            entries: [['payments', { id, amount: 100, [CREATED_BY]: marker }]],
            response: { status: 201, headers: { location: `/payments/${id}` }, body: { id } },
          }),
          complete: { key: `token:bench:${marker}`, fingerprint: 'fp', ttlSeconds: 60 },
        });
        latencies.push(performance.now() - started);
      } catch {
        failed += 1;
      }
    }
  } finally {
    await stores.close();
  }
  return { latencies, failed };
}

/** `writes` keyed payments through one server on `store`, `concurrency` at a time; latency per write. */
async function measure(
  store: { kind: 'redis'; url: string; cluster?: string[]; keyPrefix: string },
  durable: boolean,
  writes: number,
  concurrency: number,
): Promise<{ latencies: number[]; failed: number }> {
  const storeConfig = { ...store, commandTimeoutMs: 2000, ...(durable ? { durability: DURABILITY } : {}) };
  const config = resolveConfig({ host: '127.0.0.1', port: 0, seed: false, store: { ...storeConfig, url: store.url || 'redis://127.0.0.1:6379' } });
  const stores = createRedisStores(storeConfig);
  const server = await startServer({ config, stores, logError: () => undefined });
  const url = `${server.url.replace(/\/+$/, '')}/payments`;
  const latencies: number[] = [];
  let failed = 0;
  let next = 0;
  const tag = Math.random().toString(36).slice(2);
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < writes) {
          const i = next++;
          const started = performance.now();
          const response = await fetch(url, {
            method: 'POST',
            headers: { authorization: 'Bearer dev-token-alice', 'content-type': 'application/json', 'idempotency-key': `${tag}-${i}` },
            body: JSON.stringify({ amount: 100, currency: 'eur' }),
          });
          await response.arrayBuffer();
          if (response.status === 201) latencies.push(performance.now() - started);
          else failed += 1;
        }
      }),
    );
  } finally {
    await server.close();
    await stores.close();
  }
  return { latencies, failed };
}

export async function durabilityPhase(options: {
  writes: number;
  rounds: number;
  concurrency: number;
  log: (line: string) => void;
}): Promise<{ cells: DurabilityCell[]; notes: string[] }> {
  const notes: string[] = [];
  if (!clusterToolsInstalled()) return { cells: [], notes: ['redis-server or redis-cli is not installed: durability cells skipped.'] };
  const pair = await primaryWithReplica();
  const cluster = await startLocalCluster({ primaries: 3, replicasPerPrimary: 1 }).catch((error: unknown) => {
    notes.push(`no cluster with replicas: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  });
  const samples = new Map<string, { latencies: number[]; failed: number }>();
  try {
    const targets = [
      { name: 'redis' as const, store: { kind: 'redis' as const, url: pair.url, keyPrefix: 'hac-bench:durability:' } },
      ...(cluster ? [{ name: 'cluster' as const, store: { kind: 'redis' as const, url: '', cluster: cluster.nodes, keyPrefix: 'hac-bench:dur:' } }] : []),
    ];
    for (let round = 0; round < options.rounds; round += 1) {
      for (const target of targets) {
        // Alternating order per round: off first, then on first.
        for (const [durable, via] of round % 2 === 0 ? ORDER : [...ORDER].reverse()) {
          const key = `${target.name}/${durable ? 'on' : 'off'}/${via}`;
          const { latencies, failed } =
            via === 'http'
              ? await measure(target.store, durable, options.writes, options.concurrency)
              : await measureStore(target.store, durable, options.writes);
          const into = samples.get(key) ?? { latencies: [], failed: 0 };
          into.latencies.push(...latencies);
          into.failed += failed;
          samples.set(key, into);
          const p50 = percentile([...latencies].sort((a, b) => a - b), 50);
          options.log(`  ${key} round ${round + 1}: ${latencies.length} writes, p50 ${p50.toFixed(2)} ms`);
        }
      }
    }
  } finally {
    await pair.stop();
    await cluster?.stop();
  }
  const cells: DurabilityCell[] = [];
  for (const [key, { latencies, failed }] of samples) {
    const [store, durability, via] = key.split('/') as ['redis' | 'cluster', 'off' | 'on', 'http' | 'store'];
    const sorted = [...latencies].sort((a, b) => a - b);
    const meanMs = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
    cells.push({ store, durability, via, writes: sorted.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), meanMs, failed });
  }
  return { cells, notes };
}

/** The cells as a Markdown table, with the cost of `on` per store. */
export function durabilityTable(cells: DurabilityCell[]): string {
  const lines = ['| store | via | durability | writes | p50 ms | p99 ms | mean ms | failed |', '|---|---|---|---|---|---|---|---|'];
  for (const c of cells) {
    const figures = [c.p50Ms, c.p99Ms, c.meanMs].map((ms) => ms.toFixed(2)).join(' | ');
    lines.push(`| ${c.store} | ${c.via} | ${c.durability} | ${c.writes} | ${figures} | ${c.failed} |`);
  }
  for (const [store, via] of [['redis', 'store'], ['cluster', 'store'], ['redis', 'http'], ['cluster', 'http']] as const) {
    const off = cells.find((c) => c.store === store && c.via === via && c.durability === 'off');
    const on = cells.find((c) => c.store === store && c.via === via && c.durability === 'on');
    if (off && on) {
      const [p50, mean] = [on.p50Ms - off.p50Ms, on.meanMs - off.meanMs].map((ms) => ms.toFixed(2));
      lines.push(`${store} (${via}): durability on costs ${p50} ms at p50, ${mean} ms mean per write`);
    }
  }
  return lines.join('\n');
}
