/**
 * spec/openapi.yaml and the reference server say the same thing, judged by an independent tool:
 * one whole conformance `run` goes through a proxy that validates every request and response with
 * Stoplight Prism's validator (support/openapi-proxy.ts). Every response must agree with the
 * description. Requests that break it are counted apart: the suite sends them on purpose (missing
 * and unknown tokens, hostile bodies, unknown methods and paths, out-of-range queries), and the
 * server's answer to each of them is still checked against the description.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { type TestServer, startTestServer } from '../../reference-impl/tests/support/harness.ts';
import { type ValidatingProxy, startValidatingProxy } from './support/openapi-proxy.ts';
import { readResults } from '../results.ts';

const CLI = fileURLToPath(new URL('../../bin/http-api-conformance.js', import.meta.url));
const PROFILE = fileURLToPath(new URL('../../fixtures/profiles/reference.json', import.meta.url));

function runCli(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, FORCE_COLOR: '0' } });
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
    writeFileSync(testInfo.outputPath('openapi-traffic.json'), JSON.stringify(summary, null, 2));
    await testInfo.attach('openapi-traffic.json', { body: JSON.stringify(summary, null, 2), contentType: 'application/json' });
    console.log(
      `openapi-traffic: ${report.requests} exchanges checked, ${report.responseViolations.length} response violations, ` +
      `${report.requestViolations.length} request violations (intended), ${report.unmatched} unmatched, ${report.relayed} relayed as bytes`,
    );
    expect(summary.responseViolationKinds).toEqual({});
    expect(results.complete, run.output.slice(-3000)).toBe(true);
    expect(summary.failed).toEqual([]);
    expect(run.code, run.output.slice(-3000)).toBe(0);
    expect(report.requests).toBeGreaterThan(1000);
  });
});

test('the proxy flags answers that break the description: a 200 {} list, an undocumented status, a 422 without errors', async () => {
  const stub = createServer((req, res) => {
    const headers = { 'RateLimit-Limit': '10', 'RateLimit-Remaining': '9', 'RateLimit-Reset': '1', 'Cache-Control': 'no-store' };
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
    const messages = proxy.report().responseViolations.map((v) => `${v.target} ${v.message}`);
    expect(messages).toEqual(expect.arrayContaining([
      "/users body: Response body must have required property 'items'",
      "/users header: Response header must have required property 'ratelimit-limit'",
      expect.stringMatching(/^\/users\/1 Unable to match the returned status code/),
      "/orders body: Response body must have required property 'errors'",
    ]));
    expect(proxy.report().requests).toBe(3);
  } finally {
    await proxy.close();
    stub.close();
  }
});
