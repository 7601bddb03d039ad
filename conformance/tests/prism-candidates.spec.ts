/**
 * The Prism mocks of the corpus (support/prism-mock.ts) hand Prism's router only the operations whose
 * path it could match (`candidatesFor`), not the whole document. That is a shortcut through code this
 * project did not write, so it must never change an answer: for paths around a sample of the operations
 * of real documents (parameters filled, encoded, cut short, made longer, unknown, upper-cased) and four
 * methods, Prism answers the same status, headers and body, or the same error, from the candidates as
 * from every operation.
 */
import { test, expect } from '@playwright/test';
import { candidatesFor, createPrism, prismOperations } from './support/prism-mock.ts';
import { CORPUS_ABSENT, corpusPath } from './support/openapi-corpus.ts';

/** Documents with many operations, nested templates and literal segments beside templated ones. */
const DOCUMENTS = ['fusionauth.yaml', 'twilio-messaging-v1.yaml', 'oai-petstore-expanded.json'];
const METHODS = ['get', 'post', 'delete', 'head'];
/** Operations taken from each document, spread over it: each request Prism routes through all of them costs ~10 ms. */
const SAMPLE = 30;

/** Request paths around one operation path: its parameters filled in three ways, and near misses. */
function pathsAround(template: string): string[] {
  const filled = (value: string) => template.replace(/{[^}]+}/g, value);
  return [
    filled('abc'),
    filled('42'),
    filled('caf%C3%A9%2Fx'),
    `${filled('abc')}/`,
    `${filled('abc')}/extra`,
    filled('abc').split('/').slice(0, -1).join('/') || '/',
    `/unknown${filled('abc')}`,
    filled('abc').toUpperCase(),
  ];
}

for (const document of DOCUMENTS) {
  test(`${document}: Prism answers every request the same from the candidate operations as from all`, async () => {
    test.skip(CORPUS_ABSENT !== undefined, CORPUS_ABSENT ?? '');
    const operations = await prismOperations(corpusPath(document));
    const candidates = candidatesFor(operations);
    const prism = createPrism();
    const step = Math.max(1, Math.floor(operations.length / SAMPLE));
    const sampled = operations.filter((_, i) => i % step === 0);
    const paths = [...new Set([...sampled.flatMap((o) => pathsAround(o.path)), '/', '/no/such/route', 'relative'])];
    let compared = 0;
    let narrowed = 0;
    for (const path of paths) {
      const few = candidates(path);
      if (few.length < operations.length) narrowed += 1;
      for (const method of METHODS) {
        const input = { method, url: { path, query: {} }, headers: { 'content-type': 'application/json' }, body: undefined };
        const [fromAll, fromFew] = await Promise.all([prism.request(input, operations)(), prism.request(input, few)()]);
        // Prism's own output, either side of its Either: the mocked response, or the error it answers with.
        const answer = (result: typeof fromAll) =>
          result._tag === 'Right'
            ? { status: result.right.output.statusCode, headers: result.right.output.headers, body: result.right.output.body }
            : { name: result.left.name, status: result.left.status, message: result.left.message, detail: result.left.detail };
        expect(answer(fromFew), `${method.toUpperCase()} ${path}`).toEqual(answer(fromAll));
        compared += 1;
      }
    }
    test.info().annotations.push({
      type: 'compared',
      description: `${compared} requests around ${sampled.length} of ${operations.length} operations; ${narrowed} of ${paths.length} paths narrowed`,
    });
    expect(narrowed, 'the candidates are fewer than all operations for most paths').toBeGreaterThan(paths.length / 2);
  });
}
