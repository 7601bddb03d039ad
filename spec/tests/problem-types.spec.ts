/**
 * spec/problem-types.ts holds the typed-problem base that the reference server, the suite and the
 * client harness import; it must be the base the catalogue, the schemas and the OpenAPI description state.
 */
import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { PROBLEM_TYPE_BASE } from '../problem-types.ts';
import { getSchema } from '../schemas.ts';

const read = (file: string): string => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');

test('the typed-problem base is the one the catalogue, the schemas and openapi.yaml state', () => {
  const catalogue = JSON.parse(read('requirements.json')) as { requirements: { id: string; source?: { quote?: string } }[] };
  const typeCatalogue = catalogue.requirements.find((r) => r.id === 'PROBLEM-TYPE-CATALOGUE');
  expect(typeCatalogue?.source?.quote).toContain(`\`${PROBLEM_TYPE_BASE}\``);
  const queryType = (getSchema('query-problem').properties as { type: { const: string } }).type.const;
  expect(queryType).toBe(`${PROBLEM_TYPE_BASE}invalid-query`);
  expect(read('openapi.yaml')).toContain(`${PROBLEM_TYPE_BASE}<name>`);
});
