/**
 * The target's own OpenAPI document drives the inputs (D-SCHEMA-INPUTS): for each collection whose
 * POST has a JSON request schema in the document the profile names (`openapi`), fast-check bodies that
 * break that schema in exactly one member must each be a 422 naming that member and create nothing,
 * and bodies the schema accepts must be accepted. A failure prints the seed and a curl line
 * (support/property.ts). Skipped, with the reason, when the profile names no document or no
 * collection has such a schema.
 */
import { collectionPropertyRuns, test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import { baseBody, boundaryBodies, essentialFaults, invalidFieldsOf, singleFaults, validBodies, variedBody } from '../arbitraries/schema-bodies.ts';
import type { Body, Fault } from '../arbitraries/schema-bodies.ts';
import { allPages, succeeded } from '../support/collection.ts';
import { noteBreaks } from '../transport/exchange-log.ts';
import type { Client } from '../transport/client.ts';
import type { HttpResponse } from '../transport/message.ts';
import { errorFields, exchangeText } from '../support/problem.ts';
import { assertProperty } from '../support/property.ts';
import { requestSchemas } from '../support/request-schemas.ts';
import type { RequestSchema } from '../support/request-schemas.ts';
import type { Target } from '../support/target.ts';
import { fillTemplate, uniqueValue } from '../support/template.ts';
import type { ProfileCollection, TargetProfile } from '../target/profile.ts';
import { listedIdOf, unwrapped } from '../support/shape.ts';
import { skipCheck } from '../support/skip.ts';

// In file order in one worker: the document is read once per worker (about 1 s of CPU for spec/openapi.yaml).
test.describe.configure({ mode: 'default' });

/** The collections with a usable request schema and base body; skips the check when there is none, with every reason. */
async function schemaInputs(profile: TargetProfile): Promise<{ schema: RequestSchema; base: Body }[]> {
  const found = await requestSchemas(profile);
  if ('reason' in found) skipCheck(found.reason);
  const usable: { schema: RequestSchema; base: Body }[] = [];
  const reasons = [...found.skipped];
  for (const schema of found.schemas) {
    const base = baseBody(schema);
    const invalid = base === undefined ? ['(body)'] : invalidFieldsOf(schema, base);
    if (base === undefined || invalid.length > 0) {
      reasons.push(`${schema.collection.path}: the profile's create body is not valid against the document's schema (${invalid.join(', ')})`);
      continue;
    }
    usable.push({ schema, base });
  }
  if (usable.length === 0) skipCheck(`no collection has a valid body to start from: ${reasons.join('; ')}`);
  return usable;
}

/** The generated cases per collection (D-SCHEMA-INPUTS), said on the check so the report shows how far each collection was explored. */
function generatedCases(profile: TargetProfile, collections: number): number {
  const runs = collectionPropertyRuns(profile, collections);
  test.info().annotations.push({ type: 'generated cases', description: `${runs} per collection, over ${collections} collections` });
  return runs;
}

/**
 * Whether the 422's `errors[].field` names `field`: the dotted path of D-ERRORS, or the same member as a
 * JSON Pointer (`/address/city`), which the document's "name of the invalid field" allows too (D-SCHEMA-INPUTS).
 */
function namesField(named: string[], field: string): boolean {
  return named.includes(field) || named.includes(`/${field.split('.').join('/')}`);
}

/** The ids (or, without one, the whole representation) of the collection's items as `caller` lists them. */
async function listed(target: Target, caller: Client, collection: ProfileCollection): Promise<Set<string>> {
  const { items } = await allPages(target, caller, collection.path, 50, collection);
  return new Set(items.map((item) => listingKey(item, collection)));
}

/** What tells a listed item apart: its id where the collection's shape puts it (D-SHAPES), else the whole item. */
function listingKey(item: Record<string, unknown>, collection: ProfileCollection): string {
  return JSON.stringify(listedIdOf(item, collection) ?? item);
}

/** A refused request: the body sent (filled), the member broken and the answer. */
interface Sent {
  fault: Fault;
  body: Body;
  unique: string;
  response: HttpResponse;
}

/**
 * Whether `item` is what `sent` would have created: every member it kept unbroken that the item shows
 * holds the value sent, and one of them carries the request's own `{{unique}}` value, which no other
 * request sent (D-SUITE-TRUST). A refused body whose broken member was the only one carrying it cannot
 * be told from an item another check created meanwhile with the same other values (a Flask stack under
 * load: a green widget created and renamed by another check was taken for the refused
 * `{"name": false, "color": "green"}`), so it is never blamed.
 */
function createdBy(item: Record<string, unknown>, sent: Sent, collection: ProfileCollection): boolean {
  // Inside the collection's request envelope, if it has one (D-SHAPES).
  const envelope = collection.shape?.envelope;
  const field = envelope !== undefined && sent.fault.field.startsWith(`${envelope}.`) ? sent.fault.field.slice(envelope.length + 1) : sent.fault.field;
  const broken = field.split('.')[0];
  const kept = Object.entries(unwrapped(sent.body, collection)).filter(([name]) => name !== broken && name in item);
  if (kept.length === 0 || !kept.every(([name, value]) => JSON.stringify(item[name]) === JSON.stringify(value))) return false;
  return kept.some(([, value]) => JSON.stringify(value).includes(sent.unique));
}

test(
  'a body that breaks its request schema in one member is a 422 naming that member and creates nothing',
  req('VALIDATION-SCHEMA-SINGLE-FAULT', '@schema-inputs', '@generic'),
  async ({ target, profile }) => {
    const failures: string[] = [];
    const inputs = await schemaInputs(profile);
    const runs = generatedCases(profile, inputs.length);
    for (const { schema, base: profileBody } of inputs) {
      const path = schema.collection.path;
      const base = variedBody(schema, profileBody);
      const faults = singleFaults(schema, base);
      if (faults === undefined) continue;
      const canList = schema.collection.methods.includes('GET');
      const before = canList ? await listed(target, target.client, schema.collection) : new Set<string>();
      const sent: Sent[] = [];
      try {
        await assertProperty(
          `POST ${path}: a body with one schema violation is a 422 naming the member`,
          faults,
          async (fault, record) => {
            const unique = uniqueValue();
            const body = fillTemplate(fault.body, unique);
            const response = await target.client.post(path, body);
            record(response);
            sent.push({ fault, body, unique, response });
            expect(response.status, `${fault.kind} of "${fault.field}": ${exchangeText(response)}`).toBe(422);
            const named = errorFields(response.json);
            // One defect, one finding (D-FINDINGS): a 422 without an errors array is VALIDATION-422-ERRORS-ARRAY's.
            if (!Array.isArray((response.json as { errors?: unknown } | undefined)?.errors))
              noteBreaks(response, 'VALIDATION-422-ERRORS-ARRAY', 'a 422 problem with an errors array');
            const says = `${fault.kind}: the 422 names "${fault.field}" in errors[].field (it names ${JSON.stringify(named)}): ${exchangeText(response)}`;
            expect(namesField(named, fault.field), says).toBe(true);
          },
          { runs, examples: essentialFaults(schema, base) },
        );
      } catch (error) {
        failures.push((error as Error).message);
      }
      if (!canList) continue;
      // VALIDATION-SCHEMA-SINGLE-FAULT: the refused bodies created nothing (no new item holds what one of them sent).
      const { items } = await allPages(target, target.client, path, 50, schema.collection);
      const fresh = items.filter((item) => !before.has(listingKey(item, schema.collection)));
      for (const refused of sent.filter((s) => !succeeded(s.response))) {
        const item = fresh.find((candidate) => createdBy(candidate, refused, schema.collection));
        if (item === undefined) continue;
        // The refused exchange, in the message by `exchangeText`, is the failure's evidence (D-FINDINGS), with its curl line.
        const what = `a body with a ${refused.fault.kind} of "${refused.fault.field}" was refused but created an item anyway`;
        failures.push(`${exchangeText(refused.response)}\n  ${what}: ${JSON.stringify(item)}`);
        break;
      }
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  },
);

test(
  'a body valid against its request schema is accepted',
  req('VALIDATION-SCHEMA-VALID-ACCEPTED', '@schema-inputs', '@generic'),
  async ({ target, profile }) => {
    const failures: string[] = [];
    const inputs = await schemaInputs(profile);
    const runs = generatedCases(profile, inputs.length);
    for (const { schema, base } of inputs) {
      const path = schema.collection.path;
      try {
        await assertProperty(
          `POST ${path}: a body valid against the schema is accepted`,
          validBodies(schema, base),
          async (template, record) => {
            const response = await target.client.post(path, fillTemplate(template));
            record(response);
            expect(succeeded(response), `a 2xx: ${exchangeText(response)}`).toBe(true);
          },
          // A schema that leaves the profile's body nothing to vary gets that one body, once, and its bounds.
          {
            runs: JSON.stringify(variedBody(schema, base)) === JSON.stringify(base) ? 1 : runs,
            examples: [base, ...boundaryBodies(schema, base)],
          },
        );
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  },
);
