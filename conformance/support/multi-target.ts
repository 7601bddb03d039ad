/**
 * Whether a profile's base URLs are instances of one service sharing one store, so the statelessness
 * checks (`@multi-target`, the `instances` fixture) may run across them (D-PROFILE). `features.multiTarget`
 * states it: false says the base URLs are not such instances (two regions with their own stores, say),
 * and the checks are skipped; true says they are, and needs two or more base URLs. Left out, two or more
 * base URLs are taken to be instances of one service.
 */
import type { TargetProfile } from '../target/profile.ts';

/** Why the statelessness checks cannot run across the profile's base URLs, or undefined when they can. */
export function multiTargetSkip(profile: Pick<TargetProfile, 'baseUrls' | 'features'>): string | undefined {
  const declared = profile.features?.multiTarget;
  if (profile.baseUrls.length >= 2) {
    return declared === false
      ? 'the profile says its base URLs are not instances of one service sharing one store (features.multiTarget: false)'
      : undefined;
  }
  return declared === true
    ? 'the profile says features.multiTarget: true but lists one base URL (baseUrls); list every instance of the target to check statelessness'
    : 'the profile lists one base URL (baseUrls); list two or more instances of the target to check statelessness';
}
