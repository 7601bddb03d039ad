/**
 * Exactly one result through a failover (D-STORE-DURABILITY, D-IDS, D-IDEMPOTENCY): a local Redis
 * Cluster of 3 primaries with one replica each, two reference instances, keyed `POST /payments` at
 * 50 new keys a second from the reference client (its retry rules: 429 and 5xx, Retry-After, 5
 * attempts). The primary holding the resources (`{res}`) is killed 2.5 s into the load (KILL_AT_MS);
 * in the "lagging" runs its replica's replication link is cut (and the replica stalled, so it cannot
 * reconnect) 1.5 s before the kill. Once the killed node is back in sync, every acknowledged key is
 * sent again. Per key: acknowledged (201), lost (its 201 names no payment of that key any more),
 * duplicated (more than one payment of that key), wrong-resource replays (a 201 naming another key's
 * payment), replays answered neither 201 nor 409 gone. With `store.durability` on every count is 0;
 * off, a normal failover loses nothing and a lagging one loses what was acknowledged during the lag
 * (README, Failover).
 * Skips itself when redis-server cannot start a cluster.
 */
import { test, expect } from '@playwright/test';
import type { Cluster, Redis } from 'ioredis';
import { createClient } from '../../client/lib/client.ts';
import type { ClientResponse } from '../../client/lib/client.ts';
import { resolveConfig } from '../config.ts';
import { type LocalCluster, clusterToolsInstalled, startLocalCluster } from '../tools/local-cluster.ts';
import { uniqueKeyPrefix } from '../tools/redis-admin.ts';
import { type RunningServer, startServer } from '../server.ts';
import { createRedisStores } from '../stores/redis/index.ts';
import { connectRedis, lua } from '../stores/redis/connection.ts';
import { withReplicaWaits } from '../stores/redis/replica-waits.ts';
import type { Stores } from '../stores/types.ts';

test.describe.configure({ mode: 'default' });

const KEYS_PER_SECOND = 50;
// One second of ordinary load before the replica falls behind (KILL_AT_MS - LAG_MS), so a durable run with
// a lagging replica acknowledges something: with the cut at the start of the load (a kill at 1.5 s) every
// write of that run waited for the cut replica and none was acknowledged (150 of 150 refused, 4 runs).
const LOAD_MS = 4000;
const KILL_AT_MS = 2500;
const LAG_MS = 1500;
const DURABILITY = { replicas: 1, timeoutMs: 100 };

interface Row {
  run: string;
  keys: number;
  created: number;
  stored: number;
  lost: number;
  duplicated: number;
  wrongReplays: number;
  goneReplays: number;
  /** Replays answered neither 201 nor 409 gone, as `key-N: status`: each is a measurement that did not happen. */
  unansweredReplays: string[];
  /** The 5xx causes each instance logged while the replays ran, as `instance N: message ← cause: count`. */
  replayErrors: string[];
  gaveUp: number;
  /** 5xx answers the clients saw, retries included. */
  fiveXx: number;
  /** Final answers other than 201 and 5xx, by status (409: the key was still in flight, a final answer under the client rules). */
  other: Record<number, number>;
  fiveXxWindowMs: number;
}

let cluster: LocalCluster | undefined;
let skipReason: string | undefined;
const rows: Row[] = [];

test.beforeAll(async () => {
  test.setTimeout(90_000);
  if (!clusterToolsInstalled()) {
    skipReason = 'redis-server and redis-cli are not installed';
    return;
  }
  try {
    cluster = await startLocalCluster({ primaries: 3, replicasPerPrimary: 1 });
  } catch (error) {
    skipReason = `redis-server could not start a cluster with replicas: ${error instanceof Error ? error.message : String(error)}`;
  }
});
test.afterAll(async () => {
  await cluster?.stop();
  if (rows.length > 0) console.log(`[failover]\n${table(rows)}`);
});

function table(all: Row[]): string {
  const columns = ['run', 'keys', '201s', 'payments stored', 'lost', 'duplicated', 'wrong-resource replays', 'replays refused (gone)'];
  const head = `| ${[...columns, 'gave up (5xx)', 'other answers', '5xx answers', '5xx window'].join(' | ')} |`;
  const lines = all.map(
    (r) =>
      `| ${r.run} | ${r.keys} | ${r.created} | ${r.stored} | ${r.lost} | ${r.duplicated} | ${r.wrongReplays} | ${r.goneReplays} | ${r.gaveUp} | ` +
      `${Object.entries(r.other).map(([status, n]) => `${n}× ${status}`).join(', ') || '-'} | ${r.fiveXx} | ` +
      `${(r.fiveXxWindowMs / 1000).toFixed(1)} s |`,
  );
  return [head, '|---|---|---|---|---|---|---|---|---|---|---|---|', ...lines].join('\n');
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 100 ms until it is true; throws after `ms`. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what}: not within ${ms} ms`);
}

/**
 * The count of the first durable INCR that succeeds, trying for 20 s: on a cluster that has just failed over, a
 * write whose WAIT failed (a replica not in sync yet) was still applied, so the count a success returns is not
 * always 1.
 */
async function firstDurableWrite(increment: () => Promise<unknown>): Promise<number> {
  let count = 0;
  await until(async () => {
    count = Number(await increment());
    return count >= 1;
  }, 20_000, 'a first durable write');
  return count;
}

async function role(nodes: LocalCluster, index: number): Promise<string> {
  const admin = nodes.admin(index);
  try {
    return /role:(\w+)/.exec(await admin.info('replication'))?.[1] ?? '';
  } finally {
    admin.disconnect();
  }
}

/** Whether primary `index` has a replica that acknowledges a write (WAIT 1): in sync, not only listed. */
async function acknowledgedByReplica(nodes: LocalCluster, index: number, keyPrefix: string): Promise<boolean> {
  const admin = nodes.admin(index);
  try {
    await admin.set(`${keyPrefix}{res}:sync-probe`, '1');
    return Number(await admin.call('WAIT', '1', '200')) >= 1;
  } catch {
    return false;
  } finally {
    admin.disconnect();
  }
}

/**
 * Cuts replica `index` off its primary and keeps it off for `ms`: CLIENT KILL TYPE master drops the
 * replication link, and DEBUG SLEEP, in the same pipeline, stalls the replica before it can reconnect
 * (it reconnects from its once-a-second cron). Resolves at once; the replica wakes after `ms`.
 */
function cutAndStall(nodes: LocalCluster, index: number, ms: number): Redis {
  const admin = nodes.admin(index);
  void admin
    .pipeline()
    .call('CLIENT', 'KILL', 'TYPE', 'master')
    .call('DEBUG', 'SLEEP', String(ms / 1000))
    .exec()
    .catch(() => undefined);
  return admin;
}

async function run(nodes: LocalCluster, durable: boolean, lagging: boolean): Promise<Row> {
  const name = `durability ${durable ? 'on' : 'off'}, ${lagging ? 'replica 1.5 s behind' : 'normal failover'}`;
  const keyPrefix = uniqueKeyPrefix('test', 'failover');
  const store = {
    kind: 'redis' as const,
    url: '',
    cluster: nodes.nodes,
    keyPrefix,
    commandTimeoutMs: 1000,
    ...(durable ? { durability: DURABILITY } : {}),
  };
  // Retry-After 1 s on a 503, so five attempts span the failover (about 2-4 s here).
  const config = resolveConfig({
    host: '127.0.0.1',
    port: 0,
    // The servers get `stores`; the configured store is validated only (its url is unused with `cluster`).
    store: { ...store, url: 'redis://127.0.0.1:6379' },
    storeUnavailableRetryAfterSeconds: 1,
    idempotency: { ttlSeconds: 3600, lockSeconds: 2 },
  });
  const stores: Stores[] = [createRedisStores(store), createRedisStores(store)];
  const servers: RunningServer[] = [];
  // What each instance logged for its 5xx answers (D-STORE-DOWN: the cause stays in the log, never in the body).
  let phase = 'load';
  const logged = new Map<string, number>();
  const logFor = (instance: number) => (error: unknown): void => {
    const err = error instanceof Error ? error : new Error(String(error));
    const cause = err.cause instanceof Error ? ` ← ${err.cause.message}` : '';
    const line = `${phase}, instance ${instance}: ${err.message}${cause}`;
    logged.set(line, (logged.get(line) ?? 0) + 1);
  };
  const check = createRedisStores({ ...store, durability: undefined });
  let stalled: Redis | undefined;
  try {
    for (const [i, s] of stores.entries()) servers.push(await startServer({ config, stores: s, logError: logFor(i) }));
    const victim = await nodes.primaryOf(`${keyPrefix}{res}:seq:payments`);
    const [replica] = await nodes.replicasOf(victim);
    if (replica === undefined) throw new Error(`primary ${victim} has no replica`);
    await test.step('the replica acknowledges writes before the load', () =>
      until(() => acknowledgedByReplica(nodes, victim, keyPrefix), 60_000, 'the replica acknowledges writes before the load'),
    );
    const fiveXx: number[] = [];
    const clients = servers.map((server) =>
      createClient({
        baseUrl: server.url,
        token: 'dev-token-alice',
        timeoutMs: 3000,
        // Every answer the client sees, retries included: the 5xx window is measured from these.
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          if (response.status >= 500) fiveXx.push(performance.now());
          return response;
        },
      }),
    );
    const description = (i: number): string => `${keyPrefix}key-${i}`;
    const pay = (i: number): Promise<ClientResponse<{ id: number; description: string }>> =>
      clients[i % 2]!.post<{ id: number; description: string }>('/payments', { amount: 100 + i, currency: 'eur', description: description(i) }, {
        idempotencyKey: `key-${i}`,
      });

    const count = Math.round((KEYS_PER_SECOND * LOAD_MS) / 1000);
    const answers: Promise<ClientResponse<{ id: number; description: string }> | Error>[] = [];
    await test.step(`${count} keyed POSTs over ${LOAD_MS} ms, the primary killed at ${KILL_AT_MS} ms`, async () => {
      const started = performance.now();
      let cutDone = !lagging;
      let killed = false;
      for (let i = 0; i < count; i += 1) {
        const at = started + (i * 1000) / KEYS_PER_SECOND;
        if (!cutDone && performance.now() - started >= KILL_AT_MS - LAG_MS) {
          stalled = cutAndStall(nodes, replica, LAG_MS + 500);
          cutDone = true;
        }
        if (!killed && performance.now() - started >= KILL_AT_MS) {
          await nodes.kill(victim);
          killed = true;
        }
        answers.push(pay(i).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))));
        const wait = at + 1000 / KEYS_PER_SECOND - performance.now();
        if (wait > 0) await sleep(wait);
      }
      if (!killed) await nodes.kill(victim);
    });
    // The replica takes over; then the killed primary comes back as its replica (WAIT needs one).
    // 3-4 s on a quiet machine; once over 20 s at load average 13 (a full npm test on 2 cores), hence 60 s.
    await test.step('the replica is promoted and the killed primary restarted', async () => {
      await until(async () => (await role(nodes, replica)) === 'master', 60_000, 'the replica is promoted');
      await nodes.restart(victim);
    });
    const finals = await test.step('every keyed POST has its final answer', () => Promise.all(answers));
    // The cluster is whole again before the replays and the next run: the restarted node is a replica in sync.
    // With durability on, every script (a replay's rate-limit take too) is followed by a WAIT for that replica,
    // so a replay sent during a slow resync is refused five times (503, Retry-After 1 s: about 5 s each), and
    // 126 of them take over 10 min. Replays sent before this wait ran a durable test past its 240 s bound once,
    // inside a full npm test at load 12-15.
    await test.step('the killed primary is a replica in sync again', async () => {
      await until(async () => (await nodes.replicasOf(replica)).includes(victim), 20_000, 'the killed primary is a replica again');
      // Listed is not in sync: a durable run starting before the full resync ends saw every write's WAIT fail
      // (150 of 150 gave up at load 11-16), so the next run starts once a write is acknowledged.
      await until(() => acknowledgedByReplica(nodes, replica, keyPrefix), 60_000, 'the restarted replica acknowledges writes');
    });

    // Per key: the payments stored with its description, and the id its 201 named.
    const payments = await check.resources.list('payments');
    const byKey = new Map<string, number[]>();
    for (const p of payments) {
      const key = String(p.description);
      if (!key.startsWith(keyPrefix)) continue;
      byKey.set(key, [...(byKey.get(key) ?? []), p.id]);
    }
    const byId = new Map(payments.map((p) => [p.id, String(p.description)]));
    let created = 0;
    let lost = 0;
    let wrongReplays = 0;
    let gaveUp = 0;
    const other: Record<number, number> = {};
    finals.forEach((answer, i) => {
      if (answer instanceof Error || answer.status !== 201) {
        if (answer instanceof Error || answer.status >= 500) gaveUp += 1;
        else other[answer.status] = (other[answer.status] ?? 0) + 1;
        return;
      }
      created += 1;
      const holder = byId.get(answer.body?.id ?? 0);
      if (holder === undefined) lost += 1;
      else if (holder !== description(i)) wrongReplays += 1;
    });
    // Every acknowledged key sent again, as a client that never saw its answer would.
    let goneReplays = 0;
    // A replay answered neither with its result nor as gone measured nothing (inconclusive is not a pass).
    const unansweredReplays: string[] = [];
    phase = 'replays';
    await test.step(`every acknowledged key sent again (${created})`, async () => {
      for (let i = 0; i < finals.length; i += 1) {
        const first = finals[i];
        if (first instanceof Error || first?.status !== 201) continue;
        const again = await pay(i);
        if (again.status === 409 && String((again.body as { type?: string } | undefined)?.type).endsWith('idempotency-result-gone')) goneReplays += 1;
        else if (again.status !== 201) unansweredReplays.push(`key-${i}: ${again.status}`);
        else if (byId.get(again.body?.id ?? 0) !== description(i)) wrongReplays += 1;
      }
    });
    const duplicated = [...byKey.values()].filter((ids) => ids.length > 1).length;
    const fiveXxWindowMs = fiveXx.length === 0 ? 0 : Math.max(...fiveXx) - Math.min(...fiveXx);
    const replayErrors = [...logged].filter(([line]) => line.startsWith('replays')).map(([line, n]) => `${line}: ${n}`);
    const counts = { lost, duplicated, wrongReplays, goneReplays, unansweredReplays, replayErrors, gaveUp, other, fiveXx: fiveXx.length, fiveXxWindowMs };
    const row = { run: name, keys: count, created, stored: byKey.size, ...counts };
    rows.push(row);
    return row;
  } finally {
    stalled?.disconnect();
    await Promise.allSettled(servers.map((s) => s.close()));
    await Promise.allSettled(stores.map((s) => s.close()));
    await check.close();
    await nodes.deleteKeys(keyPrefix).catch(() => undefined);
  }
}

test.describe('a primary killed under keyed load, on a local cluster with replicas', () => {
  test.beforeEach(() => {
    test.skip(skipReason !== undefined, skipReason);
  });

  // D-STORE-DURABILITY: after a failover an instance's slot map may still name a node that no longer serves the slot.
  // The script's MOVED and the WAIT's own answer differ, so ioredis does not follow the redirection of the pipeline;
  // the store does, with a fresh map, and the write is not refused.
  // D-STORE-DURABILITY: a WAIT a node does not answer in time (seen after a failover: for minutes) wedges the
  // connection, as Redis answers in order. The store drops that connection, so the next write gets a fresh one.
  test('a WAIT that outlives the command timeout does not wedge the connection: the next durable write succeeds', async () => {
    const nodes = cluster!;
    const keyPrefix = uniqueKeyPrefix('test', 'wedged-wait');
    const key = `${keyPrefix}{res}:probe`;
    const base = connectRedis({ url: '', cluster: nodes.nodes, commandTimeoutMs: 500 });
    const durable = withReplicaWaits(base, DURABILITY);
    // Five replicas for 3 s: no primary has them, so its WAIT blocks the connection past the 500 ms command timeout.
    const blocking = withReplicaWaits(base, { replicas: 5, timeoutMs: 3000 });
    const increment = lua("return redis.call('INCR', KEYS[1])");
    try {
      const first = await firstDurableWrite(() => durable.script(increment, [key], []));
      await expect(blocking.script(increment, [key], [])).rejects.toThrow(/timed out/);
      const started = performance.now();
      // The blocked script's INCR ran too (only its WAIT timed out).
      await expect(durable.script(increment, [key], [])).resolves.toBe(first + 2);
      expect(performance.now() - started, 'answered at once, not behind the blocked WAIT').toBeLessThan(500);
    } finally {
      await base.close();
      await nodes.deleteKeys(keyPrefix).catch(() => undefined);
    }
  });

  test('a durable write whose slot map went stale (another primary named for its slot) follows the redirection', async () => {
    const nodes = cluster!;
    const keyPrefix = uniqueKeyPrefix('test', 'stale-slots');
    const key = `${keyPrefix}{res}:probe`;
    const connection = withReplicaWaits(connectRedis({ url: '', cluster: nodes.nodes, commandTimeoutMs: 1000 }), DURABILITY);
    const increment = lua("return redis.call('INCR', KEYS[1])");
    try {
      const first = await firstDurableWrite(() => connection.script(increment, [key], []));
      const client = connection.client as Cluster;
      const slot = Number(await client.call('CLUSTER', 'KEYSLOT', key));
      const owner = nodes.nodes[await nodes.primaryOf(key)];
      const stale = client.nodes('master').map((n) => `${n.options.host}:${n.options.port}`).find((node) => node !== owner);
      if (stale === undefined) throw new Error('the cluster has one primary');
      client.slots[slot] = [stale];
      await expect(connection.script(increment, [key], [])).resolves.toBe(first + 1);
      expect(client.slots[slot]?.[0], 'the map names the owner again').toBe(owner);
    } finally {
      await connection.close();
      await nodes.deleteKeys(keyPrefix).catch(() => undefined);
    }
  });

  // Each run has its own test and bound: about 40 s measured at load average 30 on 2 cores (3 s of load, the
  // failover, the killed node's restart and resync, the replays). The two durable runs, then one test, once
  // ran past their shared 240 s bound inside a full npm test at load 12-15 (the first had ended); each step
  // is named, so a run cut by its bound shows which step it was in.
  test('durability off, normal failover: nothing acknowledged is lost, duplicated or replayed wrongly', async () => {
    test.setTimeout(240_000);
    const normal = await run(cluster!, false, false);
    expect(normal.created).toBeGreaterThan(0);
    expect([normal.lost, normal.duplicated, normal.wrongReplays]).toEqual([0, 0, 0]);
    expect(normal.unansweredReplays, `every replay is answered 201 or 409 gone; logged: ${normal.replayErrors.join('; ')}`).toEqual([]);
  });

  test('durability off, a replica 1.5 s behind: what was acknowledged meanwhile is lost, and its key is refused, never replayed wrongly', async () => {
    test.setTimeout(240_000);
    const lagging = await run(cluster!, false, true);
    // The loss the README describes: payments answered 201 during the lag are gone after the failover.
    expect(lagging.lost).toBeGreaterThan(0);
    // Ids carry the clock (D-IDS) and replays are checked (D-IDEMPOTENCY): a lost payment's key is refused, never given another's.
    expect([lagging.duplicated, lagging.wrongReplays]).toEqual([0, 0]);
    expect(lagging.goneReplays).toBe(lagging.lost);
    expect(lagging.unansweredReplays, `every replay is answered 201 or 409 gone; logged: ${lagging.replayErrors.join('; ')}`).toEqual([]);
  });

  for (const lagging of [false, true]) {
    const how = lagging ? 'a replica 1.5 s behind' : 'normal failover';
    test(`durability on (1 replica, 100 ms), ${how}: nothing acknowledged is lost, duplicated or replayed wrongly`, async () => {
      // A bound only stops a hang: the lagging run passed 240 s in 1 of 3 fresh-clone runs on 2026-12-02 (and 2 of 4 the day
      // before), inside "every acknowledged key sent again" (125 replays one after another, each durable write's 100 ms replica
      // wait missed now and then under load, each miss a 503 and a 1 s Retry-After); 13-21 s when the machine is quiet.
      test.setTimeout(480_000);
      const row = await run(cluster!, true, lagging);
      expect(row.created, row.run).toBeGreaterThan(0);
      expect([row.lost, row.duplicated, row.wrongReplays, row.goneReplays], row.run).toEqual([0, 0, 0, 0]);
      expect(row.unansweredReplays, `${row.run}: every replay is answered 201; logged: ${row.replayErrors.join('; ')}`).toEqual([]);
    });
  }
});
