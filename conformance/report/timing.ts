/**
 * Where a run's time went (D-RUN-TIMING), from the tests Playwright ran: per group of checks (a spec
 * file of the suite) the checks run, their summed duration and the group's wall time; and the longest
 * wait for the target that a check noted (conformance/transport/waits.ts).
 */
import { basename } from 'node:path';
import type { TestCase } from '@playwright/test/reporter';
import type { RunTiming } from '../../spec/results.ts';
import { WAIT_ANNOTATION } from '../transport/waits.ts';

/** `rate-limit` for conformance/suite/rate-limit.spec.ts. */
function groupOf(test: TestCase): string {
  return basename(test.location.file).replace(/\.spec\.[cm]?[jt]s$/, '');
}

export function runTiming(tests: readonly TestCase[]): RunTiming {
  const groups = new Map<string, { tests: number; testMs: number; start: number; end: number }>();
  let longestWait: RunTiming['longestWait'];
  for (const test of tests) {
    const result = test.results.at(-1);
    if (!result || result.status === 'skipped') continue;
    const start = result.startTime.getTime();
    const name = groupOf(test);
    const group = groups.get(name) ?? { tests: 0, testMs: 0, start, end: start };
    group.tests += 1;
    group.testMs += result.duration;
    group.start = Math.min(group.start, start);
    group.end = Math.max(group.end, start + result.duration);
    groups.set(name, group);
    for (const annotation of result.annotations) {
      if (annotation.type !== WAIT_ANNOTATION || !annotation.description) continue;
      const [ms, ...why] = annotation.description.split(' ');
      const waited = Number(ms);
      if (Number.isFinite(waited) && waited > (longestWait?.ms ?? -1)) longestWait = { ms: waited, why: why.join(' '), test: test.title };
    }
  }
  return {
    groups: [...groups.entries()]
      .map(([group, g]) => ({ group, tests: g.tests, testMs: Math.round(g.testMs), wallMs: Math.round(g.end - g.start) }))
      .sort((a, b) => b.wallMs - a.wallMs),
    ...(longestWait ? { longestWait } : {}),
  };
}
