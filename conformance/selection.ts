/**
 * A run's selection (`run --grep ID|TAG`) as the Playwright `--grep` pattern: the suite process gets
 * it on its command line (conformance/suite-process.ts) and the suite's configuration counts the
 * rate-limit checks it picks (conformance/playwright.config.ts).
 */

/**
 * The Playwright `--grep` pattern for a requirement ID or tag: an exact tag match, so
 * `STATUS-404` does not select `STATUS-404-UNKNOWN-ROUTE`; any other text is used as given.
 */
export function grepPattern(selection: string): string {
  if (!isTagSelection(selection)) return selection;
  return `@${selection.replace(/^@/, '')}(?![A-Za-z0-9-])`;
}

/** True when `selection` is one requirement ID or group tag (with or without its `@`), not a free pattern. */
export function isTagSelection(selection: string): boolean {
  return /^@?[A-Za-z][A-Za-z0-9-]*$/.test(selection);
}
