/**
 * `http-api-conformance client-check`: certifies an HTTP client against the client requirements
 * (conventions document sections 7 and 8.6) and writes `results.json`.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { oneOf, optionsOrExit, parseOptions, UsageError, wholeNumber } from '../arguments.ts';
import { PACKAGE_ROOT } from '../../spec/package-files.ts';
import { writeResults } from '../../spec/results.ts';
import { certifyClient } from '../../client/harness/certify.ts';
import { scenarioNames } from '../../client/harness/scenarios.ts';
import { MATRIX_CLIENTS } from '../../client/matrix/adapters.ts';
import { matrixMarkdown, runMatrix, writeMatrix } from '../../client/matrix/run-matrix.ts';

const USAGE = `usage: http-api-conformance client-check --command "<cmd>" [options]

Runs <cmd> (an adapter script around the client under test) once per scenario against a scripted
server and judges the client requirements. See client/README.md.

options:
  --command "<cmd>"   adapter command, run through the shell (required)
  --out DIR           where results.json is written (default conformance-results/client)
  --time-scale N      seconds of the document per real second, 0 < N <= 1 (default 0.25; 1 = real time)
  --scenario NAME     run only this scenario (repeatable), one of:
                      ${scenarioNames().join(', ')}
  --concurrency N     scenarios played at the same time, 1-64 (default 8; at most 4 adapters start at once)
  --strict            SHOULD failures are fatal
  --json              print results.json to stdout instead of the summary
  --matrix            certify every client of the compatibility matrix (the reference client and
                      the library adapters of fixtures/clients/) in real time and write
                      clients-matrix.json and clients-matrix.md into --out (no --command)
  -h, --help          print this message

exit codes: 0 every MUST passed, 1 a MUST (or, with --strict, a SHOULD) failed or the run is incomplete
(an adapter crashed or printed no report), 2 unusable arguments, or an adapter that fails on the first scenario`;

export const DEFAULT_TIME_SCALE = 0.25;
export const DEFAULT_CONCURRENCY = 8;

interface Args {
  command: string;
  out: string;
  timeScale: number;
  concurrency: number;
  scenarios: string[];
  strict: boolean;
  json: boolean;
  matrix: boolean;
}

/** Parses the arguments after `client-check`; throws UsageError on unknown or malformed options. */
export function parseCheckOptions(argv: string[]): Args | 'help' {
  const values = parseOptions(argv, {
    command: { type: 'string', default: '' },
    out: { type: 'string', default: 'conformance-results/client' },
    'time-scale': { type: 'string' },
    scenario: { type: 'string', multiple: true, default: [] },
    concurrency: { type: 'string' },
    strict: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    matrix: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });
  const timeScale = values['time-scale'] === undefined ? DEFAULT_TIME_SCALE : Number(values['time-scale']);
  if (!Number.isFinite(timeScale) || timeScale <= 0 || timeScale > 1) {
    throw new UsageError(`--time-scale must be a number in (0, 1] (got "${values['time-scale'] ?? ''}")`);
  }
  const scenarios = values.scenario.map((name) => oneOf('--scenario', name, scenarioNames()));
  const args: Args = {
    command: values.command,
    out: values.out,
    timeScale,
    concurrency: wholeNumber('--concurrency', values.concurrency, 1, 64) ?? DEFAULT_CONCURRENCY,
    scenarios,
    strict: values.strict,
    json: values.json,
    matrix: values.matrix,
  };
  if (values.help) return 'help';
  if (args.matrix && args.command !== '') throw new UsageError('--matrix runs the adapters of the matrix: leave out --command');
  if (!args.matrix && args.command.trim() === '') throw new UsageError('--command is required: the adapter script around your client');
  return args;
}

/** Runs `client-check` with its arguments and resolves to the exit code (0, 1 or 2). */
export async function clientCheckCommand(argv: string[]): Promise<number> {
  const args = optionsOrExit('client-check', USAGE, () => parseCheckOptions(argv));
  if (typeof args === 'number') return args;
  if (args.matrix) return matrixCommand(args);
  const log = args.json ? (line: string) => console.error(line) : (line: string) => console.log(`  ${line}`);
  if (!args.json) console.log(`client-check: certifying "${args.command}" (time scale ${args.timeScale})`);
  const certification = await certifyClient({
    command: args.command,
    timeScale: args.timeScale,
    concurrency: args.concurrency,
    scenarios: args.scenarios,
    strict: args.strict,
    log,
  });
  const { results } = certification;
  const file = writeResults(resolve(args.out), results);
  if (certification.unusable) {
    console.error(
      `client-check: the adapter failed on the first scenario, so the command cannot certify a client:\n${(results.errors ?? []).join('\n')}\nresults: ${file}`,
    );
    return 2;
  }
  if (args.json) {
    console.log(JSON.stringify(results, null, 2));
  } else {
    for (const r of results.requirements) {
      const mark = { passed: 'pass', failed: 'FAIL', warning: 'warn', skipped: 'skip' }[r.outcome];
      console.log(`${mark}  ${r.id} (${r.level})${r.reason && r.outcome !== 'passed' ? ` - ${r.reason}` : ''}`);
    }
    for (const w of certification.warnings) console.log(`warning: ${w}`);
    const s = results.summary;
    console.log(
      `\n${s.passed} passed, ${s.failed} failed, ${s.warning} warnings, ${s.skipped} skipped in ${(results.durationMs / 1000).toFixed(1)} s (time ` +
      `scale ${String(results.target.timeScale)})`,
    );
    console.log(`results: ${file}`);
  }
  if (!results.complete)
    console.error(`client-check: INCOMPLETE: the adapter failed in some scenarios, which were not judged:\n${(results.errors ?? []).join('\n')}`);
  return results.exitCode;
}

/** `client-check --matrix`: every client of the compatibility matrix, in real time. */
async function matrixCommand(args: Args): Promise<number> {
  const missing = MATRIX_CLIENTS.filter((client) => !existsSync(join(PACKAGE_ROOT, client.adapter)));
  if (missing.length > 0) {
    // The library adapters and the libraries are development files of the repository, not of the package.
    console.error(
      `client-check: --matrix needs the library adapters of fixtures/clients/ (${missing.map((c) => c.adapter).join(', ')}), ` +
        'which ship with the repository, not with the installed package. Run `npm run clients:matrix` in a clone of the repository, ' +
        'or certify your own client with --command "<how to start its adapter>".',
    );
    return 2;
  }
  console.log('client-check --matrix: certifying every client of the matrix in real time (about a minute)');
  const run = await runMatrix({ log: (line) => console.log(`  ${line}`) });
  const files = writeMatrix(resolve(args.out), run);
  console.log(`\n${matrixMarkdown(run.matrix)}`);
  console.log(`written: ${files.join(', ')} (each client's results.json in clients-matrix-results/)`);
  return run.matrix.clients.every((c) => c.complete) ? 0 : 1;
}
