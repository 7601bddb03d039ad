/**
 * The one way a check of the suite is skipped (the rule: conformance/fixtures.ts's header). The
 * reason is what the report shows (results.json `reason`, report.html): it names what is lacking
 * and, when the profile lacks it, the profile member to set.
 */
import { _baseTest as base } from '@playwright/test';
import type { TestInfo } from '@playwright/test';

/**
 * Skips the check with `reason`; never returns, so `if (x === undefined) skipCheck(reason)` leaves
 * `x` defined after it. `testInfo` is the running check's; a callback that may still run after its
 * check ended (a probe's answer) passes the check's own, which it was given.
 */
export function skipCheck(reason: string, testInfo: TestInfo = base.info()): never {
  testInfo.skip(true, reason);
  throw new Error(`unreachable: the check is skipped (${reason})`);
}
