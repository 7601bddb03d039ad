/**
 * badge.svg: "conformance | 90/90 MUST", coloured by the verdict, drawn by badge-maker (the
 * shields.io renderer, so the badge looks like the others in a README).
 */
import { makeBadge } from 'badge-maker';
import type { ReportView, Verdict } from './report-view.ts';

const COLOURS: Record<Verdict, string> = { pass: 'brightgreen', fail: 'red', incomplete: 'orange', error: 'lightgrey' };

/**
 * The badge's text: passed MUSTs of the MUSTs checked (review-only and skipped MUSTs are not
 * counted; report.html lists them), `incomplete` appended for a run that did not finish, `not run`
 * for one that could not start.
 */
export function badgeMessage(view: Pick<ReportView, 'verdict' | 'must'>): string {
  if (view.verdict === 'error') return 'not run';
  // D-EXPECTED-FAILURES: known failures shown apart, "89/90 MUST · 1 expected".
  const expected = view.must.expected > 0 ? ` · ${view.must.expected} expected` : '';
  const text = `${view.must.passed}/${view.must.checked} MUST${expected}`;
  return view.verdict === 'incomplete' ? `${text}, incomplete` : text;
}

/** The colour of the badge: green pass, red fail, orange incomplete, grey not run. */
export function badgeColour(verdict: Verdict): string {
  return COLOURS[verdict];
}

/** The SVG of the status badge of `view`. */
export function badgeSvg(view: Pick<ReportView, 'verdict' | 'must'>): string {
  return makeBadge({ label: 'conformance', message: badgeMessage(view), color: badgeColour(view.verdict) });
}
