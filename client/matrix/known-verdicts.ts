/**
 * The expected outcome of every client requirement for every client of the matrix, each with the
 * library behaviour (documentation or source) that makes it so. The matrix test fails when a run
 * differs: either the harness changed how it judges, or a library changed.
 */
import type { Outcome } from '../../spec/results.ts';

export interface KnownVerdict {
  outcome: Outcome;
  /** Why, citing the library's documentation or source. */
  why: string;
  /** For a failure: the configuration that fixes it, or why none can. */
  fix?: string;
}

export const KNOWN_VERDICTS: Record<string, Record<string, KnownVerdict>> = {};
