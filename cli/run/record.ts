/**
 * What `run` leaves in its output directory when the suite cannot give the verdict: results.json,
 * report.html and badge.svg of a run that could not start (exit 2) or did not finish (exit 1),
 * never a success. `CannotRun` is how every step before the suite refuses to go on.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createResults, readResults, writeResults } from '../../spec/results.ts';
import type { RunResults } from '../../spec/results.ts';

/** The run cannot start (exit 2): `message` names the problem and the fix, `target` what is known of the target. */
export class CannotRun extends Error {
  override readonly name = 'CannotRun';
  constructor(
    message: string,
    readonly target: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The output directory of one run. */
export class RunRecord {
  readonly resultsFile: string;

  constructor(
    readonly out: string,
    private readonly started: Date,
    private readonly strict: boolean,
  ) {
    mkdirSync(out, { recursive: true });
    this.resultsFile = join(out, 'results.json');
    rmSync(this.resultsFile, { force: true });
  }

  /** Writes results.json, and report.html and badge.svg beside it (their modules load only when a run writes them itself). */
  async write(results: RunResults): Promise<void> {
    writeResults(this.out, results);
    const { writeReportFiles } = await import('../../conformance/report/report-files.ts');
    writeReportFiles(this.out, results);
  }

  /** The results.json the suite's reporter wrote in `dir` (checked against its schema), or undefined when there is none or it is unusable. */
  reported(dir: string = this.out): RunResults | undefined {
    const file = join(dir, 'results.json');
    if (!existsSync(file)) return undefined;
    try {
      return readResults(file);
    } catch (error) {
      console.error(`http-api-conformance run: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** A run that could not start: exit 2, with the reason in results.json. */
  async refused(error: CannotRun): Promise<number> {
    console.error(`http-api-conformance run: ${error.message}`);
    const { started: startedAt, strict } = this;
    const target = error.target;
    await this.write(createResults({ kind: 'server', target, startedAt, strict, complete: false, requirements: [], exitCode: 2, errors: [error.message] }));
    console.error(`results: ${this.resultsFile} (incomplete, exit 2)`);
    return 2;
  }

  /** An incomplete run (exit 1): the suite's results.json when it wrote one, marked incomplete, else one naming `message`. */
  async unfinished(message: string, target: Record<string, unknown>): Promise<number> {
    console.error(`http-api-conformance run: ${message}`);
    const reported = this.reported();
    const { started: startedAt, strict } = this;
    await this.write(
      reported
        ? { ...reported, complete: false, exitCode: 1, errors: [...(reported.errors ?? []), message] }
        : createResults({ kind: 'server', target, startedAt, strict, complete: false, requirements: [], errors: [message] }),
    );
    console.error(`results: ${this.resultsFile} (incomplete, exit 1)`);
    return 1;
  }
}
