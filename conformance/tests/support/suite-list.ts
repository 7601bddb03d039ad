/**
 * The tests of the conformance suite as Playwright lists them (`playwright test --list
 * --reporter=json -c conformance/playwright.config.ts`): each with its tags and the requirement
 * IDs it declares. Listing loads every spec file, so a file that fails to load is reported too.
 */
import { join } from 'node:path';
import { REQUIREMENT_ID } from '../../../spec/catalogue.ts';
import { PACKAGE_ROOT, PLAYWRIGHT, runNode } from './subprocess.ts';

export interface ListedTest {
  title: string;
  file: string;
  line: number;
  tags: string[];
  /** What Playwright matches `--grep` against: the titles of its file and describe blocks, its own, and its tags. */
  grepTitle: string;
  /** Union of both forms. */
  requirementIds: string[];
  /** IDs declared by `@ID` tags and by `requirement` annotations, separately. */
  taggedIds: string[];
  annotatedIds: string[];
  /** The projects the test is listed in (a run's projects: conformance/playwright.config.ts). */
  projects: string[];
}

interface JsonSpec {
  title: string;
  file: string;
  line: number;
  tags: string[];
  tests: { projectName: string; annotations: { type: string; description?: string }[] }[];
}

interface JsonSuite {
  title: string;
  specs?: JsonSpec[];
  suites?: JsonSuite[];
}

function collect(suite: JsonSuite, into: ListedTest[], parents: string[] = []): void {
  const path = [...parents, suite.title];
  for (const spec of suite.specs ?? []) {
    const tagged = spec.tags.filter((t) => REQUIREMENT_ID.test(t));
    const annotated = new Set<string>();
    for (const t of spec.tests) for (const a of t.annotations) if (a.type === 'requirement' && a.description) annotated.add(a.description);
    into.push({
      title: spec.title,
      file: spec.file,
      line: spec.line,
      tags: spec.tags.map((t) => `@${t}`),
      grepTitle: [...path, spec.title, ...spec.tags.map((t) => `@${t}`)].join(' '),
      requirementIds: [...new Set([...tagged, ...annotated])],
      taggedIds: tagged,
      annotatedIds: [...annotated],
      projects: spec.tests.map((t) => t.projectName),
    });
  }
  for (const child of suite.suites ?? []) collect(child, into, path);
}

/** Lists the suite as a run with `env` would run it (by default no shared target); `errors` holds the load errors Playwright reported. */
export async function listSuite(env: Record<string, string | undefined> = {}): Promise<{ tests: ListedTest[]; errors: string[] }> {
  const run = await runNode(
    [PLAYWRIGHT, 'test', '--list', '--reporter=json', '-c', join(PACKAGE_ROOT, 'conformance', 'playwright.config.ts')],
    { HAC_PROFILE: undefined, ...env },
    60_000,
  );
  let report: { suites: JsonSuite[]; errors?: { message?: string }[] };
  try {
    report = JSON.parse(run.stdout) as typeof report;
  } catch {
    return { tests: [], errors: [`playwright --list gave no JSON (exit ${run.code}): ${run.stderr.slice(0, 500)}`] };
  }
  const tests: ListedTest[] = [];
  for (const suite of report.suites) collect(suite, tests);
  return { tests, errors: (report.errors ?? []).map((e) => e.message ?? 'unknown error') };
}
