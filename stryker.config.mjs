// @ts-check
/**
 * Mutation testing of the reference server against the conformance suite.
 * `npm run mutation` (not in CI): Stryker's command runner runs the conformance CLI against the
 * embedded reference server once per mutant; a mutant is killed when the run exits non-zero
 * (`--strict`, so a failed SHOULD kills too). `mutate` is limited to the reference server's error
 * handling, rate limiting, idempotency and authentication modules. See mutation/README.md.
 *
 * Environment: HAC_MUTATE (comma-separated files or globs, narrows `mutate`), HAC_MUTATION_GREP
 * (the suite selection), HAC_MUTATION_CONCURRENCY (parallel sandboxes, default 2), HAC_MUTATION_REPORT_DIR
 * (default reports/mutation), HAC_MUTATION_TMP (sandbox directory, default .stryker-tmp; give parallel runs
 * their own, under .stryker-tmp/).
 */
const MODULES = [
  // error handling
  'reference-impl/middleware/errors.ts',
  'reference-impl/problem.ts',
  // rate limiting (the token bucket the embedded server runs; the leaky bucket is a configuration alternative, out of scope)
  'reference-impl/middleware/rate-limit.ts',
  'reference-impl/rate-limit/token-bucket.ts',
  'reference-impl/rate-limit/rounding.ts',
  // idempotency
  'reference-impl/middleware/idempotency.ts',
  'reference-impl/stores/memory/idempotency.ts',
  // authentication
  'reference-impl/middleware/auth.ts',
  'reference-impl/tokens.ts',
];

/** The suite groups that exercise those modules: the generic checks, rate limiting and idempotency. */
const GREP = process.env.HAC_MUTATION_GREP ?? '@generic(?![A-Za-z0-9-])|@rate-limit(?![A-Za-z0-9-])|@idempotency(?![A-Za-z0-9-])';

const REPORT_DIR = process.env.HAC_MUTATION_REPORT_DIR ?? 'reports/mutation';

const mutate = process.env.HAC_MUTATE ? process.env.HAC_MUTATE.split(',').map((f) => f.trim()).filter(Boolean) : MODULES;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'command',
  commandRunner: {
    // Every test runner process shares the one sandbox: each run writes into its own directory ($$ = the shell's pid).
    command: `mkdir -p .mutation-run && HAC_WORKERS=2 node bin/http-api-conformance.js run --strict --reporter list --out ".mutation-run/$$" --grep ` +
      `'${GREP}' > ".mutation-run/$$.log" 2>&1`,
  },
  coverageAnalysis: 'off',
  mutate,
  concurrency: Number(process.env.HAC_MUTATION_CONCURRENCY ?? 2),
  timeoutMS: 60_000,
  timeoutFactor: 1.5,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `${REPORT_DIR}/mutation.html` },
  jsonReporter: { fileName: `${REPORT_DIR}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  tempDirName: process.env.HAC_MUTATION_TMP ?? '.stryker-tmp',
  // The sandbox lives inside the project, so Node finds node_modules by walking up; scanning the tree
  // for node_modules folders to symlink races with test runs that rewrite test-results/.
  symlinkNodeModules: false,
  cleanTempDir: true,
  ignorePatterns: ['test-results', 'conformance-results', 'reports', 'playwright-report', '.mutation-run', '.stryker-tmp'],
};
