/**
 * `npm run bench`: throughput beside a bare Koa baseline, limiter exactness, refill
 * accuracy, a CPU profile of the hot path and the conformance suite's run time; prints the tables
 * with PASS/FAIL against the issue's targets, writes bench/results/<timestamp>.json and compares it
 * with the previous results file.
 */
import { cpus, loadavg, platform } from 'node:os';
import { parseArgs } from 'node:util';
import { benchKeyPrefix } from './bench-config.ts';
import { type LocalCluster, clusterToolsInstalled, startLocalCluster } from '../reference-impl/tools/local-cluster.ts';
import { clientsPhase } from './phases/clients.ts';
import { exactnessPhase } from './phases/limiter-exactness.ts';
import { profilePhase } from './phases/profile.ts';
import { compileServers } from './compile.ts';
import { useCompiledEntry } from './servers.ts';
import { refillPhase } from './phases/refill.ts';
import { suiteTimePhase } from './phases/suite-time.ts';
import { findSchemathesis, peerPhase } from './phases/peer.ts';
import { throughputPhase, ROUTES } from './phases/throughput.ts';
import { STACK_NAMES, STACK_ROUTES, stacksPhase, type StackName, type StackRoute } from './phases/stacks.ts';
import { DEFAULT_REDIS_URL, deleteKeysWithPrefix, redisAnswers, sharedRedisUrl } from '../reference-impl/tools/redis-admin.ts';
import { compareRuns, loadPrevious, RESULTS_DIR, timestamp, writeRun } from './results.ts';
import { durabilityPhase, durabilityTable } from './phases/durability.ts';
import { formatComparison, formatRun } from './table.ts';
import { exactnessVerdict, peerVerdicts, refillVerdict, stackVerdicts, suiteVerdict, throughputVerdict } from './goals.ts';
import type { BenchRun, StoreKind } from './types.ts';

const PHASES = ['throughput', 'stacks', 'clients', 'exactness', 'refill', 'profile', 'suite', 'durability', 'peer'] as const;
/** Phases run only when named: they need a tool this project does not install (Schemathesis). */
const NAMED_ONLY = ['peer'];

const USAGE = `usage: node --import tsx bench/run.ts [options]

options:
  --duration S       measured seconds per throughput cell and target (default 4)
  --quick            short run: 2 s cells, 1 exactness trial, 3 s refill, smoke suite only (not installed)
  --phases LIST      comma-separated subset of ${PHASES.join(',')} (default: all but ${NAMED_ONLY.join(',')})
  --stores LIST      memory,redis,cluster (default all three; redis is skipped when unreachable, cluster
                     (a local 3-primary Redis Cluster) when redis-server or redis-cli is missing)
  --redis-url URL    default HAC_REDIS_URL, else ${DEFAULT_REDIS_URL}
  --connections N    autocannon connections (default 16)
  --routes LIST      throughput routes to run, comma-separated names (default: all four)
  --stacks LIST      stacks of fixtures/stacks/ in the stacks phase (default ${STACK_NAMES.join(',')})
  --stack-routes L   routes of the stacks phase (default "${STACK_ROUTES.join(',')}")
  --stack-rounds N   alternating rounds per target and route in the stacks phase, each --duration s long
                     (default 3; --quick: 2)
  --clients-dir DIR  where the clients phase finds redis and @valkey/valkey-glide (DIR/node_modules;
                     default: this project; a library not installed there is listed as not measured)
  --profile-route R  route to profile (default "GET /users/1"; one of the throughput routes)
  --profile-store S  store of the profiled server: memory (default) or redis
  --peer-stacks L    stacks of the peer phase (default express,fastify,hono,koa); --stack-rounds rounds each (default 2)
  --schemathesis P   the Schemathesis executable of the peer phase (default HAC_SCHEMATHESIS, else
                     $TMPDIR/peers/venv/bin/schemathesis, where ../shared/tools/schemathesis-setup.sh builds it)
  --from-sources     run the servers under test from the TypeScript sources through tsx instead of
                     compiling them first (quicker to start; tsx adds CPU to the reference server)
  --no-write         do not write bench/results/<timestamp>.json
  --check            exit 1 when a figure misses its target
  -h, --help`;

function fail(message: string): never {
  console.error(`bench: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function positive(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) fail(`${name} must be a positive number, got "${raw}"`);
  return value;
}

const { values } = (() => {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      strict: true,
      options: {
        duration: { type: 'string' },
        quick: { type: 'boolean', default: false },
        phases: { type: 'string' },
        stores: { type: 'string' },
        'redis-url': { type: 'string' },
        connections: { type: 'string' },
        'profile-route': { type: 'string' },
        'profile-store': { type: 'string' },
        routes: { type: 'string' },
        stacks: { type: 'string' },
        'stack-routes': { type: 'string' },
        'stack-rounds': { type: 'string' },
        'clients-dir': { type: 'string' },
        'peer-stacks': { type: 'string' },
        schemathesis: { type: 'string' },
        'from-sources': { type: 'boolean', default: false },
        'no-write': { type: 'boolean', default: false },
        check: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const quick = values.quick === true;
const durationSeconds = positive(values.duration, '--duration', quick ? 2 : 4);
const connections = Math.round(positive(values.connections, '--connections', 16));
const phases = (values.phases ?? PHASES.filter((p) => !NAMED_ONLY.includes(p)).join(',')).split(',').map((p) => p.trim());
for (const phase of phases) if (!(PHASES as readonly string[]).includes(phase)) fail(`unknown phase "${phase}"`);
const redisUrl = values['redis-url'] ?? sharedRedisUrl();
let stores = (values.stores ?? 'memory,redis,cluster').split(',').map((s) => s.trim()) as StoreKind[];
for (const store of stores) if (store !== 'memory' && store !== 'redis' && store !== 'cluster') fail(`unknown store "${store}"`);
const profileRoute = values['profile-route'] ?? 'GET /users/1';
if (!ROUTES.some((r) => r.name === profileRoute)) fail(`--profile-route must be one of ${ROUTES.map((r) => `"${r.name}"`).join(', ')}`);
const profileStore = values['profile-store'] ?? 'memory';
if (profileStore !== 'memory' && profileStore !== 'redis') fail(`--profile-store must be memory or redis, got "${profileStore}"`);

const routes = values.routes?.split(',').map((r) => r.trim());
for (const route of routes ?? []) if (!ROUTES.some((r) => r.name === route)) fail(`unknown route "${route}"`);

const stackNames = (values.stacks ?? STACK_NAMES.join(',')).split(',').map((s) => s.trim()) as StackName[];
for (const name of stackNames) if (!(STACK_NAMES as readonly string[]).includes(name)) fail(`unknown stack "${name}"`);
const stackRoutes = values['stack-routes']?.split(',').map((s) => s.trim()) as StackRoute[] | undefined;
for (const route of stackRoutes ?? []) if (!(STACK_ROUTES as readonly string[]).includes(route)) fail(`unknown stack route "${route}"`);
const stackRounds = Math.round(positive(values['stack-rounds'], '--stack-rounds', quick ? 2 : 3));

const log = (line: string): void => console.log(line);
const notes: string[] = [];
if (stores.includes('redis') && !(await redisAnswers(redisUrl, 1500))) {
  notes.push(`Redis at ${redisUrl} is unreachable: Redis cells skipped.`);
  stores = stores.filter((s) => s !== 'redis');
}
let cluster: LocalCluster | undefined;
if (stores.includes('cluster')) {
  if (clusterToolsInstalled()) {
    cluster = await startLocalCluster();
  } else {
    notes.push('redis-server or redis-cli is not installed: cluster cells skipped.');
    stores = stores.filter((s) => s !== 'cluster');
  }
}
const clusterNodes = cluster?.nodes;
const keyPrefix = benchKeyPrefix();
const startedAt = new Date();
const loadBefore = loadavg()[0] ?? 0;
const run: BenchRun = {
  startedAt: startedAt.toISOString(),
  host: { node: process.version, cpus: cpus().length, platform: platform() },
  options: { durationSeconds, warmupSeconds: quick ? 0.5 : 1, connections, quick, phases, stores },
  serverMode: values['from-sources'] ? 'child-process' : 'child-process-compiled',
  throughput: [],
  exactness: [],
  refill: [],
  suite: [],
  notes,
};

let cleaned = false;
async function cleanRedis(): Promise<void> {
  if (cleaned || !stores.includes('redis')) return;
  cleaned = true;
  const deleted = await deleteKeysWithPrefix(keyPrefix, redisUrl).catch(() => -1);
  if (deleted < 0) notes.push(`could not delete the Redis keys under ${keyPrefix}`);
}
process.once('SIGINT', () => {
  void Promise.allSettled([cleanRedis(), cluster?.stop()]).finally(() => process.exit(130));
});

if (!values['from-sources']) useCompiledEntry(await compileServers());
console.log(
  `bench: ${quick ? 'quick' : 'full'} run, ${durationSeconds} s per cell, ${connections} connections, stores ${stores.join('+')}; ` +
    `servers in child processes (${values['from-sources'] ? 'TypeScript sources through tsx' : 'compiled JavaScript'}); ` +
    `load average ${loadBefore.toFixed(2)} on ${run.host.cpus} CPUs`,
);
try {
  if (phases.includes('throughput')) {
    log('\n[1/5] throughput and latency');
    run.throughput = await throughputPhase({
      stores,
      redisUrl,
      ...(clusterNodes ? { clusterNodes } : {}),
      keyPrefix,
      durationSeconds,
      warmupSeconds: run.options.warmupSeconds,
      connections,
      rounds: quick ? 2 : 4,
      ...(routes ? { routes } : {}),
      log,
    });
  }
  if (phases.includes('stacks')) {
    if (stores.includes('redis')) {
      log('\n[stacks] the reference against the idiomatic stacks of fixtures/stacks/ (Redis)');
      run.stacks = await stacksPhase({
        redisUrl,
        keyPrefix: `${keyPrefix}stacks:`,
        roundSeconds: durationSeconds,
        rounds: stackRounds,
        warmupSeconds: run.options.warmupSeconds,
        connections,
        stacks: stackNames,
        ...(stackRoutes ? { routes: stackRoutes } : {}),
        exactnessTrials: quick ? 1 : 3,
        log,
      });
    } else {
      notes.push('the stacks phase needs Redis (--stores with redis): skipped.');
    }
  }
  if (phases.includes('clients') && stores.includes('redis')) {
    log('\n[clients] Redis client libraries on the hot path');
    run.clients = await clientsPhase({
      redisUrl,
      keyPrefix,
      durationSeconds: quick ? 1 : 3,
      concurrency: connections,
      clientsDir: values['clients-dir'] ?? process.cwd(),
      log,
    });
  }
  if (phases.includes('exactness')) {
    log('\n[2/5] limiter exactness');
    run.exactness = await exactnessPhase({ stores, redisUrl, ...(clusterNodes ? { clusterNodes } : {}), keyPrefix, trials: quick ? 1 : 3, log });
  }
  if (phases.includes('refill')) {
    log('\n[3/5] refill accuracy');
    run.refill = await refillPhase({
      stores,
      redisUrl,
      ...(clusterNodes ? { clusterNodes } : {}),
      keyPrefix,
      durationSeconds: quick ? 3 : 5,
      concurrency: 16,
      log,
    });
  }
  if (phases.includes('profile')) {
    log(`\n[4/5] CPU profile (${profileStore} store, ${profileRoute})`);
    run.profile = await profilePhase({
      route: profileRoute,
      store: profileStore,
      redisUrl,
      keyPrefix,
      durationSeconds,
      connections,
      keepAs: `${RESULTS_DIR}${timestamp(startedAt)}.cpuprofile.json`,
      log,
    });
  }
  if (phases.includes('durability')) {
    log('\n[durability] latency per write with store.durability off and on (D-STORE-DURABILITY)');
    const measured = await durabilityPhase({ writes: quick ? 200 : 500, rounds: quick ? 2 : 4, concurrency: 4, log });
    run.durability = measured.cells;
    notes.push(...measured.notes);
    log(durabilityTable(measured.cells));
  }
  if (phases.includes('peer')) {
    const schemathesis = findSchemathesis(values.schemathesis);
    if (schemathesis) {
      log('\n[peer] the suite against Schemathesis on the stacks, alternating');
      const peerStacks = (values['peer-stacks'] ?? 'express,fastify,hono,koa').split(',').map((s) => s.trim());
      const rounds = Math.round(positive(values['stack-rounds'], '--stack-rounds', 2));
      run.peer = await peerPhase({ stacks: peerStacks, rounds, schemathesis, timeoutMs: 10 * 60_000, log });
    } else {
      notes.push('the peer phase needs Schemathesis (--schemathesis PATH; ../shared/tools/schemathesis-setup.sh builds it): skipped.');
    }
  }
  if (phases.includes('suite')) {
    log('\n[5/5] conformance suite run time');
    run.suite = await suiteTimePhase({ timeoutMs: 5 * 60_000, only: quick ? ['smoke'] : ['full', 'smoke'], installed: !quick, log });
  }
} finally {
  await cleanRedis();
  await cluster?.stop();
}

const loadAfter = loadavg()[0] ?? 0;
if (Math.max(loadBefore, loadAfter) > run.host.cpus) {
  notes.push(
    `the machine was busy (load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after, on ${run.host.cpus} CPUs): ` +
      'absolute figures are low; ratios are measured in alternating rounds.',
  );
}
console.log(`\n${formatRun(run)}`);
for (const note of notes) console.log(`\nnote: ${note}`);

const previous = loadPrevious();
if (previous) {
  const comparisons = compareRuns(previous.run, run);
  if (comparisons.length > 0) console.log(`\n${formatComparison(previous.file, comparisons)}`);
}
if (!values['no-write']) console.log(`\nresults: ${writeRun(run)}`);

const verdicts = [
  ...run.throughput.map(throughputVerdict),
  ...run.exactness.map(exactnessVerdict),
  ...run.refill.map(refillVerdict),
  ...run.suite.map(suiteVerdict),
  ...(run.stacks ? stackVerdicts(run.stacks).map((v) => v.verdict) : []),
  ...peerVerdicts(run.peer ?? []).map((v) => v.verdict),
];
const failed = verdicts.filter((v) => v === 'FAIL').length;
console.log(`\n${verdicts.length - failed} of ${verdicts.length} figures meet their target${failed > 0 ? `; ${failed} FAIL` : ''}`);
process.exitCode = values.check && failed > 0 ? 1 : 0;
