/**
 * The client requirements the harness judges (conventions document sections 2, 5, 7 and 8), with
 * levels and titles read from the catalogue (spec/requirements.json through spec/catalogue.ts).
 */
import { loadCatalogue } from '../../spec/catalogue.ts';
import type { Catalogue, Level } from '../../spec/catalogue.ts';
import type { ClientRequirementId } from '../../spec/requirement-ids.ts';

export const ID = {
  retryable: 'CLIENT-RETRY-RETRYABLE',
  noRetry400422: 'CLIENT-NO-RETRY-400-422',
  noRetryOther4xx: 'CLIENT-NO-RETRY-OTHER-4XX',
  attemptCap: 'CLIENT-ATTEMPT-CAP',
  attemptsReference: 'CLIENT-ATTEMPTS-REFERENCE',
  timeout: 'CLIENT-TIMEOUT',
  timeoutReference: 'CLIENT-TIMEOUT-REFERENCE',
  surface: 'CLIENT-SURFACE-LAST-RESPONSE',
  retryAfter: 'CLIENT-RETRY-AFTER',
  exponential: 'CLIENT-BACKOFF-EXPONENTIAL',
  jitter: 'CLIENT-BACKOFF-JITTER',
  rateLimitWait: 'CLIENT-RATELIMIT-REMAINING-WAIT',
  keyPerOperation: 'CLIENT-IDEMPOTENCY-KEY-PER-OPERATION',
  keyStable: 'CLIENT-IDEMPOTENCY-KEY-STABLE',
  links: 'CLIENT-LINKS-FOLLOWED',
  bearer: 'CLIENT-BEARER-EVERY-REQUEST',
  ignoreUnknown: 'CLIENT-IGNORE-UNKNOWN-MEMBERS',
} as const satisfies Record<string, ClientRequirementId>;

export interface ClientRequirement {
  id: string;
  level: Level;
  title: string;
}

/** Levels used only for an ID the catalogue does not list (the catalogue wins otherwise). */
const FALLBACK_LEVELS: Record<string, Level> = {
  [ID.noRetryOther4xx]: 'SHOULD',
  [ID.ignoreUnknown]: 'SHOULD',
  [ID.attemptsReference]: 'SHOULD',
  [ID.timeoutReference]: 'SHOULD',
};

/**
 * Every requirement the harness reports on: the catalogue's client requirements testable by the
 * harness, plus any ID the harness checks that the catalogue lacks (with its fallback level).
 */
export function loadClientRequirements(catalogue: Catalogue = loadCatalogue()): ClientRequirement[] {
  const listed = catalogue.requirements
    .filter((r) => r.party === 'client' && r.testable === 'client-harness')
    .map((r) => ({ id: r.id, level: r.level, title: r.summary }));
  const known = new Set(listed.map((r) => r.id));
  const missing = Object.values(ID)
    .filter((id) => !known.has(id))
    .map((id) => ({ id, level: FALLBACK_LEVELS[id] ?? 'MUST', title: id }));
  return [...listed, ...missing];
}
