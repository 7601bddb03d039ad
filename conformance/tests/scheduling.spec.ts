/**
 * How a run's checks share its workers (conformance/scheduling.ts): the rate-limit checks first, the
 * quick checks kept to what they leave where the run is bound by the cores it shares with its target,
 * and the state sequences on their own worker where it is bound by round trips.
 */
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { scheduling } from '../scheduling.ts';
import { suiteDeclarations } from '../suite-declarations.ts';
import { PACKAGE_ROOT } from './support/subprocess.ts';

const rateLimitSpec = suiteDeclarations(join(PACKAGE_ROOT, 'conformance', 'suite'), '.ts').find((d) => d.file === 'rate-limit.spec.ts');
const elsewhere = { shared: true, rateLimitTokens: 8 };
const local = { ...elsewhere, keepWorkers: true };

test('a whole run on this machine replaces no worker: the quick checks keep to the workers the rate-limit checks leave', () => {
  expect(scheduling(local, 3, rateLimitSpec)).toEqual({ rateLimit: 2, suite: 1 });
  expect(scheduling(local, 2, rateLimitSpec)).toEqual({ rateLimit: 1, suite: 1 });
  expect(scheduling(local, 1, rateLimitSpec)).toEqual({ rateLimit: 1, suite: 1 });
  expect(scheduling(local, 6, rateLimitSpec)).toEqual({ rateLimit: 5, suite: 1 });
  // One token: its checks go one after another on one worker, the quick checks take the rest.
  expect(scheduling({ ...local, rateLimitTokens: 1 }, 3, rateLimitSpec)).toEqual({ rateLimit: 1, suite: 2 });
});

test('a whole run on a target elsewhere lets the quick checks take the workers the rate-limit checks free, and starts the state sequences on their own', () => {
  expect(scheduling(elsewhere, 3, rateLimitSpec)).toEqual({ rateLimit: 2 });
  expect(scheduling(elsewhere, 4, rateLimitSpec)).toEqual({ rateLimit: 3 });
  expect(scheduling(elsewhere, 6, rateLimitSpec)).toEqual({ rateLimit: 4, sequences: true });
  // No more rate-limit workers than tokens: the others would queue for the lock.
  expect(scheduling({ ...elsewhere, rateLimitTokens: 2 }, 6, rateLimitSpec)).toEqual({ rateLimit: 2, sequences: true });
  expect(scheduling({ ...elsewhere, rateLimitTokens: 1 }, 6, rateLimitSpec)).toEqual({ rateLimit: 1 });
  // Without a shared target every worker has its own server: no pool, no sequences project.
  expect(scheduling({ shared: false }, 6, rateLimitSpec)).toEqual({ rateLimit: 5 });
});

test('a selection takes the workers its rate-limit checks need and leaves the rest to its quick checks, wherever the target is', () => {
  for (const selection of [local, elsewhere]) {
    expect(scheduling({ ...selection, grep: '@rate-limit' }, 3, rateLimitSpec)).toEqual({ rateLimit: 3 });
    expect(scheduling({ ...selection, grep: 'RATE-LIMIT-429' }, 3, rateLimitSpec)).toEqual({ rateLimit: 3 });
    // IDEMPOTENCY-429-NOT-STORED is one check of the rate-limit spec: one worker for it, the others for the rest.
    expect(scheduling({ ...selection, grep: 'IDEMPOTENCY-429-NOT-STORED' }, 3, rateLimitSpec)).toEqual({ rateLimit: 1, suite: 2 });
    expect(scheduling({ ...selection, grep: '@smoke' }, 3, rateLimitSpec)).toEqual({ rateLimit: 2, suite: 1 });
    // No rate-limit check selected: the quick checks take every worker (the rate-limit project has nothing to run).
    expect(scheduling({ ...selection, grep: 'AUTH-401-MISSING' }, 3, rateLimitSpec)).toEqual({ rateLimit: 1 });
  }
});
