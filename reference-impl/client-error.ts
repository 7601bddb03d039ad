/**
 * What never reaches Koa still gets a problem document (PROBLEM-SAME-ENVELOPE: the errors of the
 * framework too). A request Node's HTTP parser rejects is 414 when its request line is over the
 * target limit, 431 when its head is too large, 405 with `Allow` for an unknown method such as
 * `BREW` on a known path and 404 elsewhere (D-METHODS, the MAY METHOD-UNKNOWN-405: the parser
 * refuses such a method before any application code), else 400. `CONNECT`, which an origin server
 * does not tunnel, is 400. Only the request line is read from the raw bytes; the answer closes the
 * connection.
 */
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_REQUEST_TARGET, uriTooLong } from './middleware/head.ts';
import { HttpProblem, PROBLEM_CONTENT_TYPE, notFound, renderProblem } from './problem.ts';
import type { RouteTable } from './route-table.ts';

type ParserError = Error & { code?: string; rawPacket?: Buffer };

/** The method and path of the request line in `raw` (`GET`, `/users` of `GET /users?x HTTP/1.1`); path `/` when unreadable. */
function requestLine(raw: Buffer | undefined): { method: string; path: string } {
  const line = raw?.subarray(0, Math.min(raw.length, MAX_REQUEST_TARGET + 64)).toString('latin1').split('\r\n')[0] ?? '';
  const [method = '', target = ''] = line.split(' ');
  return { method, path: /^\/[^?#]*/.exec(target)?.[0] ?? '/' };
}

function parserProblem(error: ParserError, method: string, path: string, table: RouteTable): HttpProblem {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    const lineEnd = error.rawPacket?.indexOf('\r\n') ?? -1;
    const requestLine = lineEnd < 0 ? (error.rawPacket?.length ?? 0) : lineEnd;
    return requestLine > MAX_REQUEST_TARGET ? uriTooLong() : new HttpProblem(431);
  }
  if (error.code === 'HPE_INVALID_METHOD' && method !== '') {
    const match = table.match(path, method);
    if (match === undefined) return notFound();
    return new HttpProblem(405, {
      detail: `The method ${method} is not allowed on this path; allowed: ${match.allow}.`,
      headers: { Allow: match.allow },
    });
  }
  return new HttpProblem(400, { detail: 'The request could not be parsed as HTTP/1.1.' });
}

function write(socket: Duplex, problem: HttpProblem, instance: string): void {
  const rendered = renderProblem(problem, instance);
  const body = JSON.stringify(rendered.body);
  const headers: Record<string, string> = {
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
    Connection: 'close',
    ...rendered.headers,
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  if (socket.writable) socket.end(`HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? ''}\r\n${head}\r\n${body}`);
  else socket.destroy();
}

/** The `clientError` listener of the HTTP server: answers with a problem document (a known path's `Allow` from `table`) and closes. */
export function clientErrorHandler(table: RouteTable) {
  return (error: ParserError, socket: Duplex): void => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { method, path } = requestLine(error.rawPacket);
    write(socket, parserProblem(error, method, path, table), path);
  };
}

/** The `connect` listener: CONNECT is not tunnelled by this origin server; 400 problem, then close. */
export function connectHandler() {
  return (_req: IncomingMessage, socket: Duplex): void => {
    socket.on('error', () => socket.destroy());
    write(socket, new HttpProblem(400, { detail: 'CONNECT is not supported: this server is not a proxy.' }), '/');
  };
}
