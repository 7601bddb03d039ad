/**
 * How the suite trusts an https:// target (D-SUITE-TRUST): Node's default roots, plus the PEM file of
 * `--ca FILE` (HAC_CA_FILE) for a private CA or a self-signed staging certificate; `--insecure`
 * (HAC_INSECURE=1) turns verification off, and the CLI says so loudly in the console and results.json.
 * Read once per process: the workers get the CLI's choice through the environment.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { runEnvironment } from '../run-environment.ts';

export interface TlsTrust {
  /** The roots to trust; undefined keeps Node's defaults. */
  ca?: string[];
  rejectUnauthorized: boolean;
}

let cached: TlsTrust | undefined;

/** The trust settings of this process, from HAC_CA_FILE and HAC_INSECURE (read once). */
export function tlsTrust(env: NodeJS.ProcessEnv = process.env): TlsTrust {
  if (cached && env === process.env) return cached;
  const { caFile, insecure } = runEnvironment(env);
  const trust: TlsTrust = {
    ...(caFile ? { ca: [...rootCertificates, readFileSync(caFile, 'utf8')] } : {}),
    rejectUnauthorized: !insecure,
  };
  if (env === process.env) cached = trust;
  return trust;
}
