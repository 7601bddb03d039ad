/**
 * A suite test declares the catalogue requirements it checks once: `req('AUTH-401-MISSING', '@generic')`.
 * The requirement IDs become both the `@ID` tags that `run --grep` selects on and the `requirement`
 * annotations the requirements reporter groups results by (D-REPORT), so the two can never disagree.
 */
import type { TestDetails } from '@playwright/test';

/** Test details for the requirement(s) `ids` and the group tags (`@generic`, `@smoke`, …). */
export function req(
  ids: string | readonly string[],
  ...groups: `@${string}`[]
): TestDetails & { tag: string[]; annotation: { type: 'requirement'; description: string }[] } {
  const list = typeof ids === 'string' ? [ids] : [...ids];
  return {
    tag: [...list.map((id) => `@${id}`), ...groups],
    annotation: list.map((description) => ({ type: 'requirement' as const, description })),
  };
}
