/**
 * Findings grouped by cause (D-FINDINGS): one finding per defect. A requirement whose every failing
 * check is a consequence of another requirement that failed or warned in the same run (the suite
 * noted the exchange it is about as breaking that requirement: transport/exchange-log.ts) is listed
 * under that requirement's finding as "consequence of ID" and is not a finding of its own. The
 * outcomes, the exit code and the badge are unchanged: findings only say what to fix.
 */
import type { Finding, Level, RequirementResult, TestRecord } from '../../spec/results.ts';

const LEVEL_RANK: Record<Level, number> = { MUST: 0, SHOULD: 1, MAY: 2 };
const broken = (r: RequirementResult): boolean => r.outcome === 'failed' || r.outcome === 'warning';
const failing = (r: RequirementResult): RequirementResult['tests'] => r.tests.filter((t) => t.status !== 'passed' && t.status !== 'skipped');

/**
 * The requirements `r` is a consequence of, when every failing check of `r` names another broken
 * requirement: one cause, or several (a check with two IDs failing on an Allow defect, another on the
 * 405's media type). Empty when one of its failing checks is its own.
 */
function directCauses(r: RequirementResult, byId: ReadonlyMap<string, RequirementResult>): string[] {
  const causes = new Set<string>();
  for (const t of failing(r)) {
    const named = t.causes?.map((c) => c.requirement) ?? (t.consequenceOf === undefined ? [] : [t.consequenceOf]);
    if (named.length === 0) return [];
    for (const cause of named) {
      const target = cause === r.id ? undefined : byId.get(cause);
      if (target === undefined || !broken(target)) return [];
      causes.add(cause);
    }
  }
  return [...causes];
}

/** The rule an error answer not served as a problem document breaks first (D-FINDINGS). */
const PROBLEM_MEDIA = 'PROBLEM-CONTENT-TYPE';

/**
 * Rules about an error answer's body and media type that an answer not served as
 * `application/problem+json` breaks by that alone: their failure on such an answer is PROBLEM_MEDIA's defect.
 */
const ENVELOPE_RULES = new Set([
  'PROBLEM-MEMBERS', 'PROBLEM-STATUS-MATCHES', 'PROBLEM-TYPE-URI', 'PROBLEM-INSTANCE', 'PROBLEM-SAME-ENVELOPE', 'JSON-REPRESENTATIONS',
  'MESSAGE-SELF-DESCRIPTIVE',
]);

/** The status of the answer a failed check is about, when it got one. */
const statusOf = (t: TestRecord): number | undefined => t.exchange?.response?.status;

/** Whether the record's answer is an error not served as application/problem+json. */
function nonProblemError(t: TestRecord): boolean {
  const response = t.exchange?.response;
  if (!response || response.status < 400) return false;
  return !/^application\/problem\+json\s*(;|$)/i.test(response.headers['content-type'] ?? '');
}

/**
 * Marks what an answer implies (D-FINDINGS): an envelope rule's check failing on an error answer that
 * is no problem document is a consequence of PROBLEM_MEDIA, which that answer breaks first; the Allow
 * rule's check failing on an answer that is no 405 is a consequence of METHOD-NOT-ALLOWED-405.
 */
function markImplied(requirements: readonly RequirementResult[]): void {
  for (const r of requirements.filter((x) => ENVELOPE_RULES.has(x.id) && broken(x))) {
    for (const t of failing(r)) if (t.consequenceOf === undefined && nonProblemError(t)) t.consequenceOf = PROBLEM_MEDIA;
  }
  // `Allow` is asked of a 405: its check failing on an answer that is no 405 (a router's 404 for PROPFIND) is the 405 rule's defect.
  for (const r of requirements.filter((x) => x.id === 'METHOD-ALLOW-HEADER' && broken(x))) {
    for (const t of failing(r)) {
      const status = statusOf(t);
      if (t.consequenceOf === undefined && status !== undefined && status !== 405) t.consequenceOf = 'METHOD-NOT-ALLOWED-405';
    }
  }
}

/**
 * Sets `consequenceOf` on the requirements that only repeat another's defect and returns the findings,
 * MUST before SHOULD before MAY, failed before warning, in catalogue order. Error answers that are no
 * problem document are one defect per status that produced them (the 401s of an auth plugin, the 405s
 * of a router, the 429s of a limiter): PROBLEM_MEDIA's finding is split per status, each with the
 * requirements whose failing answers have that status.
 */
export function groupFindings(requirements: RequirementResult[]): Finding[] {
  markImplied(requirements);
  const byId = new Map(requirements.map((r) => [r.id, r]));
  // The causes at the end of each chain of consequences (a cause of a cause is the finding).
  const rootsOf = (r: RequirementResult): string[] => {
    const roots: string[] = [];
    const seen = new Set([r.id]);
    const queue = directCauses(r, byId);
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      if (seen.has(id)) continue;
      seen.add(id);
      const further = directCauses(byId.get(id) as RequirementResult, byId).filter((c) => !seen.has(c));
      if (further.length === 0) roots.push(id);
      else queue.push(...further);
    }
    return roots;
  };
  // A finding's key: its cause, and for PROBLEM_MEDIA the status of the answers it is about (those of
  // the checks that name it as their cause, when some do).
  const keysOf = (cause: string, r: RequirementResult): string[] => {
    if (cause !== PROBLEM_MEDIA) return [cause];
    // A failure naming several causes says which of its answers breaks which (Cause.status).
    const statusesOf = (t: TestRecord): (number | undefined)[] =>
      t.causes ? t.causes.filter((c) => c.requirement === cause).map((c) => c.status) : [statusOf(t)];
    const own = failing(r).filter((t) => t.consequenceOf === cause || t.causes?.some((c) => c.requirement === cause));
    const statuses = [...new Set((own.length > 0 ? own : failing(r)).flatMap(statusesOf).filter((s) => s !== undefined))];
    return statuses.length === 0 ? [cause] : statuses.map((s) => `${cause} ${s}`);
  };
  const findings = new Map<string, Finding>();
  const consequences: [string, RequirementResult][] = [];
  for (const r of requirements.filter(broken)) {
    delete r.consequenceOf;
    const roots = rootsOf(r);
    if (roots.length > 0) {
      r.consequenceOf = roots[0] as string;
      for (const cause of roots) consequences.push([cause, r]);
      continue;
    }
    for (const key of keysOf(r.id, r)) {
      const status = key === r.id ? undefined : Number(key.slice(r.id.length + 1));
      const first = failing(r).find((t) => status === undefined || statusOf(t) === status);
      findings.set(key, {
        cause: r.id,
        level: r.level,
        outcome: r.outcome === 'failed' ? 'failed' : 'warning',
        headline: first?.headline ?? r.reason ?? `${r.id} failed`,
        breaks: [r.id],
        ...(status === undefined ? {} : { status }),
      });
    }
  }
  for (const [cause, r] of consequences) {
    const keys = keysOf(cause, r).filter((key) => findings.has(key));
    // A consequence whose answers' status the cause did not itself break on joins the cause's first finding.
    const joined = keys.length > 0 ? keys : [[...findings.keys()].find((key) => key === cause || key.startsWith(`${cause} `)) ?? cause];
    for (const key of joined) {
      const finding = findings.get(key);
      if (!finding) continue;
      finding.breaks.push(r.id);
      // A finding weighs what it breaks: a SHOULD defect that makes a MUST fail is a MUST finding.
      if (LEVEL_RANK[r.level] < LEVEL_RANK[finding.level]) finding.level = r.level;
      if (r.outcome === 'failed') finding.outcome = 'failed';
    }
  }
  const order = new Map(requirements.map((r, index) => [r.id, index]));
  return [...findings.values()].sort(
    (a, b) =>
      LEVEL_RANK[a.level] - LEVEL_RANK[b.level] ||
      (a.outcome === b.outcome ? 0 : a.outcome === 'failed' ? -1 : 1) ||
      (order.get(a.cause) ?? 0) - (order.get(b.cause) ?? 0) ||
      (a.status ?? 0) - (b.status ?? 0),
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
