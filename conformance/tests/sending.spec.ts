/**
 * D-SHAPES: every request reaches the API its own way (conformance/transport/sending.ts): the token as the
 * profile's `credentials` say, the required header and query parameters of the path, and a check's own
 * header or Authorization value kept as it set it.
 */
import { test, expect } from '@playwright/test';
import { callerKeyFor, callerKeyOf, prepared, sendingOf } from '../transport/sending.ts';
import type { TargetProfile } from '../target/profile.ts';

const collections: TargetProfile['collections'] = [
  { name: 'widgets', path: '/widgets', methods: ['GET'], parameters: { headers: { From: 'ops@example.com' }, query: { expand: 'owner' } } },
  { name: 'gadgets', path: '/gadgets', methods: ['GET'] },
];

test('a bearer token by default, the profile\'s parameters everywhere, a collection\'s only under its path', () => {
  const sending = sendingOf({ collections, parameters: { headers: { 'X-Tenant': 'acme' } } });
  expect(prepared(sending, '/widgets/7', {}, 'tok')).toEqual({
    path: '/widgets/7?expand=owner',
    headers: { 'x-tenant': 'acme', from: 'ops@example.com', authorization: 'Bearer tok' },
  });
  expect(prepared(sending, '/gadgets?limit=2', {}, null)).toEqual({ path: '/gadgets?limit=2', headers: { 'x-tenant': 'acme' } });
  expect(prepared(sending, '/widgetsx', {}, null).headers.from).toBeUndefined();
});

test('a check\'s own header, query parameter and Authorization value win', () => {
  const sending = sendingOf({ collections, parameters: { headers: { Accept: 'application/vnd.x+json' } } });
  const sent = prepared(sending, '/widgets?expand=none', { accept: 'text/html', authorization: 'Token abc' }, 'tok');
  expect(sent.path).toBe('/widgets?expand=none');
  expect(sent.headers).toEqual({ accept: 'text/html', from: 'ops@example.com', authorization: 'Token abc' });
});

test('an API key in a header or the query, and HTTP Basic, are sent the API\'s way, and name the caller', () => {
  const header = sendingOf({ collections: [], credentials: { scheme: 'apiKey', in: 'header', name: 'X-API-Key' } });
  expect(prepared(header, '/me', {}, 'k1').headers).toEqual({ 'x-api-key': 'k1' });
  const query = sendingOf({ collections: [], credentials: { scheme: 'apiKey', in: 'query', name: 'api_key' } });
  expect(prepared(query, '/me?x=1', {}, 'k2')).toEqual({ path: '/me?x=1&api_key=k2', headers: {} });
  const basic = sendingOf({ collections: [], credentials: { scheme: 'basic' } });
  expect(prepared(basic, '/me', {}, 'dXNlcjpwdw==').headers).toEqual({ authorization: 'Basic dXNlcjpwdw==' });
  const credentials = { scheme: 'apiKey', in: 'query', name: 'api_key' } as const;
  expect(callerKeyOf({ url: 'http://h/me?api_key=k2', headers: {} }, credentials)).toBe(callerKeyFor('k2', credentials));
  expect(callerKeyOf({ url: 'http://h/me', headers: { authorization: 'Bearer t' } }, { scheme: 'bearer' })).toBe(callerKeyFor('t', { scheme: 'bearer' }));
});
