/**
 * bench/results/<timestamp>.json: writing one run, finding the previous one and comparing the
 * headline figures of both.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRun } from './types.ts';

export const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
const RUN_FILE = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.json$/;

/** A file-name-safe UTC timestamp: 2026-11-21T12-50-03Z. */
export function timestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19).replaceAll(':', '-')}Z`;
}

/** The most recent earlier run in `dir`, if any (file names sort by time). */
export function loadPrevious(dir: string = RESULTS_DIR): { file: string; run: BenchRun } | undefined {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((name) => RUN_FILE.test(name))
      .sort();
  } catch {
    return undefined;
  }
  for (const name of names.reverse()) {
    try {
      return { file: name, run: JSON.parse(readFileSync(join(dir, name), 'utf8')) as BenchRun };
    } catch {
      continue;
    }
  }
  return undefined;
}

/** Writes the run and returns the file's path. */
export function writeRun(run: BenchRun, dir: string = RESULTS_DIR): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${timestamp(new Date(run.startedAt))}.json`);
  writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
  return file;
}

export interface Comparison {
  figure: string;
  previous: number;
  current: number;
  change: number;
}

/** The headline figures of a run by name (ratios, req/s, refill errors, suite times). */
export function headlineFigures(run: BenchRun): Map<string, number> {
  const figures = new Map<string, number>();
  for (const cell of run.throughput ?? []) {
    figures.set(`${cell.store} ${cell.route} ratio`, cell.ratio);
    figures.set(`${cell.store} ${cell.route} ref req/s`, cell.reference.requestsPerSecond);
    if (cell.cpuRatio !== undefined) figures.set(`${cell.store} ${cell.route} CPU ratio`, cell.cpuRatio);
    if (cell.cpuMicrosPerRequest !== undefined) figures.set(`${cell.store} ${cell.route} ref CPU µs/req`, cell.cpuMicrosPerRequest.reference);
  }
  for (const row of run.stacks?.rows ?? []) {
    figures.set(`stacks ${row.route} ${row.target} CPU µs/req`, row.cpuMicrosPerRequest);
    figures.set(`stacks ${row.route} ${row.target} req/s`, row.requestsPerSecond);
  }
  for (const r of run.exactness ?? []) figures.set(`exactness ${r.store} x${r.instances} admitted`, r.admitted);
  for (const r of run.refill ?? []) figures.set(`refill ${r.store} fit error %`, Math.round(r.fitError * 10000) / 100);
  for (const r of run.suite ?? []) figures.set(`suite ${r.name} s`, Math.round(r.wallMs / 100) / 10);
  return figures;
}

/** Figures present in both runs, with the relative change (current/previous - 1). */
export function compareRuns(previous: BenchRun, current: BenchRun): Comparison[] {
  const before = headlineFigures(previous);
  const out: Comparison[] = [];
  for (const [figure, value] of headlineFigures(current)) {
    const old = before.get(figure);
    if (old === undefined) continue;
    out.push({ figure, previous: old, current: value, change: old === 0 ? 0 : Math.round((value / old - 1) * 1000) / 1000 });
  }
  return out;
}
