/**
 * Request head sanity (RFC 9110 §5.3, RFC 9112 §3 and §3.2): a target over 8 KiB is 414; a singleton header sent twice is ambiguous,
 * so it is refused with 400 instead of being resolved to one of its values; an HTTP/1.1 request
 * without Host is 400.
 */
import type { IncomingMessage } from 'node:http';
import type { AppContext } from '../context.ts';
import { HttpProblem } from '../problem.ts';

/** The longest request target parsed (RFC 9112 §3: a longer one is 414). */
export const MAX_REQUEST_TARGET = 8192;

/** 414 URI Too Long. */
export function uriTooLong(): HttpProblem {
  return new HttpProblem(414, { detail: `The request target exceeds ${MAX_REQUEST_TARGET} bytes.` });
}

const SINGLETONS = new Set(['authorization', 'content-type', 'host', 'idempotency-key']);
const SINGLETON_LENGTHS = new Set([...SINGLETONS].map((name) => name.length));

/** The first singleton header (lower-case) that the request carries more than once, if any. */
export function duplicatedSingleton(req: IncomingMessage): string | undefined {
  const raw = req.rawHeaders;
  let seen: string[] | undefined;
  for (let index = 0; index < raw.length; index += 2) {
    const rawName = raw[index] ?? '';
    if (!SINGLETON_LENGTHS.has(rawName.length)) continue;
    const name = rawName.toLowerCase();
    if (!SINGLETONS.has(name)) continue;
    if (seen === undefined) seen = [name];
    else if (seen.includes(name)) return name;
    else seen.push(name);
  }
  return undefined;
}

/** Throws the 414/400 problem of a request head that is too long, ambiguous or lacks Host. */
export function checkHead(ctx: AppContext): void {
  if (ctx.url.length > MAX_REQUEST_TARGET) throw uriTooLong();
  const duplicated = duplicatedSingleton(ctx.req);
  if (duplicated) {
    throw new HttpProblem(400, { detail: `The header ${duplicated} must be sent at most once.` });
  }
  if (ctx.req.httpVersion === '1.1' && ctx.req.headers.host === undefined) {
    throw new HttpProblem(400, { detail: 'An HTTP/1.1 request must carry a Host header.' });
  }
}
