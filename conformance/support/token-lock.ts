/**
 * Exclusive use of one token across Playwright workers (and across runs on one machine): a check
 * that drains, refills or counts a bucket (a rate-limit token), or counts what a caller created,
 * must be the only one using it. A lock is a file created with O_EXCL in a shared directory, named
 * after the target and the token, holding the owner's pid; a lock whose owner process is gone is
 * taken over, so a killed worker never blocks the next run.
 */
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { delay } from '../transport/http.ts';
import { runEnvironment } from '../run-environment.ts';

/** The shared lock directory: HAC_LOCK_DIR, else `<tmp>/http-api-conformance-locks`. */
export function lockDirectory(): string {
  return runEnvironment().lockDir;
}

/** A lock file without a pid yet (its owner is between create and write) is stale after this long. */
const UNWRITTEN_STALE_MS = 10_000;

function lockName(scope: string, token: string): string {
  return `${createHash('sha256').update(`${scope}\n${token}`).digest('hex').slice(0, 32)}.lock`;
}

/** True while a process with this pid runs (a process of another user counts: it runs). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes `file` when its owner is gone; true when it was stale. */
function clearStale(file: string): boolean {
  try {
    const text = readFileSync(file, 'utf8').trim();
    const pid = Number(text);
    const stale = text === '' ? Date.now() - statSync(file).mtimeMs > UNWRITTEN_STALE_MS : Number.isInteger(pid) && pid > 0 && !processAlive(pid);
    if (stale) rmSync(file, { force: true });
    return stale;
  } catch {
    return false; // gone meanwhile (released): the next attempt takes it
  }
}

function tryLock(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  return true;
}

export interface HeldToken {
  token: string;
  /** Index of the token in the pool. */
  index: number;
  release(): void;
}

/**
 * Takes the first free token of `pool` for `scope` (the target), trying from `start` (a worker's
 * parallel index, so concurrent workers usually get different tokens at once), waiting and polling
 * while every token is held. Give up with an error after `timeoutMs`.
 */
export async function acquireToken(
  scope: string,
  pool: readonly string[],
  options: { start?: number; timeoutMs?: number; pollMs?: number; dir?: string } = {},
): Promise<HeldToken> {
  if (pool.length === 0) throw new Error('acquireToken: the token pool is empty');
  const dir = options.dir ?? lockDirectory();
  mkdirSync(dir, { recursive: true });
  const deadline = performance.now() + (options.timeoutMs ?? 60_000);
  const start = options.start ?? 0;
  for (;;) {
    for (let step = 0; step < pool.length; step += 1) {
      const index = (start + step) % pool.length;
      const token = pool[index] as string;
      const file = join(dir, lockName(scope, token));
      if (tryLock(file) || (clearStale(file) && tryLock(file))) {
        let released = false;
        return {
          token,
          index,
          release() {
            if (released) return;
            released = true;
            rmSync(file, { force: true });
          },
        };
      }
    }
    if (performance.now() > deadline) {
      throw new Error(`every token of ${scope} stayed in use by another check for ${options.timeoutMs ?? 60_000} ms (lock directory ${dir})`);
    }
    await delay(options.pollMs ?? 50);
  }
}
