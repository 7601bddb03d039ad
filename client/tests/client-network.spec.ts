import { test, expect } from '@playwright/test';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '../index.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, attempt: number) => void;

async function serve(handler: Handler): Promise<{ url: string; server: Server; arrivals: number[]; closes: number[] }> {
  const arrivals: number[] = [];
  const closes: number[] = [];
  const server = createServer((req, res) => {
    arrivals.push(performance.now());
    res.on('close', () => closes.push(performance.now()));
    handler(req, res, arrivals.length - 1);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, arrivals, closes };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

test.describe('CLIENT-TIMEOUT and network errors against a real server', () => {
  test('a response slower than the timeout is abandoned at the timeout and retried', async () => {
    const timers: NodeJS.Timeout[] = [];
    const { url, server, arrivals, closes } = await serve((_req, res, attempt) => {
      const send = () => {
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ attempt }));
      };
      if (attempt === 0) timers.push(setTimeout(send, 5000));
      else send();
    });
    try {
      const client = createClient({ baseUrl: url, timeoutMs: 1000, timeScale: 1, random: () => 0, sleep: (ms) => new Promise((r) => setTimeout(r, ms / 100)) });
      const started = performance.now();
      const res = await client.get('/resource');
      expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
      // The answer of the retry, not the slow one: the first attempt was abandoned.
      expect(res.body).toEqual({ attempt: 1 });
      expect(res.attempts).toBe(2);
      expect(arrivals).toHaveLength(2);
      await expect.poll(() => closes.length).toBeGreaterThan(0);
      expect((closes[0] ?? Infinity) - (arrivals[0] ?? 0)).toBeLessThan(4000);
    } finally {
      timers.forEach(clearTimeout);
      await stop(server);
    }
  });

  test('the timeout is scaled with timeScale', async () => {
    const timers: NodeJS.Timeout[] = [];
    const { url, server, arrivals, closes } = await serve((_req, res) => {
      timers.push(setTimeout(() => res.destroyed || res.end('{}'), 5000));
    });
    try {
      const client = createClient({ baseUrl: url, timeScale: 0.05, maxAttempts: 1 });
      const started = performance.now();
      await expect(client.get('/resource')).rejects.toMatchObject({ name: 'ClientNetworkError', message: /timed out after 250 ms/ });
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
      await expect.poll(() => closes.length).toBeGreaterThan(0);
      expect((closes[0] ?? Infinity) - (arrivals[0] ?? 0)).toBeLessThan(4000);
    } finally {
      timers.forEach(clearTimeout);
      await stop(server);
    }
  });

  test('a reset connection is retried', async () => {
    const { url, server, arrivals } = await serve((req, res, attempt) => {
      if (attempt === 0) req.socket.destroy();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    try {
      const client = createClient({ baseUrl: url, timeScale: 0.01, timeoutMs: 300_000 });
      const res = await client.get('/resource');
      expect(res.body).toEqual({ ok: true });
      expect(arrivals).toHaveLength(2);
    } finally {
      await stop(server);
    }
  });

  test('a connection refused is retried up to the cap, then rejected', async () => {
    const { url, server } = await serve(() => undefined);
    await stop(server);
    const sleeps: number[] = [];
    const client = createClient({ baseUrl: url, maxAttempts: 3, sleep: async (ms) => void sleeps.push(ms), random: () => 0 });
    await expect(client.get('/resource')).rejects.toMatchObject({ name: 'ClientNetworkError', attempts: 3 });
    expect(sleeps).toEqual([1000, 2000]);
  });
});
