import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect } from '@playwright/test';

// The published entry point: `npm ci` builds dist/ (the `prepare` script) and package.json
// `exports` maps `http-api-conformance/client` to it, so plain JavaScript consumers need no loader.
test('http-api-conformance/client resolves to the built client, which retries a 503 and surfaces the result', async () => {
  const { createClient } = await import('http-api-conformance/client');
  let attempts = 0;
  const server = createServer((req, res) => {
    attempts += 1;
    if (attempts === 1) {
      res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '0' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'down', instance: req.url }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 1, authorization: req.headers.authorization }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, token: 't0ken', sleep: async () => {} });
    const response = await client.get('/users/1');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: 1, authorization: 'Bearer t0ken' });
    expect(attempts).toBe(2);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
