/**
 * Scenarios of logical operations: a POST that fails once (the same Idempotency-Key on the retry),
 * a POST that succeeds at once (the client adds a key itself), and following an order's `cancel`
 * link to an unguessable path with the link's method.
 */
import { randomBytes } from 'node:crypto';
import { ID } from './requirements.ts';
import { attemptSummary, fail, keyPresent, problemBody, skip, surfacedStatus, verdict } from './scenario-kit.ts';
import type { Check, Scenario, Verdict } from './scenario-kit.ts';
import { backoffOf } from './backoff.ts';

const PAYMENT = { amount: 1250, currency: 'eur' };
/** The one logical operation of the POST scenarios: create a payment. */
const POST_PAYMENT = { kind: 'request', method: 'POST', path: '/payments', body: PAYMENT } as const;

function payment(id: number): Record<string, unknown> {
  return { id, ...PAYMENT, status: 'succeeded', _links: { self: { href: `/payments/${id}` } } };
}

function postFailsOnce(): Scenario {
  return {
    name: 'post-fails-once',
    description: 'POST /payments: 503 without Retry-After, then 201',
    operation: POST_PAYMENT,
    budgetSeconds: 15,
    script: (a) =>
      a.index === 0
        ? { kind: 'respond', status: 503, body: problemBody(503, 'Service Unavailable', a.path) }
        : { kind: 'respond', status: 201, headers: { location: '/payments/1' }, body: payment(1) },
    judge: (run, ctx): Verdict => {
      const keys = run.attempts.map((a) => a.headers['idempotency-key']);
      const first = keys[0];
      const checks: Check[] = [keyPresent(run.scenario, first)];
      const stableTitle = `${run.scenario}: every retry of the POST sends the same Idempotency-Key`;
      if (run.attempts.length < 2) {
        checks.push(skip(ID.keyStable, stableTitle, `the POST was not retried (attempts: ${attemptSummary(run.attempts)})`));
      } else if (keys.some((k) => !k)) {
        checks.push(fail(ID.keyStable, stableTitle, `a POST was retried without an Idempotency-Key (keys: ${JSON.stringify(keys)})`));
      } else {
        checks.push(verdict(ID.keyStable, stableTitle, new Set(keys).size === 1, `keys: ${JSON.stringify(keys)}`));
      }
      const retryTitle = `${run.scenario}: a POST with an Idempotency-Key that got 503 is retried`;
      checks.push(
        first
          ? verdict(
              ID.retryable,
              retryTitle,
              run.attempts.length === 2 && run.adapter.output?.status === 201,
              `attempts: ${attemptSummary(run.attempts)}; surfaced ${surfacedStatus(run)}`,
            )
          : skip(ID.retryable, retryTitle, 'the POST carried no key, so it must not be retried'),
      );
      const { check, jitter } = backoffOf(run, ctx);
      checks.push(check);
      return { checks, jitter, operationKey: first ?? null };
    },
  };
}

function postFirstTry(): Scenario {
  return {
    name: 'post-first-try',
    description: 'POST /payments answered 201 at once; the adapter passes no key, the client adds one',
    operation: POST_PAYMENT,
    budgetSeconds: 10,
    script: () => ({ kind: 'respond', status: 201, headers: { location: '/payments/2' }, body: payment(2) }),
    judge: (run): Verdict => {
      const key = run.attempts[0]?.headers['idempotency-key'];
      const single = verdict(
        ID.retryable,
        `${run.scenario}: a 201 is final`,
        run.attempts.length === 1 && run.adapter.output?.status === 201,
        `attempts: ${attemptSummary(run.attempts)}; surfaced ${surfacedStatus(run)}`,
      );
      return { checks: [keyPresent(run.scenario, key), single], operationKey: key ?? null };
    },
  };
}

function linksFollow(): Scenario {
  const secret = randomBytes(6).toString('hex');
  const orderPath = `/orders/${1000 + randomBytes(2).readUInt16BE(0)}`;
  const cancelPath = `/hac-${secret}${orderPath}/cancellation-${randomBytes(3).toString('hex')}`;
  const order = (status: string) => ({
    id: Number(orderPath.split('/')[2]),
    status,
    total: 12.5,
    currency: 'eur',
    _links: status === 'pending' ? { self: { href: orderPath }, cancel: { href: cancelPath, method: 'POST' } } : { self: { href: orderPath } },
  });
  return {
    name: 'links-follow',
    description: 'GET an order whose cancel link points to an unguessable path, then follow the link',
    operation: { kind: 'follow', method: 'GET', path: orderPath, rel: 'cancel' },
    budgetSeconds: 10,
    script: (a) => {
      const path = a.path.split('?')[0];
      if (path === orderPath && a.method === 'GET') return { kind: 'respond', status: 200, body: order('pending') };
      if (path === cancelPath)
        return a.method === 'POST'
          ? { kind: 'respond', status: 200, body: order('cancelled') }
          : { kind: 'respond', status: 405, headers: { allow: 'POST' }, body: problemBody(405, 'Method Not Allowed', a.path) };
      return { kind: 'respond', status: 404, body: problemBody(404, 'Not Found', a.path) };
    },
    judge: (run): Verdict => {
      const title = `${run.scenario}: the cancel link is followed to its href with its method`;
      const followed = run.attempts.some((a) => a.method === 'POST' && a.path === cancelPath);
      const strays = run.attempts.filter((a) => a.path !== orderPath && a.path !== cancelPath).map((a) => `${a.method} ${a.path}`);
      const ok = followed && strays.length === 0 && run.adapter.output?.status === 200;
      const requests = run.attempts.map((a) => `${a.method} ${a.path}`).join(', ') || 'none';
      return { checks: [verdict(ID.links, title, ok, `link POST ${cancelPath}; requests: ${requests}; surfaced ${surfacedStatus(run)}`)] };
    },
  };
}

function unknownMembers(): Scenario {
  return {
    name: 'unknown-members',
    description: 'GET answered 200 with members, links and headers the client cannot know',
    operation: { kind: 'request', method: 'GET', path: '/resource' },
    budgetSeconds: 10,
    script: () => ({
      kind: 'respond',
      status: 200,
      headers: { 'x-hac-future': 'v2', 'content-type': 'application/json; charset=utf-8; profile="https://http-api-conformance.dev/future"' },
      body: {
        id: 1,
        name: 'resource',
        hacFutureMember: { nested: [1, 'two', null], flag: true },
        _links: { self: { href: '/resource' }, 'hac-future': { href: '/future', method: 'PATCH', hints: { deprecated: false } } },
      },
    }),
    judge: (run): Verdict => {
      const out = run.adapter.output;
      const ok = out?.status === 200 && out.error === null;
      return {
        checks: [verdict(ID.ignoreUnknown, `${run.scenario}: a representation with unknown members is accepted`, ok, `surfaced ${surfacedStatus(run)}`)],
      };
    },
  };
}

/** The operation scenarios (POST, links, unknown members). */
export function operationScenarios(): Scenario[] {
  return [postFailsOnce(), postFirstTry(), linksFollow(), unknownMembers()];
}
