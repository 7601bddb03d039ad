/**
 * The replay line a failed fast-check property prints: the seed and path in HAC_FC_SEED and HAC_FC_PATH
 * (read by conformance/run-environment.ts; HAC_SEED is the reference server's seed-users switch, and
 * HAC_PATH the client harness's request path, so the property replay has names of its own), and the
 * `run` command selecting that one test, so the line is a command to paste into a shell as printed.
 */
import { REFERENCE_PROFILE } from '../target/profile.ts';

export interface ReplayTarget {
  seed: number;
  /** fast-check's counterexample path (`0:1:0`). */
  path: string;
  /** fast-check's commands replay path of a model-based sequence (HAC_FC_COMMANDS, D-STATE-MODEL). */
  commands?: string;
  /** The failing test's title: the `--grep` that selects it alone. */
  title: string;
  /** The profile the run was given (HAC_PROFILE_SOURCE); the reference profile means the embedded server. */
  profileSource?: string;
}

/** A shell word: single-quoted unless it is plain. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The title as a Playwright grep: a regular expression matching it literally. */
export function titlePattern(title: string): string {
  return title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `HAC_FC_SEED=… HAC_FC_PATH=… [HAC_FC_COMMANDS=…] npx http-api-conformance run --grep '<title>' [--profile FILE]`. */
export function replayCommand(target: ReplayTarget): string {
  const words = [
    `HAC_FC_SEED=${target.seed}`,
    `HAC_FC_PATH=${shellWord(target.path)}`,
    ...(target.commands !== undefined ? [`HAC_FC_COMMANDS=${shellWord(target.commands)}`] : []),
    'npx http-api-conformance run --grep',
    shellWord(titlePattern(target.title)),
    ...(target.profileSource !== undefined && target.profileSource !== REFERENCE_PROFILE ? ['--profile', shellWord(target.profileSource)] : []),
  ];
  return words.join(' ');
}
