/**
 * The bare Koa + @koa/router baseline of the throughput phase: the same routes as
 * the reference server, each answered with a constant JSON body and no conventions (no rate limit,
 * auth, validation, idempotency or store), so the ratio reference/baseline is the cost of the
 * conventions.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';

const USER = {
  id: 1,
  name: 'alice',
  email: 'alice@example.com',
  version: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  _links: { self: { href: '/users/1' }, orders: { href: '/users/1/orders' } },
};
const PAYMENT = {
  id: 1,
  userId: 1,
  amount: 1250,
  currency: 'eur',
  status: 'succeeded',
  transferId: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  _links: { self: { href: '/payments/1' }, transfer: { href: '/transfers/1' } },
};
const NOT_FOUND = { type: 'about:blank', title: 'Not Found', status: 404, detail: 'No resource at this path.', instance: '/nothing' };

export interface BaselineServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Builds the baseline app: `GET /users/:id`, `POST /payments`, anything else a constant 404.
 * `perRequest`, when given, runs before every answer: the floor baseline spends its Redis round trips there.
 */
export function createBaselineApp(perRequest?: () => Promise<void>): Koa {
  const app = new Koa();
  const router = new Router();
  if (perRequest) {
    app.use(async (_ctx, next) => {
      await perRequest();
      await next();
    });
  }
  router.get('/users/:id', (ctx) => {
    ctx.body = USER;
  });
  router.post('/payments', (ctx) => {
    ctx.status = 201;
    ctx.body = PAYMENT;
  });
  app.use(router.routes());
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = NOT_FOUND;
  });
  return app;
}

/** Starts the baseline on `host`:`port` (0 = a free port). */
export async function startBaseline(host = '127.0.0.1', port = 0, perRequest?: () => Promise<void>): Promise<BaselineServer> {
  const server = createServer(createBaselineApp(perRequest).callback());
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
