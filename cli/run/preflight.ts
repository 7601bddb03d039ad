/**
 * What `run` settles before it meets the target, each refusal a CannotRun (exit 2) naming the
 * problem and the fix: the TLS trust of every request (D-SUITE-TRUST), the baseline of known
 * failures (D-EXPECTED-FAILURES) and the profile (D-PROFILE), with the `--target` URLs in it.
 */
import { readFileSync } from 'node:fs';
import { exportTlsTrust } from '../../conformance/run-environment.ts';
import { ExpectedFailuresError, readExpectedFailures } from '../../conformance/report/expected-failures.ts';
import type { ExpectedFailuresFile } from '../../conformance/report/expected-failures.ts';
import { hasBaseUrls, ProfileError, readProfile, REFERENCE_PROFILE, withTargets } from '../../conformance/target/profile.ts';
import type { ProfileDocument } from '../../conformance/target/profile.ts';
import { CannotRun } from './record.ts';
import type { RunOptions } from './options.ts';

export interface Preflight {
  /** The profile the user gave (or the reference profile), with the `--target` URLs as its base URLs; not validated yet. */
  profile: ProfileDocument;
  profileSource: string;
  /** No target at all: the embedded reference server is started and tested. */
  useEmbedded: boolean;
  baseline?: ExpectedFailuresFile;
  /** Warnings of the run, printed at its end and kept in results.json. */
  warnings: string[];
}

/** D-SUITE-TRUST: `--ca FILE` and `--insecure` for this process's probe and the suite's workers; the warnings they give. */
export function trustTls(options: Pick<RunOptions, 'ca' | 'insecure'>): string[] {
  if (options.ca !== undefined) {
    let pem: string;
    try {
      pem = readFileSync(options.ca, 'utf8');
    } catch (error) {
      throw new CannotRun(`cannot read --ca ${options.ca}: ${(error as Error).message}`);
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
      throw new CannotRun(`--ca ${options.ca} holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the CA or self-signed certificate in PEM form`);
    }
    exportTlsTrust({ caFile: options.ca });
  }
  if (!options.insecure) return [];
  exportTlsTrust({ insecure: true });
  const warning = 'TLS certificate verification was OFF (--insecure): the target was not authenticated; use --ca FILE to trust a private CA instead';
  console.warn(`\n${'!'.repeat(100)}\n!! WARNING: ${warning}\n${'!'.repeat(100)}\n`);
  return [warning];
}

/** D-EXPECTED-FAILURES: an unusable baseline stops the run before the suite spends any time. */
function baselineOf(options: RunOptions): ExpectedFailuresFile | undefined {
  if (options.expectedFailures === undefined) return undefined;
  try {
    return readExpectedFailures(options.expectedFailures);
  } catch (error) {
    if (error instanceof ExpectedFailuresError) throw new CannotRun(error.message);
    throw error;
  }
}

/**
 * D-PROFILE: the default profile holds the reference server's development tokens and paths; used
 * against another API it would test nothing real, so a target given without a profile is refused.
 */
export function profileOf(options: Pick<RunOptions, 'targets' | 'profile'>): { profile: ProfileDocument; profileSource: string } {
  if (options.targets.length > 0 && options.profile === undefined) {
    throw new CannotRun(
      `--target ${options.targets.join(' --target ')} needs --profile FILE: without one the run would use the reference server's ` +
        `development profile (its tokens, paths and bodies) against ${options.targets.length > 1 ? 'these targets' : 'this target'}. ` +
        'Describe your API in a profile (start one with `npx http-api-conformance init --openapi openapi.yaml --target URL`, README "Certify your server"); ' +
        `for a reference server started with \`serve\`, add --profile ${REFERENCE_PROFILE}; to test the embedded reference server, omit --target.`,
      { baseUrls: options.targets },
    );
  }
  const profileSource = options.profile ?? REFERENCE_PROFILE;
  try {
    return { profile: withTargets(readProfile(profileSource), options.targets), profileSource };
  } catch (error) {
    if (error instanceof ProfileError) throw new CannotRun(error.message);
    throw error;
  }
}

/** Everything `run` needs before the target; throws CannotRun. */
export function preflight(options: RunOptions): Preflight {
  const warnings = trustTls(options);
  const baseline = baselineOf(options);
  const { profile, profileSource } = profileOf(options);
  // No target at all: the embedded reference server, with the default profile's base URL only when
  // the user named neither a target nor a profile.
  const useEmbedded = options.targets.length === 0 && (options.profile === undefined || !hasBaseUrls(profile));
  return { profile, profileSource, useEmbedded, ...(baseline ? { baseline } : {}), warnings };
}
