/**
 * The requirement catalogue (spec/requirements.json): its types and the one reader, for the
 * suite's reporter and coverage check, the client harness and report.html.
 */
import { readFileSync } from 'node:fs';
import { packagePath } from './package-files.ts';

export type Level = 'MUST' | 'SHOULD' | 'MAY';
export type Party = 'server' | 'client';
export type Testable = 'conformance' | 'client-harness' | 'review';
export type Area =
  | 'urls'
  | 'methods'
  | 'status'
  | 'auth'
  | 'problem'
  | 'validation'
  | 'hypermedia'
  | 'cache'
  | 'rate-limit'
  | 'idempotency'
  | 'stateless'
  | 'client'
  | 'resources';

/** Where the conventions document states a rule. */
export interface DocumentSource {
  section: string;
  quote: string;
}

/** The entry of spec/decisions.md that creates a rule. */
export interface DecisionSource {
  decision: string;
  quote: string;
}

export interface Reference {
  spec: string;
  section?: string;
}

export interface Requirement {
  id: string;
  level: Level;
  party: Party;
  area: Area;
  testable: Testable;
  source: DocumentSource | DecisionSource;
  alsoIn?: DocumentSource[];
  summary: string;
  references: Reference[];
}

export interface Catalogue {
  document: string;
  title?: string;
  requirements: Requirement[];
}

/** What the reporter needs of a requirement to give it an outcome (a test catalogue may hold only this). */
export type CatalogueEntry = Pick<Requirement, 'id' | 'level' | 'party' | 'testable' | 'summary'>;

/** Shape of a requirement ID (spec/schemas/requirements.schema.json). */
export const REQUIREMENT_ID = /^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$/;

/** Absolute path of spec/requirements.json. */
export const CATALOGUE_PATH = packagePath('spec', 'requirements.json');

let cached: Catalogue | undefined;
let index: Map<string, Requirement> | undefined;

/** Reads spec/requirements.json once and returns the cached catalogue. */
export function loadCatalogue(): Catalogue {
  if (!cached) {
    cached = readCatalogueFile(CATALOGUE_PATH);
    index = new Map(cached.requirements.map((r) => [r.id, r]));
  }
  return cached;
}

/** Reads a catalogue file; a test catalogue (the reporter's own tests) may give only the `CatalogueEntry` fields. */
function readCatalogueFile(path: string): Catalogue {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Partial<Catalogue>;
  if (!Array.isArray(raw.requirements)) throw new Error(`${path}: no "requirements" array`);
  return raw as Catalogue;
}

/** The requirement with this ID, or undefined when the catalogue has none. */
export function requirementById(id: string): Requirement | undefined {
  loadCatalogue();
  return index?.get(id);
}

/** Every requirement ID of the catalogue. */
export function requirementIds(): string[] {
  return loadCatalogue().requirements.map((r) => r.id);
}

/** Requirements that bind the server (checked by the conformance suite or by review); `path` reads another catalogue. */
export function serverRequirements(path?: string): Requirement[] {
  const catalogue = path === undefined || path === CATALOGUE_PATH ? loadCatalogue() : readCatalogueFile(path);
  return catalogue.requirements.filter((r) => r.party === 'server');
}

/** Requirements that bind the client (checked by the client harness). */
export function clientRequirements(): Requirement[] {
  return loadCatalogue().requirements.filter((r) => r.party === 'client');
}

/** True when the rule comes from a decision of spec/decisions.md rather than from the document. */
export function isDecisionSource(source: DocumentSource | DecisionSource): source is DecisionSource {
  return 'decision' in source;
}
