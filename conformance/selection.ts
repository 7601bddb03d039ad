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
  const tag = selection.startsWith('@') ? selection.slice(1) : selection;
  if (/^[A-Za-z][A-Za-z0-9-]*$/.test(tag)) return `@${tag}(?![A-Za-z0-9-])`;
  return selection;
}
