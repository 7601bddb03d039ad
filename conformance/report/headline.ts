/**
 * The one-sentence headline of a failed check (D-FINDINGS): what was sent, what came back and what the
 * rule expects, e.g. `POST /widgets with Content-Type: text/plain → 201; expected 415
 * (STATUS-415-MEDIA-TYPE)`. Built from the exchange the failure is about, never from the assertion
 * library's text, which stays in the record's `error`.
 */
import type { Exchange, Verdict } from '../transport/exchange.ts';

/** The request as people say it: method, path and query, and what sets it apart (media type, credentials, key). */
export function requestPhrase(exchange: Exchange): string {
  const url = new URL(exchange.request.url);
  const headers = exchange.request.headers ?? {};
  const traits: string[] = [];
  const type = headers['content-type'];
  if (exchange.request.bodyBytes !== undefined) {
    if (type === undefined) traits.push('a body without Content-Type');
    else if (!/^application\/json\s*(;.*)?$/i.test(type)) traits.push(`Content-Type: ${type}`);
  }
  const auth = headers.authorization;
  if (auth === undefined) traits.push('no token');
  else if (!/^bearer\s/i.test(auth)) traits.push(`Authorization: ${auth.split(/\s/)[0] ?? ''} …`);
  // The header's form is the point when it is not `Bearer <token>` exactly (a lower-case scheme, two spaces): shown quoted, token masked.
  else if (!/^Bearer \S+$/.test(auth)) traits.push(`Authorization ${JSON.stringify(auth)}`);
  if (headers['idempotency-key'] !== undefined) traits.push('an Idempotency-Key');
  const listed = traits.length === 0 ? '' : ` with ${traits.join(', ')}`;
  return `${exchange.request.method} ${url.pathname}${url.search}${listed}`;
}

/** The answer as people say it: `→ 201`, or `→ no answer (timeout …)`. */
export function answerPhrase(exchange: Exchange): string {
  if (exchange.response) return `→ ${exchange.response.status}`;
  return `→ no answer (${exchange.error ?? 'the target did not answer'})`;
}

/**
 * What a rule expects, in the catalogue's own words: its whole summary, quoted as it is (D-FINDINGS).
 * A clause cut at the first colon or period broke rules in two inside a quoted header
 * ("`Authorization: Bearer …`") and dropped what came after.
 */
export function ruleText(summary: string): string {
  return summary.trim().replace(/\.$/, '');
}

export interface HeadlineInput {
  /** The requirement IDs the test declares. */
  ids: readonly string[];
  title: string;
  exchange?: Exchange;
  verdict?: Verdict;
  /** The first line of the assertion's message (used only when the check sent nothing). */
  error?: string;
  /** The catalogue summary of an ID. */
  summaryOf: (id: string) => string | undefined;
}

/** The headline of a failed check. */
export function headlineOf(input: HeadlineInput): string {
  const { exchange, verdict } = input;
  const cause = verdict?.consequenceOf;
  const ruleId = cause ?? input.ids[0] ?? '';
  const summary = input.summaryOf(ruleId);
  // A status or value the suite noted reads "expected 415"; a rule from the catalogue "expected: a request body …".
  const rule = verdict?.expected ?? `: ${summary ? ruleText(summary).replace(/^[A-Z](?=[a-z ])/, (c) => c.toLowerCase()) : `${input.title} to pass`}`;
  const expectation = `expected${rule.startsWith(':') ? rule : ` ${rule}`} (${cause ?? input.ids.join(', ')})`;
  const others = input.ids.filter((id) => id !== cause);
  const consequence = cause && others.length > 0 ? `; ${others.join(', ')} fails as a consequence` : '';
  if (!exchange) {
    const what = (input.error ?? 'the check failed').split('\n')[0] ?? '';
    return `${input.title}: ${what.length > 160 ? `${what.slice(0, 159)}…` : what}; ${expectation}${consequence}`;
  }
  return `${requestPhrase(exchange)} ${answerPhrase(exchange)}; ${expectation}${consequence}`;
}
