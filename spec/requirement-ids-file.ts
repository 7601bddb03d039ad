/**
 * The generated module spec/requirement-ids.ts: every requirement ID of spec/requirements.json as a
 * string literal type, so `req('NOT-AN-ID')` in the suite, a broken variant's `breaks` or the client
 * harness's IDs fail at `tsc` time rather than at run time.
 * TypeScript's resolveJsonModule widens JSON strings to `string`, so the literal types need a generated file;
 * `npm run ids` (spec/requirement-ids-command.ts) rewrites it and spec/tests/requirement-ids.spec.ts fails when it is stale.
 */
import { readFileSync } from 'node:fs';
import type { Catalogue } from './catalogue.ts';
import { CATALOGUE_PATH } from './catalogue.ts';
import { packagePath } from './package-files.ts';

/** Absolute path of the generated module. */
export const REQUIREMENT_IDS_PATH = packagePath('spec', 'requirement-ids.ts');

/** The source text of spec/requirement-ids.ts for a catalogue, in catalogue order. */
export function renderRequirementIds(catalogue: Catalogue): string {
  const list = (party: 'server' | 'client'): string =>
    catalogue.requirements
      .filter((r) => r.party === party)
      .map((r) => `  '${r.id}',\n`)
      .join('');
  return [
    '/**',
    ' * GENERATED from spec/requirements.json by `npm run ids` (spec/requirement-ids-file.ts); do not edit.',
    ' * Every requirement ID as a string literal type, so a mistyped ID fails `tsc`.',
    ' */',
    '',
    '/** IDs of the requirements that bind the server, in catalogue order. */',
    'export const SERVER_REQUIREMENT_IDS = [',
    list('server') + '] as const;',
    '',
    '/** IDs of the requirements that bind the client, in catalogue order. */',
    'export const CLIENT_REQUIREMENT_IDS = [',
    list('client') + '] as const;',
    '',
    'export type ServerRequirementId = (typeof SERVER_REQUIREMENT_IDS)[number];',
    'export type ClientRequirementId = (typeof CLIENT_REQUIREMENT_IDS)[number];',
    '/** An ID of spec/requirements.json. */',
    'export type RequirementId = ServerRequirementId | ClientRequirementId;',
    '',
  ].join('\n');
}

/** The source text spec/requirement-ids.ts should hold for spec/requirements.json as it is now. */
export function currentRequirementIds(): string {
  return renderRequirementIds(JSON.parse(readFileSync(CATALOGUE_PATH, 'utf8')) as Catalogue);
}

