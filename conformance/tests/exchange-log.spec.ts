import { test, expect } from '@playwright/test';
import { exchangeText } from '../support/problem.ts';
import { clearExchanges, evidenceRequest, noteAnswered, noteBreaks, noteSent, verdictFor } from '../transport/exchange-log.ts';
import type { HttpResponse, SentRequest } from '../transport/message.ts';

/** A 429 of GET /account as the suite's client records it; its body differs from another's only past the first 200 characters. */
function refusal(retryInSeconds: number): HttpResponse {
  const request: SentRequest = { method: 'GET', url: 'http://127.0.0.1:1/account', headers: { authorization: 'Bearer t' } };
  noteSent(request);
  const body = {
    type: 'https://http-api-conformance.dev/problems/rate-limited',
    title: 'Too many requests',
    status: 429,
    detail: `The rate limit of 10 requests is exhausted; retry in ${retryInSeconds} s.`,
  };
  const now = performance.now();
  const response: HttpResponse = {
    status: 429,
    headers: { 'content-type': 'application/problem+json', 'retry-after': String(retryInSeconds) },
    text: JSON.stringify(body),
    json: body,
    request,
    sentAt: now,
    flushedAt: now,
    receivedAt: now,
    durationMs: 1,
  };
  noteAnswered(request, { response });
  return response;
}

test.describe('the exchange a failure is about (D-FINDINGS)', () => {
  test.beforeEach(() => clearExchanges());

  test('of two answers described alike, the failure names the one its message printed last, and that one\'s noted break', () => {
    const rejected = refusal(6);
    const retried = refusal(1);
    expect(exchangeText(rejected).split('\n')[0]?.slice(0, 200)).toBe(exchangeText(retried).split('\n')[0]?.slice(0, 200));
    exchangeText(rejected);
    noteBreaks(retried, 'RATE-LIMIT-HEADER-RESET', "a request admitted once the 429's RateLimit-Reset had passed");
    const message = `round 1, after waiting Retry-After 6 s: ${exchangeText(retried)}`;
    expect(evidenceRequest(message)).toBe(retried.request);
    expect(verdictFor(message, ['RATE-LIMIT-RETRY-AFTER-HONEST'])).toMatchObject({ consequenceOf: 'RATE-LIMIT-HEADER-RESET' });
    // Printed last, the first 429 is the one named, and it breaks nothing else: the failure is its own.
    const aboutFirst = `the 429: ${exchangeText(rejected)}`;
    expect(evidenceRequest(aboutFirst)).toBe(rejected.request);
    expect(verdictFor(aboutFirst, ['RATE-LIMIT-RETRY-AFTER-HONEST']).consequenceOf).toBeUndefined();
  });

  test('a message naming two different answers names both, in its order', () => {
    const first = refusal(6);
    const second = { ...refusal(1), status: 503 };
    noteAnswered(second.request, { response: second });
    const message = `${exchangeText(second)} then ${exchangeText(first)}`;
    noteBreaks(first, 'RATE-LIMIT-429', 'a 429');
    noteBreaks(second, 'RATE-LIMIT-429', 'a 429');
    expect(evidenceRequest(message)).toBe(second.request);
    expect(verdictFor(message, ['RATE-LIMIT-HEADER-LIMIT'])).toMatchObject({ consequenceOf: 'RATE-LIMIT-429' });
  });
});
