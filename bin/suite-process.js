// The suite process of `http-api-conformance run`, started by bin/http-api-conformance.js before the
// command has loaded its own modules (see startEarlySuite there). Meanwhile it loads Playwright's
// test runner, about half of the suite's start-up, then waits for one line on its standard input:
// `{ "args": [...], "env": {...} }`, the `playwright test` arguments and environment the run command
// gives its suite (conformance/cli/playwright-process.ts). It takes that environment as its own and
// runs Playwright's command line with those arguments, in this process. A command that ends without
// running a suite closes the input unwritten: this process then exits without a word.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const cli = join(dirname(require.resolve('@playwright/test/package.json')), 'cli.js');
// The module the command line loads first (and the largest): loaded now, it is cached when `cli` runs.
createRequire(cli)('playwright/lib/program');

let input = '';
const onData = (chunk) => {
  input += chunk;
  const end = input.indexOf('\n');
  if (end < 0) return;
  process.stdin.off('data', onData);
  process.stdin.off('end', onEnd);
  process.stdin.destroy();
  const { args, env } = JSON.parse(input.slice(0, end));
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  Object.assign(process.env, env);
  process.argv = [process.argv[0], cli, ...args];
  require(cli);
};
const onEnd = () => process.exit(0);
process.stdin.setEncoding('utf8');
process.stdin.on('data', onData);
process.stdin.on('end', onEnd);
