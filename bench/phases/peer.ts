/**
 * The suite against its peer (`--phases peer`): the wall time of a whole conformance run and of a
 * Schemathesis 4 run (`schemathesis run`, its defaults) on the same stack of fixtures/stacks/, with
 * the widgets API's own OpenAPI description and the same bearer token. Rounds alternate (suite,
 * peer, suite, peer) and each run gets the stack freshly started (two instances on the shared Redis
 * under a key prefix of their own), so neither tool finds buckets the other drained. The suite runs
 * as a user runs it: `run --profile`, default workers.
 *
 * Schemathesis is not an npm package: `../shared/tools/schemathesis-setup.sh` builds it into a venv.
 * It is found at `--schemathesis PATH`, else HAC_SCHEMATHESIS, else `$TMPDIR/peers/venv/bin/schemathesis`
 * (where that script puts it); without it the phase measures nothing and says so.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STACKS } from '../../fixtures/stacks/index.ts';
import { startStack } from '../../fixtures/stacks/stack.ts';
import { timeProcess } from '../timed-process.ts';
import type { TimedProcess } from '../timed-process.ts';
import type { PeerRun } from '../types.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'bin', 'http-api-conformance.js');

export interface PeerOptions {
  stacks: readonly string[];
  rounds: number;
  /** The Schemathesis executable. */
  schemathesis: string;
  timeoutMs: number;
  log: (line: string) => void;
}

/** Where Schemathesis is: the option, HAC_SCHEMATHESIS, else where schemathesis-setup.sh puts it; undefined when absent. */
export function findSchemathesis(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidate = option ?? env.HAC_SCHEMATHESIS ?? join(env.TMPDIR ?? tmpdir(), 'peers', 'venv', 'bin', 'schemathesis');
  return existsSync(candidate) ? candidate : undefined;
}

function suiteSummary(outDir: string): string {
  try {
    const { summary } = JSON.parse(readFileSync(join(outDir, 'results.json'), 'utf8')) as { summary: Record<string, number> };
    return `${summary.passed} passed, ${summary.failed} failed, ${summary.warning} warning, ${summary.skipped} skipped`;
  } catch {
    return 'no results.json';
  }
}

/** Schemathesis' closing line ("29 failures in 91.73s"), without its rule of `=`. */
function peerSummary(output: string): string {
  const last = output.trim().split('\n').reverse().find((line) => /=+ .* =+/.test(line));
  return last?.replace(/^=+ | =+$/g, '') ?? output.trim().split('\n').at(-1) ?? '';
}

function timed(stack: string, tool: PeerRun['tool'], round: number, run: TimedProcess, summary: string): PeerRun {
  return { stack, tool, round, wallMs: run.wallMs, ...(run.cpuMs !== undefined ? { cpuMs: run.cpuMs } : {}), exitCode: run.exitCode, summary };
}

/** One run of `tool` on a freshly started `stackName`. */
async function runOnce(stackName: string, tool: PeerRun['tool'], round: number, options: PeerOptions): Promise<PeerRun> {
  const stack = STACKS.find((s) => s.name === stackName);
  if (!stack) throw new Error(`unknown stack "${stackName}"`);
  const started = await startStack(stack);
  const dir = mkdtempSync(join(tmpdir(), `hac-bench-peer-${stackName}-`));
  try {
    const { profile } = started;
    if (tool === 'suite') {
      const profileFile = join(dir, 'profile.json');
      writeFileSync(profileFile, JSON.stringify(profile));
      const out = join(dir, 'out');
      const run = await timeProcess(process.execPath, [CLI, 'run', '--profile', profileFile, '--out', out], {
        cwd: ROOT,
        env: { ...process.env, CI: '' },
        timeoutMs: options.timeoutMs,
      });
      return timed(stackName, tool, round, run, suiteSummary(out));
    }
    const args = ['run', profile.openapi ?? '', '--url', profile.baseUrls[0] ?? '', '-H', `Authorization: Bearer ${profile.tokens.valid}`];
    const run = await timeProcess(options.schemathesis, args, { cwd: dir, timeoutMs: options.timeoutMs });
    return timed(stackName, tool, round, run, peerSummary(run.output));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await started.close();
  }
}

/** Alternating rounds of the suite and the peer on each stack. */
export async function peerPhase(options: PeerOptions): Promise<PeerRun[]> {
  const runs: PeerRun[] = [];
  for (const stack of options.stacks)
    for (let round = 1; round <= options.rounds; round += 1)
      for (const tool of ['suite', 'schemathesis'] as const) {
        const run = await runOnce(stack, tool, round, options);
        runs.push(run);
        const cpu = run.cpuMs !== undefined ? `, ${(run.cpuMs / 1000).toFixed(1)} s CPU` : '';
        const wall = (run.wallMs / 1000).toFixed(1);
        options.log(`  ${stack.padEnd(8)} ${tool.padEnd(12)} round ${round}: ${wall} s wall${cpu}, exit ${run.exitCode}: ${run.summary}`);
      }
  return runs;
}
