import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import {
  CATALOGUE_PATH,
  clientRequirements,
  isDecisionSource,
  loadCatalogue,
  requirementById,
  serverRequirements,
} from '../catalogue.ts';
import { parseDecisions } from '../decisions.ts';

// ajv-formats is CommonJS; its default export sits on `.default` under NodeNext.
const addFormats = addFormatsModule.default;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCHEMA_PATH = join(ROOT, 'spec/schemas/requirements.schema.json');
const DECISIONS_PATH = join(ROOT, 'spec/decisions.md');
const ID = /^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$/;
const SKIP_DIRS = new Set(['node_modules', '.git', 'test-results', 'playwright-report', 'conformance-results', 'reports', '.stryker-tmp']);

/** IDs the client harness and the conformance suite were built on; renaming one breaks them. */
const CLIENT_IDS = [
  'CLIENT-RETRY-RETRYABLE', 'CLIENT-NO-RETRY-400-422', 'CLIENT-NO-RETRY-OTHER-4XX', 'CLIENT-ATTEMPT-CAP',
  'CLIENT-TIMEOUT', 'CLIENT-SURFACE-LAST-RESPONSE', 'CLIENT-RETRY-AFTER', 'CLIENT-BACKOFF-EXPONENTIAL',
  'CLIENT-BACKOFF-JITTER', 'CLIENT-RATELIMIT-REMAINING-WAIT', 'CLIENT-IDEMPOTENCY-KEY-PER-OPERATION',
  'CLIENT-IDEMPOTENCY-KEY-STABLE', 'CLIENT-LINKS-FOLLOWED', 'CLIENT-BEARER-EVERY-REQUEST',
];
const SERVER_IDS = [
  'URL-NOUNS', 'URL-COLLECTION-PLURAL', 'URL-ITEM-BY-ID', 'URL-NESTED-RELATIONSHIP', 'URL-QUERY-NOT-PATH',
  'METHOD-GET-IDEMPOTENT', 'METHOD-PUT-IDEMPOTENT', 'METHOD-DELETE-IDEMPOTENT', 'METHOD-POST-NOT-IDEMPOTENT',
  'METHOD-NOT-ALLOWED-405', 'METHOD-ALLOW-HEADER', 'STATUS-400-MALFORMED-JSON', 'STATUS-404-UNKNOWN-RESOURCE',
  'STATUS-404-UNKNOWN-ROUTE', 'STATUS-409-CONFLICT', 'STATUS-413-BODY-TOO-LARGE', 'STATUS-415-MEDIA-TYPE',
  'STATUS-422-INVALID-VALUES', 'STATUS-500-GENERIC', 'STATUS-503-UPSTREAM', 'STATUS-201-CREATED-LOCATION',
  'STATUS-204-DELETE', 'AUTH-BEARER-HEADER', 'AUTH-401-MISSING', 'AUTH-401-INVALID', 'AUTH-401-MALFORMED',
  'AUTH-WWW-AUTHENTICATE', 'AUTH-403-PERMISSION', 'AUTH-403-INSUFFICIENT-SCOPE', 'AUTH-STATELESS', 'AUTH-OWNER-ONLY',
  'PROBLEM-CONTENT-TYPE', 'PROBLEM-MEMBERS', 'PROBLEM-STATUS-MATCHES', 'PROBLEM-TYPE-URI', 'PROBLEM-INSTANCE',
  'PROBLEM-SAME-ENVELOPE', 'PROBLEM-EXTENSION-MEMBERS', 'VALIDATION-422-ERRORS-ARRAY', 'VALIDATION-ERROR-ITEM-SHAPE',
  'VALIDATION-ALL-FIELDS', 'LINKS-SHAPE', 'LINKS-SELF-NO-METHOD', 'LINKS-ACTION-METHOD', 'LINKS-ONLY-LEGAL-TRANSITIONS',
  'LINKS-ACTIONS-WORK', 'ORDER-STATUS-FIELD', 'ORDER-ILLEGAL-TRANSITION-409', 'CACHE-CONTROL-DECLARED',
  'CACHE-PRIVATE-NOT-PUBLIC', 'RATE-LIMIT-429', 'RATE-LIMIT-PROBLEM-BODY', 'RATE-LIMIT-HEADER-LIMIT',
  'RATE-LIMIT-HEADER-REMAINING', 'RATE-LIMIT-HEADER-RESET', 'RATE-LIMIT-RETRY-AFTER', 'RATE-LIMIT-RETRY-AFTER-HONEST',
  'RATE-LIMIT-HEADERS-EVERY-RESPONSE', 'RATE-LIMIT-BURST-CAPACITY', 'RATE-LIMIT-REFILL-RATE', 'RATE-LIMIT-PER-CALLER',
  'RATE-LIMIT-SHARED-STORE', 'RATE-LIMIT-QUOTA', 'RATE-LIMIT-LEAKY-BUCKET', 'IDEMPOTENCY-KEY-ACCEPTED',
  'IDEMPOTENCY-REPLAY', 'IDEMPOTENCY-NO-REPEAT-WORK', 'IDEMPOTENCY-CONCURRENT-ONE-RESULT',
  'IDEMPOTENCY-KEY-REUSE-MISMATCH', 'IDEMPOTENCY-IN-FLIGHT-409', 'IDEMPOTENCY-SCOPED-PER-CALLER',
  'IDEMPOTENCY-RETENTION', 'IDEMPOTENCY-REPLAYED-HEADER', 'STATELESS-ANY-INSTANCE', 'STATELESS-NO-SESSION',
  'JSON-REPRESENTATIONS', 'PAYMENT-AMOUNT-MINOR-UNITS', 'PAYMENT-CURRENCY-LOWERCASE', 'QUERY-PAGING',
  'QUERY-SORTING', 'QUERY-FILTERING', 'COLLECTION-PAGE-SHAPE', 'REPRESENTATION-SCHEMAS',
];

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** Requirement-ID-shaped tokens in a piece of text (backquoted or bare). */
function idTokens(text: string): string[] {
  return [...text.matchAll(/[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+/g)].map((m) => m[0]).filter((t) => ID.test(t) && !t.startsWith('D-'));
}

/** Requirement IDs a test source names in annotations of type requirement (the ID is the description) or in `@ID` tags. */
function requirementRefs(source: string): string[] {
  const refs: string[] = [];
  const annotation =
    /type:\s*(['"`])requirement\1\s*,\s*description:\s*(['"`])([^'"`]*)\2|description:\s*(['"`])([^'"`]*)\4\s*,\s*type:\s*(['"`])requirement\6/g;
  for (const m of source.matchAll(annotation)) {
    refs.push(...(m[3] ?? m[5] ?? '').split(/[\s,]+/).filter(Boolean));
  }
  for (const m of source.matchAll(/['"`\s[(]@([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)(?![A-Za-z0-9-])/g)) {
    refs.push(m[1] ?? '');
  }
  return refs;
}

/** Every *.spec.ts of the repository outside node_modules and output folders, listed now. */
function specFiles(dir: string): string[] {
  const out: string[] = [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) out.push(...specFiles(join(dir, e.name)));
    } else if (e.isFile() && e.name.endsWith('.spec.ts')) {
      out.push(join(dir, e.name));
    }
  }
  return out;
}

/** Text of each "N. Title" / "N. Title / Subtitle" section of the conventions document. */
function documentSections(markdown: string): Map<string, string> {
  const sections = new Map<string, string>();
  let h2 = '';
  let h3 = '';
  for (const line of markdown.split('\n')) {
    const two = /^## (\d+\. .+)$/.exec(line);
    const three = /^### (.+)$/.exec(line);
    if (two) {
      h2 = (two[1] ?? '').trim();
      h3 = '';
    } else if (three && h2) {
      h3 = (three[1] ?? '').trim();
    }
    if (!h2) continue;
    sections.set(h2, `${sections.get(h2) ?? ''}\n${line}`);
    if (h3) sections.set(`${h2} / ${h3}`, `${sections.get(`${h2} / ${h3}`) ?? ''}\n${line}`);
  }
  return sections;
}

const catalogue = loadCatalogue();
const decisionsText = readFileSync(DECISIONS_PATH, 'utf8');
const decisions = parseDecisions(decisionsText);

test.describe('requirement catalogue', () => {
  test('the catalogue validates against its JSON Schema under ajv 2020 strict mode', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as { $id: string };
    expect(schema.$id).toBe('https://http-api-conformance.dev/schemas/requirements.schema.json');
    const validate = ajv.compile(schema);
    const valid = validate(JSON.parse(readFileSync(CATALOGUE_PATH, 'utf8')));
    expect(validate.errors ?? [], ajv.errorsText(validate.errors)).toEqual([]);
    expect(valid).toBe(true);
  });

  test('the schema rejects a requirement with a bad id, level or extra member', () => {
    const ajv = new Ajv2020({ strict: true });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as object);
    const good = catalogue.requirements[0];
    expect(validate({ document: 'x', requirements: [good] })).toBe(true);
    expect(validate({ document: 'x', requirements: [{ ...good, id: '7.1' }] })).toBe(false);
    expect(validate({ document: 'x', requirements: [{ ...good, level: 'MUST NOT' }] })).toBe(false);
    expect(validate({ document: 'x', requirements: [{ ...good, note: 'x' }] })).toBe(false);
    expect(validate({ document: 'x', requirements: [{ ...good, source: { decision: 'CACHE', quote: 'xyz' } }] })).toBe(false);
  });

  test('requirement IDs are unique and UPPER-KEBAB', () => {
    const ids = catalogue.requirements.map((r) => r.id);
    const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
    expect(duplicates).toEqual([]);
    expect(ids.filter((id) => !ID.test(id))).toEqual([]);
  });

  test('every level is MUST, SHOULD or MAY and every party is server or client', () => {
    const levels = new Set(['MUST', 'SHOULD', 'MAY']);
    expect(catalogue.requirements.filter((r) => !levels.has(r.level)).map((r) => r.id)).toEqual([]);
    expect(serverRequirements().length + clientRequirements().length).toBe(catalogue.requirements.length);
    expect(catalogue.requirements.length).toBeGreaterThanOrEqual(80);
  });

  test('the IDs other parts were built on exist with the right party', () => {
    for (const id of CLIENT_IDS) expect(requirementById(id)?.party, id).toBe('client');
    for (const id of SERVER_IDS) expect(requirementById(id)?.party, id).toBe('server');
    expect(requirementById('NO-SUCH-REQUIREMENT')).toBeUndefined();
  });

  test('client requirements are checked by the client harness and server requirements are not', () => {
    expect(clientRequirements().filter((r) => r.testable !== 'client-harness').map((r) => r.id)).toEqual([]);
    expect(serverRequirements().filter((r) => r.testable === 'client-harness').map((r) => r.id)).toEqual([]);
  });
});

test.describe('decisions and catalogue agree', () => {
  test('every decision entry has Gap, Decision, Reason and Requirements lines', () => {
    expect(decisions.length).toBeGreaterThanOrEqual(15);
    const incomplete = decisions
      .filter((d) => !['Gap', 'Decision', 'Reason', 'Requirements'].every((label) => (d.lines.get(label) ?? '').length > 3))
      .map((d) => d.name);
    expect(incomplete).toEqual([]);
  });

  test('every requirement ID that decisions.md mentions exists in the catalogue', () => {
    const mentioned = decisions.flatMap((d) => [...idTokens(d.lines.get('Requirements') ?? ''), ...idTokens(d.lines.get('Refines') ?? '')]);
    expect(mentioned.length).toBeGreaterThan(50);
    expect(mentioned.filter((id) => !requirementById(id))).toEqual([]);
    const backquoted = [...decisionsText.matchAll(/`([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)`/g)].map((m) => m[1] ?? '');
    expect(backquoted.filter((id) => !requirementById(id))).toEqual([]);
  });

  test('each decision lists exactly the requirements that name it as their source', () => {
    for (const d of decisions) {
      const listed = idTokens(d.lines.get('Requirements') ?? '').sort();
      const sourced = catalogue.requirements
        .filter((r) => isDecisionSource(r.source) && r.source.decision === d.name)
        .map((r) => r.id)
        .sort();
      expect(listed, d.name).toEqual(sourced);
    }
  });

  test('every decision source names an existing entry and quotes it exactly', () => {
    const byName = new Map(decisions.map((d) => [d.name, squash(d.text)]));
    const problems: string[] = [];
    for (const r of catalogue.requirements) {
      if (!isDecisionSource(r.source)) continue;
      const text = byName.get(r.source.decision);
      if (text === undefined) problems.push(`${r.id}: no entry ${r.source.decision}`);
      else if (!text.includes(squash(r.source.quote))) problems.push(`${r.id}: quote not in ${r.source.decision}`);
    }
    expect(problems).toEqual([]);
  });

  test('every document source names a section of the conventions document and quotes it exactly', () => {
    const docPath = join(ROOT, catalogue.document);
    test.skip(!existsSync(docPath), `conventions document not present at ${docPath}`);
    const sections = documentSections(readFileSync(docPath, 'utf8'));
    expect(sections.size).toBeGreaterThanOrEqual(9);
    const problems: string[] = [];
    for (const r of catalogue.requirements) {
      const sources = [...(isDecisionSource(r.source) ? [] : [r.source]), ...(r.alsoIn ?? [])];
      for (const s of sources) {
        const text = sections.get(s.section);
        if (text === undefined) problems.push(`${r.id}: no section "${s.section}"`);
        else if (!squash(text).includes(squash(s.quote))) problems.push(`${r.id}: quote not in "${s.section}": ${s.quote}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

test.describe('test files name only catalogued requirements', () => {
  test('the scanner finds annotations and tags and ignores other text', () => {
    const sample = [
      "test('a', { tag: ['@PROBLEM-MEMBERS', '@slow'], annotation: [{ type: 'requirement', description: 'AUTH-401-MISSING' }] }",
      'test("b", { annotation: { description: "RATE-LIMIT-429", type: "requirement" } })',
      "const mail = 'ops@EXAMPLE-ORG'; // no quote or space before the @",
    ].join('\n');
    expect(requirementRefs(sample).sort()).toEqual(['AUTH-401-MISSING', 'PROBLEM-MEMBERS', 'RATE-LIMIT-429']);
  });

  test('every requirement ID in a test annotation or tag of any *.spec.ts exists', () => {
    const files = specFiles(ROOT);
    expect(files.length).toBeGreaterThan(0);
    const unknown: string[] = [];
    for (const file of files) {
      let source: string;
      try {
        source = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      for (const id of requirementRefs(source)) {
        if (!ID.test(id) || !requirementById(id)) unknown.push(`${relative(ROOT, file)}: ${id}`);
      }
    }
    expect(unknown).toEqual([]);
  });
});
