/**
 * The evidence of a failed check: the request of the test that shows the failure, as a `curl` line, and
 * the response it received (status, headers, the start of the body). The suite attaches it to a
 * failing test (conformance/transport/exchange-log.ts); the reporter copies it into results.json and
 * report.html shows it.
 */
import { curlFor } from './curl.ts';
import type { HttpResponse, SentRequest } from './message.ts';
import type { Exchange } from '../../spec/results.ts';

export type { Exchange };

/** Name of the Playwright attachment that carries an `Exchange` as JSON. */
export const EXCHANGE_ATTACHMENT = 'hac-evidence';

import type { Cause } from '../../spec/results.ts';

/** Name of the attachment that carries a failure's `Verdict` as JSON. */
export const VERDICT_ATTACHMENT = 'hac-verdict';

/** What the suite knows about a failure beyond its exchange (D-FINDINGS, transport/exchange-log.ts). */
export interface Verdict {
  /** What the rule of the failing exchange expected ("415", "a Location header"). */
  expected?: string;
  /** The requirement whose defect this failure only repeats. */
  consequenceOf?: string;
  /** When its exchanges break several requirements: all of them, `consequenceOf` first. */
  causes?: Cause[];
}

/** Request headers that carry credentials: masked in the evidence (the curl line keeps them, to reproduce). */
const CREDENTIALS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

function maskedHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, CREDENTIALS.has(name) ? value.replace(/^(\S+\s+)?.*$/, (_m, scheme: string | undefined) => `${scheme ?? ''}***`) : value]),
  );
}

/** Bodies are cut to this many characters in the evidence (the 413 check sends 2 MiB). */
export const BODY_EXCERPT_CHARS = 2048;

function excerpt(text: string): string {
  return text.length > BODY_EXCERPT_CHARS ? `${text.slice(0, BODY_EXCERPT_CHARS)}…` : text;
}

/** The evidence of one request and what came back (a response, or the transport error). */
export function exchangeOf(request: SentRequest, response?: HttpResponse, error?: unknown): Exchange {
  const bodyText = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : request.body.toString('utf8');
  const cut = bodyText !== undefined && bodyText.length > BODY_EXCERPT_CHARS;
  const curl = curlFor(cut ? { ...request, body: excerpt(bodyText) } : request);
  const exchange: Exchange = {
    curl: cut ? `${curl}  # body cut to ${BODY_EXCERPT_CHARS} of ${Buffer.byteLength(request.body ?? '')} bytes` : curl,
    request: {
      method: request.method,
      url: request.url,
      ...(request.body !== undefined ? { bodyBytes: Buffer.byteLength(request.body) } : {}),
      headers: maskedHeaders(request.headers),
    },
  };
  if (response) {
    exchange.response = { status: response.status, headers: response.headers, body: excerpt(response.text), bodyBytes: Buffer.byteLength(response.text) };
  } else if (error !== undefined) {
    exchange.error = error instanceof Error ? error.message.split('\n')[0] ?? error.name : String(error);
  }
  return exchange;
}
