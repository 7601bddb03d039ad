/**
 * The package as a user gets it: `npm pack` of this repository (its prepack script builds dist/), then
 * `npm install <tarball>` into an empty project folder. Used by package-install.spec.ts, which runs
 * every command from that install, and by the bench, which times the installed `run` beside the
 * repository's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT, runProcess } from './subprocess.ts';
import type { Finished } from './subprocess.ts';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** The npm cache answers what it holds without asking the registry again (keeps the install to seconds). */
export const NPM_ENV = { npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

/** What `npm pack --json` says of the tarball. */
export interface PackedFiles {
  filename: string;
  files: { path: string }[];
  entryCount: number;
  unpackedSize: number;
}

export interface InstalledPackage {
  /** The project folder the package is installed into (`<root>/app`). */
  app: string;
  packed: PackedFiles;
  /** The installed command's script, for `node <cli>`: `<app>/node_modules/http-api-conformance/bin/http-api-conformance.js`. */
  cli: string;
  packMs: number;
  installMs: number;
}

/** A command that failed: its exit code, time and the ends of its output. */
export class InstallFailed extends Error {
  constructor(step: string, r: Finished) {
    super(`${step} exited ${String(r.code)} after ${Math.round(r.elapsedMs)} ms\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`);
    this.name = 'InstallFailed';
  }
}

/** Packs this repository into `root` and installs the tarball into `<root>/app`, a project whose package.json `appPackage` gives. */
export async function installPackage(root: string, appPackage: Record<string, unknown> = { name: 'my-api', private: true }): Promise<InstalledPackage> {
  const app = join(root, 'app');
  mkdirSync(app, { recursive: true });
  const pack = await runProcess(NPM, ['pack', '--json', '--pack-destination', root], { cwd: PACKAGE_ROOT, env: NPM_ENV, killAfterMs: 180_000 });
  if (pack.code !== 0) throw new InstallFailed('npm pack', pack);
  const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as PackedFiles[];
  if (!packed) throw new InstallFailed('npm pack (no tarball listed)', pack);
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(appPackage, null, 2)}\n`);
  const install = await runProcess(NPM, ['install', join(root, packed.filename)], { cwd: app, env: NPM_ENV, killAfterMs: 180_000 });
  if (install.code !== 0) throw new InstallFailed('npm install <tarball>', install);
  const cli = join(app, 'node_modules', 'http-api-conformance', 'bin', 'http-api-conformance.js');
  return { app, packed, cli, packMs: pack.elapsedMs, installMs: install.elapsedMs };
}
