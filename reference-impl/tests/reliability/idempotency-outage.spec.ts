/**
 * Idempotency records around a store failure (spec/decisions.md D-IDEMPOTENCY):
 * the store fails at the worst moments of a POST with an Idempotency-Key — while the work writes,
 * or right after the work when the result is recorded — and a retry after recovery must return the
 * original result or run the work exactly once. The failure is injected by wrapping the memory
 * stores, so the moment is exact.
 */
import { expect, test } from '@playwright/test';
import { createMemoryStores } from '../../stores/memory/index.ts';
import { sequenced } from '../../stores/sequences.ts';
import { StoreUnavailableError, type Stores } from '../../stores/types.ts';
import { ALICE, type TestServer, client, startTestServer } from '../support/harness.ts';
import { pollUntil } from './support/timed.ts';

interface Faults {
  /** Fail the next `complete` (the result record) once. */
  failComplete: boolean;
  /** Fail the next resource write once (the work itself). */
  failPut: boolean;
  /** While true, `release` fails too (the store is still down when the claim would be freed). */
  storeDown: boolean;
}

function faultyStores(faults: Faults): Stores {
  const inner = createMemoryStores();
  const down = (what: string): StoreUnavailableError => new StoreUnavailableError(`injected: ${what}`);
  return sequenced({
    ...inner,
    idempotency: {
      claim: (...args) => inner.idempotency.claim(...args),
      async complete(...args) {
        if (faults.failComplete) {
          faults.failComplete = false;
          faults.storeDown = true;
          throw down('complete');
        }
        return inner.idempotency.complete(...args);
      },
      async release(...args) {
        if (faults.storeDown) throw down('release');
        return inner.idempotency.release(...args);
      },
    },
    resources: {
      ...inner.resources,
      nextId: (kind) => inner.resources.nextId(kind),
      reserveIds: (kind, upTo) => inner.resources.reserveIds(kind, upTo),
      get: (kind, id) => inner.resources.get(kind, id),
      list: (kind) => inner.resources.list(kind),
      delete: (kind, id) => inner.resources.delete(kind, id),
      update: (kind, id, change) => inner.resources.update(kind, id, change),
      async put(kind, resource) {
        if (faults.failPut && kind === 'payments') {
          faults.failPut = false;
          faults.storeDown = true;
          throw down('put');
        }
        return inner.resources.put(kind, resource);
      },
    },
  });
}

const LOCK_SECONDS = 1;
let server: TestServer;
const faults: Faults = { failComplete: false, failPut: false, storeDown: false };

test.beforeAll(async () => {
  server = await startTestServer({ idempotency: { ttlSeconds: 600, lockSeconds: LOCK_SECONDS } }, faultyStores(faults));
});

test.afterAll(async () => {
  await server?.close();
});

async function countPayments(amount: number): Promise<number> {
  const list = await client(server.url).get('/payments?limit=100', { token: ALICE });
  return (list.json.items as { amount: number }[]).filter((payment) => payment.amount === amount).length;
}

async function retryAfterRecovery(key: string, body: unknown): Promise<{ status: number; json: unknown; replayed: string | null }> {
  faults.storeDown = false;
  const api = client(server.url);
  const settled = await pollUntil(
    () => api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } }),
    (reply) => reply.status !== 409,
    { everyMs: 250, limitMs: (LOCK_SECONDS + 3) * 1000 },
  );
  return { status: settled.value.status, json: settled.value.json, replayed: settled.value.headers.get('idempotent-replayed') };
}

test('the store failing during the work: 503, and the retry after recovery runs the work once', async () => {
  const key = `put-${Date.now()}`;
  const body = { amount: 5151, currency: 'usd' };
  faults.failPut = true;
  const failed = await client(server.url).post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(failed.status).toBe(503);
  const retried = await retryAfterRecovery(key, body);
  expect(retried.status).toBe(201);
  expect(await countPayments(body.amount)).toBe(1);
});

test('the store failing right after the work, before the result is recorded: the retry never repeats the payment', async () => {
  const key = `complete-${Date.now()}`;
  const body = { amount: 6262, currency: 'usd' };
  faults.failComplete = true;
  const failed = await client(server.url).post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(failed.status).toBe(503);
  expect(await countPayments(body.amount), 'the work ran before the store failed').toBe(1);
  const retried = await retryAfterRecovery(key, body);
  expect([200, 201]).toContain(retried.status);
  expect(await countPayments(body.amount), 'payments made for one Idempotency-Key').toBe(1);
});
