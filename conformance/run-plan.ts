/**
 * D-RUN-PLAN: several targets in one suite process. The CLI (`run --plan FILE`) settles each target
 * (its profile validated, the target probed, its features verified) and writes the suite plan: one
 * entry per target with the resolved profile, the selection and the output directory. The suite's
 * configuration gives each target Playwright projects of its own (conformance/playwright.config.ts)
 * whose metadata carry the entry; a worker serves one project, so it tests one target, and the
 * reporter writes each target's results.json into its own directory. Without a plan the single
 * target comes from the run environment (HAC_PROFILE, or the embedded server), as before.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { runEnvironment } from './run-environment.ts';

/** One target of the suite plan (HAC_PLAN), as the CLI wrote it. */
export interface PlanTarget {
  /** Unique in the plan: names the target's projects and its lines in the console. */
  name: string;
  /** The resolved, validated profile (the CLI checked it: workers do not validate it again). */
  profilePath: string;
  /** The profile file the user gave, named in results.json and in replay lines. */
  profileSource: string;
  /** Where the reporter writes this target's results.json, report.html and badge.svg. */
  outDir: string;
  /** The target's selection (`run --grep` form); undefined: the whole suite. */
  grep?: string;
  /** The profile's rate-limit tokens (the configuration schedules the rate-limit checks from it). */
  rateLimitTokens: number;
}

/** Writes the suite plan the suite process reads (HAC_PLAN). */
export function writeSuitePlan(file: string, targets: readonly PlanTarget[]): void {
  writeFileSync(file, `${JSON.stringify({ targets }, null, 2)}\n`);
}

/** Reads the suite plan the CLI wrote. */
export function readSuitePlan(file: string): PlanTarget[] {
  const { targets } = JSON.parse(readFileSync(file, 'utf8')) as { targets: PlanTarget[] };
  return targets;
}

/** The plan target a Playwright project tests (its metadata), undefined outside a plan. */
export function projectTarget(project: { metadata?: unknown }): PlanTarget | undefined {
  const metadata = project.metadata as { target?: PlanTarget } | undefined;
  return metadata?.target;
}

/** A profile given to the run: its resolved file, whether the CLI validated it, and the file the user gave. */
export interface GivenProfile {
  path: string;
  /** The CLI validated it already (HAC_PROFILE_CHECKED, or a plan target). */
  checked: boolean;
  /** The file the user gave. */
  source?: string;
}

/** The profile a project's workers test: its plan target's, else HAC_PROFILE's; undefined: no profile, the embedded server. */
export function givenProfile(project: { metadata?: unknown }): GivenProfile | undefined {
  const target = projectTarget(project);
  if (target) return { path: target.profilePath, checked: true, source: target.profileSource };
  const { profile, profileChecked, profileSource } = runEnvironment();
  return profile === undefined ? undefined : { path: profile, checked: profileChecked, ...(profileSource ? { source: profileSource } : {}) };
}
