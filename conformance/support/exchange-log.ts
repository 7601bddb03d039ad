/**
 * Remembers the requests the suite's HTTP client sent in the running test and what came back, so a
 * failing test can attach the one that shows the failure as evidence (conformance/report/exchange.ts).
 * A worker runs one test at a time; the suite's auto fixture clears the memory when a test starts.
 */
import { exchangeOf, EXCHANGE_ATTACHMENT } from '../report/exchange.ts';
import type { Exchange } from '../report/exchange.ts';
import type { HttpResponse, SentRequest } from './http.ts';

interface Noted {
  request: SentRequest;
  response?: HttpResponse;
  error?: unknown;
}

/** The most recent exchanges of the test, oldest first (bounded: rate-limit and property tests send hundreds). */
const KEPT = 300;
/** D-BOUNDED-RUN: and at most this many body bytes (requests and responses), the latest exchange always kept. */
const KEPT_BYTES = 16 * 1024 * 1024;
let noted: Noted[] = [];

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
  noted.push({ request });
  bound();
}

/** Called by `send` when the response to `request` (or its transport error) came back; it becomes the latest. */
export function noteAnswered(request: SentRequest, outcome: { response?: HttpResponse; error?: unknown }): void {
  noted = noted.filter((n) => n.request !== request);
  noted.push({ request, ...outcome });
  bound();
}

/** Forgets every exchange (a test starts). */
export function clearExchanges(): void {
  noted = [];
}

/**
 * The exchange that shows a failure: the latest one the failure message names (checks describe a
 * response as `METHOD URL → STATUS`, conformance/support/problem.ts), else the latest one naming its
 * method and URL, else the last exchange of the test.
 */
export function evidenceFor(failureText: string): Exchange | undefined {
  const latest = [...noted].reverse();
  const named =
    latest.find((n) => n.response && failureText.includes(`${n.request.method} ${n.request.url} → ${n.response.status}`)) ??
    latest.find((n) => failureText.includes(`${n.request.method} ${n.request.url}`)) ??
    latest[0];
  return named ? exchangeOf(named.request, named.response, named.error) : undefined;
}

/** What a failing test attaches: `EXCHANGE_ATTACHMENT` as JSON, or nothing when it sent no request. */
export function evidenceAttachment(failureText: string): { name: string; body: string; contentType: string } | undefined {
  const exchange = evidenceFor(failureText);
  return exchange ? { name: EXCHANGE_ATTACHMENT, body: JSON.stringify(exchange), contentType: 'application/json' } : undefined;
}
