/**
 * Every command a README shows runs here, as a user would type it, on a fresh process: the
 * commands are read from the READMEs' fenced shell blocks themselves, so a README line that no
 * test covers fails the first test below with its file and line. Each known command either runs
 * (its own test, asserting the lines a reader relies on: exit code, verdict, the URL and the run
 * command `serve` prints) or is listed with the reason it cannot run here.
 *
 * What differs from the typed text, and why: servers listen on port 0 (tests never take fixed
 * ports; `npm start` gets HAC_PORT=0, `serve --port 8080` becomes `--port 0`), the Redis of
 * `serve --store redis` gets a key prefix of its own (deleted afterwards), and `my-config.json` is
 * the example configuration of reference-impl/README.md written to a temporary file. Runs get
 * `--out <temporary directory>` so they never write into the shared conformance-results/.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { deleteKeysWithPrefix, redisAnswers, sharedRedisUrl, uniqueKeyPrefix } from '../../reference-impl/tools/redis-admin.ts';
import { readResults } from '../../spec/results.ts';
import { readmeCommands } from './support/readme-commands.ts';
import type { ReadmeCommand } from './support/readme-commands.ts';
import { PACKAGE_ROOT, runProcess, tempOut } from './support/subprocess.ts';
import type { Finished } from './support/subprocess.ts';

/** Commands that cannot run inside `npm test`, each with the reason. */
const NOT_RUN: Record<string, string> = {
  'npm ci && npm run conformance': '`npm ci` would reinstall node_modules under every other process of the tree; `npm run conformance` runs below on its own',
  'npm test': 'this test is part of `npm test`',
  ['npx http-api-conformance init --openapi openapi.yaml --target http://127.0.0.1:3100 --token TOKEN --token OTHER_TOKEN ' +
  '--limited-token READ_ONLY_TOKEN --rate-limit-token LOW_LIMIT_TOKEN --out conformance/my-api.json']:
    "a user's own document and tokens; the same command runs from the installed tarball in package-install.spec.ts on spec/openapi.yaml and the " +
    "widgets document, with their tokens",
  'npm install --save-dev http-api-conformance': 'installing from the registry; package-install.spec.ts installs the packed tarball instead',
  'npx http-api-conformance init --openapi openapi.yaml --target http://127.0.0.1:3100 --token TOKEN --token OTHER_TOKEN --out my-api.json':
    "a user's own document and server; init --target then run on the Prism mock of every corpus document with a collection runs in corpus-mocks.spec.ts",
  'npx http-api-conformance run --profile my-api.json':
    "a user's own profile (my-api.json) and servers; the same CLI runs against local targets in cli-targets.spec.ts",
  'npx http-api-conformance run --profile my-api.json --target https://staging.example.com':
    'a remote staging URL; https targets run in meta-valid-variants.spec.ts (tls-terminator, --ca)',
  'npx http-api-conformance run --profile my-api.json --target http://10.0.0.1:8080 --target http://10.0.0.2:8080':
    "a user's own hosts; two targets run in meta-valid-variants.spec.ts (two-instances-redis)",
  'npx http-api-conformance client-check --command "python my_adapter.py" --out reports/client --strict':
    "a user's own adapter; client-check runs below with the reference client",
  'npx playwright test --project reference-impl': 'a project of `npm test` itself',
  'npm run bench': 'a benchmark: minutes of both cores, outside the 10-minute budget of `npm test`',
  'node --import tsx bench/run.ts --quick': 'a benchmark: it measures the machine, which the rest of `npm test` loads',
  'node --import tsx bench/run.ts --phases throughput,profile --stores memory --duration 6':
    'a benchmark: it measures the machine, which the rest of `npm test` loads',
  'node --import tsx bench/run.ts --profile-route "POST /payments"': 'a benchmark: it measures the machine, which the rest of `npm test` loads',
  'HAC_MUTATE=reference-impl/middleware/auth.ts npm run mutation': 'Stryker: one module takes minutes of both cores',
  "HAC_MUTATION_GREP='@AUTH-401-INVALID|@AUTH-WWW-AUTHENTICATE' npm run mutation": 'Stryker: minutes of both cores',
  'HAC_MUTATION_CONCURRENCY=3 npm run mutation': 'Stryker: the whole mutation run takes most of an hour',
};

/** Commands another test runs (it needs a fixture of its own): the file, and what it must show of the command. */
const RUN_ELSEWHERE: Record<string, { file: string; shows: string[] }> = {
  'npx http-api-conformance serve --port 0 --store redis --redis-cluster 127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002': {
    file: 'reference-impl/tests/redis-cluster.spec.ts',
    shows: ['serve', '--store', '--redis-cluster'],
  },
  'npm run clients:matrix': { file: 'client/tests/clients-matrix.spec.ts', shows: ["'run', 'clients:matrix'"] },
};

/** Commands run by a test of this file (the test's title names the command). */
const RUN_HERE = new Set([
  'npm run conformance',
  'npm start',
  'npx http-api-conformance run --grep AUTH-401-MISSING',
  'npx http-api-conformance run --grep @rate-limit',
  'HAC_RATE_LIMIT_ALGORITHM=leaky-bucket npx http-api-conformance run --grep @rate-limit',
  'npx http-api-conformance serve --port 8080 --store redis --redis-url redis://127.0.0.1:6379',
  'npx http-api-conformance serve --port 0 --store redis --redis-url redis://127.0.0.1:6379',
  'npx http-api-conformance serve --config my-config.json',
  'npx http-api-conformance client-check --command "node --import tsx fixtures/clients/reference-client.ts"',
]);

const ALL = readmeCommands(PACKAGE_ROOT);

function where(commands: readonly ReadmeCommand[]): string {
  return commands.map((c) => `  ${c.file}:${c.line}: ${c.command}`).join('\n');
}

/** Runs `command` through the shell in the package root, as typed, and waits for it to end. */
function shell(command: string, env: NodeJS.ProcessEnv = {}, killAfterMs = 180_000): Promise<Finished> {
  return runProcess('sh', ['-c', command], {
    cwd: PACKAGE_ROOT,
    env: { HAC_PROFILE: undefined, HAC_OUT: undefined, HAC_GREP: undefined, ...env },
    killAfterMs,
  });
}

interface Background {
  /** The first match of `ready` in the output. */
  match: RegExpMatchArray;
  output(): string;
  /** SIGTERM to the process group; resolves with the exit code of the shell (null: it died of the signal). */
  stop(): Promise<number | null>;
}

/** Starts a long-running `command` (a server) and waits until its output matches `ready`. */
function background(command: string, ready: RegExp, env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<Background> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, FORCE_COLOR: '0' };
  const child = spawn('sh', ['-c', command], { cwd: PACKAGE_ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const signal = (name: NodeJS.Signals): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, name);
    } catch {
      // already gone
    }
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal('SIGKILL');
      reject(new Error(`\`${command}\` printed nothing matching ${ready} within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = output.match(ready);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stdout.on('data', (more: Buffer) => (output += more.toString()));
      resolve({
        match,
        output: () => output,
        stop: async () => {
          signal('SIGTERM');
          const killer = setTimeout(() => signal('SIGKILL'), 10_000);
          const code = await closed;
          clearTimeout(killer);
          return code;
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void closed.then((code) => {
      clearTimeout(timer);
      reject(new Error(`\`${command}\` ended (exit ${code}) before it was ready:\n${output}`));
    });
  });
}

/** The verdict line the run prints, and its exit code, in one message for an assertion. */
function verdict(run: Finished): string {
  const line = /^(PASS|FAIL)[^\n]*$/m.exec(run.stdout)?.[0] ?? '(no verdict line)';
  return `exit ${run.code}, ${line}\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}`;
}

test('every command of every README runs in a test here or is listed with the reason it cannot run', () => {
  expect(ALL.length, 'the READMEs show commands').toBeGreaterThan(10);
  const unknown = ALL.filter((c) => !RUN_HERE.has(c.command) && !Object.hasOwn(NOT_RUN, c.command) && !Object.hasOwn(RUN_ELSEWHERE, c.command));
  expect(
    unknown,
    `README commands no test covers: add each to RUN_HERE with a test, to RUN_ELSEWHERE with the file that runs it, or to NOT_RUN with the ` +
    `reason:\n${where(unknown)}`,
  ).toEqual([]);
  for (const [command, { file, shows }] of Object.entries(RUN_ELSEWHERE)) {
    const text = readFileSync(join(PACKAGE_ROOT, file), 'utf8');
    expect(shows.filter((part) => !text.includes(part)), `${file} runs \`${command}\``).toEqual([]);
  }
  const shown = new Set(ALL.map((c) => c.command));
  const stale = [...RUN_HERE, ...Object.keys(NOT_RUN), ...Object.keys(RUN_ELSEWHERE)].filter((c) => !shown.has(c));
  expect(stale, 'commands listed here that no README shows any more (remove them)').toEqual([]);
});

test('npm start prints its URL and the run command; that command, typed as printed, exits 0', async () => {
  test.setTimeout(240_000);
  const server = await background('npm start', /^Check it: (npx http-api-conformance run [^\n]+)$/m, { HAC_PORT: '0' });
  try {
    expect(server.output()).toMatch(/^Reference server listening on http:\/\/127\.0\.0\.1:\d+$/m);
    expect(server.output()).toContain('Fault injection: on (X-Fault-Inject; development only)');
    const printed = server.match[1] ?? '';
    expect(printed).toMatch(/^npx http-api-conformance run --profile fixtures\/profiles\/reference\.json --target http:\/\/127\.0\.0\.1:\d+$/);
    const out = tempOut('readme-start');
    const run = await shell(`${printed} --out ${out}`);
    expect(run.code, verdict(run)).toBe(0);
    expect(run.stdout).toMatch(/^PASS: \d+ passed, 0 failed, 0 warning, \d+ skipped$/m);
    expect(readResults(join(out, 'results.json')).exitCode).toBe(0);
  } finally {
    await server.stop();
    // The npm and sh wrappers die of the signal; the server itself says it shut down gracefully.
    expect(server.output()).toContain('SIGTERM received: finishing in-flight requests');
  }
});

// The one whole run of the embedded reference server among the project's tests of the CLI: it also
// holds the claim that the reference server passes every testable MUST (README, "Certify your server").
test('npm run conformance exits 0 with PASS and no warning: the embedded reference server passes every testable MUST', async () => {
  test.setTimeout(240_000);
  const out = tempOut('readme-conformance');
  const run = await shell(`npm run conformance -- --out ${out}`);
  expect(run.code, verdict(run)).toBe(0);
  expect(run.stdout).toContain('no --target: starting the embedded reference server');
  expect(run.stdout).toMatch(/^PASS: \d+ passed, 0 failed, 0 warning, \d+ skipped$/m);
  const results = readResults(join(out, 'results.json'));
  expect(results.complete).toBe(true);
  const notPassed = results.requirements
    .filter((r) => r.level === 'MUST' && r.outcome !== 'passed' && !(r.outcome === 'skipped' && r.reason?.startsWith('review only')))
    .map((r) => `${r.id}: ${r.outcome} (${r.reason ?? ''})`);
  expect(notPassed, 'MUSTs of the reference server that did not pass').toEqual([]);
});

for (const [command, id] of [
  ['npx http-api-conformance run --grep AUTH-401-MISSING', 'AUTH-401-MISSING'],
  ['npx http-api-conformance run --grep @rate-limit', 'RATE-LIMIT-429'],
  ['HAC_RATE_LIMIT_ALGORITHM=leaky-bucket npx http-api-conformance run --grep @rate-limit', 'RATE-LIMIT-NO-ADMISSION-BEYOND-ANNOUNCED'],
] as const) {
  test(`${command} exits 0 and passes ${id}`, async () => {
    test.setTimeout(240_000);
    const out = tempOut('readme-grep');
    const run = await shell(`${command} --out ${out}`);
    expect(run.code, verdict(run)).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^${id} +MUST +passed`, 'm'));
    expect(run.stdout).toMatch(/^PASS: /m);
    expect(readResults(join(out, 'results.json')).requirements.find((r) => r.id === id)?.outcome).toBe('passed');
  });
}

for (const typed of [
  'npx http-api-conformance serve --port 8080 --store redis --redis-url redis://127.0.0.1:6379',
  'npx http-api-conformance serve --port 0 --store redis --redis-url redis://127.0.0.1:6379',
]) {
  test(`${typed} serves from Redis and stops on SIGTERM`, async () => {
    test.setTimeout(120_000);
    const redisUrl = sharedRedisUrl();
    test.skip(!(await redisAnswers(redisUrl)), `Redis does not answer at ${redisUrl}`);
    const prefix = uniqueKeyPrefix('readme-serve');
    const command = typed.replace('--port 8080', '--port 0').replace('redis://127.0.0.1:6379', redisUrl);
    try {
      const server = await background(command, /^Reference server listening on (http:\/\/127\.0\.0\.1:\d+)$/m, { HAC_REDIS_KEY_PREFIX: prefix });
      try {
        const response = await fetch(`${server.match[1]}/users/1`);
        expect(response.status).toBe(200);
        expect(server.output()).toContain('Tokens: the development tokens of fixtures/profiles/reference.json (D-AUTH)');
      } finally {
        await server.stop();
      }
      expect(server.output()).toContain('SIGTERM received: finishing in-flight requests');
    } finally {
      await deleteKeysWithPrefix(prefix, redisUrl);
    }
  });
}

test('serve --config my-config.json starts with the example configuration of reference-impl/README.md', async () => {
  test.setTimeout(120_000);
  const redisUrl = sharedRedisUrl();
  test.skip(!(await redisAnswers(redisUrl)), `Redis does not answer at ${redisUrl} (the example configuration uses the redis store)`);
  const readme = readFileSync(join(PACKAGE_ROOT, 'reference-impl', 'README.md'), 'utf8');
  const example = /Example file:\s*```json\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(example, 'reference-impl/README.md shows an example configuration file').toBeDefined();
  const prefix = uniqueKeyPrefix('readme-config');
  const config: Record<string, unknown> = { ...(JSON.parse(example ?? '{}') as Record<string, unknown>), port: 0 };
  config.store = { ...(config.store as Record<string, unknown>), url: redisUrl, keyPrefix: prefix };
  const file = join(tempOut('readme-config'), 'my-config.json');
  writeFileSync(file, JSON.stringify(config));
  try {
    const server = await background(`npx http-api-conformance serve --config ${file}`, /^Reference server listening on (http:\/\/127\.0\.0\.1:\d+)$/m);
    try {
      const account = await fetch(`${server.match[1]}/account`, { headers: { authorization: 'Bearer s3cr3t-token' } });
      expect(account.status, 'the example token is configured').not.toBe(401);
      expect(account.headers.get('ratelimit-limit'), 'the example plan "gold" limits it').toBe('100');
      expect(server.output()).toContain('Tokens: your own (--config)');
    } finally {
      await server.stop();
    }
  } finally {
    await deleteKeysWithPrefix(prefix, redisUrl);
  }
});

test('client-check with the reference client exits 0', async () => {
  test.setTimeout(180_000);
  const out = tempOut('readme-client');
  const run = await shell(`npx http-api-conformance client-check --command "node --import tsx fixtures/clients/reference-client.ts" --out ${out}`);
  expect(run.code, verdict(run)).toBe(0);
  expect(run.stdout).toMatch(/^\s*\d+ passed, 0 failed, 0 warnings, \d+ skipped in [\d.]+ s/m);
  const results = readResults(join(out, 'results.json'));
  expect(results.exitCode).toBe(0);
  // D-CLIENT-TIMING: a timing too late to judge on a loaded machine is skipped as inconclusive, never a pass or a
  // fail; the reference client skips nothing else.
  const skipped = results.requirements.filter((r) => r.outcome === 'skipped');
  expect(skipped.filter((r) => !(r.reason ?? '').startsWith('inconclusive')).map((r) => `${r.id}: ${r.reason ?? ''}`)).toEqual([]);
});
