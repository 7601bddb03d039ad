/**
 * The reporter's read-only view of the requirement catalogue (spec/requirements.json): the fields it
 * needs to give every requirement a level and an outcome.
 */
import { readFileSync } from 'node:fs';
import { packagePath } from '../../spec/package-files.ts';
import type { Level } from '../../spec/results.ts';

export interface CatalogueEntry {
  id: string;
  level: Level;
  party: 'server' | 'client';
  testable: 'conformance' | 'client-harness' | 'review';
  summary: string;
}

/** Path of spec/requirements.json inside this package. */
export const CATALOGUE_PATH = packagePath('spec', 'requirements.json');

/** Shape of a requirement ID (spec/schemas/requirements.schema.json). */
export const REQUIREMENT_ID = /^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$/;

/** Reads every requirement of the catalogue at `path` (default: the package's own). */
export function readCatalogue(path: string = CATALOGUE_PATH): CatalogueEntry[] {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { requirements?: unknown };
  if (!Array.isArray(raw.requirements)) throw new Error(`${path}: no "requirements" array`);
  return raw.requirements.map((r: Record<string, unknown>) => ({
    id: String(r.id),
    level: r.level as Level,
    party: r.party === 'client' ? 'client' : 'server',
    testable: (r.testable ?? 'conformance') as CatalogueEntry['testable'],
    summary: typeof r.summary === 'string' ? r.summary : '',
  }));
}

/** The requirements the server suite reports on: every `party: server` entry of the catalogue. */
export function serverCatalogue(path?: string): CatalogueEntry[] {
  return readCatalogue(path).filter((r) => r.party === 'server');
}
