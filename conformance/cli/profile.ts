/**
 * The CLI's handling of the target profile (D-PROFILE): reading the file, replacing its base URLs
 * by `--target`, and validating the result with the suite's own validator
 * (conformance/target/profile.ts, against spec/schemas/target-profile.schema.json), so the CLI and
 * the suite never disagree on what a usable profile is. Every problem names the offending field.
 */
import { readFileSync } from 'node:fs';
import { packagePath } from '../../spec/package-files.ts';
import { parseProfile, ProfileError } from '../target/profile.ts';
import type { TargetProfile } from '../target/profile.ts';

export { ProfileError };

/** A profile as read from its file, before validation: any member may be missing. */
export type ProfileDocument = Partial<TargetProfile> & Record<string, unknown>;

export const DEFAULT_PROFILE = packagePath('fixtures', 'profiles', 'reference.json');

/** Reads a profile file; throws ProfileError when it is missing, not JSON or not an object. */
export function readProfile(path: string): ProfileDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ProfileError(`cannot read the profile ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ProfileError(`profile ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new ProfileError(`profile ${path}: (profile): must be a JSON object`);
  return data as ProfileDocument;
}

/** The profile with its base URLs replaced by the `--target` URLs (trailing slashes removed). */
export function withTargets(profile: ProfileDocument, targets: string[]): ProfileDocument {
  if (targets.length === 0) return profile;
  return { ...profile, baseUrls: targets.map((t) => t.replace(/\/+$/, '')) };
}

/** Whether the profile names at least one base URL. */
export function hasBaseUrls(profile: ProfileDocument): boolean {
  return Array.isArray(profile.baseUrls) && profile.baseUrls.length > 0;
}

/** Validates the final profile; throws ProfileError listing every violation with its field. */
export function validateProfile(profile: ProfileDocument, source: string): TargetProfile {
  return parseProfile(profile, `profile ${source}`);
}
