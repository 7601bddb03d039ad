/**
 * `run --repeat N`, the flake hunter: the suite runs N times against one target, each run in its
 * own directory (`<out>/run-<i>/`), and the results are merged into one results.json whose
 * `repeat` member lists every requirement's outcome per run and the requirements the runs
 * disagreed on. A requirement that flips between passed and failed on an unchanged target is a
 * flaky server or a flaky check; the console table names them.
 */
import { createResults } from '../../spec/results.ts';
import type { Outcome, RequirementResult, RunResults } from '../../spec/results.ts';

/** Worst first: the merged outcome of a requirement is its worst over the runs. */
const SEVERITY: Record<Outcome, number> = { failed: 3, warning: 2, passed: 1, skipped: 0 };

/** The directory of run `index` (from 1) of `runs`. */
export function runDirectory(out: string, index: number, runs: number): string {
  return runs === 1 ? out : `${out}/run-${index}`;
}

/** One results.json for N runs: worst outcome per requirement, highest exit code, `repeat` with every run's outcomes. */
export function mergeRuns(runs: readonly RunResults[]): RunResults {
  const first = runs[0];
  if (!first) throw new Error('mergeRuns needs at least one run');
  if (runs.length === 1) return first;
  const outcomes: Record<string, Outcome[]> = {};
  const worst = new Map<string, RequirementResult>();
  for (const run of runs) {
    for (const requirement of run.requirements) {
      (outcomes[requirement.id] ??= []).push(requirement.outcome);
      const current = worst.get(requirement.id);
      if (!current || SEVERITY[requirement.outcome] > SEVERITY[current.outcome]) worst.set(requirement.id, requirement);
    }
  }
  const disagreeing = Object.entries(outcomes)
    .filter(([, list]) => list.length !== runs.length || new Set(list).size > 1)
    .map(([id]) => id);
  const complete = runs.every((r) => r.complete);
  const last = runs[runs.length - 1] ?? first;
  const merged = createResults({
    kind: first.kind,
    target: first.target,
    startedAt: new Date(first.startedAt),
    finishedAt: new Date(last.finishedAt),
    strict: first.strict,
    complete,
    requirements: first.requirements.map((r) => worst.get(r.id) ?? r),
    ...(first.grep !== undefined ? { grep: first.grep } : {}),
    errors: runs.flatMap((r, i) => (r.errors ?? []).map((e) => `run ${i + 1}: ${e}`)),
    unknownIds: [...new Set(runs.flatMap((r) => r.unknownIds ?? []))],
    warnings: [...new Set(runs.flatMap((r) => r.warnings ?? []))],
  });
  const exitCodes = runs.map((r) => r.exitCode);
  return { ...merged, exitCode: Math.max(merged.exitCode, ...exitCodes) as 0 | 1 | 2, repeat: { runs: runs.length, exitCodes, outcomes, disagreeing } };
}

/** The console table of the requirements whose runs disagreed: ID, level, how many runs of each outcome, the sequence. */
export function formatDisagreements(results: RunResults): string {
  const repeat = results.repeat;
  if (!repeat) return '';
  const head = `${repeat.runs} runs, exit codes ${repeat.exitCodes.join(' ')}`;
  if (repeat.disagreeing.length === 0) return `${head}: every requirement had the same outcome in every run`;
  const levels = new Map(results.requirements.map((r) => [r.id, r.level]));
  const rows = repeat.disagreeing.map((id) => {
    const list = repeat.outcomes[id] ?? [];
    const counts = (['passed', 'failed', 'warning', 'skipped'] as const)
      .map((o) => [o, list.filter((x) => x === o).length] as const)
      .filter(([, n]) => n > 0)
      .map(([o, n]) => `${n} ${o}`)
      .join(', ');
    return [
      id,
      levels.get(id) ?? '',
      `${repeat.runs - Math.max(...(['passed', 'failed', 'warning', 'skipped'] as const).map((o) => list.filter((x) => x === o).length))} of ${repeat.runs}`,
      counts,
      list.join(' '),
    ];
  });
  const header = ['requirement', 'level', 'disagreed', 'outcomes', 'per run'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [
    `${head}: ${repeat.disagreeing.length} requirement(s) disagreed between runs (a flaky target or a flaky check)`,
    line(header),
    ...rows.map(line),
  ].join('\n');
}
