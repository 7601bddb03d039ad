#!/usr/bin/env node
// Entry point of the `http-api-conformance` command. In the repository the TypeScript sources run
// through tsx (a development dependency, so an edit needs no build); an installed package carries
// no sources and runs the JavaScript compiled into dist/ (`npm run build`, run by `npm pack`).
import { existsSync } from 'node:fs';

const source = new URL('../cli/main.ts', import.meta.url);
let main;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(source.href));
} else {
  ({ main } = await import('../dist/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
