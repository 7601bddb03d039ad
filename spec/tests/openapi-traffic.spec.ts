/**
 * spec/openapi.yaml and the reference server say the same thing, judged by an independent tool:
 * one whole conformance `run` goes through a proxy that validates every request and response with
 * Stoplight Prism's validator (support/openapi-proxy.ts). Every response must agree with the
 * description. Requests that break it are counted apart: the suite sends them on purpose (missing
 * and unknown tokens, hostile bodies, unknown methods and paths, out-of-range queries), and the
 * server's answer to each of them is still checked against the description. A method a path does
 * not allow is no operation of the description (D-METHODS): its answer is judged against
 * components/responses/MethodNotAllowed, and its Allow against the path's `x-allow`.
 *
 * Every finding that remains is listed below as data, with why it is there: a kind nobody explained,
 * or an explained kind that no longer occurs, fails the test.
 */
import { spawn } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { type TestServer, startTestServer } from '../../reference-impl/tests/support/harness.ts';
import { type ValidatingProxy, startValidatingProxy } from './support/openapi-proxy.ts';
import { compiledCli } from '../../fixtures/support/compiled-cli.ts';
import { readResults } from '../results.ts';

/**
 * The response findings that remain: none. Every answer of the run agrees with spec/openapi.yaml
 * (bodies, headers, statuses, 405s against MethodNotAllowed, Allow against x-allow).
 */
const RESPONSE_FINDINGS: readonly { kind: RegExp; why: string }[] = [];

/**
 * The request findings that remain: requests the description does not allow, which the suite sends on
 * purpose to see the server refuse them. `statuses` are the answers each kind may get.
 */
const REQUEST_FINDINGS: readonly { kind: RegExp; statuses: number[]; why: string }[] = [
  {
    kind: /^Route resolved, but no method matched$/,
    statuses: [405],
    why:
      'METHOD-NOT-ALLOWED-405 sends every method a path does not allow; no operation is declared for them (D-METHODS), ' +
      'so the 405 is checked against MethodNotAllowed (BREW, outside OpenAPI\'s set: UnknownMethodNotAllowed) and its Allow against x-allow',
  },
  {
    kind: /^Route not resolved, no path matched$/,
    statuses: [404],
    why: 'unknown paths (the 404 checks) match no path of the description and get 404',
  },
  { kind: /^Invalid security scheme used$/, statuses: [401, 403], why: 'AUTH-401-*: a missing, unknown or malformed bearer token on an operation that needs one' },
  {
    kind: /^Invalid security scheme used$/,
    statuses: [200],
    why:
      'AUTH-BEARER-HEADER sends the scheme as "bearer" and "BEARER", case-insensitive by RFC 9110 §11.1; Prism checks /^Bearer\\s/ ' +
      '(prism-http validator/validators/security/handlers/bearer.js), a limit of the tool, not of the description',
  },
  {
    kind: /^(body(\.[\w-]+)?: Request body |Body parameter is required$)/,
    statuses: [400, 413, 415, 422],
    why:
      'the 422, 400 (malformed JSON), 413 and 415 checks send bodies that break the request schemas on purpose (D-ERRORS, D-BODY); ' +
      'a body sent as text/plain is read as text, so it is "not an object" too',
  },
  { kind: /^Supported content types: application\/json$/, statuses: [415], why: 'STATUS-415: a body without Content-Type: application/json (D-BODY)' },
  { kind: /^path(\.id)?: Request path /, statuses: [404], why: 'ids outside the canonical positive integers (abc, -1, an empty segment) are 404 (D-IDS)' },
  { kind: /^query\.(limit|offset|sort): Request query parameter /, statuses: [400], why: 'out-of-range paging and an unknown sort key are 400 (D-QUERY)' },
  { kind: /^header\.idempotency-key: Request header parameter /, statuses: [400], why: 'an Idempotency-Key that is too long or not visible ASCII is 400 (D-IDEMPOTENCY)' },
];

const PROFILE = fileURLToPath(new URL('../../fixtures/profiles/reference.json', import.meta.url));

function runCli(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [compiledCli(), ...args], { env: { ...process.env, FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

test.describe('the reference server through an OpenAPI-validating proxy', () => {
  test.describe.configure({ timeout: 8 * 60_000 });
  let server: TestServer;
  let proxy: ValidatingProxy;
  let out: string;
  test.beforeAll(async () => {
    // As the embedded target of `run` (conformance/target/embedded.ts): fault injection on, memory store.
    server = await startTestServer({ faultInjection: true });
    proxy = await startValidatingProxy(server.url);
    out = mkdtempSync(join(tmpdir(), 'hac-openapi-traffic-'));
  });
  test.afterAll(async () => {
    await proxy.close();
    await server.close();
    rmSync(out, { recursive: true, force: true });
  });

  test('a whole conformance run passes, and no response disagrees with spec/openapi.yaml', async () => {
    const testInfo = test.info();
    const run = await runCli(['run', '--profile', PROFILE, '--target', proxy.url, '--out', out, '--workers', '2']);
    const report = proxy.report();
    const byMessage = (list: { message: string; method: string; target: string; status: number }[]) => {
      const counts = new Map<string, { count: number; example: string }>();
      for (const v of list) {
        const key = v.message.replace(/\d{3,}/g, 'N');
        const entry = counts.get(key) ?? { count: 0, example: `${v.method} ${v.target} -> ${v.status}` };
        entry.count += 1;
        counts.set(key, entry);
      }
      return Object.fromEntries([...counts].sort((a, b) => b[1].count - a[1].count));
    };
    const summary = {
      requests: report.requests,
      unmatched: report.unmatched,
      notAllowed: report.notAllowed,
      allowChecked: report.allowChecked,
      relayed: report.relayed,
      responseViolations: report.responseViolations.length,
      requestViolations: report.requestViolations.length,
      responseViolationKinds: byMessage(report.responseViolations),
      requestViolationKinds: byMessage(report.requestViolations),
      exitCode: run.code,
      failed: [] as { id: string; reason?: string; errors: string[] }[],
    };
    // readResults validates the file against spec/schemas/results.schema.json.
    const results = readResults(join(out, 'results.json'));
    summary.failed = results.requirements
      .filter((r) => r.outcome === 'failed')
      .map(({ id, reason, tests }) => ({
        id,
        ...(reason === undefined ? {} : { reason }),
        errors: (tests ?? []).map((t) => (t.error ?? '').slice(0, 2000)).filter(Boolean),
      }));
    // The explained findings with how often each occurred in this run.
    const listed = [
      ...RESPONSE_FINDINGS.map((f) => ({ side: 'response' as const, statuses: undefined as number[] | undefined, ...f })),
      ...REQUEST_FINDINGS.map((f) => ({ side: 'request' as const, ...f })),
    ];
    const explained = listed.map(({ side, kind, statuses, why }) => ({
      side,
      kind: String(kind),
      statuses,
      why,
      count: (side === 'request' ? report.requestViolations : report.responseViolations).filter(
        (v) => kind.test(v.message) && (statuses === undefined || statuses.includes(v.status)),
      ).length,
    }));
    writeFileSync(testInfo.outputPath('openapi-traffic.json'), JSON.stringify({ ...summary, explained }, null, 2));
    await testInfo.attach('openapi-traffic.json', { body: JSON.stringify(summary, null, 2), contentType: 'application/json' });
    console.log(
      `openapi-traffic: ${report.requests} exchanges checked, ${report.responseViolations.length} response violations, ` +
      `${report.requestViolations.length} request violations (intended), ${report.unmatched} unmatched ` +
      `(${report.notAllowed} a method the path does not allow), ${report.allowChecked} Allow checked, ${report.relayed} relayed as bytes`,
    );
    // Every finding is one of the kinds listed and explained above, with an answer that kind may get.
    type Found = { message: string; method: string; target: string; status: number };
    const unexplained = (list: Found[], kinds: readonly { kind: RegExp; statuses?: number[] }[]) =>
      list
        .filter((v) => !kinds.some(({ kind, statuses }) => kind.test(v.message) && (statuses === undefined || statuses.includes(v.status))))
        .map((v) => `${v.method} ${v.target} -> ${v.status}: ${v.message.slice(0, 300)}`);
    expect(unexplained(report.responseViolations, RESPONSE_FINDINGS), 'response findings nobody explained').toEqual([]);
    expect(unexplained(report.requestViolations, REQUEST_FINDINGS).slice(0, 20), 'request findings nobody explained').toEqual([]);
    // Every kind listed still occurs: the list is what remains, not what once was.
    for (const { kind, why } of [...RESPONSE_FINDINGS, ...REQUEST_FINDINGS]) {
      expect([...report.requestViolations, ...report.responseViolations].some((v) => kind.test(v.message)), `${kind} (${why}) still occurs`).toBe(true);
    }
    expect(report.notAllowed, 'the 405 checks reach methods the description does not declare').toBeGreaterThan(50);
    expect(report.allowChecked).toBeGreaterThanOrEqual(report.notAllowed);
    expect(results.complete, run.output.slice(-3000)).toBe(true);
    expect(summary.failed).toEqual([]);
    expect(run.code, run.output.slice(-3000)).toBe(0);
    expect(report.requests).toBeGreaterThan(1000);
  });
});

test('the proxy flags answers that break the description: a 200 {} list, an undocumented status, a 422 without errors, wrong 405s', async () => {
  const stub = createServer((req, res) => {
    const headers = { 'RateLimit-Limit': '10', 'RateLimit-Remaining': '9', 'RateLimit-Reset': '1', 'Cache-Control': 'no-store' };
    const problem = (status: number, extra: Record<string, string> = {}) => {
      res.writeHead(status, { ...headers, ...extra, 'Content-Type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Refused', status, detail: 'd', instance: req.url }));
    };
    // D-METHODS: PUT /users is not allowed. A 405 with a wrong Allow, a 405 without Allow, and a 404
    // (a path without an id has no 404) all break the description; DELETE /orders with the right Allow does not.
    if (req.method === 'PUT' && req.url === '/users') return problem(405, { Allow: 'GET, POST' });
    if (req.method === 'PATCH' && req.url === '/users') return problem(405);
    if (req.method === 'TRACE' && req.url === '/users') return problem(404);
    if (req.method === 'DELETE' && req.url === '/orders') return problem(405, { Allow: 'GET, HEAD, POST, OPTIONS' });
    if (req.url === '/orders') {
      res.writeHead(422, { ...headers, 'Content-Type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Unprocessable', status: 422, detail: 'd', instance: '/orders' }));
    } else if (req.url === '/users/1') {
      res.writeHead(418, { ...headers, 'Content-Type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Teapot', status: 418, detail: 'd', instance: '/users/1' }));
    } else {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  const proxy = await startValidatingProxy(`http://127.0.0.1:${(stub.address() as AddressInfo).port}`);
  try {
    await fetch(`${proxy.url}/users`);
    await fetch(`${proxy.url}/users/1`);
    await fetch(`${proxy.url}/orders`, {
      method: 'POST',
      headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' },
      body: '{"total":1,"currency":"usd"}',
    });
    await fetch(`${proxy.url}/users`, { method: 'PUT' });
    await fetch(`${proxy.url}/users`, { method: 'PATCH' });
    await fetch(`${proxy.url}/orders`, { method: 'DELETE' });
    await new Promise<void>((resolve, reject) => {
      httpRequest(`${proxy.url}/users`, { method: 'TRACE' }, (res) => res.resume().on('end', resolve)).on('error', reject).end();
    });
    const messages = proxy.report().responseViolations.map((v) => `${v.method} ${v.target} ${v.message}`);
    expect(messages).toEqual(expect.arrayContaining([
      "GET /users body: Response body must have required property 'items'",
      "GET /users header: Response header must have required property 'ratelimit-limit'",
      expect.stringMatching(/^GET \/users\/1 Unable to match the returned status code/),
      "POST /orders body: Response body must have required property 'errors'",
      'PUT /users header.allow: Allow "GET, POST" is not the x-allow of /users ("GET, HEAD, POST, OPTIONS")',
      "PATCH /users header: Response header must have required property 'allow'",
      expect.stringMatching(/^TRACE \/users Unable to match the returned status code/),
    ]));
    expect(messages.filter((m) => m.startsWith('DELETE'))).toEqual([]);
    expect(proxy.report().notAllowed).toBe(4);
    expect(proxy.report().requests).toBe(7);
  } finally {
    await proxy.close();
    stub.close();
  }
});
