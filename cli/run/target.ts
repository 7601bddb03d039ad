/**
 * `run` meets its target: the embedded reference server started when there is none, the profile
 * validated (D-PROFILE), the target probed and its declared features verified, each refusal a
 * CannotRun (exit 2) and each wait bounded by the run deadline (D-BOUNDED-RUN).
 */
import { probeTargets } from '../../conformance/target/probe.ts';
import type { EmbeddedTarget } from '../../conformance/target/embedded.ts';
import { parseProfile, ProfileError } from '../../conformance/target/profile.ts';
import type { TargetProfile } from '../../conformance/target/profile.ts';
import { DeadlinePassed } from './deadline.ts';
import type { RunDeadline } from './deadline.ts';
import type { RunOptions } from './options.ts';
import type { Preflight } from './preflight.ts';
import { CannotRun } from './record.ts';

/** The target's profile, validated, once it answers: the embedded server started, or the probe and the feature check passed. */
export async function meetTarget(options: RunOptions, ready: Preflight, deadline: RunDeadline, running: { embedded?: EmbeddedTarget }): Promise<TargetProfile> {
  let { profile } = ready;
  if (ready.useEmbedded) {
    console.log('no --target: starting the embedded reference server');
    const { startRunTarget } = await import('../../conformance/target/embedded.ts');
    const embedded = await deadline.within('embedded server start', startRunTarget()).catch((error: unknown) => {
      throw error instanceof DeadlinePassed ? error : new CannotRun(`cannot start the embedded reference server: ${(error as Error).message}`);
    });
    running.embedded = embedded;
    console.log(`embedded reference server: ${embedded.description}`);
    profile = options.profile === undefined ? { ...embedded.profile } : { ...profile, baseUrls: embedded.profile.baseUrls };
  }
  let valid: TargetProfile;
  try {
    valid = parseProfile(profile, `profile ${ready.profileSource}`);
  } catch (error) {
    throw error instanceof ProfileError ? new CannotRun(error.message, { profile: ready.profileSource }) : error;
  }
  const target = { name: valid.name, baseUrls: valid.baseUrls, profile: ready.profileSource };
  // The embedded server is listening once started, here in this process: only another target is probed.
  const probes = running.embedded ? [] : await deadline.within('probe', probeTargets(valid.baseUrls, valid.collections[0]?.path ?? '/', 5000));
  const down = probes.filter((p) => !p.ok);
  if (down.length > 0) throw new CannotRun(`target unreachable:\n${down.map((p) => `  ${p.url}: ${p.problem}`).join('\n')}`, target);
  console.log(`target${valid.baseUrls.length > 1 ? 's' : ''}: ${valid.baseUrls.join(', ')} (profile "${valid.name}")`);
  // Declared features are verified before use: one message and exit 2, not a dozen MUST failures.
  // The embedded server with its own profile is configured from that profile: nothing to verify.
  if (!running.embedded || options.profile !== undefined) {
    const { formatFeatureProblems, verifyFeatures } = await import('../../conformance/target/verify-features.ts');
    const missing = await deadline.within('feature check', verifyFeatures(valid));
    if (missing.length > 0) throw new CannotRun(formatFeatureProblems(missing), target);
  }
  return valid;
}
