/**
 * Remembers the requests the suite's HTTP client sent in the running test and what came back, so a
 * failing test can attach the one its failing assertion is about as evidence (D-FINDINGS,
 * conformance/transport/exchange.ts). A worker runs one test at a time; the suite's auto fixture clears
 * the memory when a test starts.
 *
 * Which exchange a failure is about: a check names a response in its message through `exchangeText`
 * (support/problem.ts), which notes it here; the failure's evidence is the described exchange the
 * message names first. An exchange can also be noted as breaking a requirement (`noteBreaks`: a
 * provocation answered with another status, a create answered without the Location a later request
 * needs): a failure all of whose named exchanges break one requirement the test does not itself
 * declare is a consequence of that requirement.
 */
import { exchangeOf, EXCHANGE_ATTACHMENT, VERDICT_ATTACHMENT } from './exchange.ts';
import type { Exchange, Verdict } from './exchange.ts';
import type { Cause } from '../../spec/results.ts';
import type { HttpResponse, SentRequest } from './message.ts';
import { harRecording, recordForHar } from './har-log.ts';

interface Noted {
  request: SentRequest;
  startedAt: number;
  response?: HttpResponse;
  error?: unknown;
  /** The text `exchangeText` printed for this response, normalised (see `normalised`). */
  described?: string;
  /** When (in `tick`s) the answer came, and when `exchangeText` last printed it. */
  answeredTick?: number;
  describedTick?: number;
  breaks?: { requirement: string; expected: string; ownRuleText?: boolean };
}

/** The most recent exchanges of the test, oldest first (bounded: rate-limit and property tests send hundreds). */
const KEPT = 300;
/** D-BOUNDED-RUN: and at most this many body bytes (requests and responses), the latest exchange always kept. */
const KEPT_BYTES = 16 * 1024 * 1024;
let noted: Noted[] = [];
/** Orders answers and `exchangeText` calls of the test. */
let tick = 0;

function bodyBytes(n: Noted): number {
  return (n.request.body?.length ?? 0) + (n.response?.text.length ?? 0);
}

/** Drops the oldest exchanges past KEPT entries or KEPT_BYTES. */
function bound(): void {
  if (noted.length > KEPT) noted = noted.slice(-KEPT);
  let total = noted.reduce((sum, n) => sum + bodyBytes(n), 0);
  while (total > KEPT_BYTES && noted.length > 1) total -= bodyBytes(noted.shift() as Noted);
}

/** Called by `send` when a request leaves. */
export function noteSent(request: SentRequest): void {
  noted.push({ request, startedAt: Date.now() });
  bound();
}

/** Called by `send` when the response to `request` (or its transport error) came back; it becomes the latest. */
export function noteAnswered(request: SentRequest, outcome: { response?: HttpResponse; error?: unknown }): void {
  const earlier = noted.find((n) => n.request === request);
  noted = noted.filter((n) => n.request !== request);
  const entry: Noted = { request, startedAt: earlier?.startedAt ?? Date.now(), ...outcome, answeredTick: (tick += 1) };
  if (earlier?.described !== undefined) entry.described = earlier.described;
  if (earlier?.describedTick !== undefined) entry.describedTick = earlier.describedTick;
  if (earlier?.breaks !== undefined) entry.breaks = earlier.breaks;
  noted.push(entry);
  bound();
  if (harRecording()) recordForHar(entry);
  if (outcome.response && answerObserver) answerObserver(outcome.response);
}

let answerObserver: ((response: HttpResponse) => void) | undefined;

/** Hands every response of the running test to `observer` too (the response rules, D-TRAFFIC); undefined stops it. */
export function observeAnswers(observer: ((response: HttpResponse) => void) | undefined): void {
  answerObserver = observer;
}

/** Forgets every exchange (a test starts). */
export function clearExchanges(): void {
  noted = [];
  tick = 0;
}

/**
 * Text compared the way it survives inside an assertion message: an `expect` diff prints strings
 * JSON-escaped, so backslashes and whitespace are dropped on both sides.
 */
function normalised(text: string): string {
  return text.replace(/\\/g, '').replace(/\s+/g, '');
}

function entryOf(response: HttpResponse): Noted | undefined {
  return [...noted].reverse().find((n) => n.request === response.request);
}

/** `exchangeText(response)` printed `text` for `response` into a message (support/problem.ts). */
export function noteDescribed(response: HttpResponse, text: string): void {
  let entry = entryOf(response);
  if (!entry) {
    // Dropped past KEPT (a property's counterexample, hundreds of requests before the end): described, it is evidence again.
    entry = { request: response.request, startedAt: Date.now(), response, answeredTick: (tick += 1) };
    noted.push(entry);
    bound();
  }
  // The first line up to 200 characters: enough to tell two answers to one URL apart.
  entry.described = normalised(text.split('\n')[0]?.slice(0, 200) ?? text);
  entry.describedTick = tick += 1;
}

/**
 * `response` breaks `requirement`, which expected `expected` (a status, "a Location header"): a
 * failure that names only such exchanges is a consequence of that requirement (D-FINDINGS).
 * `ownRuleText`: a check of `requirement` itself states what it expected better than `expected`
 * (its headline quotes the rule from the catalogue).
 */
export function noteBreaks(
  response: HttpResponse,
  requirement: string,
  expected: string,
  options: { unlessNoted?: boolean; ownRuleText?: boolean } = {},
): void {
  const entry = entryOf(response);
  if (entry && !(options.unlessNoted && entry.breaks)) entry.breaks = { requirement, expected, ...(options.ownRuleText ? { ownRuleText: true } : {}) };
}

/**
 * What a failure is about: the described exchanges its message names, in the order the message
 * names them; else the latest one whose method, URL and status it names, else the latest one naming
 * method and URL; else (a matcher error drops the check's message) the exchange `exchangeText` printed
 * last, unless answers came after it: then the latest of those; else the last exchange of the test.
 */
function namedBy(failureText: string): Noted[] {
  const text = normalised(failureText);
  // Two exchanges described alike (a 429 and the retry refused after it: one first line) match at one
  // place of the message, which names one of them: the most specific description, then the one
  // `exchangeText` printed last (the failing assertion's message is the last one built).
  const atPlace = new Map<number, Noted>();
  for (const n of noted) {
    const at = n.described === undefined ? -1 : text.indexOf(n.described);
    if (at < 0) continue;
    const other = atPlace.get(at);
    const [length, otherLength] = [n.described?.length ?? 0, other?.described?.length ?? 0];
    const later = (n.describedTick ?? 0) > (other?.describedTick ?? 0);
    if (other === undefined || length > otherLength || (length === otherLength && later)) atPlace.set(at, n);
  }
  const described = [...atPlace.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
  if (described.length > 0) return described;
  const latest = [...noted].reverse();
  const lastDescribed = noted
    .filter((n) => n.describedTick !== undefined)
    .reduce<Noted | undefined>((a, n) => (a === undefined || (n.describedTick ?? 0) > (a.describedTick ?? 0) ? n : a), undefined);
  const answeredAfter = lastDescribed ? latest.find((n) => (n.answeredTick ?? 0) > (lastDescribed.describedTick ?? 0)) : undefined;
  const named =
    latest.find((n) => n.response && failureText.includes(`${n.request.method} ${n.request.url} → ${n.response.status}`)) ??
    latest.find((n) => failureText.includes(`${n.request.method} ${n.request.url}`)) ??
    answeredAfter ??
    lastDescribed ??
    latest[0];
  return named ? [named] : [];
}

/** The request of the exchange that shows a failure (the very object `send` sent: the HAR marks it). */
export function evidenceRequest(failureText: string): SentRequest | undefined {
  return namedBy(failureText)[0]?.request;
}

/** The exchange that shows a failure (see `namedBy`). */
export function evidenceFor(failureText: string): Exchange | undefined {
  const first = namedBy(failureText)[0];
  return first ? exchangeOf(first.request, first.response, first.error) : undefined;
}

/**
 * The verdict details of a failure of a test declaring `declared`: what the rule of its evidence
 * expected, and the requirements it is a consequence of when every exchange it names breaks a
 * requirement other than the test's only one (one, or several: a check over every provoked error may
 * name a 400 where a 422 is due and a text 401; D-FINDINGS lists it under each of their findings). A
 * test of two IDs failing on one of them (the method property on an Allow) is that one's finding, and
 * a consequence under the other.
 */
export function verdictFor(failureText: string, declared: readonly string[]): Verdict {
  const named = namedBy(failureText);
  const first = named[0];
  const verdict: Verdict = {};
  if (first?.breaks && !(first.breaks.ownRuleText && declared.includes(first.breaks.requirement))) verdict.expected = first.breaks.expected;
  // A cause the test declares is a consequence only for its other IDs: a check of one ID failing on its own rule is its own finding.
  const own = (requirement: string): boolean => declared.includes(requirement) && declared.length === 1;
  if (named.length === 0 || named.some((n) => n.breaks === undefined || own(n.breaks.requirement))) return verdict;
  const causes = new Map<string, Cause>();
  for (const n of named) {
    const requirement = n.breaks?.requirement as string;
    const status = n.response?.status;
    causes.set(`${requirement} ${status}`, { requirement, ...(status === undefined ? {} : { status }) });
  }
  verdict.consequenceOf = first?.breaks?.requirement as string;
  if (new Set([...causes.values()].map((c) => c.requirement)).size > 1) verdict.causes = [...causes.values()];
  return verdict;
}

/** What a failing test attaches: the evidence `EXCHANGE_ATTACHMENT` and the `VERDICT_ATTACHMENT`, as JSON; nothing when it sent no request. */
export function evidenceAttachments(failureText: string, declared: readonly string[]): { name: string; body: string; contentType: string }[] {
  const exchange = evidenceFor(failureText);
  if (!exchange) return [];
  const verdict = verdictFor(failureText, declared);
  return [
    { name: EXCHANGE_ATTACHMENT, body: JSON.stringify(exchange), contentType: 'application/json' },
    ...(Object.keys(verdict).length > 0 ? [{ name: VERDICT_ATTACHMENT, body: JSON.stringify(verdict), contentType: 'application/json' }] : []),
  ];
}
