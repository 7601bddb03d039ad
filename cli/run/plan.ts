/**
 * `run --plan FILE` (D-RUN-PLAN): several running targets certified by one suite process. Each target
 * is met as a one-target run meets its own (its profile validated, the target probed, its features
 * verified; a refusal is that target's exit 2 and the others go on); the suite then starts once for
 * all of them (conformance/run-plan.ts), and each target gets its own results.json, report and
 * console summary in its output directory. The command exits with the worst of their exit codes.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { runEnvironment } from '../../conformance/run-environment.ts';
import { writeSuitePlan } from '../../conformance/run-plan.ts';
import type { PlanTarget } from '../../conformance/run-plan.ts';
import { startSuite } from '../../conformance/suite-process.ts';
import type { SuiteProcess } from '../../conformance/suite-process.ts';
import { hasBaseUrls, rateLimitPool } from '../../conformance/target/profile.ts';
import { pool } from '../../spec/pool.ts';
import { getValidator } from '../../spec/schemas.ts';
import { DeadlinePassed } from './deadline.ts';
import type { RunDeadline } from './deadline.ts';
import type { RunOptions } from './options.ts';
import { profileOf, trustTls } from './preflight.ts';
import { CannotRun, RunRecord } from './record.ts';
import { meetTarget } from './target.ts';
import { verdict } from './verdict.ts';
import { defaultWorkers } from './workers.ts';

/** One target of the user's plan file, its paths resolved. */
export interface PlanEntry {
  name: string;
  profile: string;
  grep?: string;
  out: string;
}

/** An unusable plan file: the message names the problem and the fix (exit 2). */
export class PlanError extends Error {
  override readonly name = 'PlanError';
}

/** Reads and checks the plan file (spec/schemas/run-plan.schema.json); paths are relative to its directory, `out` defaults to `<out>/<name>`. */
export function readPlan(file: string, out: string): PlanEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new PlanError(`cannot read --plan ${file}: ${(error as Error).message}`);
  }
  const validate = getValidator('run-plan');
  if (!validate(data)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
    throw new PlanError(
      `--plan ${file} does not match spec/schemas/run-plan.schema.json:\n  ${problems.join('\n  ')}\n` +
        'write it as {"targets": [{"name": "orders", "profile": "orders-profile.json", "grep": "@rate-limit"}]} (grep and out are optional)',
    );
  }
  const { targets } = data as { targets: { name: string; profile: string; grep?: string; out?: string }[] };
  const names = new Set<string>();
  const outs = new Map<string, string>();
  const base = dirname(file);
  return targets.map((target) => {
    if (names.has(target.name)) throw new PlanError(`--plan ${file} names the target "${target.name}" twice: give each target a name of its own`);
    names.add(target.name);
    const dir = target.out === undefined ? join(out, target.name) : resolve(base, target.out);
    const other = outs.get(dir);
    if (other !== undefined) throw new PlanError(`--plan ${file}: "${other}" and "${target.name}" write into the same directory ${dir}: give each its own out`);
    outs.set(dir, target.name);
    return { name: target.name, profile: resolve(base, target.profile), ...(target.grep !== undefined ? { grep: target.grep.trim() } : {}), out: dir };
  });
}

/** A target met and ready for the suite, with the record its verdict is written to. */
interface Ready {
  entry: PlanEntry;
  options: RunOptions;
  record: RunRecord;
  target: PlanTarget;
  baseUrls: string[];
}

/** The one-target options of a plan entry. */
function entryOptions(options: RunOptions, entry: PlanEntry): RunOptions {
  const { plan: _plan, ...rest } = options;
  return { ...rest, targets: [], profile: entry.profile, out: entry.out, ...(entry.grep !== undefined ? { grep: entry.grep } : {}) };
}

/**
 * How many targets are met at once. Their probes and feature checks are real requests to servers that
 * usually share the machine: the broken-variant plan's 76 targets met all at once, inside a loaded
 * `npm test` (load 18 on 2 cores), had a variant's store answer its slowValue probe 503, and the
 * target was refused for lacking the feature. Eight at a time load the servers far less, and take
 * about as long as all at once did there (17 s for the 76), where the probes mostly waited for the
 * cores; a meeting mostly waits for its answers (the slowValue probe alone holds 500 ms).
 */
const MEET_AT_ONCE = 8;

/** Meets one target; resolves with it ready, or with its exit code when it cannot run (its results.json says why). */
async function meet(options: RunOptions, entry: PlanEntry, started: Date, deadline: RunDeadline): Promise<Ready | number> {
  const own = entryOptions(options, entry);
  const record = new RunRecord(entry.out, started, options.strict);
  try {
    const { profile, profileSource } = profileOf(own);
    if (!hasBaseUrls(profile)) {
      const why = `its profile ${profileSource} names no baseUrls; a plan certifies running servers: add their baseUrls to the profile`;
      throw new CannotRun(`plan target "${entry.name}": ${why}`, { profile: profileSource });
    }
    const valid = await meetTarget(own, { profile, profileSource, useEmbedded: false, warnings: [] }, deadline, {});
    const profilePath = join(entry.out, 'profile.json');
    const { $schema: _schema, ...resolved } = valid;
    writeFileSync(profilePath, `${JSON.stringify(resolved, null, 2)}\n`);
    const target: PlanTarget = {
      name: entry.name,
      profilePath,
      profileSource,
      outDir: entry.out,
      ...(entry.grep !== undefined ? { grep: entry.grep } : {}),
      rateLimitTokens: valid.tokens ? rateLimitPool({ tokens: valid.tokens }).length : 0,
    };
    return { entry, options: own, record, target, baseUrls: valid.baseUrls };
  } catch (error) {
    if (!(error instanceof DeadlinePassed) && !(error instanceof CannotRun)) throw error;
    return record.refused(new CannotRun(`plan target "${entry.name}": ${error.message}`, error instanceof CannotRun ? error.target : {}));
  }
}

/** Runs the plan of `options.plan`; resolves with the worst exit code of its targets. */
export async function runPlan(options: RunOptions & { plan: string }, started: Date, deadline: RunDeadline, cutByDeadline: boolean): Promise<number> {
  let entries: PlanEntry[];
  try {
    entries = readPlan(options.plan, options.out);
  } catch (error) {
    if (!(error instanceof PlanError)) throw error;
    console.error(`http-api-conformance run: ${error.message}`);
    return 2;
  }
  let warnings: string[];
  try {
    warnings = trustTls(options);
  } catch (error) {
    if (!(error instanceof CannotRun)) throw error;
    console.error(`http-api-conformance run: ${error.message}`);
    return 2;
  }
  const met = await pool(entries, MEET_AT_ONCE, (entry) => meet(options, entry, started, deadline));
  const ready = met.filter((m): m is Ready => typeof m !== 'number');
  // Each target's exit code, in the plan's order: 2 for one that could not run, else its verdict's.
  const codes = new Map(entries.map((entry, index) => [entry.name, typeof met[index] === 'number' ? met[index] : undefined]));
  if (ready.length === 0) return closing(entries, codes);
  mkdirSync(options.out, { recursive: true });
  const planFile = join(options.out, 'suite-plan.json');
  writeSuitePlan(planFile, ready.map((r) => r.target));
  const allBaseUrls = ready.flatMap((r) => r.baseUrls);
  const workers = options.workers ?? (runEnvironment().workersGiven ? undefined : defaultWorkers(allBaseUrls));
  const suiteStarted = performance.now();
  let suite: SuiteProcess | undefined;
  try {
    const { strict, reporter } = options;
    suite = startSuite({ plan: planFile, outDir: options.out, strict, reporter, ...(workers !== undefined ? { workers } : {}) });
    await deadline.within('suite', suite.exited);
  } catch (error) {
    if (!(error instanceof DeadlinePassed)) throw error;
    await suite?.stop();
    for (const r of ready) codes.set(r.entry.name, await r.record.unfinished(error.message, { baseUrls: r.baseUrls }));
    return closing(entries, codes);
  } finally {
    await suite?.stop();
  }
  const suiteMs = performance.now() - suiteStarted;
  for (const r of ready) {
    console.log(`\n== ${r.entry.name} (${r.baseUrls.join(', ')})`);
    const outcome = { runs: [r.record.reported()], baseUrls: r.baseUrls, cutByDeadline, warnings, suiteMs, started };
    codes.set(r.entry.name, await verdict(r.options, r.record, outcome));
  }
  return closing(entries, codes);
}

/** Prints each target's exit code and results file in the plan's order; returns the worst code. */
function closing(entries: readonly PlanEntry[], codes: ReadonlyMap<string, number | undefined>): number {
  const worst = Math.max(...entries.map((entry) => codes.get(entry.name) ?? 1));
  const lines = entries.map((entry) => {
    const code = codes.get(entry.name) ?? 1;
    return `  ${entry.name}: exit ${code}${code === 2 ? ', could not run' : ''} (${join(entry.out, 'results.json')})`;
  });
  console.log(`\nplan: ${entries.length} targets, exit ${worst} (the worst of theirs)\n${lines.join('\n')}`);
  return worst;
}
