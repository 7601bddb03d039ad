/**
 * Request body reading (spec/decisions.md D-BODY): media type check (415), size limit (413),
 * JSON parsing (400) and the object check (422 `(body)`), each answered with a problem document.
 * The raw bytes are kept for the idempotency fingerprint.
 */
import type { IncomingMessage } from 'node:http';
import { TextDecoder } from 'node:util';
import type { Next } from 'koa';
import type { AppContext } from '../context.ts';
import type { BodyKind } from '../route-table.ts';
import { HttpProblem, validationProblem } from '../problem.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9!#$&^_.+-]+\+)?json$/i;

/** True when `contentType` is application/json or any `+json` type, parameters allowed. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === 'application/json') return true;
  const essence = (contentType ?? '').split(';')[0]?.trim() ?? '';
  return JSON_MEDIA_TYPE.test(essence);
}

function requestHasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

function tooLarge(limit: number): HttpProblem {
  return new HttpProblem(413, { detail: `The request body exceeds the limit of ${limit} bytes.` });
}

/**
 * The body when Node's parser has already buffered all of it in the request stream and nothing has
 * read it: the message is complete, or its Content-Length bytes are all there (the parser delivers
 * exactly that many). It is taken at once, without a promise and listeners (D-BODY, CPU per
 * POST). Undefined when the body is still arriving or was read.
 */
function parsedBody(req: IncomingMessage, limit: number): Buffer | undefined {
  if (req.readableFlowing !== null || req.readableDidRead) return undefined;
  const length = req.headers['content-length'];
  if (!req.complete && (length === undefined || req.readableLength !== Number(length))) return undefined;
  if (req.readableLength > limit) throw tooLarge(limit);
  const body = (req.read() as Buffer | null) ?? Buffer.alloc(0);
  // Flowing on to its end, as a stream read to the end with listeners is: 'end' and 'close' are emitted.
  req.resume();
  return body;
}

/** Reads the whole body, failing with 413 as soon as it passes `limit` bytes (the rest is drained). */
export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks));
    };
    const onError = (): void => {
      cleanup();
      reject(new HttpProblem(400, { detail: 'The request body could not be read.' }));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** Parses the body of POST and PUT requests into `ctx.state.body` according to the route's body kind. */
export function parseBody(limit: number) {
  return function bodyMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const kind = ctx.state.route?.method?.body;
    if (kind === undefined) return next();
    return readBody(ctx, next, kind, limit);
  };
}

/** Reads, checks and parses the body of a route that takes one (D-BODY). */
async function readBody(ctx: AppContext, next: Next, kind: BodyKind, limit: number): Promise<void> {
  const hasBody = requestHasBody(ctx.req);
  const contentType = ctx.req.headers['content-type'] || undefined;
  if (kind === 'empty' && !hasBody) {
    ctx.state.rawBody = Buffer.alloc(0);
    return next();
  }
  if (!isJsonMediaType(contentType)) {
    throw new HttpProblem(415, {
      detail: 'The request body must be JSON: send Content-Type: application/json.',
    });
  }
  const encoding = ctx.req.headers['content-encoding'] ?? '';
  if (encoding !== '' && encoding.toLowerCase() !== 'identity') {
    throw new HttpProblem(415, { detail: `The content coding "${encoding}" is not supported.` });
  }
  const declared = Number(ctx.req.headers['content-length'] || '0');
  if (declared > limit) {
    ctx.req.resume();
    throw tooLarge(limit);
  }
  // The request event is emitted while Node's parser is inside the received data; one microtask
  // later it has pushed the body that came with the head into the request stream.
  if (!ctx.req.complete) await undefined;
  const raw = parsedBody(ctx.req, limit) ?? (await readRawBody(ctx.req, limit));
  ctx.state.rawBody = raw;
  if (kind === 'empty' && raw.length === 0) return next();
  let parsed: unknown;
  try {
    parsed = JSON.parse(strictUtf8.decode(raw));
  } catch {
    throw new HttpProblem(400, { detail: 'The request body is not valid JSON in UTF-8 (RFC 8259 §8.1).' });
  }
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
}
