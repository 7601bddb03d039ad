/**
 * Phase 5: wall time of the full conformance run and of the smoke subset (`--grep @smoke`)
 * against the embedded reference server, each a spawned CLI process: first the repository's command
 * (`node bin/http-api-conformance.js`, TypeScript sources), then the package as a user installs it
 * (`npm pack`, `npm install <tarball>` into a temporary project: compiled JavaScript, its bin script,
 * which `npx http-api-conformance` runs). The two differ in start-up: Playwright loads the repository's
 * suite through its TypeScript loader, the installed suite as plain JavaScript.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installPackage } from '../../conformance/tests/support/installed-package.ts';
import type { SuiteTimeResult } from '../types.ts';

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
/** GNU time reports the CPU time of the whole process tree, a figure less sensitive to machine load. */
const GNU_TIME = '/usr/bin/time';

function cpuMsOf(file: string): number | undefined {
  try {
    const [user, sys] = readFileSync(file, 'utf8').trim().split('\n').pop()?.split(' ').map(Number) ?? [];
    return user !== undefined && sys !== undefined && Number.isFinite(user + sys) ? Math.round((user + sys) * 1000) : undefined;
  } catch {
    return undefined;
  }
}

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

/** Spawns `node <cli> run <args>` in `cwd` and measures its wall time. */
async function timeRun(name: string, args: string[], options: SuiteOptions, { cli, cwd }: Command = { cli: CLI, cwd: ROOT }): Promise<SuiteTimeResult> {
  const outDir = mkdtempSync(join(tmpdir(), `hac-bench-${name}-`));
  const fullArgs = ['run', ...args, '--out', outDir];
  const timeFile = join(outDir, 'time.txt');
  const useTime = existsSync(GNU_TIME);
  const started = performance.now();
  let output = '';
  const exitCode = await new Promise<number | null>((resolve) => {
    const command = useTime ? GNU_TIME : process.execPath;
    const commandArgs = useTime ? ['-f', '%U %S', '-o', timeFile, process.execPath, cli, ...fullArgs] : [cli, ...fullArgs];
    const child = spawn(command, commandArgs, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: '' } });
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', (error) => {
      output += String(error);
      clearTimeout(timer);
      resolve(null);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  const wallMs = Math.round(performance.now() - started);
  const summary = summaryOf(outDir, output);
  const cpuMs = useTime ? cpuMsOf(timeFile) : undefined;
  rmSync(outDir, { recursive: true, force: true });
  return { name, args: fullArgs.slice(0, -2), wallMs, ...(cpuMs !== undefined ? { cpuMs } : {}), exitCode, summary };
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
