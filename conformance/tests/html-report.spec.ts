/**
 * report.html in a real browser: Debian's Chromium (/usr/bin/chromium, never a downloaded build)
 * opens the report of a run against a broken variant from disk. No request leaves the page, the
 * verdict reads FAIL, the findings come first (D-FINDINGS, screenshot attached), the failed requirement
 * shows the failing request as a curl line with the response received, skipped requirements show
 * their reasons, and the outcome and area filters work.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, expect, test } from '@playwright/test';
import type { Browser, Page } from '@playwright/test';
import { checkVariant } from '../../fixtures/broken/check.ts';
import { VARIANTS } from '../../fixtures/broken/index.ts';
import { readResults } from '../../spec/results.ts';
import type { RunResults } from '../../spec/results.ts';
import { tempOut } from './support/subprocess.ts';

/** Debian's package; HAC_CHROMIUM names another binary (or a missing one, to see the skip). */
const CHROMIUM = process.env.HAC_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
/** Fails fast: one grep, one instance on the memory store; its unknown-route 404 is sent as application/json. */
const VARIANT = 'problem-404-plain-json';
const FAILED_ID = 'PROBLEM-CONTENT-TYPE';

test.describe.configure({ mode: 'serial', timeout: 180_000 });
test.skip(!existsSync(CHROMIUM), `Debian's chromium is not installed at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`);

let browser: Browser;
let page: Page;
let results: RunResults;
const requests: string[] = [];
/** Console errors: a style or script the Content-Security-Policy refused would show here. */
const consoleErrors: string[] = [];

test.beforeAll(async () => {
  const variant = VARIANTS.find((v) => v.name === VARIANT);
  if (!variant) throw new Error(`no broken variant named ${VARIANT}`);
  const outRoot = tempOut('html-report');
  const outcome = await checkVariant(variant, { outRoot, workers: 1 });
  expect(outcome.error, 'the run against the variant is usable').toBeUndefined();
  const runDir = join(outcome.outDir, 'run');
  results = readResults(join(runDir, 'results.json'));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  await page.goto(pathToFileURL(join(runDir, 'report.html')).href);
});

test.afterAll(async () => {
  await browser?.close();
});

test('the page loads from disk and no request leaves it', async () => {
  await expect(page.locator('article.req')).toHaveCount(results.requirements.length);
  expect(requests.length).toBeGreaterThan(0);
  expect(requests.filter((url) => !url.startsWith('file:') && !url.startsWith('data:'))).toEqual([]);
  expect(consoleErrors, 'the inline style and script are admitted by the page\'s CSP and run cleanly').toEqual([]);
  await expect(page.locator('header.verdict')).toHaveCSS('border-left-width', '10px');
});

test('the verdict is FAIL, with the badge and the counts per level and area', async () => {
  expect(results.exitCode).toBe(1);
  await expect(page.locator('#verdict')).toContainText('FAIL');
  await expect(page.locator('header .badge svg')).toHaveAttribute('aria-label', /^conformance: \d+\/\d+ MUST$/);
  await expect(page.locator('#per-level tbody tr').first()).toContainText('MUST');
  await expect(page.locator('#per-area tbody tr', { hasText: 'problem' }).locator('td.n-failed')).toHaveText('1');
  await test.info().attach('report.html (top)', { body: await page.screenshot(), contentType: 'image/png' });
});

test('findings come first, each naming what was sent and came back and the requirements it breaks, then the table', async () => {
  const findings = page.locator('#findings li.finding');
  expect(results.findings?.length ?? 0, 'results.json lists the findings').toBeGreaterThan(0);
  await expect(findings).toHaveCount(results.findings?.length ?? 0);
  await expect(findings.first()).toHaveAttribute('data-cause', FAILED_ID);
  await expect(findings.first().locator('.headline')).toHaveText(/^GET \/hac-no-such-route-\S+ with no token → 404; expected: .*\(PROBLEM-CONTENT-TYPE\)$/);
  await expect(findings.first().locator('.breaks')).toContainText(`breaks ${FAILED_ID}`);
  const top = async (selector: string): Promise<number> => (await page.locator(selector).boundingBox())?.y ?? Number.NaN;
  expect(await top('#findings'), 'the findings are above the counts').toBeLessThan(await top('section.counts'));
  expect(await top('section.counts'), 'and the counts above the requirements').toBeLessThan(await top('#requirements'));
  // The failed test shows the headline; the assertion's own text is folded into its details.
  const failedTest = page.locator(`article#req-${FAILED_ID} ol.tests li`).filter({ has: page.locator('.test-status.failed') }).first();
  await expect(failedTest.locator('p.headline')).toHaveText(/^GET \/hac-no-such-route-/);
  await expect(failedTest.locator('details.details pre.error')).toBeAttached();
  await page.locator('#findings').scrollIntoViewIfNeeded();
  await test.info().attach('report.html (findings first)', { body: await page.screenshot(), contentType: 'image/png' });
});

test('the failed requirement shows the failing request as a curl line and the response received', async () => {
  const failed = page.locator(`article#req-${FAILED_ID}`);
  await expect(failed).toHaveAttribute('data-outcome', 'failed');
  await expect(failed.locator('blockquote').first()).toContainText('application/problem+json');
  await expect(failed.locator('.decision').first()).toContainText('D-');
  // The scripted check's failure, and the response rule's (D-TRAFFIC): each shows the exchange it is about.
  const curl = failed.locator('pre.curl');
  await expect(curl).toHaveCount(2);
  for (const shown of await curl.all()) await expect(shown).toContainText(/^curl -i -X 'GET' 'http:\/\/127\.0\.0\.1:\d+\/hac-no-such-route-/);
  const response = failed.locator('pre.response').first();
  await expect(response).toContainText('HTTP 404');
  await expect(response).toContainText('content-type: application/json');
  await failed.scrollIntoViewIfNeeded();
  await test.info().attach('report.html (failed requirement)', { body: await failed.screenshot(), contentType: 'image/png' });
});

test('skipped requirements show their reasons', async () => {
  const review = results.requirements.find((r) => r.outcome === 'skipped' && r.reason?.startsWith('review only'));
  expect(review, 'a review-only requirement is skipped').toBeDefined();
  const why = page.locator(`article#req-${review?.id ?? ''} summary.req-head .why`);
  await expect(why).toBeVisible();
  await expect(why).toHaveText('review only: not checkable over HTTP');
});

test('the outcome and area filters show exactly the matching requirements', async () => {
  const visible = page.locator('article.req:visible');
  await page.locator('button[data-filter-outcome="failed"]').click();
  await expect(visible).toHaveCount(results.requirements.filter((r) => r.outcome === 'failed').length);
  await expect(page.locator('article.req:visible[data-outcome="failed"]')).toHaveCount(await visible.count());

  await page.locator('button[data-filter-outcome="all"]').click();
  await page.locator('#area-filter').selectOption('auth');
  const authTotal = Number(await page.locator('#per-area tbody tr', { hasText: /^auth/ }).locator('td.n-total').textContent());
  expect(authTotal).toBeGreaterThan(0);
  await expect(visible).toHaveCount(authTotal);
  await expect(page.locator('article.req:visible[data-area="auth"]')).toHaveCount(authTotal);

  await page.locator('button[data-filter-outcome="failed"]').click();
  await expect(visible).toHaveCount(0);
  await expect(page.locator('#none')).toBeVisible();

  await page.locator('#per-area button[data-filter-area="problem"]').click();
  await expect(page.locator('#area-filter')).toHaveValue('problem');
  await expect(page.locator('#shown')).toHaveText(`${await visible.count()} of ${results.requirements.length} requirements shown`);
});
