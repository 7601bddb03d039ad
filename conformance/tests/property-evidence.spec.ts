/**
 * D-FINDINGS on a property: the failure's evidence is the shrunk counterexample's exchange, not the
 * last request the property sent. Shrinking sends passing cases after the counterexample (here
 * `BREW`, which Node's parser refuses with the 400 the rule accepts), and the headline once named
 * one of those.
 */
import { test, expect } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { standardMethods } from '../arbitraries/http-method.ts';
import { onResponse } from '../../fixtures/broken/support/middleware.ts';
import { startVariant } from '../../fixtures/broken/start.ts';
import type { BrokenVariant } from '../../fixtures/broken/variant.ts';
import { readResults } from '../../spec/results.ts';
import { runCli, tempOut } from './support/subprocess.ts';

/**
 * A router that answers an extension method it knows (PROPFIND, MKCOL) 404 instead of 405 on item
 * routes only: the property's examples (PROPFIND and BREW on every route) find it on every seed, and
 * its shrinking tries passing cases (the collection route, BREW) after the counterexample.
 */
const extensionMethods404: BrokenVariant = {
  name: 'extension-methods-404-on-items',
  description: 'a method the router has no handler for at all is a 404 on an item route, not a 405 with Allow',
  breaks: ['METHOD-NOT-ALLOWED-405'],
  wrapApp(app) {
    onResponse(app, (ctx) => {
      if (ctx.status === 405 && !standardMethods.includes(ctx.method) && /\/\d+$/.test(ctx.path)) {
        ctx.remove('Allow');
        ctx.status = 404;
      }
    });
  },
};

test('a property finding shows the shrunk counterexample\'s exchange in its headline', async () => {
  test.setTimeout(120_000);
  const target = await startVariant(extensionMethods404);
  try {
    const dir = tempOut('property-evidence');
    const file = join(dir, 'profile.json');
    writeFileSync(file, JSON.stringify(target.profile));
    const har = join(dir, 'run.har');
    const run = await runCli(['--profile', file, '--out', join(dir, 'out'), '--har', har, '--grep', '@METHOD-NOT-ALLOWED-405(?![A-Za-z0-9-])'], {}, 110_000);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const results = readResults(join(dir, 'out', 'results.json'));
    const record = results.requirements
      .find((r) => r.id === 'METHOD-NOT-ALLOWED-405')
      ?.tests.find((t) => t.title.startsWith('every method on every route') && t.status === 'failed');
    expect(record, 'the method property failed').toBeDefined();
    const error = record?.error ?? '';
    // The property's own report: the counterexample and its exchange (support/property.ts).
    const exchange = /^ {2}exchange: (\S+) (\S+) → (\d+)/m.exec(error);
    expect(exchange, error).not.toBeNull();
    const [, method = '', url = '', status = ''] = exchange ?? [];
    expect(/^ {2}counterexample: .*$/m.exec(error)?.[0], 'the exchange is the counterexample\'s').toContain(`"${method}"`);
    expect(status).toBe('404');
    expect(record?.headline, 'the headline names the counterexample\'s request and answer').toMatch(
      new RegExp(`^${method} ${new URL(url).pathname.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*→ 404;`),
    );
    expect(record?.exchange?.request.method).toBe(method);
    // The premise: shrinking sent passing cases after the counterexample, so the last request is not the evidence.
    type Har = { log: { entries: { comment?: string; request: { method: string; url: string } }[] } };
    const entries = (JSON.parse(readFileSync(har, 'utf8')) as Har).log.entries.filter((e) => e.comment?.includes(record?.title ?? '-'));
    const last = entries.at(-1)?.request;
    expect(`${last?.method} ${last?.url}`, 'requests followed the counterexample').not.toBe(`${method} ${url}`);
  } finally {
    await target.close();
  }
});
