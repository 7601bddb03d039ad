/**
 * How a run's checks share its workers: conformance/playwright.config.ts makes a Playwright project
 * of each group below, with the workers this module gives it. Playwright hands out tests in project
 * order and moves on to the next project when one is at its worker limit; a worker serves one
 * project, so a worker that has run out of its project's checks is replaced by a new one (about 1.3 s
 * of CPU on this machine's 2 cores).
 *
 * The rate-limit checks come first: they are the longest of the run (they wait for buckets to refill,
 * up to capacity / rate seconds each) and mostly wait, so they start at once on their own workers
 * while the quick checks take the others. Each holds one token of the profile's pool
 * (rate-limit-fixtures.ts, a lock shared by all workers). How many workers they take:
 * - one token on a shared target: one, so the checks run one after another instead of workers
 *   queueing for the same lock;
 * - the whole suite: all workers but one (the rate-limit group is about half the run's test time);
 * - a selection of the rate-limit group or of its requirements: all workers, there is nothing else;
 * - any other selection that holds rate-limit checks (`@smoke` holds two): one per selected check, at
 *   most all workers but one, and the quick checks get the other workers only, so the rate-limit
 *   checks wait side by side (each mostly waits out a Retry-After) and no worker is replaced mid-run;
 * - any other selection: the quick checks take every worker (one is left to the rate-limit project,
 *   which has nothing to run).
 * How many rate-limit checks a selection holds is read from the `req(...)` tags of the rate-limit
 * spec (suite-declarations.ts) before Playwright lists the tests.
 *
 * A whole run on a target that shares this machine, with the workers the CLI chose for it (3:
 * loopback base URLs or the embedded server, cli/run/workers.ts; HAC_KEEP_WORKERS), keeps the quick
 * checks to the workers the rate-limit checks leave: the run is bound by the cores it shares with
 * its target, and the workers that replaced the rate-limit workers cost more CPU than their help
 * saved. The embedded run, 3 alternating runs each on 2 cores, load 1.6-2.2: 15.7-19.4 s and
 * 21.8-27.6 CPU-s with the replacements (5 workers), 13.2-17.2 s and 17.2-22.5 CPU-s without (3
 * workers), every requirement with the same outcome. A target elsewhere is bound by round trips, not cores: there the freed
 * workers are worth their start (the same run behind a 50 ms latency proxy with the quick checks kept
 * to one worker took 81-84 s), and so they are where the user chose the workers (a latency proxy on
 * this machine stands for a target elsewhere).
 *
 * A whole run on a shared target elsewhere with five workers or more (it gets six by default) has a
 * third group between the two, the state check's model-based sequences (state.spec), on a worker of
 * their own from the start, while the rate-limit checks take all workers but two: where every answer
 * takes a round trip they are the longest quick check, and among the quick checks they started when
 * the other files' checks had been handed out (Playwright hands out a project's checks in file order)
 * and ended the run. Behind a 50 ms latency proxy, 6 workers: 35.1-40.3 s without the group (6 runs;
 * the sequences ran 13 s from 24 s to 37 s of one), 29.0-31.8 s with it (7 runs), 2 cores, load 1-2.6.
 */
import { selectedChecks } from './suite-declarations.ts';
import type { SpecDeclarations } from './suite-declarations.ts';

/**
 * A target's selection and rate-limit tokens, whether it shares one target between workers (a
 * profile), and whether no worker may be replaced mid-run (a target on this machine).
 */
export interface Selection {
  grep?: string;
  rateLimitTokens?: number;
  shared: boolean;
  keepWorkers?: boolean;
}

/** Workers of the rate-limit checks, the quick checks' limit where they have one, and whether the state sequences get their own. */
export interface Schedule {
  rateLimit: number;
  suite?: number;
  sequences?: true;
}

/** The fewest workers with which a whole run on a shared target elsewhere gives the state sequences a worker of their own. */
export const SEQUENCES_FROM_WORKERS = 5;

/** The schedule of `selection` on `workers` workers; `rateLimitSpec` holds the rate-limit spec's declarations. */
export function scheduling(selection: Selection, workers: number, rateLimitSpec: SpecDeclarations | undefined): Schedule {
  const { grep, rateLimitTokens, shared, keepWorkers } = selection;
  const oneToken = shared && (rateLimitTokens ?? 1) < 2;
  if (grep === undefined) {
    const rateLimit = oneToken ? 1 : Math.max(1, workers - 1);
    if (keepWorkers) return { rateLimit, suite: Math.max(1, workers - rateLimit) };
    if (!oneToken && shared && workers >= SEQUENCES_FROM_WORKERS) {
      return { rateLimit: Math.min(workers - 2, rateLimitTokens ?? workers - 2), sequences: true };
    }
    return { rateLimit };
  }
  if (oneToken) return { rateLimit: 1 };
  if (/rate-limit/i.test(grep)) return { rateLimit: workers };
  const selected = rateLimitSpec && selectedChecks(rateLimitSpec, grep);
  if (!selected || workers < 2) return { rateLimit: 1 };
  const rateLimit = Math.min(selected, workers - 1, rateLimitTokens ?? selected);
  return { rateLimit, suite: workers - rateLimit };
}
