/**
 * The files every run leaves beside results.json: report.html (the page people read) and badge.svg
 * (the status badge).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Requirement } from '../../spec/catalogue.ts';
import { badgeSvg } from './badge.ts';
import { renderHtmlReport } from './html-report.ts';
import { reportView } from './report-view.ts';
import type { RunResults } from '../../spec/results.ts';

export interface ReportFiles {
  html: string;
  badge: string;
}

/**
 * Writes report.html and badge.svg for `results` into `dir` (which holds results.json) and returns
 * their paths. `catalogue`: another requirements file (tests of the reporter), default the package's.
 */
export function writeReportFiles(dir: string, results: RunResults, catalogue?: string): ReportFiles {
  const requirements = catalogue ? (JSON.parse(readFileSync(catalogue, 'utf8')) as { requirements: Requirement[] }).requirements : undefined;
  const view = reportView(results, requirements);
  const badge = badgeSvg(view);
  const files = { html: join(dir, 'report.html'), badge: join(dir, 'badge.svg') };
  writeFileSync(files.badge, badge);
  writeFileSync(files.html, renderHtmlReport(view, badge));
  return files;
}
