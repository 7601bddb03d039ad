/**
 * The embedded target: the reference server started in-process on a free port, with the default
 * development configuration (D-AUTH tokens and plans) and fault injection on. One instance on the
 * memory store, or two instances sharing one Redis (a unique key prefix, deleted on close).
 */
import { resolveConfig } from '../../reference-impl/config.ts';
import { deleteKeysWithPrefix, sharedRedisUrl, uniqueKeyPrefix } from '../../reference-impl/redis-admin.ts';
import { startServer } from '../../reference-impl/server.ts';
import { runEnvironment } from '../run-environment.ts';
import { createStores } from '../../reference-impl/stores/index.ts';
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
  /** Redis URL for the redis store (default: sharedRedisUrl() of reference-impl/redis-admin.ts). */
  redisUrl?: string;
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
  const keyPrefix = uniqueKeyPrefix('conformance');
  const store = kind === 'redis' ? { kind: 'redis' as const, url: redisUrl, keyPrefix } : { kind: 'memory' as const };
  // HAC_RATE_LIMIT_ALGORITHM=leaky-bucket runs the documented alternative (D-RATE-LIMIT); the profile then declares it (D-SUITE-TRUST).
  const environment = runEnvironment();
  const algorithm = environment.rateLimitAlgorithm;
  const config = resolveConfig({ host: '127.0.0.1', port: 0, faultInjection: true, store, ...(algorithm ? { rateLimit: { algorithm } } : {}) });
  const servers: { url: string; close(): Promise<void> }[] = [];
  const allStores: Stores[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.allSettled(servers.map((s) => s.close()));
    await Promise.allSettled(allStores.map((s) => s.close()));
    if (kind === 'redis') await deleteKeysWithPrefix(keyPrefix, redisUrl).catch(() => undefined);
  };
  try {
    for (let i = 0; i < instances; i += 1) {
      const stores = createStores(config.store);
      allStores.push(stores);
      servers.push(await startServer({ config, stores, ...(environment.embeddedLog ? {} : { logError: () => undefined }) }));
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  const base = referenceProfile();
  const profile: TargetProfile = {
    ...base,
    name: instances === 2 ? `${base.name} (2 instances, ${kind})` : base.name,
    baseUrls: servers.map((s) => s.url.replace(/\/+$/, '')),
    features: { ...base.features, multiTarget: instances === 2 },
    ...(base.rateLimit ? { rateLimit: { ...base.rateLimit, algorithm: config.rateLimit.algorithm } } : {}),
  };
  return { profile, close: closeAll };
}
