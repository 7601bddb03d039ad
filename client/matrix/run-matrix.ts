/**
 * The compatibility matrix: certifies every client of MATRIX_CLIENTS in real time, all of them and
 * all their scenarios at once (a shared StartGate keeps process start-ups from piling up), and
 * writes `clients-matrix.json` and `clients-matrix.md`: requirement × client → outcome, with the
 * library versions and one line of evidence per failure.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Outcome, RunResults } from '../../spec/results.ts';
import { packageVersion, PACKAGE_ROOT } from '../../spec/package-files.ts';
import { certifyClient, DEFAULT_STARTING_AT_ONCE } from '../harness/certify.ts';
import { loadClientRequirements } from '../harness/requirements.ts';
import { StartGate } from '../harness/start-gate.ts';
import { adapterCommand, clientVersions, MATRIX_CLIENTS } from './adapters.ts';
import type { MatrixClient } from './adapters.ts';
import { KNOWN_VERDICTS } from './known-verdicts.ts';

export interface MatrixCell {
  outcome: Outcome;
  /** The first failing check, for a failure or a warning; the measurement, for a timing too late to judge (D-CLIENT-TIMING). */
  evidence?: string;
}

/** Whether a requirement was left unjudged because the machine was too late to judge its timing (D-CLIENT-TIMING). */
export function isInconclusive(result: { outcome: Outcome; reason?: string } | undefined): boolean {
  return result?.outcome === 'skipped' && (result.reason ?? '').startsWith('inconclusive');
}

export interface MatrixColumn {
  name: string;
  versions: string;
  command: string;
  complete: boolean;
  exitCode: number;
  durationMs: number;
  /** Why the certification is incomplete (an adapter that failed, with its stderr). */
  errors: string[];
  warnings: string[];
}

export interface Matrix {
  tool: 'http-api-conformance';
  version: string;
  kind: 'clients-matrix';
  generatedAt: string;
  timeScale: 1;
  durationMs: number;
  /** os.loadavg() when the matrix started and ended. */
  load: { start: number[]; end: number[] };
  clients: MatrixColumn[];
  requirements: { id: string; level: string; cells: Record<string, MatrixCell> }[];
}

/** The matrix and each client's full `results.json` (every check with its measured values). */
export interface MatrixRun {
  matrix: Matrix;
  results: Record<string, RunResults>;
}


/** Certifies every client in real time, concurrently, and builds the matrix. */
export async function runMatrix(options: { clients?: MatrixClient[]; log?: (line: string) => void } = {}): Promise<MatrixRun> {
  const clients = options.clients ?? MATRIX_CLIENTS;
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  const load = loadavg().map((l) => Number(l.toFixed(2)));
  const gate = new StartGate(DEFAULT_STARTING_AT_ONCE);
  const certifications = await Promise.all(
    clients.map(async (client) => {
      const command = adapterCommand(client);
      const certification = await certifyClient({ command, timeScale: 1, concurrency: 64, gate, cwd: PACKAGE_ROOT });
      log(
        `${client.name}: ${certification.results.summary.passed} passed, ${certification.results.summary.failed} failed, ` +
        `${certification.results.summary.warning} warnings, ${certification.results.summary.skipped} ` +
        `skipped${certification.results.complete ? '' : ' (INCOMPLETE)'}`,
      );
      return { client, command, certification };
    }),
  );
  const requirements = loadClientRequirements().map((req) => {
    const cells: Record<string, MatrixCell> = {};
    for (const { client, certification } of certifications) {
      const result = certification.results.requirements.find((r) => r.id === req.id);
      const outcome = result?.outcome ?? 'skipped';
      const told = outcome === 'failed' || outcome === 'warning' || isInconclusive(result);
      cells[client.name] = told ? { outcome, evidence: oneLine(result?.reason ?? '') } : { outcome };
    }
    return { id: req.id, level: req.level, cells };
  });
  const matrix: Matrix = {
    tool: 'http-api-conformance',
    version: packageVersion(),
    kind: 'clients-matrix',
    generatedAt: new Date().toISOString(),
    timeScale: 1,
    durationMs: Math.round(performance.now() - started),
    load: { start: load, end: loadavg().map((l) => Number(l.toFixed(2))) },
    clients: certifications.map(({ client, command, certification }) => ({
      name: client.name,
      versions: clientVersions(client),
      command: command.replace(`${PACKAGE_ROOT}/`, ''),
      complete: certification.results.complete,
      exitCode: certification.results.exitCode,
      durationMs: certification.results.durationMs,
      errors: certification.results.errors ?? [],
      warnings: certification.warnings,
    })),
    requirements,
  };
  return { matrix, results: Object.fromEntries(certifications.map(({ client, certification }) => [client.name, certification.results])) };
}

function oneLine(text: string, max = 240): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const MARK: Record<Outcome, string> = { passed: 'pass', failed: '**FAIL**', warning: 'warn', skipped: 'skip' };

/** The matrix as Markdown: the table, then one line of evidence per failure with its known fix. */
export function matrixMarkdown(matrix: Matrix): string {
  const names = matrix.clients.map((c) => c.name);
  const lines = [
    '| Requirement | Level | ' + names.join(' | ') + ' |',
    '|---|---|' + names.map(() => '---|').join(''),
    ...matrix.requirements.map((r) => `| \`${r.id}\` | ${r.level} | ` + names.map((n) => MARK[r.cells[n]?.outcome ?? 'skipped']).join(' | ') + ' |'),
    '',
    'Versions: ' + matrix.clients.map((c) => `${c.name} (${c.versions})`).join('; ') + '.',
    '',
    'Failures and warnings (the first failing check; "Fix" says whether a configuration fixes it):',
    '',
  ];
  for (const client of matrix.clients) {
    for (const r of matrix.requirements) {
      const cell = r.cells[client.name];
      if (!cell || (cell.outcome !== 'failed' && cell.outcome !== 'warning')) continue;
      const known = KNOWN_VERDICTS[client.name]?.[r.id];
      lines.push(`- **${client.name}**, \`${r.id}\`: ${cell.evidence ?? ''}${known?.fix ? ` Fix: ${known.fix}` : ''}`);
    }
    for (const e of client.errors) lines.push(`- **${client.name}**: INCOMPLETE: ${oneLine(e)}`);
  }
  lines.push(
    '',
    `Generated by \`npm run clients:matrix\` (time scale 1) in ${(matrix.durationMs / 1000).toFixed(1)} s, load average ${matrix.load.start[0]} at the start.`,
    '',
  );
  return lines.join('\n');
}

/** A file name for a client: `axios + axios-retry` → `axios-axios-retry`. */
function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/**
 * Writes `clients-matrix.json` and `clients-matrix.md` into `dir`, and each client's full
 * `results.json` into `dir/clients-matrix-results/<client>.json`; returns the two matrix paths.
 */
export function writeMatrix(dir: string, run: MatrixRun): string[] {
  mkdirSync(join(dir, 'clients-matrix-results'), { recursive: true });
  const json = join(dir, 'clients-matrix.json');
  const md = join(dir, 'clients-matrix.md');
  writeFileSync(json, `${JSON.stringify(run.matrix, null, 2)}\n`);
  writeFileSync(md, matrixMarkdown(run.matrix));
  for (const [name, results] of Object.entries(run.results))
    writeFileSync(join(dir, 'clients-matrix-results', `${slug(name)}.json`), `${JSON.stringify(results, null, 2)}\n`);
  return [json, md];
}
