/**
 * report.html and badge.svg rendered from results written by hand (no run, no browser): the verdict
 * and badge for each kind of run, the catalogue and decisions joined to each requirement, and a
 * hostile response body shown as text, never as markup.
 */
import { createHash } from 'node:crypto';
import { test, expect } from '@playwright/test';
import { badgeColour, badgeMessage, badgeSvg } from '../report/badge.ts';
import { renderHtmlReport } from '../report/html-report.ts';
import { REPORT_JS } from '../report/html-assets.ts';
import { reportView } from '../report/report-view.ts';
import { summarize } from '../../spec/results.ts';
import type { RequirementResult, RunResults } from '../../spec/results.ts';

const HOSTILE = '<script>alert(1)</script><img src="https://example.invalid/x.png">';

function run(requirements: RequirementResult[], overrides: Partial<RunResults> = {}): RunResults {
  return {
    tool: 'http-api-conformance', version: '0.1.0', kind: 'server',
    target: { name: 'demo', baseUrls: ['http://127.0.0.1:3100'], profile: 'demo.json' },
    startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:10.000Z', durationMs: 10_000,
    strict: false, complete: true, summary: summarize(requirements), requirements,
    exitCode: requirements.some((r) => r.outcome === 'failed') ? 1 : 0,
    ...overrides,
  };
}

const passed: RequirementResult = {
  id: 'AUTH-401-MISSING',
  level: 'MUST',
  outcome: 'passed',
  tests: [{ title: 'no token is 401', status: 'passed', durationMs: 5 }],
};
const review: RequirementResult = { id: 'URL-NOUNS', level: 'MUST', outcome: 'skipped', reason: 'review only: not checkable over HTTP', tests: [] };
const failed: RequirementResult = {
  id: 'PROBLEM-CONTENT-TYPE', level: 'MUST', outcome: 'failed', reason: 'served as application/json',
  tests: [{
    title: 'every provoked error is served as application/problem+json', status: 'failed', durationMs: 9, error: 'Error: not a problem',
    exchange: {
      curl: "curl -i -X 'GET' 'http://127.0.0.1:3100/nowhere'",
      request: { method: 'GET', url: 'http://127.0.0.1:3100/nowhere' },
      response: { status: 404, headers: { 'content-type': 'text/html', date: 'Thu, 01 Jan 2026 00:00:00 GMT' }, body: HOSTILE, bodyBytes: HOSTILE.length },
    },
  }],
};

test('a passing run: PASS, a green badge counting the MUSTs checked', () => {
  const view = reportView(run([passed, review]));
  expect(view.verdict).toBe('pass');
  expect(view.must).toEqual({ checked: 1, passed: 1, total: 2, expected: 0 });
  expect(badgeMessage(view)).toBe('1/1 MUST');
  expect(badgeColour(view.verdict)).toBe('brightgreen');
  expect(badgeSvg(view)).toContain('aria-label="conformance: 1/1 MUST"');
  expect(renderHtmlReport(view)).toContain('<h1 id="verdict">PASS');
});

test('a failed, an incomplete and an unstarted run each have their verdict and badge colour', () => {
  const fail = reportView(run([passed, failed]));
  expect([fail.verdict, badgeMessage(fail), badgeColour(fail.verdict)]).toEqual(['fail', '1/2 MUST', 'red']);
  const cut = reportView(run([passed], { complete: false, exitCode: 1, errors: ['the run ended early: timedout'] }));
  expect([cut.verdict, badgeMessage(cut), badgeColour(cut.verdict)]).toEqual(['incomplete', '1/1 MUST, incomplete', 'orange']);
  const none = reportView(run([], { complete: false, exitCode: 2, errors: ['target unreachable'] }));
  expect([none.verdict, badgeMessage(none), badgeColour(none.verdict)]).toEqual(['error', 'not run', 'lightgrey']);
  const page = renderHtmlReport(none);
  expect(page).toContain('NOT RUN');
  expect(page).toContain('<li>target unreachable</li>');
  const insecure = renderHtmlReport(reportView({ ...run([passed]), warnings: ['TLS certificate verification was OFF'] } as RunResults));
  expect(insecure).toContain('<h2>Warnings</h2><ul><li>TLS certificate verification was OFF</li>');
  const flaky = renderHtmlReport(
    reportView(
      run([passed], {
        repeat: { runs: 3, exitCodes: [0, 1, 0], outcomes: { 'AUTH-401-MISSING': ['passed', 'failed', 'passed'] }, disagreeing: ['AUTH-401-MISSING'] },
      }),
    ),
  );
  expect(flaky).toContain('<li><a href="#req-AUTH-401-MISSING"><code>AUTH-401-MISSING</code></a>: passed, failed, passed</li>');
});

test('each requirement carries its area, quote, section and the decisions that refine it; failures come first', () => {
  const view = reportView(run([passed, review, failed]));
  expect(view.requirements.map((r) => r.id)).toEqual(['PROBLEM-CONTENT-TYPE', 'URL-NOUNS', 'AUTH-401-MISSING']);
  const problem = view.requirements[0];
  expect(problem?.area).toBe('problem');
  expect(problem?.source?.section).toMatch(/^7\. Errors/);
  expect(problem?.decisions.map((d) => d.name)).toContain('D-ERRORS');
  expect(view.byArea.find((a) => a.area === 'problem')?.counts).toMatchObject({ failed: 1, total: 1 });
});

test('a hostile response body is shown as text, and the page loads nothing and runs only its own script', () => {
  const page = renderHtmlReport(reportView(run([passed, failed])), badgeSvg(reportView(run([passed, failed]))));
  expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=&quot;https://example.invalid/x.png&quot;&gt;');
  expect(page.match(/<script/g)).toHaveLength(1);
  expect(page).not.toMatch(/\s(src|href)=["'](?!#)/);
  expect(page).not.toContain('date: Thu');
  const hash = createHash('sha256').update(REPORT_JS, 'utf8').digest('base64');
  expect(page).toContain(`default-src 'none'; style-src 'sha256-`);
  expect(page).toContain(`script-src 'sha256-${hash}'`);
});
