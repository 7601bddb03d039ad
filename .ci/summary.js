// Prints "N passed, N failed" from Playwright's JSON reports (the runner's own counts), summed over
// the phases of `npm test` (playwright.config.ts): one report per phase.
// A phase that never wrote its report (type-check or lint failed first) counts as one failure.
import { readFileSync, existsSync } from 'node:fs';

// The reports of the three phases of `npm test` (playwright.config.ts), unless others are named.
const phases = ['timing', 'matrix', 'others'];
const files = process.argv.length > 2 ? process.argv.slice(2) : phases.map((phase) => `test-results/report-${phase}.json`);
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  if (!existsSync(file)) {
    failed += 1;
    continue;
  }
  const { stats } = JSON.parse(readFileSync(file, 'utf8'));
  passed += stats.expected ?? 0;
  failed += (stats.unexpected ?? 0) + (stats.flaky ?? 0);
  skipped += stats.skipped ?? 0;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
