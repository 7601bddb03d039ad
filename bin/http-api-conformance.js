#!/usr/bin/env node
// Entry point of the `http-api-conformance` command. The sources are TypeScript;
// tsx registers a loader so they run without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
