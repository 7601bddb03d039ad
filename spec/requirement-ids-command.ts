/**
 * `npm run ids`: rewrites spec/requirement-ids.ts from spec/requirements.json (spec/requirement-ids-file.ts).
 * Run it after adding, renaming or removing a requirement; spec/tests/requirement-ids.spec.ts fails until then.
 */
import { writeFileSync } from 'node:fs';
import { currentRequirementIds, REQUIREMENT_IDS_PATH } from './requirement-ids-file.ts';

writeFileSync(REQUIREMENT_IDS_PATH, currentRequirementIds());
console.log(`wrote ${REQUIREMENT_IDS_PATH}`);
