/**
 * Broken variants run on the same server as `serve`: both start through `startServer`, so the Node
 * server options (a request without Host is answered, CONNECT and parser errors get problems, the
 * keep-alive timeout) are the same. Each raw exchange is sent to a `serve` child process and to
 * variants started by fixtures/broken/start.ts, and the answers must agree.
 */
import { expect, test } from '@playwright/test';
import { startVariant, REFERENCE } from '../../fixtures/broken/start.ts';
import cacheAccountPublic from '../../fixtures/broken/cache-account-public.ts';
import { rawRequest } from '../../reference-impl/tests/reliability/support/raw-http.ts';
import { startServerProcess } from '../../soak/server-process.ts';

/** Raw requests whose answers depend on the Node server options, with what `serve` answers. */
const EXCHANGES = [
  { name: 'no Host (requireHostHeader: false)', request: 'GET /users/1 HTTP/1.1\r\nConnection: close\r\n\r\n', status: 400 },
  { name: 'CONNECT (the connect handler)', request: 'CONNECT 127.0.0.1:9 HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n', status: 400 },
  { name: 'unknown method (the clientError handler)', request: 'BREW /users HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', status: 405 },
  { name: 'keep-alive (keepAliveTimeout)', request: 'GET /users/1 HTTP/1.1\r\nHost: x\r\n\r\n', status: 200 },
] as const;

async function answers(port: number) {
  const out: Record<string, { status: number; contentType: string | undefined; keepAlive: string | undefined }> = {};
  for (const exchange of EXCHANGES) {
    const response = await rawRequest(port, exchange.request);
    out[exchange.name] = { status: response.status, contentType: response.headers['content-type'], keepAlive: response.headers['keep-alive'] };
  }
  return out;
}

test('variants answer raw requests exactly as the serve command does', { tag: ['@meta'] }, async () => {
  const serve = await startServerProcess([], {});
  let expected;
  try {
    expected = await answers(serve.port);
  } finally {
    await serve.stop();
  }
  for (const exchange of EXCHANGES) expect(expected[exchange.name]?.status, `serve: ${exchange.name}`).toBe(exchange.status);
  expect(expected['keep-alive (keepAliveTimeout)']?.keepAlive).toBe('timeout=5');
  // Node's own refusals are bare (no body, no content type); the reference answers with problems.
  expect(expected['no Host (requireHostHeader: false)']?.contentType).toBe('application/problem+json');
  expect(expected['CONNECT (the connect handler)']?.contentType).toBe('application/problem+json');

  for (const variant of [REFERENCE, cacheAccountPublic]) {
    const running = await startVariant(variant);
    try {
      const port = Number(new URL(running.profile.baseUrls[0] ?? '').port);
      expect(await answers(port), `variant ${variant.name}`).toEqual(expected);
    } finally {
      await running.close();
    }
  }
});
