/**
 * `init` judged on public OpenAPI documents nobody here wrote (tests/support/openapi-corpus.ts): each
 * gives either exit 0 with a profile `run` accepts (schema-valid, no TODO marker once a --target is
 * given), or exit 2 with one message naming what the document lacks and what to do. Never exit 0
 * with a profile `run` refuses. The per-document outcome, time, and collections and methods
 * extracted against what the document has are attached as annotations (the table of the issue note).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { parse as parseYaml } from 'yaml';
import { initCommand } from '../init/command.ts';
import { parseProfile, todoMarkers, withTargets } from '../../conformance/target/profile.ts';
import type { ProfileDocument } from '../../conformance/target/profile.ts';
import { CORPUS_ABSENT, corpusDocuments, corpusPath } from '../../conformance/tests/support/openapi-corpus.ts';
import { tempOut } from '../../conformance/tests/support/subprocess.ts';

const OPERATION_KEYS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace'];

/** What each document must give: the exit code and, for exit 2, words of the one message. */
const EXPECTED: Record<string, { code: 0; collections: string[]; todo?: string[] } | { code: 2; says: string }> = {
  'apideck-accounting.yml': {
    code: 0,
    collections: [
      '/accounting/tax-rates', '/accounting/bills', '/accounting/invoices', '/accounting/ledger-accounts', '/accounting/invoice-items',
      '/accounting/credit-notes', '/accounting/customers', '/accounting/suppliers', '/accounting/payments', '/accounting/refunds',
      '/accounting/journal-entries', '/accounting/general-ledger-transactions', '/accounting/sales-receipts', '/accounting/purchase-orders',
      '/accounting/subsidiaries', '/accounting/locations', '/accounting/departments', '/accounting/bank-accounts', '/accounting/tracking-categories',
      '/accounting/bill-payments', '/accounting/expenses', '/accounting/bank-feed-accounts', '/accounting/bank-feed-statements',
      '/accounting/categories', '/accounting/quotes', '/accounting/projects', '/accounting/employees', '/accounting/expense-categories',
      '/accounting/expense-reports',
    ],
  },
  'fusionauth.yaml': {
    code: 0,
    collections: [
      '/api/api-key', '/api/application', '/api/connector', '/api/consent', '/api/email/template', '/api/entity', '/api/entity/type', '/api/form',
      '/api/form/field', '/api/group', '/api/identity-provider', '/api/ip-acl', '/api/jwt/refresh', '/api/key', '/api/key/generate', '/api/key/import',
      '/api/lambda', '/api/message/template', '/api/messenger', '/api/system/audit-log', '/api/tenant', '/api/tenant/password-validation-rules',
      '/api/theme', '/api/two-factor/send', '/api/two-factor/status', '/api/user', '/api/user-action', '/api/user-action-reason', '/api/user/action',
      '/api/user/change-password', '/api/user/comment', '/api/user/consent', '/api/user/family', '/api/user/registration', '/api/webauthn',
      '/api/webhook',
    ],
  },
  'algolia-search/specs/search/spec.yml': {
    code: 0,
    collections: ['/1/keys', '/1/clusters/mapping', '/1/security/sources', '/1/indexes'],
    // Two API keys required together: the secret one is the token, the application id a parameter left to the user.
    todo: ['/parameters/headers/x-algolia-application-id'],
  },
  'matrix-password-management/data/api/client-server/password_management.yaml': {
    code: 2,
    says: 'no collection: no path of this document has an item path below it',
  },
  'vonage-application-v2/definitions/application.v2.yml': { code: 2, says: 'no collection: the collection is the server URL itself (/ and /{id} under' },
  'google-maps-platform.yml': { code: 2, says: 'no collection: no path of this document has an item path below it' },
  'paddle-billing.yaml': {
    code: 0,
    collections: [
      '/products', '/prices', '/transactions', '/customers', '/notification-settings', '/notifications', '/simulations', '/discounts',
      '/subscriptions', '/reports',
    ],
  },
  'pingone-davinci.yaml': { code: 0, collections: ['/environments'] },
  'museum.yaml': { code: 0, collections: ['/special-events'] },
  'oai-api-with-examples.yaml': { code: 2, says: 'no collection: no path of this document has an item path below it' },
  'oai-callback-example.json': { code: 2, says: 'no collection: this document describes subscriptions and their callbacks only (POST /streams)' },
  'oai-link-example.yaml': { code: 2, says: 'no collection: every collection of this document is nested under a path parameter' },
  'oai-non-oauth-scopes.json': { code: 2, says: 'no collection: no path of this document has an item path below it' },
  'oai-petstore-expanded.json': { code: 0, collections: ['/pets'] },
  'oai-petstore.yaml': { code: 0, collections: ['/pets'] },
  'oai-uspto.yaml': { code: 2, says: 'no collection: no path of this document has an item path below it' },
  'oai-v2-petstore.yaml': { code: 2, says: 'Swagger 2.0: init reads OpenAPI 3.0 and 3.1 documents. Convert it with "npx swagger2openapi' },
  'oai-webhook-example.yaml': { code: 2, says: 'no collection: this document describes webhooks only (newPet)' },
  'swagger-petstore3.yaml': { code: 0, collections: ['/pet', '/store/order', '/user'] },
  'twilio-messaging-v1.yaml': { code: 0, collections: ['/v1/a2p/BrandRegistrations', '/v1/Services', '/v1/Tollfree/Verifications'] },
};

/** Runs init in this process with every value given (the tokens, the limited token's request), capturing what it prints. */
async function init(openapi: string, out: string, limitedRequest: string): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const { log, error } = console;
  console.log = (...args: unknown[]) => void stdout.push(args.join(' '));
  console.error = (...args: unknown[]) => void stderr.push(args.join(' '));
  const started = performance.now();
  try {
    const args = ['--openapi', openapi, '--out', out, '--token', 'tok-a', '--token', 'tok-b', '--limited-token', 'tok-c'];
    args.push('--limited-request', limitedRequest, '--rate-limit-token', 'tok-d');
    const code = await initCommand(args, { interactive: false });
    return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n'), ms: performance.now() - started };
  } finally {
    console.log = log;
    console.error = error;
  }
}

/** The document's own counts: paths, operations, and collection-shaped pairs (a path and its `{param}` child, nested ones too). */
function documentCounts(file: string): { paths: number; operations: number; pairs: number } {
  const text = readFileSync(corpusPath(file), 'utf8');
  const doc = parseYaml(text) as { paths?: Record<string, Record<string, unknown>> };
  const paths = Object.keys(doc.paths ?? {});
  const operations = Object.values(doc.paths ?? {}).reduce((n, item) => n + Object.keys(item).filter((k) => OPERATION_KEYS.includes(k)).length, 0);
  const pairs = paths.filter((p) => paths.some((q) => q.startsWith(`${p}/{`) && /^\/\{[^}/]+\}$/.test(q.slice(p.length)))).length;
  return { paths: paths.length, operations, pairs };
}

test.describe('init over the OpenAPI corpus', () => {
  test.skip(CORPUS_ABSENT !== undefined, CORPUS_ABSENT ?? '');
  const documents = corpusDocuments();

  test('every document of the corpus has its expected outcome listed here', () => {
    expect(documents).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const file of documents) {
    test(`${file}: exit 0 with a profile run accepts, or exit 2 naming what is lacking`, async () => {
      const out = join(tempOut('init-corpus'), 'profile.json');
      const expected = EXPECTED[file];
      // Every value init cannot read from a document is given, as a user would: the limited token's request on a collection.
      const result = await init(corpusPath(file), out, `POST ${expected?.code === 0 ? expected.collections[0] : '/'}`);
      const counts = documentCounts(file);
      let extracted: string;
      if (result.code === 0) {
        const profile = JSON.parse(readFileSync(out, 'utf8')) as ProfileDocument;
        // What `run --target URL` does with it: the base URLs replaced, then validated; a TODO marker is a refusal.
        const targeted = withTargets(profile, ['http://127.0.0.1:9']);
        const todo = expected?.code === 0 ? (expected.todo ?? []) : [];
        expect(todoMarkers(targeted).map((m) => m.split(': ')[0]), result.stdout).toEqual(todo);
        const given = (_k: string, v: unknown): unknown => (typeof v === 'string' && v.startsWith('TODO:') ? 'given' : v);
        const filled = JSON.parse(JSON.stringify(targeted, given)) as ProfileDocument;
        const parsed = parseProfile(filled, file);
        const methods = parsed.collections.reduce((n, c) => n + c.methods.length + (c.itemMethods?.length ?? 0), 0);
        extracted = `${parsed.collections.length} collections, ${methods} methods (HEAD/OPTIONS assumed included)`;
        if (expected?.code === 0) {
          expect([...parsed.collections.map((c) => c.path)].sort()).toEqual([...expected.collections].sort());
          // The first collection, where most checks create, read and list, has all three when one does.
          const complete = (c: (typeof parsed.collections)[number]): boolean =>
            c.create !== undefined && c.methods.includes('GET') && (c.itemMethods ?? []).includes('GET');
          if (parsed.collections.some(complete)) expect(complete(parsed.collections[0] as (typeof parsed.collections)[number])).toBe(true);
        } else expect(result.code, `${file} was expected to be refused: ${result.stdout}`).toBe(expected?.code);
      } else {
        expect(result.code, result.stderr).toBe(2);
        expect(expected?.code, `${file}: ${result.stderr}`).toBe(2);
        if (expected?.code === 2) expect(result.stderr).toContain(expected.says);
        // One message, naming the document.
        expect(result.stderr.split('\n').filter((l) => l.startsWith('http-api-conformance init:'))).toHaveLength(1);
        extracted = result.stderr.replace(/^http-api-conformance init: [^:]+: /, '').slice(0, 90);
      }
      test.info().annotations.push({
        type: 'corpus',
        description:
          `| ${file} | exit ${result.code} | ${Math.round(result.ms)} ms | ${counts.paths} paths, ${counts.operations} operations, ` +
          `${counts.pairs} path+{param} pairs | ${extracted} |`,
      });
      console.log(test.info().annotations.at(-1)?.description);
    });
  }
});
