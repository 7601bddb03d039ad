/**
 * The resolved profile handed from `http-api-conformance run` to the suite process. The CLI starts
 * the suite (Playwright: its modules, the configuration) while it starts the embedded server, probes
 * the target and checks the profile, and writes the profile when it is ready (written whole, by a
 * rename); the suite's global set-up (HAC_PROFILE_PENDING=1, run-environment.ts) waits for the file
 * before any test is listed or any worker reads it. A run that cannot start is stopped before its
 * suite prints anything.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { runEnvironment } from '../run-environment.ts';

/** This module, the suite configuration's `globalSetup` when the profile is pending. */
export const PROFILE_HANDOFF_SETUP = fileURLToPath(import.meta.url);

/** Longest wait for the CLI: its probe and feature checks of a remote target are bounded well below this. */
const WAIT_MS = 120_000;

/** Writes `text` to `path` whole: a reader sees no file or all of it. */
export function writeWhole(path: string, text: string): void {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, text);
  renameSync(partial, path);
}

/** Global set-up of the suite: resolves once the CLI has written the profile (HAC_PROFILE). */
export default async function awaitProfile(): Promise<void> {
  const { profile, profilePending } = runEnvironment();
  if (!profile || !profilePending) return;
  const deadline = performance.now() + WAIT_MS;
  while (!existsSync(profile)) {
    if (performance.now() > deadline) throw new Error(`the run command did not write the profile ${profile} within ${WAIT_MS / 1000} s`);
    await delay(10);
  }
}
