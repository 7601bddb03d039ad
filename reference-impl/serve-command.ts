/**
 * `http-api-conformance serve`: starts the reference server and shuts it down
 * gracefully on SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type ConfigOverrides } from './config.ts';
import { startServer } from './server.ts';

const USAGE = `usage: http-api-conformance serve [options]

options:
  --port N          port to listen on (default 3000; 0 = any free port)
  --host HOST       interface to listen on (default 127.0.0.1)
  --store KIND      memory (default) or redis
  --redis-url URL   Redis URL (default redis://127.0.0.1:6379 when --store redis)
  --redis-cluster HOST:PORT,HOST:PORT
                    seed nodes of a Redis Cluster instead of one Redis (implies --store redis)
  --config FILE     JSON configuration file (see reference-impl/config.schema.json)
  -h, --help        print this message

Environment variables: see reference-impl/.env.example.`;

/** Runs `serve` with `args`; resolves to the exit code once the server has stopped. */
export async function serveCommand(args: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        store: { type: 'string' },
        'redis-url': { type: 'string' },
        'redis-cluster': { type: 'string' },
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    console.error(`serve: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const overrides: ConfigOverrides = {};
  if (typeof values.port === 'string') {
    if (!/^\d+$/.test(values.port)) {
      console.error(`serve: --port must be an integer from 0 to 65535, got "${values.port}"`);
      return 2;
    }
    overrides.port = Number(values.port);
  }
  if (typeof values.host === 'string') overrides.host = values.host;
  if (typeof values.store === 'string') {
    if (values.store !== 'memory' && values.store !== 'redis') {
      console.error(`serve: --store must be memory or redis, got "${values.store}"`);
      return 2;
    }
    overrides.store = values.store;
  }
  if (typeof values['redis-url'] === 'string') overrides.redisUrl = values['redis-url'];
  if (typeof values['redis-cluster'] === 'string') {
    const nodes = values['redis-cluster'].split(',').map((node) => node.trim());
    if (overrides.store === 'memory' || nodes.some((node) => !/^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):\d{1,5}$/.test(node))) {
      console.error(`serve: --redis-cluster takes host:port,host:port (with --store redis), got "${values['redis-cluster']}"`);
      return 2;
    }
    overrides.store = 'redis';
    overrides.redisCluster = nodes;
  }
  if (typeof values.config === 'string') overrides.configFile = values.config;

  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    const config = await loadConfig(overrides);
    server = await startServer({ config });
  } catch (error) {
    console.error(`serve: ${error instanceof ConfigError ? error.message : `cannot start: ${(error as Error).message}`}`);
    return error instanceof ConfigError ? 2 : 1;
  }
  console.log(`Reference server listening on ${server.url}`);
  console.log('Tokens: see fixtures/profiles/reference.json');
  return new Promise<number>((resolve) => {
    const stop = (signal: string): void => {
      console.log(`${signal} received: finishing in-flight requests`);
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      server.close().then(
        () => resolve(0),
        (error: unknown) => {
          console.error(`serve: shutdown failed: ${(error as Error).message}`);
          resolve(1);
        },
      );
    };
    const onTerm = (): void => stop('SIGTERM');
    const onInt = (): void => stop('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
  });
}
