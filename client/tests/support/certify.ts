/**
 * Runs the client harness on an adapter of fixtures/clients/ for the certification tests.
 */
import { spawn } from 'node:child_process';
import { test } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { certifyClient } from '../../harness/certify.ts';
import type { Certification, CertifyOptions } from '../../harness/certify.ts';
import { resultsSchemaErrors } from '../../../spec/results.ts';
import type { RunResults } from '../../../spec/results.ts';
import { compiledCli, compiledFixture } from '../../../fixtures/support/compiled-cli.ts';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The shell command that runs the fixture adapter `file`: a .ts adapter compiled with the command
 * (fixtures/support/compiled-cli.ts), which starts without tsx; the README's client-check command,
 * through tsx, is run as printed by readme-commands.spec.ts.
 */
export function fixtureCommand(file: string): string {
  const path = file.endsWith('.ts') ? compiledFixture(file) : fileURLToPath(new URL(`../../../fixtures/clients/${file}`, import.meta.url));
  return `node ${path}`;
}

/**
 * Certifies the fixture adapter `file` at time scale 0.25 with 4 scenarios at once unless
 * overridden; the results must match spec/schemas/results.schema.json (else it throws).
 */
export async function certifyFixture(file: string, options: Partial<CertifyOptions> = {}): Promise<Certification> {
  const certification = await certifyClient({ command: fixtureCommand(file), timeScale: 0.25, concurrency: 4, cwd: ROOT, ...options });
  const errors = resultsSchemaErrors(certification.results);
  if (errors.length > 0) throw new Error(`the client harness's results do not match results.schema.json:\n  ${errors.join('\n  ')}`);
  return certification;
}

/** IDs whose outcome is `outcome`, sorted. */
export function idsWith(results: RunResults, outcome: 'passed' | 'failed' | 'warning' | 'skipped'): string[] {
  return results.requirements.filter((r) => r.outcome === outcome).map((r) => r.id).sort();
}

/**
 * IDs the run left inconclusive (D-CLIENT-TIMING: too late a machine to judge a timing), sorted; each
 * is noted on the running test with its figures.
 */
export function inconclusiveIds(results: RunResults): string[] {
  const unjudged = results.requirements.filter((r) => r.outcome === 'skipped' && r.reason?.startsWith('inconclusive'));
  for (const r of unjudged) test.info().annotations.push({ type: 'inconclusive timing', description: `${r.id}: ${r.reason ?? ''}` });
  return unjudged.map((r) => r.id).sort();
}

/**
 * The IDs of `expected` that the run must show as failed: all of them but those it left inconclusive,
 * which a loaded machine may do to any timing (neither a pass nor a fail).
 */
export function expectedFailures(results: RunResults, expected: readonly string[]): string[] {
  const unjudged = inconclusiveIds(results);
  return expected.filter((id) => !unjudged.includes(id)).sort();
}

/** A readable summary of the failures and of the timings too late to judge, for assertion messages. */
export function failureReport(results: RunResults): string {
  return results.requirements
    .filter((r) => r.outcome === 'failed' || r.outcome === 'warning' || r.reason?.startsWith('inconclusive'))
    .map((r) => `${r.id}: ${r.reason ?? ''}`)
    .join('\n');
}

/** Runs `http-api-conformance client-check ARGS` as a user would (compiled, as installed) and collects its exit code and output. */
export function runClientCheck(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [compiledCli(), 'client-check', ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
