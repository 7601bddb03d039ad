/**
 * Findings grouped by cause (D-FINDINGS): one finding per defect. A requirement whose every failing
 * check is a consequence of another requirement that failed or warned in the same run (the suite
 * noted the exchange it is about as breaking that requirement: support/exchange-log.ts) is listed
 * under that requirement's finding as "consequence of ID" and is not a finding of its own. The
 * outcomes, the exit code and the badge are unchanged: findings only say what to fix.
 */
import type { Finding, Level, RequirementResult } from '../../spec/results.ts';

const LEVEL_RANK: Record<Level, number> = { MUST: 0, SHOULD: 1, MAY: 2 };
const broken = (r: RequirementResult): boolean => r.outcome === 'failed' || r.outcome === 'warning';
const failing = (r: RequirementResult): RequirementResult['tests'] => r.tests.filter((t) => t.status !== 'passed' && t.status !== 'skipped');

/** The requirement `r` is a consequence of, when every failing check of `r` names the same other broken requirement. */
function directCause(r: RequirementResult, byId: ReadonlyMap<string, RequirementResult>): string | undefined {
  const tests = failing(r);
  const causes = new Set(tests.map((t) => t.consequenceOf));
  const cause = tests[0]?.consequenceOf;
  if (cause === undefined || causes.size !== 1 || cause === r.id) return undefined;
  const target = byId.get(cause);
  return target && broken(target) ? cause : undefined;
}

/**
 * Sets `consequenceOf` on the requirements that only repeat another's defect and returns the findings,
 * MUST before SHOULD before MAY, failed before warning, in catalogue order.
 */
export function groupFindings(requirements: RequirementResult[]): Finding[] {
  const byId = new Map(requirements.map((r) => [r.id, r]));
  const rootOf = (r: RequirementResult): string | undefined => {
    const seen = new Set([r.id]);
    let cause = directCause(r, byId);
    for (;;) {
      const next = cause === undefined ? undefined : byId.get(cause);
      const further = next ? directCause(next, byId) : undefined;
      if (further === undefined || seen.has(further)) return cause;
      seen.add(cause ?? '');
      cause = further;
    }
  };
  const findings = new Map<string, Finding>();
  const consequences: [string, RequirementResult][] = [];
  for (const r of requirements.filter(broken)) {
    delete r.consequenceOf;
    const cause = rootOf(r);
    if (cause !== undefined) {
      r.consequenceOf = cause;
      consequences.push([cause, r]);
      continue;
    }
    const first = failing(r)[0];
    findings.set(r.id, {
      cause: r.id,
      level: r.level,
      outcome: r.outcome === 'failed' ? 'failed' : 'warning',
      headline: first?.headline ?? r.reason ?? `${r.id} failed`,
      breaks: [r.id],
    });
  }
  for (const [cause, r] of consequences) {
    const finding = findings.get(cause);
    if (!finding) continue;
    finding.breaks.push(r.id);
    // A finding weighs what it breaks: a SHOULD defect that makes a MUST fail is a MUST finding.
    if (LEVEL_RANK[r.level] < LEVEL_RANK[finding.level]) finding.level = r.level;
    if (r.outcome === 'failed') finding.outcome = 'failed';
  }
  const order = new Map(requirements.map((r, index) => [r.id, index]));
  return [...findings.values()].sort(
    (a, b) =>
      LEVEL_RANK[a.level] - LEVEL_RANK[b.level] ||
      (a.outcome === b.outcome ? 0 : a.outcome === 'failed' ? -1 : 1) ||
      (order.get(a.cause) ?? 0) - (order.get(b.cause) ?? 0),
  );
}

/** Marks each finding `expected` when every requirement it breaks is an expected failure (D-EXPECTED-FAILURES). */
export function markExpected(findings: Finding[], requirements: readonly RequirementResult[]): void {
  const byId = new Map(requirements.map((r) => [r.id, r]));
  for (const finding of findings) {
    if (finding.breaks.every((id) => byId.get(id)?.expected !== undefined)) finding.expected = true;
    else delete finding.expected;
  }
}
