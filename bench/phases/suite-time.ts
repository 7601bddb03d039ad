/**
 * Phase 5: wall time of the full conformance run and of the smoke subset (`--grep @smoke`)
 * against the embedded reference server, each a spawned CLI process: first the repository's command
 * (`node bin/http-api-conformance.js`, TypeScript sources), then the package as a user installs it
 * (`npm pack`, `npm install <tarball>` into a temporary project: compiled JavaScript, its bin script,
 * which `npx http-api-conformance` runs). The two differ in start-up: Playwright loads the repository's
 * suite through its TypeScript loader, the installed suite as plain JavaScript.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installPackage } from '../../fixtures/support/installed-package.ts';
import type { SuiteTimeResult } from '../types.ts';
import { timeProcess } from '../timed-process.ts';

export interface SuiteOptions {
  /** Kill a run that takes longer than this. */
  timeoutMs: number;
  /** Which runs to time (default both). */
  only?: ('full' | 'smoke')[];
  /** Also time the runs from an installed package (npm pack + npm install; default true). */
  installed?: boolean;
  log: (line: string) => void;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'bin', 'http-api-conformance.js');
interface Summary {
  summary?: { passed?: number; failed?: number; warning?: number; skipped?: number };
  exitCode?: number;
}

function summaryOf(outDir: string, output: string): string {
  try {
    const results = JSON.parse(readFileSync(join(outDir, 'results.json'), 'utf8')) as Summary;
    const s = results.summary ?? {};
    return `${s.passed ?? 0} passed, ${s.failed ?? 0} failed, ${s.warning ?? 0} warning, ${s.skipped ?? 0} skipped`;
  } catch {
    const last = output.trim().split('\n').slice(-3).join(' | ');
    return `no results.json (${last.slice(0, 300)})`;
  }
}

/** The command a run starts: the repository's CLI, or an installed package's. */
interface Command {
  cli: string;
  cwd: string;
}

/** Runs `node <cli> run <args>` in `cwd` and measures its wall time and CPU. */
async function timeRun(name: string, args: string[], options: SuiteOptions, { cli, cwd }: Command = { cli: CLI, cwd: ROOT }): Promise<SuiteTimeResult> {
  const outDir = mkdtempSync(join(tmpdir(), `hac-bench-${name}-`));
  const fullArgs = ['run', ...args, '--out', outDir];
  const run = await timeProcess(process.execPath, [cli, ...fullArgs], { cwd, env: { ...process.env, CI: '' }, timeoutMs: options.timeoutMs });
  const summary = summaryOf(outDir, run.output);
  rmSync(outDir, { recursive: true, force: true });
  return { name, args: fullArgs.slice(0, -2), wallMs: run.wallMs, ...(run.cpuMs !== undefined ? { cpuMs: run.cpuMs } : {}), exitCode: run.exitCode, summary };
}

/** Times the full run, then the smoke subset: from the repository, then from an installed package. */
export async function suiteTimePhase(options: SuiteOptions): Promise<SuiteTimeResult[]> {
  const results: SuiteTimeResult[] = [];
  const runs = ([
    ['full', []],
    ['smoke', ['--grep', '@smoke']],
  ] as const).filter(([name]) => !options.only || options.only.includes(name));
  const timeAll = async (suffix: string, command?: Command): Promise<void> => {
    for (const [name, args] of runs) {
      const result = await timeRun(`${name}${suffix}`, [...args], options, command);
      results.push(result);
      options.log(
        `  ${result.name.padEnd(16)} ${(result.wallMs / 1000).toFixed(1)} s wall, ` +
          `${result.cpuMs !== undefined ? `${(result.cpuMs / 1000).toFixed(1)} s CPU, ` : ''}exit ${result.exitCode}: ${result.summary}`,
      );
    }
  };
  await timeAll('');
  if (options.installed === false) return results;
  const root = mkdtempSync(join(tmpdir(), 'hac-bench-package-'));
  try {
    const installed = await installPackage(root);
    options.log(`  installed package: npm pack ${(installed.packMs / 1000).toFixed(1)} s, npm install ${(installed.installMs / 1000).toFixed(1)} s`);
    await timeAll(' (installed)', { cli: installed.cli, cwd: installed.app });
  } catch (error) {
    options.log(`  installed package: not timed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return results;
}
