/**
 * The evidence of a failed check: the request of the test that shows the failure, as a `curl` line, and
 * the response it received (status, headers, the start of the body). The suite attaches it to a
 * failing test (conformance/support/exchange-log.ts); the reporter copies it into results.json and
 * report.html shows it.
 */
import { curlFor } from '../support/curl.ts';
import type { HttpResponse, SentRequest } from '../support/http.ts';
import type { Exchange } from '../../spec/results.ts';

export type { Exchange };

/** Name of the Playwright attachment that carries an `Exchange` as JSON. */
export const EXCHANGE_ATTACHMENT = 'hac-evidence';

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
    },
  };
  if (response) {
    exchange.response = { status: response.status, headers: response.headers, body: excerpt(response.text), bodyBytes: Buffer.byteLength(response.text) };
  } else if (error !== undefined) {
    exchange.error = error instanceof Error ? error.message.split('\n')[0] ?? error.name : String(error);
  }
  return exchange;
}
