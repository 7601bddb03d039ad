/**
 * The text summary the CLI prints after a run: the findings first, one per defect with the
 * requirements it breaks (D-FINDINGS), then one row per requirement (ID, level, outcome, reason), then
 * the counts per level and the verdict.
 */
import type { Level, Outcome, RunResults } from '../../spec/results.ts';

const ORDER: Record<Outcome, number> = { failed: 0, warning: 1, skipped: 2, passed: 3 };
const LEVELS: Level[] = ['MUST', 'SHOULD', 'MAY'];

/** Cuts `text` to one line of at most `max` characters. */
function clip(text: string, max: number): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The findings of `results`, numbered, each with the requirements it breaks; empty when there are none. */
export function formatFindings(results: RunResults, width = 160): string[] {
  const findings = results.findings ?? [];
  if (findings.length === 0) return [];
  const lines = [`findings: ${findings.length} defect(s) behind ${findings.reduce((n, f) => n + f.breaks.length, 0)} failed or warning requirement(s)`];
  findings.forEach((f, index) => {
    const mark = f.expected ? ' (expected)' : '';
    lines.push(`${String(index + 1).padStart(3)}. ${f.level} ${f.outcome}${mark}: ${clip(f.headline, Math.max(40, width - 20))}`);
    const consequences = f.breaks.slice(1);
    lines.push(`     breaks ${f.cause}${consequences.length > 0 ? `, and as a consequence ${consequences.join(', ')}` : ''}`);
  });
  return [...lines, ''];
}

/** The summary of `results`: the findings, then the table, failures first, then warnings, skips and passes. */
export function formatSummary(results: RunResults, width = 160): string {
  const rows = [...results.requirements].sort((a, b) => ORDER[a.outcome] - ORDER[b.outcome]);
  const idWidth = Math.max(11, ...rows.map((r) => r.id.length));
  const header = `${'requirement'.padEnd(idWidth)}  level   outcome  reason`;
  const lines = [...formatFindings(results, width), header, '-'.repeat(Math.min(width, header.length + 40))];
  for (const r of rows) {
    const prefix = `${r.id.padEnd(idWidth)}  ${r.level.padEnd(6)}  ${r.outcome.padEnd(7)}  `;
    const note = [r.expected ? `expected: ${r.expected.reason}` : '', r.consequenceOf ? `consequence of ${r.consequenceOf}` : ''].filter(Boolean).join('; ');
    lines.push(prefix + clip(note ? `[${note}] ${r.reason ?? ''}` : (r.reason ?? ''), Math.max(20, width - prefix.length)));
  }
  lines.push('');
  for (const level of LEVELS) {
    const of = results.requirements.filter((r) => r.level === level);
    if (of.length === 0) continue;
    const count = (o: Outcome): number => of.filter((r) => r.outcome === o).length;
    lines.push(
      `${level.padEnd(6)}  ${count('passed')} passed, ${count('failed')} failed, ${count('warning')} warning, ${count('skipped')} skipped (of ${of.length})` +
        (of.some((r) => r.expected && r.outcome !== 'passed') ? `; ${of.filter((r) => r.expected && r.outcome !== 'passed').length} of them expected` : ''),
    );
  }
  if (results.errors?.length) lines.push('', 'run incomplete:', ...results.errors.map((e) => `  - ${e}`));
  return lines.join('\n');
}
