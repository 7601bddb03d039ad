/**
 * D-METHODS-IMPLICIT, the reproduction of the issue: spec/openapi.yaml without its HEAD and OPTIONS
 * operations (it declares no operation for a 405, D-METHODS), `init` from it without
 * --target, then `run --grep METHOD-NOT-ALLOWED-405` against the reference server must exit 0: the
 * profile lists HEAD and OPTIONS as assumed, and a hand-written profile that leaves them out is no
 * MUST failure either, because the server answers them as HTTP allows.
 */
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { startTestServer } from '../../reference-impl/tests/support/harness.ts';
import type { TestServer } from '../../reference-impl/tests/support/harness.ts';
import { compiledCli, PACKAGE_ROOT, runCli, runNode, tempOut } from '../../conformance/tests/support/subprocess.ts';

test.describe.configure({ timeout: 4 * 60_000 });

let server: TestServer;
test.beforeAll(async () => {
  server = await startTestServer();
});
test.afterAll(async () => {
  await server.close();
});

test('init from a document without HEAD and OPTIONS, then run --grep METHOD-NOT-ALLOWED-405, exits 0', async () => {
  const dir = tempOut('init-head-options');
  const doc = parseYaml(readFileSync(join(PACKAGE_ROOT, 'spec', 'openapi.yaml'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  for (const item of Object.values(doc.paths)) {
    delete item.head;
    delete item.options;
  }
  const openapi = join(dir, 'openapi.yaml');
  writeFileSync(openapi, stringifyYaml(doc));
  symlinkSync(join(PACKAGE_ROOT, 'spec', 'schemas'), join(dir, 'schemas')); // the document's $refs to its schema files
  const out = join(dir, 'profile.json');
  const init = await runNode([
    compiledCli(), 'init', '--openapi', openapi, '--out', out, '--token', 'dev-token-alice', '--token', 'dev-token-bob',
    '--limited-token', 'dev-token-reader', '--rate-limit-token', 'dev-token-limited',
  ]);
  expect(init.code, init.stderr).toBe(0);
  expect(init.stdout).toContain('HEAD and OPTIONS: the document does not list them');
  type Written = { description: string; collections: { path: string; methods: string[]; itemMethods?: string[] }[] };
  const profile = JSON.parse(readFileSync(out, 'utf8')) as Written;
  expect(profile.description).toContain('assumed answered');
  expect(profile.collections.find((c) => c.path === '/users')?.methods).toEqual(['GET', 'HEAD', 'POST', 'OPTIONS']);

  const run = await runCli(['--profile', out, '--target', server.url, '--grep', 'METHOD-NOT-ALLOWED-405', '--out', join(dir, 'results')]);
  expect(run.code, run.stdout + run.stderr).toBe(0);

  // A profile written by hand from the same document, HEAD and OPTIONS left out: still no MUST failure.
  for (const c of profile.collections) {
    c.methods = c.methods.filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
    if (c.itemMethods) c.itemMethods = c.itemMethods.filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
  }
  const bare = join(dir, 'bare.json');
  writeFileSync(bare, JSON.stringify(profile));
  const grep = 'METHOD-NOT-ALLOWED-405|METHOD-ALLOW-HEADER';
  const again = await runCli(['--profile', bare, '--target', server.url, '--grep', grep, '--out', join(dir, 'results-bare')]);
  expect(again.code, again.stdout + again.stderr).toBe(0);
});
