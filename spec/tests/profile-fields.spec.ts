/**
 * A profile member is declared once, in spec/schemas/target-profile.schema.json: spec/profile-fields.ts
 * reads every member at any depth (local `$ref`s followed), and the `x-turnsOn` annotations give
 * README.md's table "What each field turns on" (spec/profile-field-table.ts), each row saying what the
 * suite does with the member and what happens without it.
 */
import { test, expect } from '@playwright/test';
import { fieldRows, renderFieldTable } from '../profile-field-table.ts';
import { profileField, profileFields, withoutIt } from '../profile-fields.ts';

test('the members are read at every depth, in the schema order, through items and $ref', () => {
  const paths = profileFields().map((f) => f.path);
  expect(paths).toEqual(expect.arrayContaining(['tokens.limited.request.body', 'collections[]', 'collections[].invalid.fields', 'runs.properties']));
  expect(paths.indexOf('tokens')).toBeLessThan(paths.indexOf('tokens.valid'));
  // A $ref is followed, the member's own description kept over the referenced one.
  expect(profileField('collections[]').schema.description).toBe('One collection of the target and what the checks may do with it.');
  expect(profileField('tokens.valid').schema.description).toMatch(/^Required\. The main caller/);
  expect(profileField('tokens.valid').schema).toMatchObject({ minLength: 1 });
  expect(profileField('protected').schema.properties?.method).toBeDefined();
  expect(() => profileField('tokens.nope')).toThrow(/declares no member tokens\.nope/);
});

test('without a member: "required" when the parent requires it, then its x-turnsOn "without", else its default', () => {
  expect(withoutIt(profileField('tokens.valid'))).toBe('required');
  expect(withoutIt(profileField('baseUrls'))).toBe('required; `--target URL` replaces it');
  expect(withoutIt(profileField('runs.properties'))).toBe(String(profileField('runs.properties').schema.default));
  expect(withoutIt(profileField('idempotency'))).toBe('the idempotency group is skipped');
  expect(withoutIt(profileField('tokens.limited.token'))).toBe('required');
  expect(() => withoutIt(profileField('description'))).toThrow(/ description: neither required/);
});

test('every x-turnsOn row says what happens without it; a shared row names siblings that have no row of their own', () => {
  const rows = fieldRows();
  expect(rows.length).toBeGreaterThanOrEqual(10);
  const annotated = profileFields().filter((f) => f.schema['x-turnsOn'] !== undefined);
  for (const field of annotated) {
    expect(field.schema.description, `${field.path} has a description`).toBeTruthy();
    for (const sibling of field.schema['x-turnsOn']?.sharedWith ?? []) {
      const path = `${field.path.slice(0, field.path.lastIndexOf('.') + 1)}${sibling}`;
      expect(profileField(path).schema['x-turnsOn'], `${path} shares the row of ${field.path}`).toBeUndefined();
    }
  }
  expect(new Set(rows.map((r) => r.field)).size, 'one row per member').toBe(rows.length);
  expect(renderFieldTable([{ field: '`x`', with: 'a | b', without: 'c' }]).split('\n')[2]).toBe('| `x` | a \\| b | c |');
});
