/**
 * The reference server's configuration: the ONE place that reads `process.env` and the
 * `--config FILE` JSON. Precedence: defaults < file < environment < command-line overrides.
 * The merged result is validated against `config.schema.json`; errors name the bad field.
 */
import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import schema from './config.schema.json' with { type: 'json' };
import { ALL_PERMISSIONS, type Permission } from './permissions.ts';

export interface TokenConfig {
  token: string;
  userId: number;
  permissions: Permission[];
  plan: string;
}

export interface PlanConfig {
  capacity: number;
  refillPerSecond: number;
}

export type StoreConfig =
  | { kind: 'memory' }
  | {
      kind: 'redis';
      url: string;
      keyPrefix?: string;
      commandTimeoutMs?: number;
      /** Redis Cluster seed nodes, `host:port` (url unused). */ cluster?: string[];
      /** D-STORE-DURABILITY: replicas that confirm every promised write (WAIT), and the wait's bound. */
      durability?: { replicas: number; timeoutMs: number };
    };

export interface Config {
  host: string;
  port: number;
  store: StoreConfig;
  bodyLimitBytes: number;
  tokens: TokenConfig[];
  plans: Record<string, PlanConfig>;
  anonymousPlan: string;
  rateLimit: { algorithm: 'token-bucket' | 'leaky-bucket' };
  idempotency: { ttlSeconds: number; lockSeconds: number };
  storeUnavailableRetryAfterSeconds: number;
  seed: boolean;
  faultInjection: boolean;
}

/** A configuration that cannot be used; `message` names the offending field. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const all = [...ALL_PERMISSIONS];

/** The Redis URL used when `store.kind` is `redis` and no URL is configured. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** The shared Redis of the tests, the bench, the embedded target and the soak: HAC_REDIS_URL (.env.example), else DEFAULT_REDIS_URL. */
export function sharedRedisUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.HAC_REDIS_URL || DEFAULT_REDIS_URL;
}

/** The development defaults of spec/decisions.md D-AUTH (tokens, plans) and D-IDEMPOTENCY. */
export function defaultConfig(): Config {
  return {
    host: '127.0.0.1',
    port: 3000,
    store: { kind: 'memory' },
    bodyLimitBytes: 65536,
    tokens: [
      { token: 'dev-token-alice', userId: 1, permissions: [...all], plan: 'standard' },
      { token: 'dev-token-bob', userId: 2, permissions: [...all], plan: 'standard' },
      { token: 'dev-token-reader', userId: 3, permissions: ['orders:read', 'payments:read'], plan: 'standard' },
      { token: 'dev-token-limited', userId: 4, permissions: [...all], plan: 'small' },
      // Same caller, same plan, buckets of their own: the suite's rate-limit checks run in parallel, one token each,
      // and each worker takes the next token in turn, so a check that needs a full bucket finds one rested.
      ...[2, 3, 4, 5, 6, 7, 8].map((n) => ({ token: `dev-token-limited-${n}`, userId: 4, permissions: [...all], plan: 'small' })),
      // A slow-refill plan: the suite's rate-limit checks are exact with it (D-SUITE-TRUST, tokens.rateLimitSlow).
      { token: 'dev-token-slow', userId: 4, permissions: [...all], plan: 'slow' },
      // A low limit for contract testers and fuzzers, documented in spec/openapi.yaml: they meet 429 (D-AUTH).
      { token: 'dev-token-burst', userId: 4, permissions: [...all], plan: 'burst' },
    ],
    plans: {
      standard: { capacity: 1000, refillPerSecond: 500 },
      small: { capacity: 10, refillPerSecond: 2 },
      slow: { capacity: 3, refillPerSecond: 0.02 },
      burst: { capacity: 5, refillPerSecond: 1 },
      anonymous: { capacity: 1000, refillPerSecond: 500 },
    },
    anonymousPlan: 'anonymous',
    rateLimit: { algorithm: 'token-bucket' },
    idempotency: { ttlSeconds: 86400, lockSeconds: 30 },
    storeUnavailableRetryAfterSeconds: 2,
    seed: true,
    faultInjection: false,
  };
}

const ajv = new Ajv2020({ allErrors: true, strict: true });
const validateSchema = ajv.compile<Config>(schema);

/** D-STORE-DURABILITY: what the schema cannot say about `store.durability`. */
function checkDurability(store: Record<string, unknown>): void {
  const durability = store.durability as { timeoutMs: number } | undefined;
  if (durability === undefined) return;
  if (store.kind !== 'redis') {
    throw new ConfigError('invalid configuration: store.durability needs store.kind "redis" (a memory store has no replicas to wait for)');
  }
  const commandTimeoutMs = typeof store.commandTimeoutMs === 'number' ? store.commandTimeoutMs : 1000;
  if (durability.timeoutMs >= commandTimeoutMs) {
    throw new ConfigError(
      `invalid configuration: store.durability.timeoutMs (${durability.timeoutMs}) must be below store.commandTimeoutMs (${commandTimeoutMs}), ` +
        'or every wait for replicas would end as a store timeout; lower it or raise store.commandTimeoutMs',
    );
  }
}

/**
 * Merges `input` over the defaults (objects merge, arrays replace), validates the result and
 * checks what the schema cannot: plan references, and no `dev-token-` or fault injection when
 * `nodeEnv` is `production` (D-AUTH). Throws ConfigError naming the field.
 */
export function resolveConfig(input: unknown = {}, nodeEnv?: string): Config {
  const merged = deepMerge(defaultConfig(), input, '');
  if (!validateSchema(merged)) {
    const first = validateSchema.errors?.[0];
    const field = (first?.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.') || '(root)';
    const extra = first?.params && 'additionalProperty' in first.params ? ` (${String(first.params.additionalProperty)})` : '';
    throw new ConfigError(`invalid configuration: ${field} ${first?.message ?? 'is invalid'}${extra}`);
  }
  const config = merged;
  if (config.store.kind === 'redis' && !config.store.url) config.store.url = DEFAULT_REDIS_URL;
  checkDurability(config.store);
  if (!Object.hasOwn(config.plans, config.anonymousPlan)) {
    throw new ConfigError(`invalid configuration: anonymousPlan names an unknown plan "${config.anonymousPlan}"`);
  }
  const seen = new Set<string>();
  config.tokens.forEach((token, index) => {
    if (!Object.hasOwn(config.plans, token.plan)) {
      throw new ConfigError(`invalid configuration: tokens.${index}.plan names an unknown plan "${token.plan}"`);
    }
    if (seen.has(token.token)) throw new ConfigError(`invalid configuration: tokens.${index}.token is a duplicate`);
    seen.add(token.token);
  });
  if (nodeEnv === 'production') {
    const index = config.tokens.findIndex((token) => token.token.startsWith('dev-token-'));
    if (index >= 0) {
      throw new ConfigError(`invalid configuration: tokens.${index}.token is a development token, refused with NODE_ENV=production`);
    }
    if (config.faultInjection) {
      throw new ConfigError('invalid configuration: faultInjection is refused with NODE_ENV=production');
    }
  }
  return config;
}

function deepMerge(base: unknown, override: unknown, path: string): unknown {
  if (override === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(override)) return override;
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
      throw new ConfigError(`invalid configuration: ${path}${key} is not allowed`);
    }
    result[key] = deepMerge(base[key], value, `${path}${key}.`);
  }
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Command-line overrides of `serve` (cli/serve/command.ts). */
export interface ConfigOverrides {
  port?: number;
  host?: string;
  store?: 'memory' | 'redis';
  redisUrl?: string;
  /** Redis Cluster seed nodes (`serve --redis-cluster host:port,host:port`). */
  redisCluster?: string[];
  configFile?: string;
}

type Env = Record<string, string | undefined>;

/**
 * Reads the configuration file (`--config` or HAC_CONFIG), then the HAC_* environment variables
 * documented in `.env.example`, then `overrides`, and resolves them (see resolveConfig).
 */
export async function loadConfig(overrides: ConfigOverrides = {}, env: Env = process.env): Promise<Config> {
  const file = overrides.configFile ?? env.HAC_CONFIG;
  let fromFile: unknown = {};
  if (file) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read configuration file ${file}: ${(error as Error).message}`);
    }
    try {
      fromFile = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`configuration file ${file} is not valid JSON: ${(error as Error).message}`);
    }
  }
  const layered = deepMerge(deepMerge(fromFile, fromEnv(env), ''), fromOverrides(overrides), '');
  return resolveConfig(layered, env.NODE_ENV);
}

function fromEnv(env: Env): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const number = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    if (!/^-?\d+(\.\d+)?$/.test(raw)) throw new ConfigError(`invalid environment variable ${name}: "${raw}" is not a number`);
    return Number(raw);
  };
  const boolean = (name: string): boolean | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    if (raw !== 'true' && raw !== 'false') throw new ConfigError(`invalid environment variable ${name}: "${raw}" is not true or false`);
    return raw === 'true';
  };
  const set = (key: string, value: unknown): void => {
    if (value !== undefined) out[key] = value;
  };
  set('host', env.HAC_HOST || undefined);
  set('port', number('HAC_PORT'));
  const store: Record<string, unknown> = {};
  if (env.HAC_STORE) store.kind = env.HAC_STORE;
  if (env.HAC_REDIS_URL) store.url = env.HAC_REDIS_URL;
  if (env.HAC_REDIS_KEY_PREFIX) store.keyPrefix = env.HAC_REDIS_KEY_PREFIX;
  if (env.HAC_REDIS_CLUSTER) store.cluster = env.HAC_REDIS_CLUSTER.split(',').map((node) => node.trim());
  const timeout = number('HAC_REDIS_COMMAND_TIMEOUT_MS');
  if (timeout !== undefined) store.commandTimeoutMs = timeout;
  if (Object.keys(store).length > 0) out.store = store;
  set('bodyLimitBytes', number('HAC_BODY_LIMIT_BYTES'));
  if (env.HAC_RATE_LIMIT_ALGORITHM) out.rateLimit = { algorithm: env.HAC_RATE_LIMIT_ALGORITHM };
  const idempotency: Record<string, unknown> = {};
  const ttl = number('HAC_IDEMPOTENCY_TTL_SECONDS');
  const lock = number('HAC_IDEMPOTENCY_LOCK_SECONDS');
  if (ttl !== undefined) idempotency.ttlSeconds = ttl;
  if (lock !== undefined) idempotency.lockSeconds = lock;
  if (Object.keys(idempotency).length > 0) out.idempotency = idempotency;
  set('storeUnavailableRetryAfterSeconds', number('HAC_STORE_UNAVAILABLE_RETRY_AFTER_SECONDS'));
  set('seed', boolean('HAC_SEED'));
  set('faultInjection', boolean('HAC_FAULT_INJECTION'));
  return out;
}

function fromOverrides(overrides: ConfigOverrides): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (overrides.host !== undefined) out.host = overrides.host;
  if (overrides.port !== undefined) out.port = overrides.port;
  const store: Record<string, unknown> = {};
  if (overrides.store !== undefined) store.kind = overrides.store;
  if (overrides.redisUrl !== undefined) store.url = overrides.redisUrl;
  if (overrides.redisCluster !== undefined) store.cluster = overrides.redisCluster;
  if (Object.keys(store).length > 0) out.store = store;
  return out;
}
