// Prints "N passed, N failed" from Playwright's JSON report (the runner's own counts).
// When the runner never wrote a report (type-check or lint failed first), the run counts as one failure.
import { readFileSync, existsSync } from 'node:fs';

const file = process.argv[2] ?? 'test-results/report.json';
if (!existsSync(file)) {
  console.log('0 passed, 1 failed');
  process.exit(0);
}
const { stats } = JSON.parse(readFileSync(file, 'utf8'));
const passed = stats.expected ?? 0;
const failed = (stats.unexpected ?? 0) + (stats.flaky ?? 0);
const skipped = stats.skipped ?? 0;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
