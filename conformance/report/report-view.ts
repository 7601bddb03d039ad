/**
 * What report.html and badge.svg show, computed from results.json and the specification: the
 * verdict, counts per level and per area, and for every requirement its level, outcome, the
 * document's quote and section (spec/requirements.json) and the decisions of spec/decisions.md that
 * create or refine it.
 */
import { loadCatalogue } from '../../spec/catalogue.ts';
import type { Requirement } from '../../spec/catalogue.ts';
import { loadDecisions } from '../../spec/decisions.ts';
import type { DecisionEntry } from '../../spec/decisions.ts';
import type { ExpectedFailure, Level, Outcome, RequirementResult, RunResults, TestRecord } from '../../spec/results.ts';

/** `pass`: exit 0. `fail`: a requirement failed in a complete run. `incomplete`: the run did not finish. `error`: it could not start (exit 2). */
export type Verdict = 'pass' | 'fail' | 'incomplete' | 'error';

export const OUTCOMES: readonly Outcome[] = ['failed', 'warning', 'skipped', 'passed'];
export const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'MAY'];

export interface DecisionRef {
  name: string;
  title: string;
  /** `creates`: the entry's Requirements line names the ID; `refines`: its Refines line does. */
  relation: 'creates' | 'refines';
  /** The entry's Decision block (Markdown). */
  decision: string;
}

export interface RequirementView {
  id: string;
  level: Level;
  outcome: Outcome;
  /** `unknown` when the catalogue lacks the ID. */
  area: string;
  summary: string;
  reason?: string;
  /** Where the rule is stated: a section of the document, or a decision entry, with the quote. */
  source?: { section?: string; decision?: string; quote: string };
  alsoIn: { section: string; quote: string }[];
  decisions: DecisionRef[];
  tests: TestRecord[];
  /** The requirement whose finding this failure repeats (D-FINDINGS). */
  consequenceOf?: string;
  /** Listed in the expected-failures file (D-EXPECTED-FAILURES). */
  expected?: ExpectedFailure;
}

export type Counts = Record<Outcome | 'total', number>;

export interface ReportView {
  verdict: Verdict;
  /** `PASS`, `FAIL`, `FAIL (incomplete run)`, `NOT RUN`. */
  verdictLabel: string;
  results: RunResults;
  byLevel: { level: Level; counts: Counts }[];
  byArea: { area: string; counts: Counts }[];
  /** MUST requirements that were checked (passed or failed), those that passed, and the failed ones the expected-failures file lists. */
  must: { checked: number; passed: number; total: number; expected: number };
  requirements: RequirementView[];
}

/** The verdict of a run, from its exit code and completeness (the CLI's own rule). */
export function verdictOf(results: Pick<RunResults, 'exitCode' | 'complete'>): Verdict {
  if (results.exitCode === 0) return 'pass';
  if (results.exitCode === 2) return 'error';
  return results.complete ? 'fail' : 'incomplete';
}

const LABELS: Record<Verdict, string> = { pass: 'PASS', fail: 'FAIL', incomplete: 'FAIL (incomplete run)', error: 'NOT RUN' };

function count(results: readonly { outcome: Outcome }[]): Counts {
  const counts: Counts = { failed: 0, warning: 0, skipped: 0, passed: 0, total: results.length };
  for (const r of results) counts[r.outcome] += 1;
  return counts;
}

/** The decisions that create or refine `id`. */
function decisionsFor(id: string, decisions: readonly DecisionEntry[]): DecisionRef[] {
  const refs: DecisionRef[] = [];
  for (const d of decisions) {
    const relation = d.creates.includes(id) ? 'creates' : d.refines.includes(id) ? 'refines' : undefined;
    if (relation) refs.push({ name: d.name, title: d.title, relation, decision: d.decision });
  }
  return refs;
}

function requirementView(result: RequirementResult, entry: Requirement | undefined, decisions: readonly DecisionEntry[]): RequirementView {
  const source = entry?.source;
  return {
    id: result.id,
    level: result.level,
    outcome: result.outcome,
    area: entry?.area ?? 'unknown',
    summary: entry?.summary ?? '',
    ...(result.reason !== undefined ? { reason: result.reason } : {}),
    ...(source ? { source: 'decision' in source ? { decision: source.decision, quote: source.quote } : { section: source.section, quote: source.quote } } : {}),
    alsoIn: entry?.alsoIn ?? [],
    decisions: decisionsFor(result.id, decisions),
    tests: result.tests,
    ...(result.consequenceOf ? { consequenceOf: result.consequenceOf } : {}),
    ...(result.expected ? { expected: result.expected } : {}),
  };
}

/** The report of `results`: requirements failures first, then warnings, skips and passes, each in catalogue order. */
export function reportView(
  results: RunResults,
  catalogue: readonly Requirement[] = loadCatalogue().requirements,
  decisions: readonly DecisionEntry[] = loadDecisions(),
): ReportView {
  const byId = new Map(catalogue.map((r) => [r.id, r]));
  const rank = (o: Outcome): number => OUTCOMES.indexOf(o);
  const requirements = results.requirements
    .map((r) => requirementView(r, byId.get(r.id), decisions))
    .map((r, index) => ({ r, index }))
    .sort((a, b) => rank(a.r.outcome) - rank(b.r.outcome) || a.index - b.index)
    .map(({ r }) => r);
  const areas = [...new Set(requirements.map((r) => r.area))].sort();
  const musts = requirements.filter((r) => r.level === 'MUST');
  const verdict = verdictOf(results);
  return {
    verdict,
    verdictLabel: LABELS[verdict],
    results,
    byLevel: LEVELS.map((level) => ({ level, counts: count(requirements.filter((r) => r.level === level)) })).filter((l) => l.counts.total > 0),
    byArea: areas.map((area) => ({ area, counts: count(requirements.filter((r) => r.area === area)) })),
    must: {
      checked: musts.filter((r) => r.outcome === 'passed' || r.outcome === 'failed').length,
      passed: musts.filter((r) => r.outcome === 'passed').length,
      total: musts.length,
      expected: musts.filter((r) => r.outcome === 'failed' && r.expected).length,
    },
    requirements,
  };
}
