/**
 * The package as a user gets it: `npm pack`, `npm install <tarball>` into an empty folder, and every
 * command run from that install with no repository beside it: the README's GitHub Actions steps as
 * written (the reference server started from the install stands in for the user's API), `init`
 * from an OpenAPI document then `run` with the generated profile, and the client entry point.
 * The install is made once for the file (beforeAll) and shared by its tests, which run in order.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { test, expect } from '@playwright/test';
import { parse as parseYaml } from 'yaml';
import { start as startWidgets } from '../../fixtures/widgets-api/server.ts';
import { readResults as readResultsFile } from '../../spec/results.ts';
import type { RunResults } from '../../spec/results.ts';
import { installPackage, NPM_ENV } from '../../fixtures/support/installed-package.ts';
import type { PackedFiles } from '../../fixtures/support/installed-package.ts';
import { PACKAGE_ROOT, runProcess, tempOut } from './support/subprocess.ts';
import type { Finished } from './support/subprocess.ts';

test.describe.configure({ mode: 'serial' });

const REFERENCE_TOKENS = [
  '--token', 'dev-token-alice', '--token', 'dev-token-bob', '--limited-token', 'dev-token-reader', '--rate-limit-token', 'dev-token-limited',
  '--rate-limit-token', 'dev-token-limited-2', '--rate-limit-token', 'dev-token-limited-3',
];

let root = '';
let app = '';
let packed: PackedFiles | undefined;
const timings: Record<string, number> = {};
const servers: ChildProcess[] = [];

const explain = (r: Finished): string =>
  `exit ${String(r.code)} after ${Math.round(r.elapsedMs)} ms\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`;

/** Runs the installed command as a user does: `npx http-api-conformance …` in the app folder. */
function npx(args: string[], killAfterMs = 240_000): Promise<Finished> {
  return runProcess('npx', ['http-api-conformance', ...args], { cwd: app, env: NPM_ENV, killAfterMs });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `http-api-conformance serve` from the install (fault injection on, as a test deployment would) and resolves with its URL. */
function serveFromInstall(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(app, 'node_modules', '.bin', 'http-api-conformance'), ['serve', '--port', '0'], {
      cwd: app,
      env: { ...process.env, HAC_FAULT_INJECTION: 'true' },
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
    });
    servers.push(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${String(code)}: ${out}`)));
  });
}

/** The run's results.json, checked against results.schema.json. */
function readResults(dir: string): RunResults {
  return readResultsFile(join(dir, 'results.json'));
}

/** Each failed requirement with its first failing test's error and exchange: what a reader needs to judge a failure. */
function failures(results: RunResults | undefined): string[] {
  return (results?.requirements ?? [])
    .filter((r) => r.outcome === 'failed')
    .map((r) => {
      const test = r.tests.find((t) => t.status !== 'passed' && t.status !== 'skipped');
      return `${r.id}: ${(test?.error ?? r.reason ?? '').slice(0, 1500)}${test?.exchange ? `\n  ${JSON.stringify(test.exchange).slice(0, 800)}` : ''}`;
    });
}

test.beforeAll(async () => {
  test.setTimeout(300_000);
  root = tempOut('package');
  const installed = await installPackage(root, { name: 'my-api', private: true, scripts: { 'start:test': 'http-api-conformance serve --port 3100' } });
  ({ app, packed } = installed);
  timings.packMs = installed.packMs;
  timings.installMs = installed.installMs;
});

test.afterAll(async () => {
  for (const child of servers) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    } catch {
      // the process group has ended
    }
  }
  console.log(`package-install timings (ms): ${JSON.stringify(Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, Math.round(v)])))}`);
  if (root) rmSync(root, { recursive: true, force: true });
});

test('npm pack ships what runs: no test, bench, soak, mutation, broken variant or TypeScript source', async () => {
  const paths = packed?.files.map((f) => f.path) ?? [];
  expect(paths).toContain('bin/http-api-conformance.js');
  expect(paths).toContain('dist/cli/main.js');
  expect(paths).toContain('dist/conformance/playwright.config.js');
  expect(paths).toContain('spec/requirements.json');
  expect(paths).toContain('fixtures/profiles/reference.json');
  // The suite's own *.spec.js files are the product; any other spec file is a test of the project.
  const unwanted = paths.filter(
    (p) =>
      /(^|\/)tests?\/|^(bench|soak|mutation)\/|^fixtures\/(broken|clients|valid|proxies|widgets-api|stub-200)\/|(?<!\.d)\.ts$/.test(p) ||
      (/\.spec\./.test(p) && !p.startsWith('dist/conformance/suite/')),
  );
  expect(unwanted).toEqual([]);
  // 353 files and 1.47 MB unpacked before dist/ and the `files` list; 187 files, 0.98 MB after (the note of the package);
  // 224 once `run` was split into its named steps (cli/run/); 253 with the reference server's resource routers (routes/kit.ts,
  // routes/index.ts, middleware/role.ts, middleware/one-round-trip.ts, permissions.ts). The bound catches a folder shipped whole, not a new module.
  expect(packed?.entryCount ?? 0).toBeLessThan(280);
});

test('dependencies are exactly the packages the installed JavaScript imports', async () => {
  const installed = join(app, 'node_modules', 'http-api-conformance');
  const imported = new Set<string>();
  for (const file of packed?.files.map((f) => f.path).filter((p) => p.endsWith('.js')) ?? []) {
    const text = readFileSync(join(installed, file), 'utf8');
    // Static imports, dynamic imports, and what a module loads only when needed through createRequire (spec/schemas.ts: ajv).
    for (const [, specifier] of text.matchAll(/(?:from|import\(|require\()\s*["']([^"'.][^"']*)["']/g)) {
      // bin loads tsx only when the TypeScript sources are beside it (the repository), never installed.
      if (specifier === undefined || specifier.startsWith('node:') || (file.startsWith('bin/') && specifier.startsWith('tsx/'))) continue;
      const parts = specifier.split('/');
      imported.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier));
    }
  }
  const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  expect([...imported].sort()).toEqual(Object.keys(pkg.dependencies).sort());
});

test('http-api-conformance/client loads neither Playwright, Koa nor ioredis, and retries a 503', async () => {
  const loaded = join(root, 'loaded.txt');
  // A resolve hook records every module the import loads (module.register, Node 20.6+).
  const hooks = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(loaded)}, result.url + '\\n');
  return result;
}`;
  const script = `import { register } from 'node:module';
import { createServer } from 'node:http';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}));
const { createClient } = await import('http-api-conformance/client');
let attempts = 0;
const server = createServer((req, res) => {
  attempts += 1;
  if (attempts === 1) {
    res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '0' });
    res.end(JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'down', instance: req.url }));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 1, authorization: req.headers.authorization }));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const client = createClient({ baseUrl: 'http://127.0.0.1:' + server.address().port, token: 't0ken', sleep: async () => {} });
const response = await client.get('/users/1');
server.close();
console.log(JSON.stringify({ status: response.status, body: response.body, attempts }));`;
  const file = join(app, 'client-check.mjs');
  writeFileSync(file, script);
  const run = await runProcess(process.execPath, [file], { cwd: app });
  expect(run.code, explain(run)).toBe(0);
  expect(JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}')).toEqual({ status: 200, body: { id: 1, authorization: 'Bearer t0ken' }, attempts: 2 });
  const urls = readFileSync(loaded, 'utf8').trim().split('\n');
  expect(urls.some((u) => u.includes('/node_modules/http-api-conformance/dist/client/')), 'the hook saw the client load').toBe(true);
  expect(urls.filter((u) => /\/node_modules\/(@playwright|playwright|playwright-core|koa|ioredis)\//.test(u))).toEqual([]);
});

test("the README's GitHub Actions steps, run as written in the installed project, exit 0", async () => {
  test.setTimeout(300_000);
  const readme = readFileSync(join(PACKAGE_ROOT, 'README.md'), 'utf8');
  const block = /```yaml\n(# \.github\/workflows\/conformance\.yml[\s\S]*?)```/.exec(readme)?.[1];
  expect(block, 'the workflow block of the README').toBeTruthy();
  const workflow = parseYaml(block ?? '') as { jobs: Record<string, { steps: { run?: string; uses?: string }[] }> };
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps.filter((s) => s.run !== undefined).map((s) => s.run as string));
  expect(steps.length).toBeGreaterThanOrEqual(3);
  // The user's API: the reference server of this install (`npm run start:test`), on a free port instead of 3100,
  // and its profile at the path the workflow names.
  const port = await freePort();
  const script = steps.join('\n').split('3100').join(String(port));
  const profilePath = /--profile (\S+)/.exec(script)?.[1] ?? 'conformance/my-api.json';
  const reference = JSON.parse(readFileSync(join(app, 'node_modules', 'http-api-conformance', 'fixtures', 'profiles', 'reference.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  mkdirSync(join(app, 'conformance'), { recursive: true });
  // The profile's `openapi` is relative to the profile (D-SCHEMA-INPUTS): the copy names the installed document from where it lies.
  const openapi = relative(dirname(join(app, profilePath)), join(app, 'node_modules', 'http-api-conformance', 'spec', 'openapi.yaml'));
  const profile = { ...reference, $schema: undefined, baseUrls: [`http://127.0.0.1:${port}`], openapi };
  writeFileSync(join(app, profilePath), `${JSON.stringify(profile, null, 2)}\n`);
  const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  pkg.scripts['start:test'] = `http-api-conformance serve --port ${port}`;
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);

  const log = join(root, 'workflow.log');
  const fd = openSync(log, 'w');
  const started = performance.now();
  const code = await new Promise<number | null>((resolve) => {
    // One shell for the steps, as a job runs them; its own process group, so the background API is stopped after.
    const child = spawn('bash', ['-e', '-c', script], {
      cwd: app,
      env: { ...process.env, ...NPM_ENV, HAC_FAULT_INJECTION: 'true', FORCE_COLOR: '0' },
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    servers.push(child);
    const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 280_000);
    child.on('exit', (exitCode) => {
      clearTimeout(timer);
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          // the group is gone already
        }
      }
      resolve(exitCode);
    });
  });
  closeSync(fd);
  timings.workflowMs = performance.now() - started;
  const output = readFileSync(log, 'utf8');
  const results = existsSync(join(app, 'conformance-results', 'results.json')) ? readResults(join(app, 'conformance-results')) : undefined;
  expect(failures(results), 'failed requirements').toEqual([]);
  expect(code, output.slice(-6000)).toBe(0);
  expect(existsSync(join(app, 'conformance-results', 'junit.xml')), 'the JUnit report the workflow publishes').toBe(true);
  expect(readResults(join(app, 'conformance-results')).exitCode).toBe(0);
});

test('init --openapi spec/openapi.yaml writes a profile that certifies the reference server as the hand-written one does', async () => {
  test.setTimeout(300_000);
  const url = await serveFromInstall();
  const started = performance.now();
  const openapi = join('node_modules', 'http-api-conformance', 'spec', 'openapi.yaml');
  const init = await npx([
    'init', '--openapi', openapi, '--target', url, ...REFERENCE_TOKENS, '--fault-header', 'X-Fault-Inject', '--slow-value', 'delay-500',
    '--out', 'reference-profile.json',
  ]);
  expect(init.code, explain(init)).toBe(0);
  expect(init.stdout).toContain('next: npx http-api-conformance run --profile reference-profile.json');
  const again = await npx(['init', '--openapi', openapi, '--out', 'reference-profile.json']);
  expect(again.code, 'an existing profile is never replaced without --force').toBe(2);
  expect(again.stderr).toContain('--force');

  const run = await npx(['run', '--profile', 'reference-profile.json', '--out', 'generated-results']);
  timings.initAndRunMs = performance.now() - started;
  expect(failures(readResults(join(app, 'generated-results'))), 'failed requirements').toEqual([]);
  expect(run.code, explain(run)).toBe(0);
  // The whole Must-show sequence: npm install <tarball>, init, run.
  timings.installInitRunMs = timings.initAndRunMs + (timings.installMs ?? 0);
  const generated = readResults(join(app, 'generated-results'));
  const skipped = (r: RunResults): string[] => r.requirements.filter((q) => q.outcome === 'skipped').map((q) => q.id).sort();
  // The hand-written profile's run of the workflow test, against the same kind of server.
  if (existsSync(join(app, 'conformance-results', 'results.json'))) expect(skipped(generated)).toEqual(skipped(readResults(join(app, 'conformance-results'))));
});

test('init from the widgets OpenAPI document, then run: exit 0 with the example-API group skipped and its reason shown', async () => {
  test.setTimeout(300_000);
  const widgets = await startWidgets(0);
  try {
    const started = performance.now();
    const init = await npx([
      'init', '--openapi', join(PACKAGE_ROOT, 'fixtures', 'widgets-api', 'openapi.yaml'), '--target', widgets.url, '--token', 'widgets-admin-ann',
      '--token', 'widgets-admin-ben', '--limited-token', 'widgets-viewer-cy', '--rate-limit-token', 'widgets-burst-dee',
      '--rate-limit-token', 'widgets-burst-eve', '--out', 'widgets-profile.json',
    ]);
    expect(init.code, explain(init)).toBe(0);
    const profile = JSON.parse(readFileSync(join(app, 'widgets-profile.json'), 'utf8')) as { features: { exampleApi: boolean } };
    expect(profile.features.exampleApi).toBe(false);
    const run = await npx(['run', '--profile', 'widgets-profile.json', '--out', 'widgets-results']);
    timings.widgetsInitAndRunMs = performance.now() - started;
    expect(run.code, explain(run)).toBe(0);
    const results = readResults(join(app, 'widgets-results'));
    const exampleSkipped = results.requirements.filter((r) => r.outcome === 'skipped' && r.reason?.includes('features.exampleApi'));
    expect(exampleSkipped.length, 'requirements skipped because the profile has no example API').toBeGreaterThan(0);
    expect(run.stdout).toContain('features.exampleApi');
  } finally {
    await widgets.close();
  }
});

test('client-check certifies a client from the install', async () => {
  test.setTimeout(120_000);
  // The plain-fetch adapter of the repository (one dependency-free file) as the user's adapter.
  copyFileSync(join(PACKAGE_ROOT, 'fixtures', 'clients', 'plain-fetch.mjs'), join(app, 'plain-fetch.mjs'));
  const run = await npx([
    'client-check', '--command', 'node plain-fetch.mjs', '--scenario', 'bad-request-400', '--scenario', '503-then-success', '--out', 'client-results',
  ]);
  expect([0, 1], explain(run)).toContain(run.code);
  const results = readResults(join(app, 'client-results'));
  expect(results.kind).toBe('client');
  expect(results.requirements.length).toBeGreaterThan(0);
  // The matrix's library adapters are repository files: the installed command says so instead of
  // reporting every library as incomplete.
  const matrix = await npx(['client-check', '--matrix', '--out', 'matrix-results']);
  expect(matrix.code, explain(matrix)).toBe(2);
  expect(matrix.stderr).toContain('fixtures/clients/');
});
