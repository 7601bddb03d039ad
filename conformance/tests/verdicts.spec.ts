/**
 * Verdicts a team can act on, end to end through the CLI against broken variants:
 * - D-FINDINGS: a server whose body parser ignores the Content-Type (media-type-ignored) breaks one
 *   decision that several checks use; the run reports ONE finding, caused by STATUS-415-MEDIA-TYPE,
 *   listing the requirements it breaks, each failure's recorded exchange being the one its headline
 *   names; the exit code still comes from the MUST outcomes.
 * - D-HAR: `--har FILE` of that run is valid HAR 1.2 (a schema of the format's required members,
 *   support/har-1.2.schema.json), carries the failing exchanges marked FAILED with their requirement
 *   IDs, and no token unless `--har-secrets`.
 * - D-EXPECTED-FAILURES: `--write-expected-failures` writes the baseline of that run; with it the run
 *   exits 0 listing the known failures; with one entry removed it exits 1; against the unmodified
 *   reference server it exits 1 "passes now", and 0 with `--allow-fixed`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { test, expect } from '@playwright/test';
import type Ajv2020Module from 'ajv/dist/2020.js';
import type addFormatsModule from 'ajv-formats';
import { VARIANTS } from '../../fixtures/broken/index.ts';
import { REFERENCE, startVariant } from '../../fixtures/broken/start.ts';
import type { RunningVariant } from '../../fixtures/broken/start.ts';
import { evidenceProblems } from '../../fixtures/broken/evidence.ts';
import { readResults } from '../../spec/results.ts';
import type { RunResults } from '../../spec/results.ts';
import type { Har } from '../transport/har.ts';
import { readExpectedFailures } from '../report/expected-failures.ts';
import { compiledCli, runNode, tempOut } from './support/subprocess.ts';

const require = createRequire(import.meta.url);
const Ajv2020 = (require('ajv/dist/2020.js') as typeof Ajv2020Module).default;
const addFormats = (require('ajv-formats') as typeof addFormatsModule).default;

const CAUSE = 'STATUS-415-MEDIA-TYPE';
/** Checks that replay the text/plain provocation among every error they provoke. */
const CONSEQUENCES = ['PROBLEM-CONTENT-TYPE', 'PROBLEM-STATUS-MATCHES', 'STATUS-4XX-CLIENT-FAULT'];
const GREP = [CAUSE, ...CONSEQUENCES].map((id) => `@${id}(?![A-Za-z0-9-])`).join('|');
/** One CLI run: the selection is 4 tests on one worker; 120 s bounds it on a loaded machine. */
const RUN_MS = 120_000;

test.describe.configure({ mode: 'serial', timeout: 4 * RUN_MS });

let broken: RunningVariant;
let out: string;
let first: { code: number | null; stdout: string; results: RunResults };

async function run(variant: RunningVariant, name: string, extra: string[]): Promise<{ code: number | null; stdout: string; results: RunResults }> {
  const profile = join(out, `${name}-profile.json`);
  writeFileSync(profile, `${JSON.stringify(variant.profile, null, 2)}\n`);
  const dir = join(out, name);
  const finished = await runNode([compiledCli(), 'run', '--profile', profile, '--grep', GREP, '--out', dir, ...extra], { HAC_WORKERS: '1' }, RUN_MS);
  return { code: finished.code, stdout: `${finished.stdout}\n${finished.stderr}`, results: readResults(join(dir, 'results.json')) };
}

test.beforeAll(async () => {
  // The hook runs the first CLI run: it gets that run's bound, not the project's default.
  test.setTimeout(RUN_MS + 30_000);
  const variant = VARIANTS.find((v) => v.name === 'media-type-ignored');
  if (!variant) throw new Error('no broken variant named media-type-ignored');
  out = tempOut('verdicts');
  broken = await startVariant(variant);
  first = await run(broken, 'first', ['--har', join(out, 'run.har'), '--write-expected-failures', join(out, 'expected.json')]);
});

test.afterAll(async () => {
  await broken?.close();
});

test('one defect used by several checks is one finding naming its cause and the requirements it breaks', async () => {
  const { results, code, stdout } = first;
  expect(code, stdout).toBe(1);
  expect(results.exitCode).toBe(1);
  const failed = results.requirements.filter((r) => r.outcome === 'failed').map((r) => r.id).sort();
  expect(failed).toEqual([CAUSE, ...CONSEQUENCES].sort());
  expect(results.findings, 'one finding for the one defect').toHaveLength(1);
  const finding = results.findings?.[0];
  expect(finding?.cause).toBe(CAUSE);
  expect([...(finding?.breaks ?? [])].sort()).toEqual([CAUSE, ...CONSEQUENCES].sort());
  expect(finding?.headline).toMatch(/^POST \/\S+ with Content-Type: text\/plain → 2\d\d; expected/);
  for (const id of CONSEQUENCES) {
    const r = results.requirements.find((x) => x.id === id);
    expect(r?.consequenceOf, id).toBe(CAUSE);
    const failing = r?.tests.find((t) => t.status === 'failed');
    expect(failing?.headline ?? '', id).toMatch(/^POST \/\S+ with Content-Type: text\/plain → 2\d\d; expected a 4xx \(STATUS-415-MEDIA-TYPE\); .* fails as a consequence$/);
    // The raw assertion text stays in the details.
    expect(failing?.error, id).toBeTruthy();
  }
  expect(evidenceProblems(results), 'each failure records the exchange its headline names').toEqual([]);
  // The console lists the finding before the per-requirement table.
  const findingsAt = stdout.indexOf('findings: 1 defect(s) behind 4');
  expect(findingsAt, stdout).toBeGreaterThan(-1);
  expect(findingsAt).toBeLessThan(stdout.indexOf('requirement  '));
  expect(stdout).toContain(`breaks ${CAUSE}, and as a consequence`);
});

test('the HAR of the run is valid HAR 1.2, holds the failing exchanges and masks the token', () => {
  const text = readFileSync(join(out, 'run.har'), 'utf8');
  const har = JSON.parse(text) as Har;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(readFileSync(new URL('./support/har-1.2.schema.json', import.meta.url), 'utf8')) as object);
  expect(validate(har), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
  expect(har.log.entries.length).toBeGreaterThan(10);
  for (const entry of har.log.entries) expect(entry.comment).toMatch(/^(FAILED )?[A-Z][A-Z0-9-]+( [A-Z][A-Z0-9-]+)* · \S/);
  for (const r of first.results.requirements.filter((x) => x.outcome === 'failed')) {
    for (const t of r.tests.filter((x) => x.exchange)) {
      const marked = har.log.entries.filter((e) => e.comment.startsWith(`FAILED ${r.id} `));
      expect(marked, `${r.id}: one FAILED entry`).toHaveLength(1);
      expect(marked[0]?.request.method).toBe(t.exchange?.request.method);
      expect(marked[0]?.request.url).toBe(t.exchange?.request.url);
      expect(marked[0]?.response.status).toBe(t.exchange?.response?.status);
    }
  }
  expect(text).not.toContain(broken.profile.tokens.valid);
  expect(text).toContain('[masked: run --har-secrets to keep]');
});

test('--expected-failures: exit 0 with the known failures listed, 1 when one is removed, 1 "passes now" when one passes', async () => {
  const file = join(out, 'expected.json');
  const baseline = readExpectedFailures(file);
  expect(Object.keys(baseline.expectedFailures).sort()).toEqual([CAUSE, ...CONSEQUENCES].sort());
  expect(baseline.expectedFailures[CAUSE]?.reason).toMatch(/text\/plain/);

  const known = await run(broken, 'known', ['--expected-failures', file]);
  expect(known.code, known.stdout).toBe(0);
  expect(known.results.exitCode).toBe(0);
  expect(known.results.expectedFailures?.stillFailing.sort()).toEqual([CAUSE, ...CONSEQUENCES].sort());
  expect(known.results.requirements.find((r) => r.id === CAUSE)?.expected?.reason).toBe(baseline.expectedFailures[CAUSE]?.reason);
  expect(known.stdout).toContain('4 failed (4 expected)');
  const badge = readFileSync(join(out, 'known', 'badge.svg'), 'utf8');
  expect(badge).toMatch(/aria-label="conformance: \d+\/\d+ MUST · 4 expected"/);

  const fewer = join(out, 'fewer.json');
  const { [CONSEQUENCES[0] ?? '']: _removed, ...rest } = baseline.expectedFailures;
  writeFileSync(fewer, JSON.stringify({ expectedFailures: rest }));
  const unlisted = await run(broken, 'unlisted', ['--expected-failures', fewer]);
  expect(unlisted.code, unlisted.stdout).toBe(1);

  const reference = await startVariant(REFERENCE);
  try {
    const fixed = await run(reference, 'fixed', ['--expected-failures', file]);
    expect(fixed.code, fixed.stdout).toBe(1);
    expect(fixed.stdout).toContain(`FAIL: ${CAUSE} passes now: remove it from ${file}`);
    expect(fixed.results.expectedFailures?.passingNow.sort()).toEqual([CAUSE, ...CONSEQUENCES].sort());
    const allowed = await run(reference, 'allowed', ['--expected-failures', file, '--allow-fixed']);
    expect(allowed.code, allowed.stdout).toBe(0);
    expect(allowed.results.warnings?.join('\n')).toContain(`${CAUSE} passes now: remove it from ${file}`);
  } finally {
    await reference.close();
  }

  const bad = join(out, 'bad.json');
  writeFileSync(bad, JSON.stringify({ expectedFailures: { 'status 415': {} } }));
  const unusable = await run(broken, 'unusable', ['--expected-failures', bad]);
  expect(unusable.code).toBe(2);
  expect(unusable.stdout).toContain('does not match spec/schemas/expected-failures.schema.json');
});
