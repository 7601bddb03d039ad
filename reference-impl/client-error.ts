/**
 * Requests that never reach Koa still get a problem document with the RateLimit-* headers of the
 * caller's bucket (D-RATE-LIMIT): what Node's HTTP parser rejects (an unknown method such as
 * `BREW` is 405 with `Allow` on a known path per D-METHODS and 404 elsewhere; oversized heads 431;
 * a request line over the target limit 414; anything else 400) and `CONNECT`, which an origin server does not tunnel (400).
 */
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { bucketFor, rateLimitHeaders, rateLimitedProblem } from './middleware/rate-limit.ts';
import { HttpProblem, PROBLEM_CONTENT_TYPE, notFound, renderProblem, toHttpProblem } from './problem.ts';
import type { ProblemSpec } from './problem.ts';
import { matchRoute } from './route-table.ts';
import { MAX_REQUEST_TARGET, uriTooLong } from './middleware/head.ts';
import type { Deps } from './context.ts';

interface ParsedHead {
  method: string;
  path: string;
  authorization: string | undefined;
}

type ParserError = Error & { code?: string; rawPacket?: Buffer };

function parseHead(raw: Buffer | undefined): ParsedHead | undefined {
  if (!raw) return undefined;
  const lines = raw.toString('latin1').split('\r\n');
  const requestLine = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\/[^ ?#]*)(?:\?[^ ]*)? HTTP\/1\.[01]$/.exec(lines[0] ?? '');
  if (!requestLine?.[1] || !requestLine[2]) return undefined;
  const auth = lines.slice(1).filter((line) => /^authorization:/i.test(line));
  return {
    method: requestLine[1],
    path: requestLine[2],
    authorization: auth.length === 1 ? (auth[0] ?? '').slice((auth[0] ?? '').indexOf(':') + 1).trim() : auth.length > 1 ? '' : undefined,
  };
}

function parserProblem(error: ParserError, head: ParsedHead | undefined): HttpProblem {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    const lineEnd = error.rawPacket?.indexOf('\r\n') ?? -1;
    const requestLine = lineEnd < 0 ? (error.rawPacket?.length ?? 0) : lineEnd;
    return requestLine > MAX_REQUEST_TARGET ? uriTooLong() : new HttpProblem(431);
  }
  if (error.code === 'HPE_INVALID_METHOD' && head) {
    const match = matchRoute(head.path, head.method);
    if (!match) return notFound();
    return new HttpProblem(405, {
      detail: `The method ${head.method} is not allowed on this path; allowed: ${match.allow}.`,
      headers: { Allow: match.allow },
    });
  }
  return new HttpProblem(400, { detail: 'The request could not be parsed as HTTP/1.1.' });
}

async function decide(
  deps: Deps,
  address: string,
  authorization: string | undefined,
  problem: () => HttpProblem,
): Promise<{ problem: ProblemSpec; headers: Record<string, string> }> {
  const { key, policy } = bucketFor(deps.tokens.identify(authorization), address, deps.config);
  const decision = await deps.stores.rateLimits.take(key, policy);
  const headers = rateLimitHeaders(decision);
  return { problem: decision.allowed ? problem() : rateLimitedProblem(decision), headers };
}

function write(socket: Duplex, problem: ProblemSpec, instance: string, headers: Record<string, string>): void {
  const rendered = renderProblem(problem, instance);
  const body = JSON.stringify(rendered.body);
  const all: Record<string, string> = {
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
    Connection: 'close',
    ...headers,
    ...rendered.headers,
  };
  const head = Object.entries(all).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  if (socket.writable) socket.end(`HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? ''}\r\n${head}\r\n${body}`);
  else socket.destroy();
}

function respond(
  deps: Deps,
  socket: Duplex,
  instance: string,
  authorization: string | undefined,
  problem: () => HttpProblem,
): void {
  const address = (socket as Duplex & { remoteAddress?: string }).remoteAddress ?? 'unknown';
  decide(deps, address, authorization, problem)
    .catch((failure: unknown) => ({
      problem: toHttpProblem(failure, deps.config.storeUnavailableRetryAfterSeconds),
      headers: {} as Record<string, string>,
    }))
    .then(({ problem: chosen, headers }) => write(socket, chosen, instance, headers))
    .catch(() => socket.destroy());
}

/** The `clientError` listener of the HTTP server: answers with a problem document and closes. */
export function clientErrorHandler(deps: Deps) {
  return (error: ParserError, socket: Duplex): void => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const head = parseHead(error.rawPacket);
    respond(deps, socket, head?.path ?? '/', head?.authorization, () => parserProblem(error, head));
  };
}

/** The `connect` listener: CONNECT is not tunnelled by this origin server; 400 problem, then close. */
export function connectHandler(deps: Deps) {
  return (req: IncomingMessage, socket: Duplex): void => {
    socket.on('error', () => socket.destroy());
    const auth = req.headers.authorization;
    respond(deps, socket, '/', auth, () => new HttpProblem(400, { detail: 'CONNECT is not supported: this server is not a proxy.' }));
  };
}
