/**
 * Request bodies (spec/decisions.md D-BODY) with @koa/bodyparser: a route that takes a body gets
 * `jsonBody(kind, limit)`, three middleware around the parser. Before it: the media type (415 for
 * anything but application/json or a `+json` type) and the content coding (415 for anything but
 * identity). The parser: JSON only, at most `limit` bytes (413), its raw text kept in
 * `ctx.request.rawBody` for the idempotency fingerprint. After it: malformed JSON or UTF-8 is 400 and
 * a body that is not an object is 422 `(body)`. `jsonStrict` is off because the document answers a
 * JSON scalar with that 422, not with the parser's 400; the JSON syntax itself is parsed strictly.
 */
import type { IncomingMessage } from 'node:http';
import { bodyParser } from '@koa/bodyparser';
import type { Next } from 'koa';
import type { AppContext } from '../context.ts';
import { HttpProblem, validationProblem } from '../problem.ts';

/** `json`: a JSON object body is required; `empty`: no body, an empty body or `{}` (actions). */
export type BodyKind = 'json' | 'empty';

const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9!#$&^_.+-]+\+)?json$/i;

/** True when `contentType` is application/json or any `+json` type, parameters allowed. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const essence = (contentType ?? '').split(';')[0]?.trim() ?? '';
  return JSON_MEDIA_TYPE.test(essence);
}

function requestHasBody(ctx: AppContext): boolean {
  const length = ctx.req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return ctx.req.headers['transfer-encoding'] !== undefined;
}

function notJson(): HttpProblem {
  return new HttpProblem(400, { detail: 'The request body is not valid JSON in UTF-8 (RFC 8259 §8.1).' });
}

/**
 * Node decodes a malformed UTF-8 sequence to U+FFFD, which then takes 3 bytes: a text holding
 * U+FFFD that is longer than the bytes received was not UTF-8.
 */
function malformedUtf8(ctx: AppContext, raw: string): boolean {
  if (!raw.includes('\uFFFD')) return false;
  const length = ctx.req.headers['content-length'];
  return length === undefined || Buffer.byteLength(raw) !== Number(length);
}

/** 415 unless the body is JSON in the identity coding (an action's missing body passes). */
function mediaType(kind: BodyKind) {
  return function mediaTypeMiddleware(ctx: AppContext, next: Next): Promise<void> {
    if (kind === 'empty' && !requestHasBody(ctx)) {
      // Nothing to read: the parser skips a request whose body is set.
      ctx.request.body = {};
      ctx.request.rawBody = '';
      return next();
    }
    if (!isJsonMediaType(ctx.get('Content-Type') || undefined)) {
      throw new HttpProblem(415, { detail: 'The request body must be JSON: send Content-Type: application/json.' });
    }
    const encoding = ctx.get('Content-Encoding');
    if (encoding !== '' && encoding.toLowerCase() !== 'identity') {
      throw new HttpProblem(415, { detail: `The content coding "${encoding}" is not supported.` });
    }
    return next();
  };
}

/** How much of an oversized body is read and thrown away after its 413 before the connection is closed (`discardRest`). */
const DISCARD_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * STATUS-413-BODY-TOO-LARGE, RFC 9112 §9.6: the parser stops reading at the limit, and a connection
 * closed with the rest of the body unread is reset, which destroys the 413 in a client that writes
 * its whole request before it reads (3 chunked 5 MB requests of 3 were reset). The rest is read and
 * thrown away, so the 413 reaches every client and the connection stays usable; past `maxBytes` the
 * connection is closed (the server's requestTimeout bounds the time).
 */
function discardRest(req: IncomingMessage, maxBytes: number): void {
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > maxBytes) req.socket.destroy();
  });
  req.resume();
}

/**
 * The parser's errors as the document's problems: 413 over the limit, 415 for a coding it cannot
 * read. A text it read but refused goes on to `checkedBody` (400 when it is not JSON): the parser
 * (@hapi/bourne) also refuses a `__proto__` member, which the document answers like any unknown
 * member, with a 422 naming it (D-FIELDS).
 */
function parserError(limit: number) {
  return (error: Error & { status?: number; body?: unknown }, ctx: AppContext): void => {
    if (error.status === 413) {
      discardRest(ctx.req, DISCARD_LIMIT_BYTES);
      throw new HttpProblem(413, { detail: `The request body exceeds the limit of ${limit} bytes.` });
    }
    if (error.status === 415) throw new HttpProblem(415, { detail: error.message });
    if (typeof error.body !== 'string') throw notJson();
    ctx.request.rawBody = error.body;
  };
}

/** JSON.parse, 400 when `raw` is not JSON; a `__proto__` member becomes an own member (no prototype is changed). */
function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw notJson();
  }
}

/** The parsed body into `ctx.state.body` (and the raw text into `ctx.state.rawBody`), checked against `kind`. */
function checkedBody(kind: BodyKind) {
  return function checkedBodyMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const raw = ctx.request.rawBody;
    ctx.state.rawBody = raw;
    if (kind === 'empty' && raw === '') return next();
    if (raw.trim() === '' || malformedUtf8(ctx, raw)) throw notJson();
    const parsed = ctx.request.body ?? parseJson(raw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw validationProblem([{ field: '(body)', message: 'must be a JSON object' }]);
    }
    if (kind === 'empty') {
      const members = Object.keys(parsed);
      if (members.length > 0) {
        throw validationProblem(members.map((field) => ({ field, message: 'is not allowed: this action takes no body' })));
      }
    }
    ctx.state.body = parsed;
    return next();
  };
}

/** The body middleware of a route whose body is of `kind` (routes/kit.ts `json`, `emptyBody`), at most `limit` bytes. */
export function jsonBody(kind: BodyKind, limit: number): ((ctx: AppContext, next: Next) => Promise<void>)[] {
  const parse = bodyParser({
    enableTypes: ['json'],
    // The media type was checked before (any `+json` type is JSON here).
    detectJSON: () => true,
    jsonLimit: limit,
    jsonStrict: false,
    onError: parserError(limit) as (error: Error, ctx: unknown) => void,
  });
  return [mediaType(kind), parse as unknown as (ctx: AppContext, next: Next) => Promise<void>, checkedBody(kind)];
}
