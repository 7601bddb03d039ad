/**
 * Command-line options of `http-api-conformance run`, parsed by the commands' one argument helper
 * (cli/arguments.ts, node:util parseArgs).
 */
import { resolve } from 'node:path';
import { baseUrl, oneOf, parseOptions, UsageError, wholeNumber } from '../arguments.ts';

export const REPORTERS = ['list', 'html', 'junit', 'json'] as const;
export type ReporterName = (typeof REPORTERS)[number];

export interface RunOptions {
  /** `--plan FILE`: several targets, each with its profile, selection and output directory, in one suite process (D-RUN-PLAN). */
  plan?: string;
  targets: string[];
  profile?: string;
  grep?: string;
  strict: boolean;
  reporter: ReporterName;
  out: string;
  /** Parallel Playwright workers (default HAC_WORKERS, else 3, or 6 for a target not on this machine: cli/run/workers.ts). */
  workers?: number;
  /** A PEM file of extra trusted roots for https targets (D-SUITE-TRUST). */
  ca?: string;
  /** TLS verification off (loud warning in the console and results.json). */
  insecure: boolean;
  /** Runs of the suite against the same target (`--repeat N`, default 1): the flake hunter (conformance/report/repeat.ts). */
  repeat: number;
  /** `--deadline SECONDS`: the whole run (probe, feature check, suite, report) ends by then (D-BOUNDED-RUN), default 20 minutes. */
  deadlineSeconds: number;
  /** `--max-response-bytes N`: a response body past N bytes is dropped (D-BOUNDED-RUN; default HAC_MAX_RESPONSE_BYTES, else 8 MiB). */
  maxResponseBytes?: number;
  /** `--expected-failures FILE`: the baseline of known failures (D-EXPECTED-FAILURES). */
  expectedFailures?: string;
  /** `--allow-fixed`: a listed failure that passes now is a warning, not a failure. */
  allowFixed: boolean;
  /** `--write-expected-failures FILE`: write the run's failures as a baseline. */
  writeExpectedFailures?: string;
  /** `--har FILE`: every exchange of the run as HAR 1.2 (D-HAR). */
  har?: string;
  /** `--har-secrets`: the HAR keeps tokens unmasked. */
  harSecrets: boolean;
}

/** The run deadline without --deadline: above the suite's own global timeout (10 minutes) with room for the rest. */
export const DEFAULT_DEADLINE_SECONDS = 20 * 60;

export const RUN_USAGE = `usage: http-api-conformance run [options]

Runs the conformance suite against a target and writes results.json.

options:
  --target URL        base URL of the target (repeatable; two or more turn on the statelessness checks);
                      overrides the profile's baseUrls. Without --target and without a base URL in the
                      profile, the embedded reference server is started on a free port and tested.
  --profile FILE      target profile (JSON, spec/schemas/target-profile.schema.json);
                      default: fixtures/profiles/reference.json
  --grep ID|TAG       run only the tests of a requirement ID (STATUS-404-UNKNOWN-ROUTE) or a group tag (@generic)
  --plan FILE         certify several running targets in one suite process (JSON, spec/schemas/run-plan.schema.json:
                      each target's name, profile, selection and output directory, default <--out>/<name>);
                      each gets its own results.json, and the exit code is the worst of theirs. Not with
                      --target, --profile, --grep, --repeat, --har or the expected-failures options
  --strict            a failed SHOULD fails the run too
  --reporter NAME     list (default) | html | junit | json, written into --out
  --out DIR           output directory (default: conformance-results)
  --workers N         parallel workers (default HAC_WORKERS, else 3 for a target on this machine and 6 for
                      one elsewhere, whose checks mostly wait on the network); the rate-limit checks run
                      in parallel only when the profile names a pool of rate-limit tokens (rateLimitPool)
  --ca FILE           PEM file of a private CA or a self-signed certificate to trust for https:// targets
                      (added to Node's default roots, for every request of the suite)
  --insecure          do not verify TLS certificates at all (a loud warning in the console and in results.json)
  --repeat N          run the suite N times (1-100) against the same target; results.json gets every run's
                      outcome per requirement and the console lists the requirements the runs disagreed on
  --deadline SECONDS  the whole run ends by then (default 1200): a target that stalls or drips its answers
                      ends the run with exit 2 before the suite, else exit 1 with an incomplete run
  --max-response-bytes N
                      a response body past N bytes is dropped and the socket closed (default 8388608)
  --expected-failures FILE
                      a baseline of known failures (JSON, spec/schemas/expected-failures.schema.json): listed
                      requirements that fail do not fail the run, any other failure does, and a listed one
                      that passes fails it ("passes now: remove it from FILE")
  --allow-fixed       a listed requirement that passes now is only a warning
  --write-expected-failures FILE
                      write the run's failed requirements to FILE as a baseline (keeps the reasons and links
                      of --expected-failures); the exit code is the run's
  --har FILE          write every exchange of the run as HAR 1.2 (opens in browser developer tools); each
                      entry's comment names the requirement IDs and test title, FAILED marks the failing one
  --har-secrets       keep tokens in the HAR (masked by default)
  -h, --help          print this message

environment: HAC_REDIS_URL (embedded server: two instances on this Redis when it answers),
HAC_EMBEDDED=memory (one embedded instance on the memory store), HAC_RATE_LIMIT_ALGORITHM=leaky-bucket
(the embedded server's documented alternative algorithm), HAC_WORKERS, HAC_GLOBAL_TIMEOUT (ms), HAC_RUNS,
HAC_MAX_RESPONSE_BYTES, HAC_REQUEST_DEADLINE (ms for one whole exchange, default 30000).

exit codes: 0 every MUST passed (and every SHOULD with --strict), 1 a requirement failed or the run
did not finish, 2 unusable options or profile, or an unreachable target.`;

/** Parses the arguments after `run` ('help' for --help); throws UsageError on unknown or malformed options. */
export function parseRunOptions(args: string[], cwd: string = process.cwd()): RunOptions | 'help' {
  const values = parseOptions(args, {
    target: { type: 'string', multiple: true },
    profile: { type: 'string' },
    grep: { type: 'string' },
    strict: { type: 'boolean', default: false },
    reporter: { type: 'string', default: 'list' },
    out: { type: 'string', default: 'conformance-results' },
    workers: { type: 'string' },
    ca: { type: 'string' },
    insecure: { type: 'boolean', default: false },
    repeat: { type: 'string' },
    deadline: { type: 'string' },
    'max-response-bytes': { type: 'string' },
    'expected-failures': { type: 'string' },
    'allow-fixed': { type: 'boolean', default: false },
    'write-expected-failures': { type: 'string' },
    har: { type: 'string' },
    'har-secrets': { type: 'boolean', default: false },
    plan: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.plan !== undefined) {
    // D-RUN-PLAN: the plan names each target's profile and selection; a run-wide one would contradict it.
    const perTarget = (
      [
        ['--target', values.target !== undefined],
        ['--profile', values.profile !== undefined],
        ['--grep', values.grep !== undefined],
        ['--repeat', values.repeat !== undefined],
        ['--har', values.har !== undefined],
        ['--expected-failures', values['expected-failures'] !== undefined],
        ['--write-expected-failures', values['write-expected-failures'] !== undefined],
      ] as const
    ).filter(([, given]) => given);
    if (perTarget.length > 0) {
      throw new UsageError(
        `--plan cannot be combined with ${perTarget.map(([name]) => name).join(', ')}: the plan file names each target's profile and selection ` +
          '(spec/schemas/run-plan.schema.json); run one target without --plan to use them',
      );
    }
  }
  const reporter = oneOf('--reporter', values.reporter, REPORTERS);
  const targets = (values.target ?? []).map((target) => baseUrl('--target', target));
  if (values.grep !== undefined && values.grep.trim() === '') throw new UsageError('--grep needs an ID or a tag');
  const workers = wholeNumber('--workers', values.workers, 1, 64);
  const repeat = wholeNumber('--repeat', values.repeat, 1, 100) ?? 1;
  const deadlineSeconds = wholeNumber('--deadline', values.deadline, 5, 24 * 3600) ?? DEFAULT_DEADLINE_SECONDS;
  const maxResponseBytes = wholeNumber('--max-response-bytes', values['max-response-bytes'], 1024, 1024 * 1024 * 1024);
  if (values.help) return 'help';
  return {
    ...(values.plan !== undefined ? { plan: resolve(cwd, values.plan) } : {}),
    targets,
    ...(values.profile !== undefined ? { profile: resolve(cwd, values.profile) } : {}),
    ...(values.grep !== undefined ? { grep: values.grep.trim() } : {}),
    strict: values.strict,
    reporter,
    out: resolve(cwd, values.out),
    ...(workers !== undefined ? { workers } : {}),
    ...(values.ca !== undefined ? { ca: resolve(cwd, values.ca) } : {}),
    insecure: values.insecure,
    repeat,
    deadlineSeconds,
    ...(maxResponseBytes !== undefined ? { maxResponseBytes } : {}),
    ...(values['expected-failures'] !== undefined ? { expectedFailures: resolve(cwd, values['expected-failures']) } : {}),
    allowFixed: values['allow-fixed'],
    ...(values['write-expected-failures'] !== undefined ? { writeExpectedFailures: resolve(cwd, values['write-expected-failures']) } : {}),
    ...(values.har !== undefined ? { har: resolve(cwd, values.har) } : {}),
    harSecrets: values['har-secrets'],
  };
}
