/**
 * Hostile request heads (spec/decisions.md D-ERRORS, D-METHODS, D-AUTH): very long
 * headers and URLs, bad percent-encoding, unknown methods, duplicate headers, odd bearer tokens and
 * invalid UTF-8, sent over raw sockets. Every answer is a 4xx problem document (or a success where
 * the input is harmless), never a 5xx, HTML or a dropped connection.
 */
import { expect, test } from '@playwright/test';
import {
  badPercent,
  duplicateHeaders,
  invalidUtf8Head,
  longHeader,
  longUrl,
  oddToken,
  unknownMethod,
} from './support/hostile-http-inputs.ts';
import { buildRequest, rawRequest } from './support/raw-http.ts';
import { type HostileFamily, hostileFamilies, stillServing } from './support/run-hostile.ts';
import { problemViolation } from './support/verdict.ts';

const families: HostileFamily[] = [
  ['long-headers', longHeader, 80],
  ['long-urls', longUrl, 80],
  ['bad-percent-encoding', badPercent, 150],
  ['unknown-methods', unknownMethod, 200],
  ['duplicate-headers', duplicateHeaders, 60],
  ['odd-tokens', oddToken, 300],
  ['invalid-utf8-head', invalidUtf8Head, 60],
];

const server = hostileFamilies('heads', families);

test('a head over Node’s 16 KiB limit gets a 431 problem document, not Node’s bare answer', async () => {
  const response = await rawRequest(server().port, buildRequest('GET', '/users', [['X-Padding', 'p'.repeat(20_000)]]));
  expect(response.status).toBe(431);
  expect(problemViolation(response)).toBeUndefined();
  expect(JSON.parse(response.body.toString('utf8'))).toMatchObject({ status: 431, title: 'Request Header Fields Too Large' });
});

test('a request target longer than the server parses gets 414 URI Too Long (RFC 9112 §3 MUST), as a problem document', async () => {
  for (const target of [`/users/${'1'.repeat(20_000)}`, `/users?name=${'a'.repeat(40_000)}`]) {
    const response = await rawRequest(server().port, buildRequest('GET', target, []));
    expect(response.status, `target of ${target.length} bytes`).toBe(414);
    expect(problemViolation(response)).toBeUndefined();
  }
  expect(await stillServing(server().port)).toBe(200);
});

test('an unknown method on a known path is 405 with Allow, on an unknown path 404 (D-METHODS)', async () => {
  const known = await rawRequest(server().port, buildRequest('BREW', '/users', []));
  expect(known.status).toBe(405);
  expect(known.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
  const unknown = await rawRequest(server().port, buildRequest('BREW', '/coffee', []));
  expect(unknown.status).toBe(404);
  expect(problemViolation(unknown)).toBeUndefined();
});

test('two different Authorization headers are refused with 400, never resolved to one caller (RFC 9110 §5.3)', async () => {
  const response = await rawRequest(
    server().port,
    buildRequest('GET', '/account', [['Authorization', 'Bearer dev-token-alice'], ['Authorization', 'Bearer dev-token-bob']]),
  );
  expect(response.status, response.body.toString('utf8').slice(0, 200)).toBe(400);
  expect(problemViolation(response)).toBeUndefined();
});

test('two different Content-Type headers are refused with 400, never resolved to the first (RFC 9110 §5.3)', async () => {
  const response = await rawRequest(
    server().port,
    buildRequest(
      'POST',
      '/payments',
      [['Authorization', 'Bearer dev-token-alice'], ['Content-Type', 'application/json'], ['Content-Type', 'text/plain']],
      '{"amount":100,"currency":"usd"}',
    ),
  );
  expect(response.status, response.body.toString('utf8').slice(0, 200)).toBe(400);
  expect(problemViolation(response)).toBeUndefined();
});

test('a request with two Host headers, or none, is 400 (RFC 9112 §3.2 MUST)', async () => {
  const headers: [string, string][] = [['Authorization', 'Bearer dev-token-alice'], ['Content-Type', 'application/json']];
  const twoHosts = await rawRequest(
    server().port,
    buildRequest('POST', '/payments', [['Host', '127.0.0.1'], ['Host', 'evil.example'], ...headers], '{"amount":100,"currency":"usd"}'),
  );
  expect(twoHosts.status, twoHosts.body.toString('utf8').slice(0, 200)).toBe(400);
  expect(problemViolation(twoHosts)).toBeUndefined();
  const noHost = await rawRequest(server().port, Buffer.from('GET /users HTTP/1.1\r\nConnection: close\r\n\r\n'));
  expect(noHost.status).toBe(400);
  expect(problemViolation(noHost)).toBeUndefined();
});

test('CONNECT gets a problem document instead of a dropped connection (RFC 9110 §9.3.6)', async () => {
  const response = await rawRequest(server().port, buildRequest('CONNECT', '127.0.0.1:80', []), { timeoutMs: 3000 });
  expect(response.dropped).toBeUndefined();
  expect([400, 405]).toContain(response.status);
  expect(problemViolation(response)).toBeUndefined();
  expect(await stillServing(server().port)).toBe(200);
});
