/**
 * What never reaches Koa still gets a problem document (PROBLEM-SAME-ENVELOPE: the errors of the
 * framework too). A request Node's HTTP parser rejects is 414 when its request line is over the
 * target limit, 431 when its head is too large, else 400: an unknown method such as `BREW` included
 * (the parser refuses it before any application code; a 405 for it is the MAY METHOD-UNKNOWN-405).
 * `CONNECT`, which an origin server does not tunnel, is 400. Only the request line is read from the
 * raw bytes, for the problem's `instance`; the answer closes the connection.
 */
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_REQUEST_TARGET, uriTooLong } from './middleware/head.ts';
import { HttpProblem, PROBLEM_CONTENT_TYPE, renderProblem } from './problem.ts';

type ParserError = Error & { code?: string; rawPacket?: Buffer };

/** The path of the request line in `raw` (`/users` of `GET /users?x HTTP/1.1`), else `/`. */
function requestPath(raw: Buffer | undefined): string {
  const line = raw?.subarray(0, Math.min(raw.length, MAX_REQUEST_TARGET + 64)).toString('latin1').split('\r\n')[0] ?? '';
  const target = line.split(' ')[1] ?? '';
  return /^\/[^?#]*/.exec(target)?.[0] ?? '/';
}

function parserProblem(error: ParserError): HttpProblem {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    const lineEnd = error.rawPacket?.indexOf('\r\n') ?? -1;
    const requestLine = lineEnd < 0 ? (error.rawPacket?.length ?? 0) : lineEnd;
    return requestLine > MAX_REQUEST_TARGET ? uriTooLong() : new HttpProblem(431);
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

/** The `clientError` listener of the HTTP server: answers with a problem document and closes. */
export function clientErrorHandler() {
  return (error: ParserError, socket: Duplex): void => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    write(socket, parserProblem(error), requestPath(error.rawPacket));
  };
}

/** The `connect` listener: CONNECT is not tunnelled by this origin server; 400 problem, then close. */
export function connectHandler() {
  return (_req: IncomingMessage, socket: Duplex): void => {
    socket.on('error', () => socket.destroy());
    write(socket, new HttpProblem(400, { detail: 'CONNECT is not supported: this server is not a proxy.' }), '/');
  };
}
