/**
 * Runs one family of hostile requests against a server with fast-check: every
 * answer is checked by `problemViolation`, counted in a Tally, and a failure is shrunk to the
 * smallest input that shows it.
 */
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { type TestServer, startTestServer } from '../../support/harness.ts';
import type { HostileRequest } from './hostile-inputs.ts';
import { rawRequest } from './raw-http.ts';
import { Tally } from './verdict.ts';

/** Sends `runs` inputs of `arbitrary` to 127.0.0.1:`port`; resolves with the tally (throws on the first violation). */
export async function runHostile(
  name: string,
  arbitrary: fc.Arbitrary<HostileRequest>,
  port: number,
  runs: number,
  tally: Tally = new Tally(),
): Promise<Tally> {
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (input) => {
      const head = input.bytes.subarray(0, 5).toString('latin1') === 'HEAD ';
      const response = await rawRequest(port, input.bytes, { timeoutMs: 5000, head });
      const violation = tally.record(`${name}: ${input.label}`, response, { allowSuccess: input.allowSuccess, head });
      if (violation !== undefined) throw new Error(`${input.label} → ${violation}: ${response.body.toString('utf8').slice(0, 300)}`);
    }),
    { numRuns: runs, interruptAfterTimeLimit: 20_000, markInterruptAsFailure: false },
  );
  if (details.failed) {
    const [input] = details.counterexample ?? [];
    const reason = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(`${name} failed (seed ${details.seed}, path ${details.counterexamplePath ?? '?'}), smallest input: ${input?.label ?? '?'}\n${reason}`);
  }
  return tally;
}

/** A plain request that must still succeed after a batch: the server keeps serving. */
export async function stillServing(port: number): Promise<number> {
  const response = await rawRequest(port, 'GET /users/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  return response.status;
}

/** One family of hostile inputs: its name, its generator and how many inputs to send. */
export type HostileFamily = [name: string, arbitrary: fc.Arbitrary<HostileRequest>, runs: number];

const UNLIMITED = { capacity: 1_000_000, refillPerSecond: 1_000_000 };

/**
 * For one spec file: starts a reference server whose plans never limit (so every answer is about the
 * input, not the rate), registers one test per family (every answer a 4xx problem document or an
 * allowed success, no 5xx, the server still serving and nothing logged), and returns the server for
 * the file's own tests.
 */
export function hostileFamilies(what: string, families: readonly HostileFamily[]): () => TestServer {
  let server: TestServer | undefined;
  test.beforeAll(async () => {
    server = await startTestServer({ plans: { standard: UNLIMITED, small: UNLIMITED, anonymous: UNLIMITED } });
  });
  test.afterAll(async () => {
    await server?.close();
  });
  const current = (): TestServer => {
    if (!server) throw new Error('the hostile-input server is not running');
    return server;
  };
  for (const [name, arbitrary, runs] of families) {
    test(`hostile ${what} (${name}) get 4xx problem documents and the server keeps serving`, async () => {
      const tally = await runHostile(name, arbitrary, current().port, runs);
      console.log(tally.summary(name));
      expect(tally.failures).toEqual([]);
      expect(tally.fiveHundreds).toBe(0);
      expect(await stillServing(current().port)).toBe(200);
      expect(current().logged).toEqual([]);
    });
  }
  return current;
}
