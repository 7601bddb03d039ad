/**
 * State that holds over sequences (D-STATE-MODEL): a model-based property over every collection the suite
 * can create in, on one instance and across the profile's instances. A failure is the shrunk sequence,
 * reported under the one rule that broke.
 */
import { test, propertyRuns } from '../fixtures.ts';
import { NOTE_ANNOTATION, req } from '../support/requirement.ts';
import { skipCheck } from '../support/skip.ts';
import type { Target } from '../support/target.ts';
import type { TargetProfile } from '../target/profile.ts';
import { assertStateHolds, statePlans } from '../state/run.ts';

/**
 * D-STATE-MODEL: the sequences of one check: the profile's property runs (`runs.properties`, HAC_RUNS), and at
 * least ten per collection the model works on, up to a hundred (more collections are sampled, and the check's
 * notes in results.json name those covered). A sequence of a few requests costs what one case of another property does.
 */
function sequencesOf(profile: TargetProfile, collections: number): number {
  return Math.max(propertyRuns(profile), Math.min(10 * collections, 100));
}

/** Runs the model on `targets` and notes what it covered and assumed on the check. */
async function stateHolds(profile: TargetProfile, targets: readonly Target[]): Promise<void> {
  const planned = statePlans(profile);
  if ('skip' in planned) skipCheck(planned.skip);
  const covered = await assertStateHolds(targets, planned.plans, sequencesOf(profile, planned.plans.length), profile.tokens.other);
  const annotations = test.info().annotations;
  annotations.push({ type: NOTE_ANNOTATION, description: covered });
  for (const assumption of planned.assumed) annotations.push({ type: NOTE_ANNOTATION, description: `assumed: ${assumption}` });
}

test(
  'state holds over model-based sequences on one instance',
  req(['STATE-CHANGES-SEEN', 'COLLECTION-LISTS-LIVE-ITEMS', 'IDEMPOTENCY-REPLAY', 'AUTH-OWNER-ONLY'], '@property', '@state'),
  async ({ target, profile, multi }) => {
    // The check across instances draws sequences on the first instance alone too: with instances, it is the model's one run.
    if (multi.profile) skipCheck('the target has two or more instances: the state model runs across them (the check "…across instances")');
    await stateHolds(profile, [target]);
  },
);

test(
  'state holds over model-based sequences across instances',
  req(
    ['STATELESS-ANY-INSTANCE', 'STATE-CHANGES-SEEN', 'COLLECTION-LISTS-LIVE-ITEMS', 'IDEMPOTENCY-REPLAY', 'AUTH-OWNER-ONLY'],
    '@property',
    '@state',
    '@multi-target',
  ),
  async ({ instances }) => {
    await stateHolds(instances[0].profile, instances);
  },
);
