#!/usr/bin/env node
// Entry point of the `http-api-conformance` command. In the repository the TypeScript sources run
// through tsx (a development dependency, so an edit needs no build); an installed package carries
// no sources and runs the JavaScript compiled into dist/ (`npm run build`, run by `npm pack`).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * `run` starts its suite process first thing (bin/suite-process.js), so that Playwright loads while
 * this process loads the command: the command hands it its arguments and environment (on fd 3) when it runs
 * its first suite (conformance/cli/playwright-process.ts, which finds it under EARLY_SUITE), and a
 * command that runs none (--help, an unusable option) ends with its input closed, which ends it.
 * Unreferenced until then, it never keeps this process alive.
 */
function startEarlySuite() {
  // Its standard streams are this process's, as a suite process spawned later gets; its settings come on fd 3.
  const child = spawn(process.execPath, [fileURLToPath(new URL('suite-process.js', import.meta.url))], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
  });
  child.on('error', () => undefined);
  child.stdio[3]?.on('error', () => undefined);
  child.unref();
  child.stdio[3]?.unref();
  globalThis[Symbol.for('http-api-conformance.early-suite')] = child;
}

const args = process.argv.slice(2);
if (args[0] === 'run' && !args.includes('--help') && !args.includes('-h')) startEarlySuite();

const source = new URL('../cli/main.ts', import.meta.url);
let main;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(source.href));
} else {
  ({ main } = await import('../dist/cli/main.js'));
}
process.exitCode = await main(args);
