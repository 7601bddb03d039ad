/**
 * Memory stays bounded under hostile input: thousands of rejected requests
 * (malformed JSON, oversized bodies, long heads, unknown methods, bad tokens, idempotency keys on
 * failing requests) leave the heap of the in-process server where it was, measured after forced GC.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { type TestServer, startTestServer } from '../support/harness.ts';
import { badPercent, longHeader, oddToken, unknownMethod } from './support/hostile-http-inputs.ts';
import { type HostileRequest, deepJson, malformedJson, oversizedBody, wrongContentType } from './support/hostile-inputs.ts';
import { rawRequest } from './support/raw-http.ts';
import { Tally } from './support/verdict.ts';

const UNLIMITED = { capacity: 1_000_000, refillPerSecond: 1_000_000 };
const ROUNDS = 2_000;
const CONCURRENCY = 8;
/** Generous: the heap of a test worker moves by a few MB on its own; a leak of even 1 KiB per request would exceed it. */
const MAX_GROWTH_BYTES = 12 * 1024 * 1024;

function forceGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function settledHeap(gc: () => void): Promise<number> {
  for (let i = 0; i < 3; i += 1) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

let server: TestServer;

test.beforeAll(async () => {
  server = await startTestServer({ plans: { standard: UNLIMITED, small: UNLIMITED, anonymous: UNLIMITED } });
});

test.afterAll(async () => {
  await server?.close();
});

test('thousands of rejected hostile requests leave the heap bounded', async () => {
  test.setTimeout(90_000);
  const rejected = fc
    .oneof(malformedJson, wrongContentType, oversizedBody, deepJson, longHeader, unknownMethod, oddToken, badPercent)
    .filter((input: HostileRequest) => !input.allowSuccess);
  const inputs = fc.sample(rejected, { numRuns: 400, seed: 8 });
  const gc = forceGc();
  const tally = new Tally();
  const send = async (count: number): Promise<void> => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < count) {
          const input = inputs[next % inputs.length] as HostileRequest;
          next += 1;
          const head = input.bytes.subarray(0, 5).toString('latin1') === 'HEAD ';
          tally.record(input.label, await rawRequest(server.port, input.bytes, { timeoutMs: 5000, head }), { head });
        }
      }),
    );
  };
  await send(500);
  const before = await settledHeap(gc);
  const started = performance.now();
  await send(ROUNDS);
  const after = await settledHeap(gc);
  const growth = after - before;
  console.log(
    `[memory] ${ROUNDS} hostile requests in ${Math.round(performance.now() - started)} ms: heapUsed ${(before / 1048576).toFixed(1)} → ` +
    `${(after / 1048576).toFixed(1)} MiB (growth ${(growth / 1024).toFixed(0)} KiB); ${tally.summary('memory')}`,
  );
  expect(tally.fiveHundreds).toBe(0);
  expect(tally.dropped).toBe(0);
  expect(tally.failures).toEqual([]);
  expect(growth).toBeLessThan(MAX_GROWTH_BYTES);
  expect(server.logged).toEqual([]);
});
