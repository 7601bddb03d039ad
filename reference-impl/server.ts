/**
 * Listens and shuts down, as Koa's `listen` wraps `callback()`: `startServer` creates the stores
 * when none are given, seeds the D-AUTH users, builds the app (with a wrapper's middleware at its
 * extension points), serves it with the one set of Node server options (no Host header required,
 * CONNECT and parser errors answered as problems, keep-alive timeout), listens on config.host/port
 * (port 0 allowed) and returns `close()`, which stops accepting, lets in-flight requests finish and
 * closes the stores it created. Every in-process server starts here: `serve`, the embedded target,
 * the bench, the broken variants and the tests.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type WrapApp } from './app.ts';
import { clientErrorHandler, connectHandler } from './client-error.ts';
import type { Config } from './config.ts';
import type { Deps } from './context.ts';
import { apiRouteTable } from './routes/index.ts';
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
  /** Adds middleware at the app's extension points (app.ts EXTENSION_POINTS) before it is composed. */
  wrapApp?: WrapApp;
}

/** Node's HTTP server options of every reference server: a request without Host is answered, not refused. */
const SERVER_OPTIONS = { requireHostHeader: false } as const;
/** How long an idle keep-alive connection stays open (ms); Node announces it as `Keep-Alive: timeout=5`. */
const KEEP_ALIVE_TIMEOUT_MS = 5000;

/** Starts the reference server. */
export async function startServer({ config, stores: given, logError, wrapApp }: StartOptions): Promise<RunningServer> {
  const stores = given ?? (await import('./stores/index.ts')).createStores(config.store);
  const ownsStores = given === undefined;
  try {
    if (config.seed) await seedUsersAtStartup(stores.resources);
  } catch (error) {
    if (ownsStores) await stores.close().catch(() => undefined);
    throw error;
  }
  const deps: Deps = { config, stores, tokens: createTokenRegistry(config.tokens) };
  const app = createApp({ ...deps, ...(logError ? { logError } : {}), ...(wrapApp ? { wrapApp } : {}) });
  const server = createServer(SERVER_OPTIONS, app.callback());
  server.on('clientError', clientErrorHandler(apiRouteTable()));
  server.on('connect', connectHandler());
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  let stopping = false;
  // While stopping, an answer closes its connection. (No per-request listener otherwise: one closure and
  // one `once` wrapper on every response was a measurable share of a 404's CPU.)
  server.on('request', (_req, res) => {
    if (stopping) res.shouldKeepAlive = false;
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
        // A request in flight leaves its keep-alive connection idle when it is answered: close those as they appear.
        const sweep = setInterval(() => server.closeIdleConnections(), 20);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        }).finally(() => clearInterval(sweep));
        if (ownsStores) await stores.close();
      })();
      return closing;
    },
  };
}
