/**
 * The embedded target: the reference server started in-process on a free port, with the default
 * development configuration (D-AUTH tokens and plans) and fault injection on. One instance on the
 * memory store, or two instances sharing one Redis (a unique key prefix, deleted on close). The
 * variants of fixtures/broken and fixtures/valid are this recipe with hooks (configuration, store
 * decorators, middleware at the app's extension points).
 */
import type { AppExtender } from '../../reference-impl/app.ts';
import { resolveConfig } from '../../reference-impl/config.ts';
import type { Config } from '../../reference-impl/config.ts';
import type { Deps } from '../../reference-impl/context.ts';
import { deleteKeysWithPrefix, redisAnswers, sharedRedisUrl, uniqueKeyPrefix } from '../../reference-impl/tools/redis-admin.ts';
import { startServer } from '../../reference-impl/server.ts';
import { runEnvironment } from '../run-environment.ts';
import { tcpAnswers } from '../transport/tcp.ts';
import { createStores, sequenced } from '../../reference-impl/stores/index.ts';
import type { Stores } from '../../reference-impl/stores/index.ts';
import { loadProfile, REFERENCE_PROFILE } from './profile.ts';
import type { TargetProfile } from './profile.ts';

export interface EmbeddedTarget {
  profile: TargetProfile;
  close(): Promise<void>;
}

export interface EmbeddedOptions {
  instances?: 1 | 2;
  store?: 'memory' | 'redis';
  /** Redis URL for the redis store (default: sharedRedisUrl() of reference-impl/tools/redis-admin.ts). */
  redisUrl?: string;
  /** Configuration overrides merged over the embedded defaults (resolveConfig input). */
  config?: Record<string, unknown>;
  /** Decorates the stores of one instance (`instance` counts from 0). */
  wrapStores?(stores: Stores, instance: number, config: Config): Stores;
  /** Adds middleware to the app of one instance at its extension points (reference-impl/app.ts). */
  wrapApp?(app: AppExtender, deps: Deps, instance: number): void;
  /** Names the key prefix (`hac-conformance:<label>:…`) and the profile (`<reference> / <label>`). */
  label?: string;
}

/** The reference server's profile (fixtures/profiles/reference.json), parsed and validated. */
export function referenceProfile(): TargetProfile {
  return loadProfile(REFERENCE_PROFILE);
}

/** Starts the reference server in-process (port 0) and returns its profile and a close function. */
export async function startEmbeddedTarget(options: EmbeddedOptions = {}): Promise<EmbeddedTarget> {
  const instances = options.instances ?? 1;
  const kind = options.store ?? 'memory';
  const redisUrl = options.redisUrl ?? sharedRedisUrl();
  const keyPrefix = uniqueKeyPrefix('conformance', options.label);
  const store = kind === 'redis' ? { kind: 'redis' as const, url: redisUrl, keyPrefix } : { kind: 'memory' as const };
  // HAC_RATE_LIMIT_ALGORITHM=leaky-bucket runs the documented alternative (D-RATE-LIMIT); the profile then declares it (D-SUITE-TRUST).
  const environment = runEnvironment();
  const algorithm = environment.rateLimitAlgorithm;
  const chosen = algorithm ? { rateLimit: { algorithm } } : {};
  const config = resolveConfig({ ...chosen, ...options.config, host: '127.0.0.1', port: 0, faultInjection: true, store });
  const servers: { url: string; close(): Promise<void> }[] = [];
  const allStores: Stores[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.allSettled(servers.map((s) => s.close()));
    await Promise.allSettled(allStores.map((s) => s.close()));
    if (kind === 'redis') await deleteKeysWithPrefix(keyPrefix, redisUrl).catch(() => undefined);
  };
  try {
    for (let instance = 0; instance < instances; instance += 1) {
      const created = createStores(config.store);
      allStores.push(created);
      // A decorated store runs its request operations as the calls of its (decorated) parts (stores/sequences.ts).
      const stores = options.wrapStores ? sequenced(options.wrapStores(created, instance, config)) : created;
      const { wrapApp } = options;
      servers.push(
        await startServer({
          config,
          stores,
          ...(environment.embeddedLog ? {} : { logError: () => undefined }),
          ...(wrapApp ? { wrapApp: (app: AppExtender, deps: Deps) => wrapApp(app, deps, instance) } : {}),
        }),
      );
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  const base = referenceProfile();
  const profile: TargetProfile = {
    ...base,
    name: options.label ? `${base.name} / ${options.label}` : instances === 2 ? `${base.name} (2 instances, ${kind})` : base.name,
    baseUrls: servers.map((s) => s.url.replace(/\/+$/, '')),
    features: { ...base.features, multiTarget: instances === 2 },
    ...(base.rateLimit ? { rateLimit: { ...base.rateLimit, algorithm: config.rateLimit.algorithm } } : {}),
  };
  return { profile, close: closeAll };
}

/** Two instances sharing the Redis of HAC_REDIS_URL, for the multi-target checks of a run on the embedded target; or why not. */
export async function startTwoInstances(): Promise<EmbeddedTarget | { skip: string }> {
  const redisUrl = new URL(sharedRedisUrl());
  if (!(await tcpAnswers(redisUrl.hostname, Number(redisUrl.port || 6379)))) {
    return { skip: `Redis does not answer at ${redisUrl.host}: the two-instance embedded target needs it` };
  }
  return startEmbeddedTarget({ instances: 2, store: 'redis', redisUrl: redisUrl.toString() });
}

/**
 * The embedded target of `run` without `--target`: two instances sharing Redis when Redis answers,
 * so the multi-target checks run too (RATE-LIMIT-SHARED-STORE, STATELESS-ANY-INSTANCE), else one
 * instance on the memory store. `HAC_EMBEDDED=memory` (run-environment.ts) forces the latter.
 * `description` says which, for the console.
 */
export async function startRunTarget(): Promise<EmbeddedTarget & { description: string }> {
  const redisUrl = sharedRedisUrl();
  if (!runEnvironment().embeddedMemoryOnly && (await redisAnswers(redisUrl, 500))) {
    const target = await startEmbeddedTarget({ instances: 2, store: 'redis', redisUrl });
    return { ...target, description: `two instances sharing Redis at ${redisUrl}` };
  }
  const target = await startEmbeddedTarget({ instances: 1, store: 'memory' });
  return { ...target, description: 'one instance on the memory store (no Redis: the multi-target checks are skipped)' };
}
