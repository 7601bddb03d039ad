import type { Cluster } from 'ioredis';
import keySlot from 'cluster-key-slot';
import { StoreUnavailableError } from '../types.ts';
import type { LuaScript, RedisClient, RedisConnection } from './connection.ts';

/**
 * D-STORE-DURABILITY: how many replicas must confirm a write, and how long to wait for them, before
 * an answer promises it (`store.durability`). Absent: answers do not wait (Redis's own asynchronous
 * replication; a failover can lose the last writes).
 */
export interface Durability {
  replicas: number;
  timeoutMs: number;
}

/**
 * A write that too few replicas confirmed in time. It is a StoreUnavailableError, so the answer is
 * 503 with Retry-After and no internals (D-STORE-DOWN); the write itself may survive on the primary,
 * so the retry with the same key finds it done (its marker) or, when a failover lost it, does it again.
 */
export class ReplicaWaitError extends StoreUnavailableError {
  constructor(
    readonly confirmed: number,
    readonly wanted: number,
  ) {
    super(`${confirmed} of ${wanted} Redis replicas confirmed the write in time`);
  }
}

type Replies = [Error | null, unknown][] | null;

/** The script's reply, after checking the WAIT reply that followed it in the same pipeline. */
function checked(replies: Replies, durability: Durability): unknown {
  if (replies === null || replies.length !== 2) throw new Error('unexpected reply from a script and its WAIT');
  const [[scriptError, reply], [waitError, confirmed]] = replies as [[Error | null, unknown], [Error | null, unknown]];
  if (scriptError) throw scriptError;
  if (waitError) throw waitError;
  if (Number(confirmed) < durability.replicas) throw new ReplicaWaitError(Number(confirmed), durability.replicas);
  return reply;
}

/**
 * Redirections a script's pipeline could not follow: MOVED or ASK (another node serves the slot) and
 * READONLY (the node is a replica now). ioredis follows a redirection only when every command of a
 * pipeline got the same one, and the WAIT beside the script gets a number or its own error, so a slot
 * map gone stale in a failover (the old primary, restarted as a replica) would refuse every durable
 * write of that slot until something else refreshed the map. The script did not run on that node.
 */
const REDIRECTED = /^(MOVED|ASK|READONLY)\b/;

/** Redirected scripts sent again after a slot-map refresh, at most (the refresh itself waits for the cluster). */
const REDIRECT_RETRIES = 2;

/** Refreshes the Cluster's slot map (ioredis calls back at once when a refresh is already under way), then waits a failover's beat. */
function refreshSlots(cluster: Cluster): Promise<void> {
  return new Promise<void>((resolve) => cluster.refreshSlotsCache(() => resolve())).then(() => new Promise((resolve) => setTimeout(resolve, 50)));
}

/**
 * Drops the connection to the node serving `key` after a script and its WAIT timed out there. A WAIT
 * that a node never answers (measured: after a failover, a node's `WAIT 1 100` at the head of its
 * command queue for minutes, 61 to 181 commands queued behind it) wedges that connection: Redis
 * answers in order, so every later command times out too. Dropped, the connection's pending commands
 * fail (503, retried by the client) and the next command opens a fresh one (D-STORE-DURABILITY).
 */
function dropWedged(cluster: Cluster, key: string | undefined): void {
  if (key === undefined) return;
  const serving = cluster.slots[keySlot(key)]?.[0];
  cluster.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === serving)?.disconnect();
}

/**
 * `connection` with every script (every write the stores make for an answer: the created resources,
 * the idempotency result, the bucket take) followed by `WAIT replicas timeoutMs` in the same pipeline,
 * so one round trip still carries it. On a Cluster the pipeline goes to the node of the script's keys
 * (one slot), so WAIT asks that primary's replicas. WAIT counts replicas that acknowledged every write
 * this connection made so far, which includes the script's own writes; a script that only reads
 * writes something when a replay depends on it (CREATE's marker, CLAIM's completed record), so an
 * earlier attempt's write made by another connection is confirmed too. Without durability the
 * connection is returned unchanged.
 * WAITAOF (Redis ≥ 7.2) would also confirm the replicas' fsync; WAIT is enough against the failover
 * this guards against (a promoted replica that missed writes) and works on every Redis ≥ 3.
 */
export function withReplicaWaits(connection: RedisConnection, durability: Durability | undefined): RedisConnection {
  if (durability === undefined) return connection;
  const { replicas, timeoutMs } = durability;
  const send = (c: RedisClient, script: LuaScript, keys: string[], args: (string | number)[], byHash: boolean): Promise<Replies> => {
    const pipeline = c.pipeline();
    if (byHash) pipeline.evalsha(script.sha, keys.length, ...keys, ...args);
    else pipeline.eval(script.source, keys.length, ...keys, ...args);
    return pipeline.wait(replicas, timeoutMs).exec();
  };
  return {
    ...connection,
    client: connection.client,
    clustered: connection.clustered,
    script(script, keys, args) {
      return connection.run(async (c) => {
        for (let attempt = 0; ; attempt += 1) {
          let replies = await send(c, script, keys, args, true);
          // Redis did not know the script yet: load it by EVAL (the WAIT then confirms that run).
          if (replies?.[0]?.[0]?.message.startsWith('NOSCRIPT')) replies = await send(c, script, keys, args, false);
          // A pipeline reports a command timeout in its replies, not as a rejection.
          if (connection.clustered && replies?.some(([error]) => error?.message === 'Command timed out')) dropWedged(c as Cluster, keys[0]);
          const scriptError = replies?.[0]?.[0];
          // D-STORE-DURABILITY: a redirection the pipeline could not follow is followed here, with a fresh slot map.
          if (connection.clustered && attempt < REDIRECT_RETRIES && scriptError && REDIRECTED.test(scriptError.message)) {
            await refreshSlots(c as Cluster);
            continue;
          }
          return checked(replies, durability);
        }
      });
    },
  };
}
