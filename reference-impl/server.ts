/**
 * Listens and shuts down: `startServer` creates the stores when none are given,
 * seeds the D-AUTH users, listens on config.host/port (port 0 allowed) and returns `close()`,
 * which stops accepting, lets in-flight requests finish and closes the stores it created.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import { clientErrorHandler, connectHandler } from './client-error.ts';
import type { Config } from './config.ts';
import { seedUsersAtStartup } from './seed.ts';
import type { Stores } from './stores/types.ts';
import { createTokenRegistry } from './tokens.ts';

export interface RunningServer {
  url: string;
  port: number;
  /** Graceful shutdown: stop accepting, finish in-flight requests, close owned stores. */
  close(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  /** Shared stores (e.g. two instances on one Redis); not closed by `close()`. Created from config.store when absent. */
  stores?: Stores;
  logError?: (error: unknown) => void;
}

/** Starts the reference server. */
export async function startServer({ config, stores: given, logError }: StartOptions): Promise<RunningServer> {
  const stores = given ?? (await import('./stores/index.ts')).createStores(config.store);
  const ownsStores = given === undefined;
  try {
    if (config.seed) await seedUsersAtStartup(stores.resources);
  } catch (error) {
    if (ownsStores) await stores.close().catch(() => undefined);
    throw error;
  }
  const app = createApp({ config, stores, ...(logError ? { logError } : {}) });
  const server = createServer({ requireHostHeader: false }, app.callback());
  const rawDeps = { config, stores, tokens: createTokenRegistry(config.tokens) };
  server.on('clientError', clientErrorHandler(rawDeps));
  server.on('connect', connectHandler(rawDeps));
  server.keepAliveTimeout = 5000;
  let stopping = false;
  server.on('request', (_req, res) => {
    res.once('finish', () => {
      if (stopping) setImmediate(() => server.closeIdleConnections());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    close() {
      closing ??= (async () => {
        stopping = true;
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        if (ownsStores) await stores.close();
      })();
      return closing;
    },
  };
}
