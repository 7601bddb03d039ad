// The suite process of `http-api-conformance run`, started by bin/http-api-conformance.js before the
// command has loaded its own modules (see startEarlySuite there). Meanwhile it loads Playwright's
// test runner, about half of the suite's start-up, then waits for one line on file descriptor 3 (a
// pipe from the command; its standard streams are the command's): `{ "args": [...], "env": {...} }`,
// the `playwright test` arguments and environment the run command gives its suite
// (conformance/cli/playwright-process.ts). It takes that environment as its own and runs
// Playwright's command line with those arguments, in this process. A command that ends without
// running a suite closes the pipe unwritten: this process then exits without a word.
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const cli = join(dirname(require.resolve('@playwright/test/package.json')), 'cli.js');
// The module the command line loads first (and the largest): loaded now, it is cached when `cli` runs.
createRequire(cli)('playwright/lib/program');

const settings = new Socket({ fd: 3, readable: true, writable: false });
let input = '';
const onData = (chunk) => {
  input += chunk;
  const end = input.indexOf('\n');
  if (end < 0) return;
  settings.off('data', onData);
  settings.off('end', onEnd);
  settings.off('error', onEnd);
  settings.on('error', () => undefined);
  settings.destroy();
  const { args, env } = JSON.parse(input.slice(0, end));
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  Object.assign(process.env, env);
  process.argv = [process.argv[0], cli, ...args];
  require(cli);
};
const onEnd = () => process.exit(0);
settings.setEncoding('utf8');
settings.on('data', onData);
settings.on('end', onEnd);
settings.on('error', onEnd);
