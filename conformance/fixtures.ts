/**
 * The suite's fixtures. `profile` (worker-scoped): the target profile of HAC_PROFILE, or, when it is
 * unset, the embedded reference server started for this worker. `target`: helpers over the profile's
 * first base URL. `multi`: a profile with two or more base URLs (the profile itself, or two embedded
 * instances on Redis when no HAC_PROFILE is given), or the reason why there is none. The embedded
 * target is imported only when needed, so a run against another target never loads the reference server.
 */
import { test as base } from '@playwright/test';
import { sharedRedisUrl } from '../reference-impl/redis-admin.ts';
import { runEnvironment } from './run-environment.ts';
import { loadProfile } from './target/profile.ts';
import type { TargetProfile } from './target/profile.ts';
import { Target } from './support/target.ts';
import { tcpAnswers } from './support/tcp.ts';
import { clearExchanges, evidenceAttachment } from './support/exchange-log.ts';

export { expect } from '@playwright/test';

export type MultiTarget = { profile: TargetProfile; skip?: undefined } | { profile?: undefined; skip: string };

interface TestFixtures {
  /** Automatic: a failing test attaches the request that shows the failure and its response (report.html shows it). */
  evidence: void;
}

interface WorkerFixtures {
  profile: TargetProfile;
  target: Target;
  multi: MultiTarget;
}

/** Property run count: HAC_RUNS, else the profile's `runs.properties`, else 25. */
export function propertyRuns(profile: TargetProfile): number {
  return runEnvironment().propertyRuns ?? profile.runs?.properties ?? 25;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  evidence: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture arguments from the pattern
    async ({}, use, testInfo) => {
      clearExchanges();
      await use();
      const failed = testInfo.status !== testInfo.expectedStatus && testInfo.status !== 'skipped';
      const attachment = failed ? evidenceAttachment(testInfo.errors.map((error) => error.message ?? error.value ?? '').join('\n')) : undefined;
      if (attachment) await testInfo.attach(attachment.name, { body: attachment.body, contentType: attachment.contentType });
    },
    { auto: true },
  ],
  profile: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture arguments from the pattern
    async ({}, use) => {
      const file = runEnvironment().profile;
      if (file) {
        await use(loadProfile(file));
        return;
      }
      const { startEmbeddedTarget } = await import('./target/embedded.ts');
      const embedded = await startEmbeddedTarget({ instances: 1, store: 'memory' });
      try {
        await use(embedded.profile);
      } finally {
        await embedded.close();
      }
    },
    { scope: 'worker' },
  ],
  target: [
    async ({ profile }, use) => {
      await use(new Target(profile));
    },
    { scope: 'worker' },
  ],
  multi: [
    async ({ profile }, use) => {
      if (profile.baseUrls.length >= 2) {
        await use({ profile });
        return;
      }
      if (runEnvironment().profile) {
        await use({ skip: 'the profile lists one base URL; list two or more instances of the target to check statelessness' });
        return;
      }
      const redisUrl = new URL(sharedRedisUrl());
      if (!(await tcpAnswers(redisUrl.hostname, Number(redisUrl.port || 6379)))) {
        await use({ skip: `Redis does not answer at ${redisUrl.host}: the two-instance embedded target needs it` });
        return;
      }
      const { startEmbeddedTarget } = await import('./target/embedded.ts');
      const embedded = await startEmbeddedTarget({ instances: 2, store: 'redis', redisUrl: redisUrl.toString() });
      try {
        await use({ profile: embedded.profile });
      } finally {
        await embedded.close();
      }
    },
    { scope: 'worker' },
  ],
});
