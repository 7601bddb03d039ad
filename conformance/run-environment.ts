/**
 * The contract between `http-api-conformance run` and the Playwright process it starts: the
 * `HAC_*` variables the CLI writes (`suiteEnvironment`) and the suite's config, fixtures, reporter
 * and support modules read (`runEnvironment`). Each variable is named, parsed and given its default
 * here once; reference-impl/config.ts is the server's counterpart, and HAC_REDIS_URL is read by
 * reference-impl/tools/redis-admin.ts (sharedRedisUrl).
 */
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface RunEnvironment {
  /** HAC_PROFILE: the resolved target profile; unset, every worker starts the embedded reference server. */
  profile?: string;
  /**
   * HAC_PROFILE_CHECKED=1: the CLI validated HAC_PROFILE against its schema before writing it, so a
   * worker reads it without validating it again (D-PROFILE; conformance/target/profile.ts).
   */
  profileChecked: boolean;
  /** HAC_PROFILE_SOURCE: the profile file the user gave (named in results.json). */
  profileSource?: string;
  /** HAC_PLAN: the suite plan of a run with several targets (conformance/run-plan.ts, D-RUN-PLAN); it replaces HAC_PROFILE. */
  plan?: string;
  /**
   * HAC_KEEP_WORKERS=1: no worker is replaced mid-run (conformance/scheduling.ts). The CLI sets it when
   * it chose the workers for a target on this machine, whose cores the run shares with it.
   */
  keepWorkers: boolean;
  /** HAC_OUT: the output directory (absolute), default `conformance-results`. */
  outDir: string;
  /** HAC_STRICT=1: a failed SHOULD fails the run. */
  strict: boolean;
  /** HAC_GREP: the user's selection (an ID or a tag), for the report. */
  grep?: string;
  /** HAC_REPORTER: list (default), html, junit or json. */
  reporter: string;
  /**
   * HAC_RATE_LIMIT_TOKENS: how many rate-limit tokens the profile names (`tokens.rateLimit` and
   * `tokens.rateLimitPool`), written by the CLI so the configuration can schedule the rate-limit
   * checks (conformance/playwright.config.ts) without reading the profile.
   */
  rateLimitTokens?: number;
  /** HAC_WORKERS: parallel Playwright workers, default 3. */
  workers: number;
  /** Whether HAC_WORKERS was given (the CLI then leaves the count to it instead of choosing one). */
  workersGiven: boolean;
  /** HAC_GLOBAL_TIMEOUT: ms for the whole run (a run cut short is incomplete), default 10 minutes. */
  globalTimeoutMs: number;
  /** HAC_RUNS: fast-check runs per property, overriding the profile's `runs.properties`. */
  propertyRuns?: number;
  /**
   * HAC_FC_SEED and HAC_FC_PATH: replay one fast-check failure exactly, as its `replay:` line prints
   * (conformance/support/replay.ts). Not HAC_SEED (the reference server's seed users) nor HAC_PATH (the
   * client harness's request path): one meaning per name.
   */
  replaySeed?: number;
  replayPath?: string;
  /** HAC_FC_COMMANDS: with them, which commands of a model-based sequence ran (fast-check's commands `replayPath`, D-STATE-MODEL). */
  replayCommands?: string;
  /** HAC_LOCK_DIR: where the rate-limit token locks live (shared by every worker and run on the machine). */
  lockDir: string;
  /** HAC_EMBEDDED=memory: the embedded target is one instance on the memory store even when Redis answers. */
  embeddedMemoryOnly: boolean;
  /** HAC_EMBEDDED_LOG: the embedded server logs its 5xx errors. */
  embeddedLog: boolean;
  /** HAC_RATE_LIMIT_ALGORITHM: the embedded server's algorithm (leaky-bucket runs the documented alternative, D-RATE-LIMIT). */
  rateLimitAlgorithm?: string;
  /** HAC_CA_FILE (`--ca FILE`): a PEM certificate trusted for every request of the run (D-SUITE-TRUST). */
  caFile?: string;
  /** HAC_INSECURE=1 (`--insecure`): TLS verification off, reported as a warning of the run. */
  insecure: boolean;
  /** HAC_MAX_RESPONSE_BYTES (`--max-response-bytes`): a response body past this many bytes is dropped (D-BOUNDED-RUN), default 8 MiB. */
  maxResponseBytes: number;
  /** HAC_REQUEST_DEADLINE (ms): the longest one exchange (head and body) may take (D-BOUNDED-RUN), default 30 s. */
  requestDeadlineMs: number;
  /** HAC_HAR_DIR (`--har FILE`): where the workers append the HAR entries of every exchange (D-HAR). */
  harDir?: string;
  /** HAC_HAR_SECRETS=1 (`--har-secrets`): the HAR keeps tokens unmasked. */
  harSecrets: boolean;
}

/** Defaults of the per-request bounds (D-BOUNDED-RUN). */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
export const DEFAULT_REQUEST_DEADLINE_MS = 30_000;

function positiveInteger(text: string | undefined): number | undefined {
  const value = Number(text);
  return text !== undefined && text !== '' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** The run environment of this process (the suite's side of the contract). */
export function runEnvironment(env: NodeJS.ProcessEnv = process.env): RunEnvironment {
  const replaySeed = env.HAC_FC_SEED ? Number(env.HAC_FC_SEED) : undefined;
  const propertyRuns = positiveInteger(env.HAC_RUNS);
  const rateLimitTokens = env.HAC_RATE_LIMIT_TOKENS === '0' ? 0 : positiveInteger(env.HAC_RATE_LIMIT_TOKENS);
  return {
    ...(env.HAC_PROFILE ? { profile: env.HAC_PROFILE } : {}),
    profileChecked: env.HAC_PROFILE_CHECKED === '1',
    ...(env.HAC_PROFILE_SOURCE ? { profileSource: env.HAC_PROFILE_SOURCE } : {}),
    ...(env.HAC_PLAN ? { plan: env.HAC_PLAN } : {}),
    keepWorkers: env.HAC_KEEP_WORKERS === '1',
    outDir: resolve(env.HAC_OUT ?? 'conformance-results'),
    strict: env.HAC_STRICT === '1',
    ...(env.HAC_GREP ? { grep: env.HAC_GREP } : {}),
    reporter: env.HAC_REPORTER ?? 'list',
    ...(rateLimitTokens !== undefined ? { rateLimitTokens } : {}),
    workers: Number(env.HAC_WORKERS ?? 3),
    workersGiven: env.HAC_WORKERS !== undefined,
    globalTimeoutMs: Number(env.HAC_GLOBAL_TIMEOUT ?? 10 * 60_000),
    ...(propertyRuns !== undefined ? { propertyRuns } : {}),
    ...(replaySeed !== undefined && Number.isInteger(replaySeed) ? { replaySeed } : {}),
    ...(env.HAC_FC_PATH ? { replayPath: env.HAC_FC_PATH } : {}),
    ...(env.HAC_FC_COMMANDS ? { replayCommands: env.HAC_FC_COMMANDS } : {}),
    lockDir: env.HAC_LOCK_DIR ?? join(tmpdir(), 'http-api-conformance-locks'),
    embeddedMemoryOnly: env.HAC_EMBEDDED === 'memory',
    embeddedLog: Boolean(env.HAC_EMBEDDED_LOG),
    ...(env.HAC_RATE_LIMIT_ALGORITHM ? { rateLimitAlgorithm: env.HAC_RATE_LIMIT_ALGORITHM } : {}),
    ...(env.HAC_CA_FILE ? { caFile: env.HAC_CA_FILE } : {}),
    insecure: env.HAC_INSECURE === '1',
    maxResponseBytes: positiveInteger(env.HAC_MAX_RESPONSE_BYTES) ?? DEFAULT_MAX_RESPONSE_BYTES,
    requestDeadlineMs: positiveInteger(env.HAC_REQUEST_DEADLINE) ?? DEFAULT_REQUEST_DEADLINE_MS,
    ...(env.HAC_HAR_DIR ? { harDir: env.HAC_HAR_DIR } : {}),
    harSecrets: env.HAC_HAR_SECRETS === '1',
  };
}

/** The CLI's TLS choices, set in its own environment so its probe and the suite's workers (which inherit it) share them. */
export function exportTlsTrust(trust: { caFile?: string; insecure?: boolean }, env: NodeJS.ProcessEnv = process.env): void {
  if (trust.caFile !== undefined) env.HAC_CA_FILE = trust.caFile;
  if (trust.insecure) env.HAC_INSECURE = '1';
}

/**
 * D-BOUNDED-RUN: the run's bounds (`--max-response-bytes`, and the suite's global timeout when the
 * deadline is the shorter bound), set in the CLI's own environment so its probes and the suite's
 * workers (which inherit it) read them through `runEnvironment`.
 */
export function exportRunBounds(bounds: { maxResponseBytes?: number; globalTimeoutMs?: number }, env: NodeJS.ProcessEnv = process.env): void {
  if (bounds.maxResponseBytes !== undefined) env.HAC_MAX_RESPONSE_BYTES = String(bounds.maxResponseBytes);
  if (bounds.globalTimeoutMs !== undefined) env.HAC_GLOBAL_TIMEOUT = String(bounds.globalTimeoutMs);
}

/** The one target of a run: its resolved profile, the file the user gave, and its rate-limit tokens. */
export interface SuiteTarget {
  /** The resolved profile written for the run, and the file the user gave. */
  profilePath: string;
  /** True when the CLI validated the profile it wrote to `profilePath` (HAC_PROFILE_CHECKED). */
  profileChecked?: boolean;
  profileSource: string;
  /** The profile's rate-limit tokens (HAC_RATE_LIMIT_TOKENS). */
  rateLimitTokens: number;
  /** No worker is replaced mid-run (HAC_KEEP_WORKERS). */
  keepWorkers?: boolean;
}

/** What the CLI hands to the suite process: one target, or the suite plan of several (`plan`, D-RUN-PLAN). */
export type SuiteSettings = (SuiteTarget | { plan: string }) & {
  /** The run's output directory (with a plan: where the run's own reporter writes; each target has its own). */
  outDir: string;
  strict: boolean;
  reporter: string;
  /** Parallel workers (HAC_WORKERS); unset keeps the environment's or the default. */
  workers?: number;
  /** The user's selection, for the report (the Playwright pattern goes on the command line). */
  grep?: string;
  /** `--har FILE`: the directory of the workers' HAR parts, and whether tokens stay unmasked (D-HAR). */
  har?: { dir: string; secrets: boolean };
};

/** The environment of the suite process: `base` (the CLI's own) with the contract's variables set (the CLI's side). */
export function suiteEnvironment(settings: SuiteSettings, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, HAC_OUT: settings.outDir, HAC_STRICT: settings.strict ? '1' : '0', HAC_REPORTER: settings.reporter };
  for (const name of ['HAC_PLAN', 'HAC_PROFILE', 'HAC_PROFILE_SOURCE', 'HAC_PROFILE_CHECKED', 'HAC_RATE_LIMIT_TOKENS', 'HAC_KEEP_WORKERS']) delete env[name];
  if ('plan' in settings) env.HAC_PLAN = settings.plan;
  else {
    env.HAC_PROFILE = settings.profilePath;
    env.HAC_PROFILE_SOURCE = settings.profileSource;
    env.HAC_RATE_LIMIT_TOKENS = String(settings.rateLimitTokens);
    if (settings.profileChecked) env.HAC_PROFILE_CHECKED = '1';
    if (settings.keepWorkers) env.HAC_KEEP_WORKERS = '1';
  }
  if (settings.workers !== undefined) env.HAC_WORKERS = String(settings.workers);
  if (settings.grep) env.HAC_GREP = settings.grep;
  else delete env.HAC_GREP;
  delete env.HAC_HAR_DIR;
  delete env.HAC_HAR_SECRETS;
  if (settings.har) {
    env.HAC_HAR_DIR = settings.har.dir;
    if (settings.har.secrets) env.HAC_HAR_SECRETS = '1';
  }
  return env;
}
