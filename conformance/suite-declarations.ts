/**
 * What each spec file of conformance/suite declares, read from its source before Playwright loads
 * anything: the tags of every `req(...)` call (support/requirement.ts), one list per check. The
 * suite's configuration uses it to load only the spec files a selection needs (`run --grep ID|TAG`:
 * a one-requirement run loads one or two files, not all of them) and to count the rate-limit checks
 * it picks (conformance/playwright.config.ts).
 *
 * It may only ever load too much, never too little: a file whose `req(...)` arguments are not all
 * string literals, or that cannot be read, is selected by every selection, and a selection that is
 * not one ID or tag (a free pattern may match titles) selects every file. The coverage test proves
 * the narrowing against Playwright's own listing of the whole suite (conformance/tests/coverage.spec.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { grepPattern, isTagSelection } from './selection.ts';

/** One spec file: the tags of each of its checks, or `undefined` when they cannot be read from the source. */
export interface SpecDeclarations {
  file: string;
  checks: string[][] | undefined;
}

/** The tags of each `req(...)` call of `source`, as `@ID`/`@group`; undefined when an argument is not a string literal. */
export function declaredChecks(source: string): string[][] | undefined {
  const checks: string[][] = [];
  for (const [, args = ''] of source.matchAll(/\breq\(([^()]*)\)/g)) {
    const literals = [...args.matchAll(/'([^']*)'|"([^"]*)"/g)];
    // Anything left besides the literals, commas, brackets and spaces is an expression this reading cannot follow.
    if (args.replace(/'[^']*'|"[^"]*"/g, '').replace(/[\s,[\]]/g, '') !== '') return undefined;
    checks.push(
      literals.map(([, single, double]) => {
        const value = single ?? double ?? '';
        return value.startsWith('@') ? value : `@${value}`;
      }),
    );
  }
  return checks;
}

/** The spec files of `suiteDir` ending in `.spec<extension>`, each with its declarations. */
export function suiteDeclarations(suiteDir: string, extension: string): SpecDeclarations[] {
  const files = readdirSync(suiteDir).filter((f) => f.endsWith(`.spec${extension}`)).sort();
  return files.map((file) => {
    try {
      return { file, checks: declaredChecks(readFileSync(join(suiteDir, file), 'utf8')) };
    } catch {
      return { file, checks: undefined };
    }
  });
}

/** How many checks of `spec` the selection `grep` picks, matched as Playwright matches the CLI's pattern; undefined when unknown. */
export function selectedChecks(spec: SpecDeclarations, grep: string): number | undefined {
  if (!isTagSelection(grep) || spec.checks === undefined) return undefined;
  const pattern = new RegExp(grepPattern(grep), 'i');
  return spec.checks.filter((tags) => pattern.test(tags.join(' '))).length;
}

/**
 * The spec files the selection `grep` needs: those with a check it picks, and those whose checks
 * cannot be read. Without a selection, or with a free pattern, every file.
 */
export function filesFor(specs: readonly SpecDeclarations[], grep: string | undefined): string[] {
  if (grep === undefined || !isTagSelection(grep)) return specs.map((s) => s.file);
  return specs.filter((s) => (selectedChecks(s, grep) ?? 1) > 0).map((s) => s.file);
}
