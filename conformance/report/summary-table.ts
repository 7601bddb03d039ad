/**
 * The text summary the CLI prints after a run: one row per requirement (ID, level, outcome, reason),
 * then the counts per level and the verdict.
 */
import type { Level, Outcome, RunResults } from '../../spec/results.ts';

const ORDER: Record<Outcome, number> = { failed: 0, warning: 1, skipped: 2, passed: 3 };
const LEVELS: Level[] = ['MUST', 'SHOULD', 'MAY'];

/** Cuts `text` to one line of at most `max` characters. */
function clip(text: string, max: number): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The summary table of `results`: failures first, then warnings, skips and passes. */
export function formatSummary(results: RunResults, width = 160): string {
  const rows = [...results.requirements].sort((a, b) => ORDER[a.outcome] - ORDER[b.outcome]);
  const idWidth = Math.max(11, ...rows.map((r) => r.id.length));
  const header = `${'requirement'.padEnd(idWidth)}  level   outcome  reason`;
  const lines = [header, '-'.repeat(Math.min(width, header.length + 40))];
  for (const r of rows) {
    const prefix = `${r.id.padEnd(idWidth)}  ${r.level.padEnd(6)}  ${r.outcome.padEnd(7)}  `;
    lines.push(prefix + clip(r.reason ?? '', Math.max(20, width - prefix.length)));
  }
  lines.push('');
  for (const level of LEVELS) {
    const of = results.requirements.filter((r) => r.level === level);
    if (of.length === 0) continue;
    const count = (o: Outcome): number => of.filter((r) => r.outcome === o).length;
    lines.push(
      `${level.padEnd(6)}  ${count('passed')} passed, ${count('failed')} failed, ${count('warning')} warning, ${count('skipped')} skipped (of ${of.length})`,
    );
  }
  if (results.errors?.length) lines.push('', 'run incomplete:', ...results.errors.map((e) => `  - ${e}`));
  return lines.join('\n');
}
