/**
 * Fault injection for tests (development only; refused with NODE_ENV=production by config.ts):
 * `X-Fault-Inject: 500` throws an error full of internals, `X-Fault-Inject: 503` a store failure,
 * so tests prove the 500 body leaks nothing and the 503 carries Retry-After (D-ERRORS, D-STORE-DOWN);
 * `X-Fault-Inject: delay-<ms>` (1 to 5000) holds the request after its Idempotency-Key is claimed,
 * without changing its result, so a test can observe a key in flight (IDEMPOTENCY-IN-FLIGHT-409).
 */
import type { Next } from 'koa';
import type { AppContext } from '../context.ts';
import { StoreUnavailableError } from '../stores/types.ts';

const DELAY = /^delay-(\d{1,4})$/;
const MAX_DELAY_MS = 5000;

/** Internals the injected 500 error carries; tests assert none of it reaches the response. */
export const INJECTED_SECRET = 'SECRET-INTERNAL db=postgres://admin:hunter2@10.0.0.5/shop at /srv/app/handler.ts:42';

/** The fault injection middleware; the app adds it only when `config.faultInjection` is on. */
export function faultInjection() {
  return async function faultInjectionMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const fault = ctx.get('X-Fault-Inject');
    if (fault === '500') throw new Error(`Unhandled fault: ${INJECTED_SECRET}`);
    if (fault === '503') throw new StoreUnavailableError(`store unreachable: ${INJECTED_SECRET}`);
    const delayMs = Number(DELAY.exec(fault)?.[1] ?? 0);
    if (delayMs >= 1 && delayMs <= MAX_DELAY_MS) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return next();
  };
}
