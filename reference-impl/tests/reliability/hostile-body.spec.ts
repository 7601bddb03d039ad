/**
 * Hostile request bodies (spec/decisions.md D-BODY, D-ERRORS): malformed and
 * truncated JSON, wrong media types, oversized and deeply nested bodies, huge numbers, prototype
 * keys and invalid UTF-8 each get a 4xx problem document, never a 5xx; the server keeps serving and
 * Object.prototype stays clean (the server runs in this process).
 */
import { expect, test } from '@playwright/test';
import {
  deepJson,
  hugeNumbers,
  invalidUtf8Json,
  malformedJson,
  oversizedBody,
  pollutingJson,
  truncatedJson,
  wrongContentType,
} from './support/hostile-inputs.ts';
import { buildRequest, rawRequest } from './support/raw-http.ts';
import { type HostileFamily, hostileFamilies } from './support/run-hostile.ts';

const families: HostileFamily[] = [
  ['truncated-json', truncatedJson, 300],
  ['malformed-json', malformedJson, 300],
  ['content-type', wrongContentType, 200],
  ['oversized', oversizedBody, 60],
  ['deep-nesting', deepJson, 40],
  ['huge-numbers', hugeNumbers, 150],
  ['prototype-keys', pollutingJson, 150],
  ['invalid-utf8', invalidUtf8Json, 60],
];

const server = hostileFamilies('bodies', families);

test('no request body pollutes Object.prototype of the server process', async () => {
  const before = Object.getOwnPropertyNames(Object.prototype).sort();
  for (const key of ['__proto__', 'constructor', 'prototype']) {
    const body = `{"amount":100,"currency":"usd","${key}":{"polluted":"yes","prototype":{"polluted":"yes"}}}`;
    for (const [method, path] of [['POST', '/payments'], ['POST', '/users'], ['PUT', '/users/1'], ['POST', '/orders']] as const) {
      const response = await rawRequest(
        server().port,
        buildRequest(method, path, [['Authorization', 'Bearer dev-token-alice'], ['Content-Type', 'application/json']], body),
      );
      expect(response.status, `${method} ${path} with ${key}`).toBe(422);
    }
  }
  const probe: Record<string, unknown> = {};
  expect(probe.polluted).toBeUndefined();
  expect(probe.isAdmin).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
  const created = await fetch(`${server().url}/payments`, {
    method: 'POST',
    headers: { Authorization: 'Bearer dev-token-alice', 'Content-Type': 'application/json' },
    body: JSON.stringify({ amount: 250, currency: 'eur' }),
  });
  expect(created.status).toBe(201);
  const payment = (await created.json()) as Record<string, unknown>;
  expect(Object.keys(payment).sort()).toEqual(['_links', 'amount', 'createdAt', 'currency', 'id', 'status', 'transferId', 'userId']);
});

test('a JSON body with invalid UTF-8 is 400, not stored with replacement characters (RFC 8259 §8.1)', async () => {
  const body = Buffer.concat([Buffer.from('{"amount":100,"currency":"usd","description":"ab'), Buffer.from([0xff, 0xfe]), Buffer.from('cd"}')]);
  const response = await rawRequest(
    server().port,
    buildRequest('POST', '/payments', [['Authorization', 'Bearer dev-token-alice'], ['Content-Type', 'application/json']], body),
  );
  expect(response.status, response.body.toString('utf8')).toBe(400);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
});
