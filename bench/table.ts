/** Plain-text tables of a benchmark run, each figure beside its goal and verdict. */
import type { Comparison } from './results.ts';
import { STACK_GOALS, stackRowValid, stackVerdicts, withinEnvelope } from './goals.ts';
import { cpuVerdict, exactnessVerdict, peerVerdicts, refillVerdict, suiteVerdict, SUITE_MAX_MS, REFILL_MAX_ERROR, throughputVerdict } from './goals.ts';
import type { BenchRun, StackExactness, StacksResult } from './types.ts';

/** Lays out rows as aligned columns with a header rule. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const fixed = (n: number, digits = 0): string => n.toFixed(digits);
const percent = (n: number): string => `${(n * 100).toFixed(2)} %`;

/** Every table of the run, in phase order. */
export function formatRun(run: BenchRun): string {
  const parts: string[] = [];
  if (run.throughput.length > 0) {
    parts.push(
      "Throughput and latency (reference vs bare Koa, same run; floor: bare Koa making the route's Redis calls, batched per turn)",
      formatTable(
        [
          'store',
          'route',
          'ref req/s',
          'p50 ms',
          'p99 ms',
          'base req/s',
          'p50 ms',
          'p99 ms',
          'ratio',
          'goal',
          'verdict',
          'CPU µs/req ref/base',
          'CPU ratio',
          'CPU verdict',
          'redis cmds/req',
          'floor RT',
          'floor ratio',
          'floor CPU ratio',
        ],
        run.throughput.map((c) => [
          c.store,
          c.route,
          fixed(c.reference.requestsPerSecond),
          fixed(c.reference.p50Ms),
          fixed(c.reference.p99Ms),
          fixed(c.baseline.requestsPerSecond),
          fixed(c.baseline.p50Ms),
          fixed(c.baseline.p99Ms),
          fixed(c.ratio, 2),
          c.target > 0 ? `>= ${fixed(c.target, 2)}` : '-',
          throughputVerdict(c) + (c.expectedShare < 0.99 ? ` (${percent(c.expectedShare)} ${c.expectedStatus})` : ''),
          `${c.cpuMicrosPerRequest.reference}/${c.cpuMicrosPerRequest.baseline}`,
          fixed(c.cpuRatio, 2),
          cpuVerdict(c),
          c.redisCommandsPerRequest ? fixed(c.redisCommandsPerRequest.total ?? 0, 2) : '-',
          c.floor ? String(c.floor.redisRoundTrips) : '-',
          c.floor ? fixed(c.floor.ratio, 2) : '-',
          c.floor ? fixed(c.floor.cpuRatio, 2) : '-',
        ]),
      ),
    );
  }
  if (run.stacks) parts.push(formatStacks(run.stacks));
  if (run.clients !== undefined && run.clients.length > 0) {
    parts.push(
      'Redis client libraries (same process, same Redis; CPU of this process per operation)',
      formatTable(
        ['client', 'version', 'script ops/s', 'script CPU µs/op', 'batched takes/s', 'batched CPU µs/take', 'GET ops/s', 'GET CPU µs/op', 'note'],
        run.clients.map((c) => [
          c.client,
          c.version || '-',
          c.script ? String(c.script.opsPerSecond) : '-',
          c.script ? fixed(c.script.cpuMicrosPerOp, 1) : '-',
          c.batch ? String(c.batch.opsPerSecond) : '-',
          c.batch ? fixed(c.batch.cpuMicrosPerOp, 1) : '-',
          c.get ? String(c.get.opsPerSecond) : '-',
          c.get ? fixed(c.get.cpuMicrosPerOp, 1) : '-',
          c.skipped ?? '',
        ]),
      ),
    );
  }
  if (run.exactness.length > 0) {
    parts.push(
      'Limiter exactness (concurrent requests on a fresh bucket)',
      formatTable(
        ['store', 'instances', 'requests', 'capacity', 'admitted', '429', 'other', 'ms', 'verdict'],
        run.exactness.map((r) => [
          r.store,
          String(r.instances),
          String(r.requests),
          String(r.capacity),
          String(r.admitted),
          String(r.rejected),
          String(r.other),
          String(r.elapsedMs),
          exactnessVerdict(r),
        ]),
      ),
    );
  }
  if (run.refill.length > 0) {
    parts.push(
      'Refill accuracy (steady pressure)',
      formatTable(
        ['store', 'configured/s', 'seconds', 'sent', 'admitted', 'lost ms', 'max gap', 'by count/s', 'error', 'by fit/s', 'error', 'goal', 'verdict'],
        run.refill.map((r) => [
          r.store,
          fixed(r.configuredPerSecond),
          fixed(r.durationMs / 1000, 1),
          String(r.sent),
          String(r.admitted),
          String(r.lostMs),
          String(r.maxGapMs),
          fixed(r.countRatePerSecond, 2),
          percent(r.countError),
          fixed(r.fitRatePerSecond, 2),
          percent(r.fitError),
          `<= ${percent(REFILL_MAX_ERROR)}`,
          refillVerdict(r),
        ]),
      ),
    );
  }
  if (run.suite.length > 0) {
    parts.push(
      'Conformance suite run time (embedded reference server)',
      formatTable(
        ['run', 'wall s', 'CPU s', 'goal', 'exit', 'tests', 'verdict'],
        run.suite.map((r) => [
          r.name,
          fixed(r.wallMs / 1000, 1),
          r.cpuMs !== undefined ? fixed(r.cpuMs / 1000, 1) : '-',
          SUITE_MAX_MS[r.name] !== undefined ? `< ${fixed((SUITE_MAX_MS[r.name] ?? 0) / 1000)} s` : '-',
          String(r.exitCode),
          r.summary,
          suiteVerdict(r),
        ]),
      ),
    );
  }
  if (run.peer && run.peer.length > 0) {
    parts.push(
      'The suite against Schemathesis on the stacks (alternating runs, each on a freshly started stack)',
      formatTable(
        ['stack', 'tool', 'round', 'wall s', 'CPU s', 'exit', 'result'],
        run.peer.map((r) => {
          const cpu = r.cpuMs !== undefined ? fixed(r.cpuMs / 1000, 1) : '-';
          return [r.stack, r.tool, String(r.round), fixed(r.wallMs / 1000, 1), cpu, String(r.exitCode), r.summary];
        }),
      ),
      formatTable(
        ['stack', 'suite median s', 'peer median s', 'goal', 'verdict'],
        peerVerdicts(run.peer).map((v) => [v.stack, fixed(v.suiteMs / 1000, 1), fixed(v.peerMs / 1000, 1), 'suite <= peer', v.verdict]),
      ),
    );
  }
  if (run.profile) {
    const p = run.profile;
    parts.push(
      `CPU profile of the reference server (${p.store}, ${p.route}; ${p.totalMs} ms sampled busy; ` +
        `${p.requests} requests, ${p.cpuMicrosPerRequest} µs process CPU each, profiler included; ${p.file})`,
      `by area: ${Object.entries(p.byArea)
        .slice(0, 8)
        .map(([area, share]) => `${area} ${percent(share)}`)
        .join(', ')}`,
      formatTable(
        ['self %', 'self ms', 'function', 'location'],
        p.topFrames.map((f) => [percent(f.selfShare), fixed(f.selfMs, 1), f.functionName, f.location]),
      ),
      'reference-impl frames by inclusive time (synchronous stacks)',
      formatTable(
        ['incl %', 'incl ms', 'function', 'location'],
        p.projectInclusive.slice(0, 10).map((f) => [percent(f.selfShare), fixed(f.selfMs, 1), f.functionName, f.location]),
      ),
    );
  }
  return parts.join('\n\n');
}

/** The change of every shared headline figure since the previous run. */
export function formatComparison(file: string, comparisons: Comparison[]): string {
  return [
    `Compared with ${file}`,
    formatTable(
      ['figure', 'previous', 'now', 'change'],
      comparisons.map((c) => [c.figure, String(c.previous), String(c.current), `${c.change >= 0 ? '+' : ''}${(c.change * 100).toFixed(1)} %`]),
    ),
  ].join('\n');
}

/** exact / within, or by how many the limiter admitted too many (or too few, fresh). */
function exactnessLabel(r: StackExactness): string {
  if (withinEnvelope(r)) return r.mode === 'fresh' ? 'exact' : 'within';
  const excess = r.admitted - (r.envelope ?? r.capacity);
  return `${r.mode === 'fresh' ? 'not exact' : 'over'} (${excess >= 0 ? '+' : ''}${excess})`;
}

/** The stacks phase: every target per route, the exactness trials and the goal verdicts. */
export function formatStacks(result: StacksResult): string {
  const parts: string[] = [
    `Reference vs the idiomatic stacks of fixtures/stacks/ (medians of ${result.rounds} alternating rounds of ${result.roundSeconds} s, ` +
      `${result.connections} connections; CPU: the server process's user + system time per request sent; redis CPU: redis-server's, ` +
      'INFO cpu, other clients of the shared Redis included)',
    formatTable(
      ['route', 'target', 'req/s', 'rounds req/s', 'CPU µs/req', 'redis cmds/req', 'redis CPU µs/req', 'p50 ms', 'p99 ms', 'expected', 'load'],
      result.rows.map((r) => [
        r.route,
        r.target,
        String(r.requestsPerSecond),
        r.roundsRequestsPerSecond.join(' '),
        fixed(r.cpuMicrosPerRequest, 1),
        fixed(r.redisCommandsPerRequest, 2),
        r.redisCpuMicrosPerRequest !== undefined ? fixed(r.redisCpuMicrosPerRequest, 1) : '-',
        fixed(r.p50Ms),
        fixed(r.p99Ms),
        r.kind === 'baseline'
          ? `constant ${r.expectedStatus} (no auth/limiter/store)`
          : `${percent(r.expectedShare)} ${r.expectedStatus}${stackRowValid(r) ? '' : ` NOT MEASURED AS ASKED ${JSON.stringify(r.statusCounts)}`}`,
        fixed(r.loadAverage, 2),
      ]),
    ),
  ];
  if (result.exactness.length > 0) {
    parts.push(
      'Limiter exactness (500 GETs at once, each on its own connection, over 2 instances sharing Redis; ' +
        'fresh: an untouched key, exact = admitted is the limit; window-edge: fired 150 ms before the window a priming GET opened ends, ' +
        'envelope = limit + limit/5 s x burst time)',
      formatTable(
        ['mode', 'target', 'limiter', 'limit', 'admitted', '429', 'other', 'envelope', 'ms', 'load', 'verdict'],
        result.exactness.map((r) => [
          r.mode,
          r.target,
          r.limiter,
          String(r.capacity),
          String(r.admitted),
          String(r.rejected),
          String(r.other),
          r.envelope !== undefined ? String(r.envelope) : '-',
          String(r.elapsedMs),
          fixed(r.loadAverage, 2),
          exactnessLabel(r),
        ]),
      ),
    );
  }
  const verdicts = stackVerdicts(result);
  if (verdicts.length > 0) {
    parts.push(
      `Goals against the stacks (reference >= ${STACK_GOALS.overFastestStack}x the fastest stack per route on Redis; ` +
        `memory GET >= ${STACK_GOALS.memoryGetOverBareKoa}x bare Koa)`,
      formatTable(
        ['figure', 'value', 'goal', 'verdict', 'detail'],
        verdicts.map((v) => [v.figure, fixed(v.value, 2), v.goal, v.verdict, v.detail]),
      ),
    );
  }
  for (const note of result.notes) parts.push(`note: ${note}`);
  return parts.join('\n\n');
}
