/**
 * `http-api-conformance serve`: starts the reference server and shuts it down
 * gracefully on SIGTERM/SIGINT.
 */
import { oneOf, optionsOrExit, parseOptions, UsageError, wholeNumber } from '../arguments.ts';
import { ConfigError, defaultConfig, loadConfig, resolveConfig, type Config, type ConfigOverrides } from '../../reference-impl/config.ts';
import { startServer } from '../../reference-impl/server.ts';

const USAGE = `usage: http-api-conformance serve [options]

options:
  --port N          port to listen on (default 3000; 0 = any free port)
  --host HOST       interface to listen on (default 127.0.0.1)
  --store KIND      memory (default) or redis
  --redis-url URL   Redis URL (default redis://127.0.0.1:6379 when --store redis)
  --redis-cluster HOST:PORT,HOST:PORT
                    seed nodes of a Redis Cluster instead of one Redis (implies --store redis)
  --config FILE     JSON configuration file (see reference-impl/config.schema.json)
  --fault-injection turn on X-Fault-Inject (500, 503, delay-<ms>), as fixtures/profiles/reference.json
                    declares; development only, refused with NODE_ENV=production (\`npm start\` sets it)
  -h, --help        print this message

Environment variables: see reference-impl/.env.example.`;

const REFERENCE_PROFILE = 'fixtures/profiles/reference.json';
const REFERENCE_URL = 'http://127.0.0.1:3000';

/**
 * What `serve` prints after its URL: the run command that works against this server as configured.
 * fixtures/profiles/reference.json describes the development configuration (D-AUTH tokens, the token
 * bucket, fault injection on), so it is offered as is only when the server runs that configuration;
 * otherwise the line says which setting differs and what to do (the run would stop with exit 2
 * naming the same profile field).
 */
export function howToCheck(config: Config, url: string): string {
  const target = url === REFERENCE_URL ? '' : ` --target ${url}`;
  const command = `npx http-api-conformance run --profile ${REFERENCE_PROFILE}${target}`;
  if (JSON.stringify(config.tokens) !== JSON.stringify(defaultConfig().tokens)) {
    return `Tokens: your own (--config); describe them in a profile of your own (README "Write a profile") to run the suite`;
  }
  const lines = [`Tokens: the development tokens of ${REFERENCE_PROFILE} (D-AUTH)`];
  if (config.rateLimit.algorithm !== 'token-bucket') {
    lines.push(
      `Rate limit: ${config.rateLimit.algorithm}; ${REFERENCE_PROFILE} declares rateLimit.algorithm "token-bucket": use a copy of it with "leaky-bucket"`,
    );
  }
  if (!config.faultInjection) {
    lines.push(
      `Fault injection: off; ${REFERENCE_PROFILE} declares features.faultInjection, so start with --fault-injection (as \`npm start\` does) to ` +
      `check with it as is`,
    );
    return lines.join('\n');
  }
  lines.push('Fault injection: on (X-Fault-Inject; development only)');
  if (config.rateLimit.algorithm === 'token-bucket') lines.push(`Check it: ${command}`);
  return lines.join('\n');
}

interface ServeOptions {
  overrides: ConfigOverrides;
  faultInjection: boolean;
}

/** Parses the arguments after `serve`; throws UsageError on unknown or malformed options. */
export function parseServeOptions(args: string[]): ServeOptions | 'help' {
  const values = parseOptions(args, {
    port: { type: 'string' },
    host: { type: 'string' },
    store: { type: 'string' },
    'redis-url': { type: 'string' },
    'redis-cluster': { type: 'string' },
    config: { type: 'string' },
    'fault-injection': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });
  const overrides: ConfigOverrides = {};
  const port = wholeNumber('--port', values.port, 0, 65535);
  if (port !== undefined) overrides.port = port;
  if (values.host !== undefined) overrides.host = values.host;
  if (values.store !== undefined) overrides.store = oneOf('--store', values.store, ['memory', 'redis']);
  if (values['redis-url'] !== undefined) overrides.redisUrl = values['redis-url'];
  const cluster = values['redis-cluster'];
  if (cluster !== undefined) {
    const nodes = cluster.split(',').map((node) => node.trim());
    if (overrides.store === 'memory' || nodes.some((node) => !/^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):\d{1,5}$/.test(node))) {
      throw new UsageError(`--redis-cluster takes host:port,host:port (with --store redis), got "${cluster}"`);
    }
    overrides.store = 'redis';
    overrides.redisCluster = nodes;
  }
  if (values.config !== undefined) overrides.configFile = values.config;
  if (values.help) return 'help';
  return { overrides, faultInjection: values['fault-injection'] };
}

/** Runs `serve` with `args`; resolves to the exit code once the server has stopped. */
export async function serveCommand(args: string[]): Promise<number> {
  const options = optionsOrExit('serve', USAGE, () => parseServeOptions(args));
  if (typeof options === 'number') return options;

  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    const loaded = await loadConfig(options.overrides);
    const config = options.faultInjection ? resolveConfig({ ...loaded, faultInjection: true }, process.env.NODE_ENV) : loaded;
    server = await startServer({ config });
    console.log(`Reference server listening on ${server.url}`);
    console.log(howToCheck(config, server.url));
  } catch (error) {
    console.error(`serve: ${error instanceof ConfigError ? error.message : `cannot start: ${(error as Error).message}`}`);
    return error instanceof ConfigError ? 2 : 1;
  }
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
