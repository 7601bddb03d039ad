import { test, expect } from '@playwright/test';
import { createClient, parseProblem, ProblemError } from '../index.ts';
import { json, problem, scriptedFetch } from './support/fakes.ts';

const baseUrl = 'http://api.test';

test.describe('problem documents', () => {
  test('a 422 problem is parsed with its errors list', async () => {
    const { fetch } = scriptedFetch([
      problem(422, {}, {
        type: 'https://http-api-conformance.dev/problems/validation-error',
        title: 'Validation failed',
        detail: 'two fields are invalid',
        instance: '/payments',
        errors: [
          { field: 'amount', message: 'must be an integer' },
          { field: 'currency', message: 'must be lowercase' },
        ],
      }),
    ]);
    const client = createClient({ baseUrl, fetch });
    const res = await client.post('/payments', { amount: 1.5, currency: 'EUR' });
    expect(res.problem).toBeInstanceOf(ProblemError);
    expect(res.problem?.type).toBe('https://http-api-conformance.dev/problems/validation-error');
    expect(res.problem?.title).toBe('Validation failed');
    expect(res.problem?.status).toBe(422);
    expect(res.problem?.instance).toBe('/payments');
    expect(res.problem?.errors).toEqual([
      { field: 'amount', message: 'must be an integer' },
      { field: 'currency', message: 'must be lowercase' },
    ]);
    expect(res.problem?.message).toBe('422 Validation failed: two fields are invalid');
  });

  test('extension members are kept', () => {
    const p = parseProblem({ status: 429, headers: {}, body: { type: 'x:rate-limited', title: 'Too Many Requests', status: 429, limit: 10, retryAfter: 3 } });
    expect(p?.extensions).toEqual({ limit: 10, retryAfter: 3 });
    expect(p?.toJSON()).toEqual({ type: 'x:rate-limited', title: 'Too Many Requests', status: 429, limit: 10, retryAfter: 3 });
  });

  test('an error without a problem body becomes an about:blank problem', async () => {
    const { fetch } = scriptedFetch([
      new Response('<html>bad gateway</html>', { status: 404, statusText: 'Not Found', headers: { 'content-type': 'text/html' } }),
    ]);
    const res = await createClient({ baseUrl, fetch }).get('/resource');
    expect(res.body).toBe('<html>bad gateway</html>');
    expect(res.problem).toMatchObject({ type: 'about:blank', title: 'Not Found', status: 404 });
    expect(res.problem?.errors).toBeUndefined();
  });

  test('successful responses carry no problem', async () => {
    const { fetch } = scriptedFetch([json(200, { type: 'order', title: 'x' })]);
    const res = await createClient({ baseUrl, fetch }).get('/resource');
    expect(res.problem).toBeNull();
    expect(parseProblem({ status: 302, headers: {}, body: undefined })).toBeNull();
  });

  test('a malformed JSON body is kept as text', async () => {
    const { fetch } = scriptedFetch([new Response('{oops', { status: 500, headers: { 'content-type': 'application/problem+json' } })]);
    const res = await createClient({ baseUrl, fetch, maxAttempts: 1 }).get('/resource');
    expect(res.body).toBe('{oops');
    expect(res.problem?.status).toBe(500);
  });
});
