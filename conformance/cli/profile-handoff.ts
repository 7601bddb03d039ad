/**
 * The resolved profile handed from `http-api-conformance run` to the suite process. The CLI starts
 * the suite (Playwright: its modules, the configuration) while it starts the embedded server, probes
 * the target and checks the profile, and writes the profile when it is ready (written whole, by a
 * rename); the suite's global set-up (HAC_PROFILE_PENDING=1, run-environment.ts) waits for the file
 * before any test is listed or any worker reads it, and meanwhile loads the modules the spec files
 * import, so that listing the tests then finds them loaded. A run that cannot start is stopped
 * before its suite prints anything.
 */
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runEnvironment } from '../run-environment.ts';

/** This module, the suite configuration's `globalSetup` when the profile is pending. */
export const PROFILE_HANDOFF_SETUP = fileURLToPath(import.meta.url);

/** The suite's spec files, beside this module's folder: TypeScript in the repository, JavaScript in dist/. */
const SUITE_DIR = join(dirname(PROFILE_HANDOFF_SETUP), '..', 'suite');
const OWN_EXTENSION = extname(PROFILE_HANDOFF_SETUP);

/** Longest wait for the CLI: its probe and feature checks of a remote target are bounded well below this. */
const WAIT_MS = 120_000;

/** Writes `text` to `path` whole: a reader sees no file or all of it. */
export function writeWhole(path: string, text: string): void {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, text);
  renameSync(partial, path);
}

/**
 * What the spec files of `suiteDir` import for their values, as module URLs or package names: the
 * modules Playwright loads when it lists the tests (never a spec file, which only Playwright loads).
 */
export function suiteImports(suiteDir: string = SUITE_DIR, extension: string = OWN_EXTENSION): string[] {
  const modules = new Set<string>();
  for (const file of readdirSync(suiteDir).sort()) {
    if (!file.endsWith(`.spec${extension}`)) continue;
    const source = readFileSync(join(suiteDir, file), 'utf8');
    for (const [, typeOnly, specifier] of source.matchAll(/^import\s+(type\s)?[^;]*?\sfrom\s+'([^']+)'/gm)) {
      if (typeOnly !== undefined || specifier === undefined) continue;
      modules.add(specifier.startsWith('.') ? pathToFileURL(resolve(suiteDir, specifier)).href : specifier);
    }
  }
  return [...modules];
}

/**
 * Global set-up of the suite: resolves once the CLI has written the profile (HAC_PROFILE). While it
 * waits, the modules the spec files import are loaded (`suiteImports`; not awaited: a module that
 * fails to load fails again, with Playwright's message, when the tests are listed).
 */
export default async function awaitProfile(): Promise<void> {
  const { profile, profilePending } = runEnvironment();
  if (!profile || !profilePending) return;
  if (!existsSync(profile)) {
    try {
      for (const specifier of suiteImports()) void import(specifier).catch(() => undefined);
    } catch {
      // no readable suite folder: the tests are listed as before
    }
  }
  const deadline = performance.now() + WAIT_MS;
  while (!existsSync(profile)) {
    if (performance.now() > deadline) throw new Error(`the run command did not write the profile ${profile} within ${WAIT_MS / 1000} s`);
    await delay(10);
  }
}
