/**
 * The suite judges servers it did not write, described by documents nobody here wrote: for every
 * document of the corpus (tests/support/openapi-corpus.ts) that has a collection, a Stoplight Prism
 * mock of it (tests/support/prism-mock.ts), `init --target` against the mock, then a whole `run`.
 *
 * A static mock keeps no state, takes any credential of the right form and limits nothing, and Prism
 * answers its own errors in its own way. Every MUST the mock of a document fails is listed below as
 * data, with the reason that failure is true of the mock (`STATIC_MOCK` for what holds of any static
 * mock, `PRISM` for Prism's own answers, the document's entries for what its own design says): a
 * document lists the shared failures its mock passes (`passes`) and its own (`own`). Any other MUST
 * failure is a false alarm of the suite or of init, and fails the test; a listed one that passed
 * means the list is stale.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { readResults } from '../../spec/results.ts';
import { CORPUS_ABSENT, corpusPath } from './support/openapi-corpus.ts';
import { startPrismMock } from './support/prism-mock.ts';
import { runCli, runNode, compiledCli, tempOut } from './support/subprocess.ts';

/**
 * The state check (D-STATE-MODEL) reports a failing run under the one rule its shrunk sequence broke. A
 * static mock breaks both of these: a read answers its example (STATE-CHANGES-SEEN), and a listing shows
 * the example whose id the create answered after that item was deleted (COLLECTION-LISTS-LIVE-ITEMS).
 * Which one a run reports depends on the sequence fast-check drew, so either stands for the other.
 */
const STATE_RULES = ['STATE-CHANGES-SEEN', 'COLLECTION-LISTS-LIVE-ITEMS'];
const stateRulesAsOne = (ids: readonly string[]): string[] => ids.map((id) => (STATE_RULES.includes(id) ? STATE_RULES.join(' or ') : id)).sort();

/** True of any static mock: no credentials checked beyond their form, no state kept, no limit. */
const STATIC_MOCK: Record<string, string> = {
  'STATELESS-SELF-CONTAINED': 'the mock checks no token: a request without one after a valid one is answered 200, not 401',
  'STATELESS-NO-SESSION': 'the mock checks no token: a request with only a session cookie is answered 200, not 401',
  'AUTH-STATELESS': 'the mock checks no token: a request without one is answered 200',
  'AUTH-401-MISSING': 'the mock answers without a token (the operation declares no security, or Prism lets it through)',
  'AUTH-401-INVALID': 'the mock accepts any token of the right form',
  'AUTH-401-MALFORMED': 'the mock accepts an Authorization header of another scheme',
  'AUTH-403-PERMISSION': "the mock has no permissions: the limited token's write is answered 2xx",
  'AUTH-WWW-AUTHENTICATE': 'the mock answers no 401 with a Bearer challenge',
  'AUTH-BEARER-HEADER':
    "the mock checks no token's value: where the document declares no security a token only in a cookie is let in, and Prism refuses " +
    'the scheme written `bearer`, which RFC 9110 §11.1 makes case-insensitive',
  'MESSAGE-SELF-DESCRIPTIVE': 'a static mock answers an unknown id 200 with the example, so the status does not tell failure',
  'STATUS-404-UNKNOWN-RESOURCE': 'a static mock answers an unknown id 200 with the example',
  'STATUS-4XX-CLIENT-FAULT': 'a static mock answers an unknown id 200',
  'METHOD-DELETE-IDEMPOTENT': 'a static mock deletes nothing: the item still reads 200 after DELETE',
  'METHOD-POST-NOT-IDEMPOTENT': 'a static mock answers every POST with the same example: no second resource',
  'URL-RESOURCE-IDENTIFIED': 'a static mock answers the read with its example, not what was created',
  'URL-UNIFORM-INTERFACE': 'a static mock answers the read with its example, not the representation the create returned',
  'URL-QUERY-NOT-PATH': 'a static mock answers any id, `filter` and `page` too, 200 with its example',
  'METHOD-PUT-IDEMPOTENT': 'a static mock answers the read after a PUT with its example, not the replacement',
  'STATE-CHANGES-SEEN': 'a static mock answers the read with its example: not what was created or replaced, and 200 after a DELETE',
  'PROBLEM-CONTENT-TYPE': 'the unknown-id probes are answered 200 with the example (a static mock): no problem document where one is due',
  'PROBLEM-TYPE-URI': 'the unknown-id probes are answered 200 with the example (a static mock): no problem type where one is due',
  'PROBLEM-SAME-ENVELOPE': "the unknown-id probes are answered 200 with the example, and Prism's own errors lack instance: not one problem envelope",
  'STATUS-413-BODY-TOO-LARGE': 'the mock has no body size limit: a body over it is validated and answered as any other',
  'STATUS-415-MEDIA-TYPE': 'a body without a JSON media type is not answered 415 by the mock',
  'CACHE-CONTROL-DECLARED': "the mock's responses carry no Cache-Control",
  'RATE-LIMIT-429': 'the mock has no rate limit: no RateLimit headers, no 429',
  'RATE-LIMIT-PER-CALLER': 'the mock has no rate limit',
  'RATE-LIMIT-PROBLEM-BODY': 'the mock has no rate limit',
  'RATE-LIMIT-HEADER-LIMIT': 'the mock has no rate limit',
  'RATE-LIMIT-HEADER-REMAINING': 'the mock has no rate limit',
  'RATE-LIMIT-HEADER-RESET': 'the mock has no rate limit',
  'RATE-LIMIT-RETRY-AFTER': 'the mock has no rate limit',
  'RATE-LIMIT-RETRY-AFTER-HONEST': 'the mock has no rate limit',
  'RATE-LIMIT-BURST-CAPACITY': 'the mock has no rate limit',
  'RATE-LIMIT-REFILL-RATE': 'the mock has no rate limit',
  'RATE-LIMIT-ONE-TOKEN-PER-REQUEST': 'the mock has no rate limit',
  'RATE-LIMIT-NO-ADMISSION-BEYOND-ANNOUNCED': 'the mock has no rate limit',
  'IDEMPOTENCY-429-NOT-STORED': 'the mock has no rate limit: no 429 to replay (a consequence of RATE-LIMIT-429 in the findings)',
};

/** Prism's own answers (tests/support/prism-mock.ts answers its errors as `prism mock` does). */
const PRISM: Record<string, string> = {
  'METHOD-NOT-ALLOWED-405': "Prism's 405 problem document has no instance member",
  'METHOD-ALLOW-HEADER': "Prism's 405 carries no Allow header",
  'STATUS-404-UNKNOWN-ROUTE': "Prism's 404 problem document has no instance member",
  'PROBLEM-INSTANCE': "Prism's problem documents carry no instance",
  'PROBLEM-MEMBERS': "Prism's problem documents lack instance",
  'PROBLEM-STATUS-MATCHES': 'the provoked errors are not all answered with their status (an unknown id 200, malformed JSON 422)',
  'STATUS-400-MALFORMED-JSON': "malformed JSON is answered 422 by Prism's request validation, not 400",
};

interface CorpusMock {
  /** The MUSTs of STATIC_MOCK and PRISM that the mock of this document passes (its design leaves them nothing to fail). */
  passes?: string[];
  /** The failures that come from the document's own design, with the reason (it overrides STATIC_MOCK's and PRISM's). */
  own?: Record<string, string>;
  /** The limited token's request, where the document says nothing of permissions (as a user gives `--limited-request`). */
  limitedRequest?: string;
}

/** The failures of a document whose errors are not problem documents with an `errors` array: `shape` is what they are. */
function errorsAre(shape: string): Record<string, string> {
  const reason = `the document's errors are ${shape}, not problem documents with an errors array`;
  const ids = [
    'STATUS-422-INVALID-VALUES', 'PROBLEM-CONTENT-TYPE', 'PROBLEM-TYPE-URI', 'PROBLEM-SAME-ENVELOPE', 'VALIDATION-422-ERRORS-ARRAY',
    'VALIDATION-ERROR-ITEM-SHAPE', 'VALIDATION-ALL-FIELDS', 'VALIDATION-SCHEMA-SINGLE-FAULT',
  ];
  return Object.fromEntries(ids.map((id) => [id, reason]));
}

const CORPUS_MOCKS: Record<string, CorpusMock> = {
  'algolia-search/specs/search/spec.yml': {
    passes: ['AUTH-401-MALFORMED', 'AUTH-STATELESS', 'AUTH-WWW-AUTHENTICATE', 'STATELESS-NO-SESSION'],
    own: {
      ...errorsAre('{message} as application/json (its ErrorBase)'),
      'AUTH-BEARER-HEADER': 'the document\'s scheme is an API key in x-algolia-api-key, not Bearer (one finding, D-SHAPES)',
      'URL-COLLECTION-PLURAL': '/1/clusters/mapping ends in a singular noun in the document',
      'URL-ITEM-BY-ID': 'POST /1/clusters/mapping answers {createdAt} only: the id is the X-Algolia-User-ID header sent, the answer names no item',
    },
  },
  'apideck-accounting.yml': {
    passes: ['AUTH-BEARER-HEADER', 'AUTH-STATELESS', 'METHOD-PUT-IDEMPOTENT', 'STATELESS-NO-SESSION'],
    own: {
      ...errorsAre('{status_code, error, type_name, message, detail} as application/json'),
    },
  },
  'fusionauth.yaml': {
    passes: ['AUTH-BEARER-HEADER', 'AUTH-STATELESS', 'STATELESS-NO-SESSION'],
    own: {
      ...errorsAre('{fieldErrors, generalErrors} as application/json'),
      'URL-COLLECTION-PLURAL': '/api/application and /api/user are singular in the document',
      'URL-ITEM-BY-ID': 'POST /api/jwt/refresh answers a new token pair {token, refreshToken}, not a created item with its id',
      'STATUS-200-READ': 'GET /api/user/change-password is a check the document declares 200 with no body: no representation to read',
    },
  },
  'museum.yaml': {
    passes: [
      'AUTH-401-MALFORMED', 'AUTH-STATELESS', 'AUTH-WWW-AUTHENTICATE', 'METHOD-PUT-IDEMPOTENT', 'STATELESS-NO-SESSION', 'STATELESS-SELF-CONTAINED',
      'URL-QUERY-NOT-PATH',
    ],
    own: {
      ...errorsAre('its example {"type": "object", "title": "Validation failed"} (type is no URI), and a 400 for invalid values'),
      'AUTH-BEARER-HEADER': 'the document\'s scheme is HTTP Basic, not Bearer (one finding, D-SHAPES)',
    },
  },
  'oai-petstore-expanded.json': {
    limitedRequest: 'POST /pets',
    passes: ['METHOD-PUT-IDEMPOTENT', 'URL-QUERY-NOT-PATH', 'URL-RESOURCE-IDENTIFIED', 'URL-UNIFORM-INTERFACE'],
    own: {
      ...errorsAre('its Error schema {code, message} as application/json'),
    },
  },
  'oai-petstore.yaml': {
    limitedRequest: 'POST /pets',
    passes: ['METHOD-DELETE-IDEMPOTENT', 'METHOD-PUT-IDEMPOTENT', 'STATE-CHANGES-SEEN'],
    own: {
      ...errorsAre('its Error schema {code, message} as application/json'),
      'URL-ITEM-BY-ID': 'the 201 to POST /pets has no body ("Null response") and no Location: nothing names the created item',
    },
  },
  'paddle-billing.yaml': {
    passes: ['AUTH-STATELESS', 'METHOD-PUT-IDEMPOTENT', 'STATELESS-NO-SESSION', 'URL-UNIFORM-INTERFACE'],
    own: {
      ...errorsAre('{error: {type, code, detail, documentation_url}, meta} as application/json'),
    },
  },
  'pingone-davinci.yaml': {
    passes: ['AUTH-STATELESS', 'STATELESS-NO-SESSION'],
    own: {
      ...errorsAre('{id, code, message, details} with the media type */*'),
      'JSON-REPRESENTATIONS': 'the document declares its error answers with the media type */*, which the mock sends',
      'URL-ITEM-BY-ID': 'the mock\'s links are the document\'s placeholders (`string`, `http://example.com`), which the suite follows as the item\'s URL',
      'URL-RESOURCE-IDENTIFIED': 'the mock\'s links are the document\'s placeholders (`string`, `http://example.com`), which the suite follows as the item\'s URL',
      'URL-QUERY-NOT-PATH': 'the mock\'s links are the document\'s placeholders (`string`, `http://example.com`), which the suite follows as the item\'s URL',
      'LINKS-HREF-RESOLVES': 'the mock\'s links are the document\'s placeholders (`string`, `http://example.com`), which the suite follows as the item\'s URL',
      'METHOD-GET-IDEMPOTENT': 'the mock\'s links are the document\'s placeholders (`string`, `http://example.com`), which the suite follows as the item\'s URL',
      'METHOD-PUT-IDEMPOTENT': 'the mock\'s links are the document\'s placeholders (`string`, `http://example.com`), which the suite follows as the item\'s URL',
      'METHOD-DELETE-IDEMPOTENT': 'the mock\'s links are the document\'s placeholders (`string`, `http://example.com`), which the suite follows as the item\'s URL',
      'STATUS-200-READ': 'the mock\'s links are the document\'s placeholders (`string`, `http://example.com`), which the suite follows as the item\'s URL',
    },
  },
  'swagger-petstore3.yaml': {
    passes: [
      'AUTH-STATELESS', 'METHOD-PUT-IDEMPOTENT', 'STATELESS-NO-SESSION', 'URL-QUERY-NOT-PATH', 'URL-RESOURCE-IDENTIFIED', 'URL-UNIFORM-INTERFACE',
    ],
    own: {
      ...errorsAre('a 422 ("Validation exception") with no body'),
      'URL-COLLECTION-PLURAL': '/pet is singular in the document',
    },
  },
  'twilio-messaging-v1.yaml': {
    limitedRequest: 'POST /v1/Services',
    passes: [
      'AUTH-401-MALFORMED', 'AUTH-WWW-AUTHENTICATE', 'METHOD-DELETE-IDEMPOTENT', 'METHOD-POST-NOT-IDEMPOTENT', 'METHOD-PUT-IDEMPOTENT',
      'STATELESS-NO-SESSION', 'STATUS-415-MEDIA-TYPE', 'URL-QUERY-NOT-PATH', 'URL-RESOURCE-IDENTIFIED', 'URL-UNIFORM-INTERFACE', 'STATE-CHANGES-SEEN',
    ],
    own: {
      'AUTH-BEARER-HEADER': 'the document\'s scheme is HTTP Basic, not Bearer (one finding, D-SHAPES)',
    },
  },
};

/** A credential every document's scheme takes in form: Basic wants base64 `user:password`, Bearer and API keys any token. */
const credential = (user: string): string => Buffer.from(`${user}:password`).toString('base64');

test.describe('Prism mocks of the corpus documents, judged by init --target and run', () => {
  test.skip(CORPUS_ABSENT !== undefined, CORPUS_ABSENT ?? '');
  // A whole run: 10-25 s each on a quiet machine (D-WORKER-KEPT); much longer inside a loaded npm test.
  test.describe.configure({ timeout: 12 * 60_000 });

  for (const [document, expected] of Object.entries(CORPUS_MOCKS)) {
    test(`${document}: every MUST failure is a true one, listed with its reason`, async () => {
      const shared = { ...STATIC_MOCK, ...PRISM };
      const passes = expected.passes ?? [];
      for (const id of passes) expect(Object.keys(shared), `${id} passes, but is no failure of a static mock or of Prism`).toContain(id);
      for (const id of passes) expect(Object.keys(expected.own ?? {}), `${id} both passes and fails`).not.toContain(id);
      // Every failure of a static mock and of Prism but those it passes, and the document's own, each with its reason.
      const fails = [...new Set([...Object.keys(shared).filter((id) => !passes.includes(id)), ...Object.keys(expected.own ?? {})])];
      const mock = await startPrismMock(corpusPath(document));
      try {
        const dir = tempOut('corpus-mock');
        const out = join(dir, 'profile.json');
        const init = await runNode([
          compiledCli(), 'init', '--openapi', corpusPath(document), '--target', mock.url, '--out', out,
          '--token', credential('a'), '--token', credential('b'), '--limited-token', credential('c'), '--rate-limit-token', credential('d'),
          ...(expected.limitedRequest ? ['--limited-request', expected.limitedRequest] : []),
        ]);
        // The smoke check finds the mock takes any token (no 401): exit 1, the profile is written.
        expect([0, 1], init.stdout + init.stderr).toContain(init.code);
        // A value init leaves to the user (an API key's companion header) is given, as the user would.
        const profileText = readFileSync(out, 'utf8').replace(/"TODO:[^"]*"/g, '"given"');
        writeFileSync(out, profileText);
        const run = await runCli(['--profile', out, '--target', mock.url, '--out', join(dir, 'results'), '--workers', '2'], {}, 10 * 60_000);
        expect(existsSync(join(dir, 'results', 'results.json')), `run exit ${run.code}: ${run.stdout.slice(-2000)}${run.stderr}`).toBe(true);
        const results = readResults(join(dir, 'results', 'results.json'));
        expect(results.complete, 'a whole run').toBe(true);
        const failed = results.requirements.filter((r) => r.level === 'MUST' && r.outcome === 'failed');
        const listing = failed.map((r) => `${r.id}: ${(r.tests.find((t) => t.status !== 'passed')?.error ?? '').split('\n')[0]?.slice(0, 200)}`);
        test.info().annotations.push({ type: 'must-failures', description: listing.join('\n') });
        test.info().annotations.push({ type: 'wall', description: `init ${Math.round(init.elapsedMs)} ms, run ${Math.round(run.elapsedMs)} ms` });
        console.log(`${document} (init ${Math.round(init.elapsedMs)} ms, run ${Math.round(run.elapsedMs)} ms)\n${listing.join('\n')}`);
        expect(run.code, run.stderr).toBe(failed.length > 0 ? 1 : 0);
        // A MUST failure not listed is a false alarm; a listed one that passed means the list is stale.
        expect(stateRulesAsOne(failed.map((r) => r.id)), listing.join('\n')).toEqual(stateRulesAsOne(fails));
        // D-FINDINGS: the mock has no rate limiter, one defect: at most one MUST finding breaks RATE-LIMIT- requirements.
        const mustFindings = (results.findings ?? []).filter((f) => f.level === 'MUST' && f.outcome === 'failed');
        const rateLimitFindings = mustFindings.filter((f) => f.breaks.some((id) => id.startsWith('RATE-LIMIT-')));
        expect(rateLimitFindings.map((f) => `${f.cause}: ${f.breaks.join(', ')}`), 'the absent rate limit is one finding').toHaveLength(
          failed.some((r) => r.id.startsWith('RATE-LIMIT-')) ? 1 : 0,
        );
      } finally {
        await mock.close();
      }
    });
  }
});
