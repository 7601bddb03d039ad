/**
 * Raw HTTP/1.1 over `node:net`: sends bytes that fetch refuses to send (control characters,
 * duplicate singleton headers, invalid percent-encoding, unknown methods) and reads exactly one
 * response, or reports that the connection was dropped without one.
 */
import { connect } from 'node:net';

export interface RawResponse {
  /** 0 when the connection closed (or timed out) before a full response head arrived. */
  status: number;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** Why no response was read: `closed`, `timeout` or a socket error code. */
  dropped?: string;
}

const HEAD_END = Buffer.from('\r\n\r\n');

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status, headers };
}

/** Decodes a chunked body; undefined while incomplete. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    offset = start + size + 2;
  }
}

/**
 * Writes `request` (string or bytes, sent as is) to `host:port` and resolves with the first
 * response. A HEAD request has no body to wait for. Never rejects.
 */
export function rawRequest(
  port: number,
  request: string | Buffer,
  options: { host?: string; timeoutMs?: number; head?: boolean } = {},
): Promise<RawResponse> {
  const timeoutMs = options.timeoutMs ?? 5000;
  return new Promise((resolve) => {
    const socket = connect({ host: options.host ?? '127.0.0.1', port });
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (result: RawResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const tryComplete = (ended: boolean): void => {
      const end = data.indexOf(HEAD_END);
      if (end < 0) {
        if (ended) finish({ status: 0, headers: {}, body: Buffer.alloc(0), dropped: 'closed' });
        return;
      }
      const { status, headers } = parseHead(data.subarray(0, end).toString('latin1'));
      const rest = data.subarray(end + 4);
      const noBody = options.head === true || status === 204 || status === 304 || (status >= 100 && status < 200);
      if (noBody) return finish({ status, headers, body: Buffer.alloc(0) });
      if (headers['content-length'] !== undefined) {
        const length = Number(headers['content-length']);
        if (rest.length >= length) return finish({ status, headers, body: rest.subarray(0, length) });
      } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
        const body = dechunk(rest);
        if (body) return finish({ status, headers, body });
      }
      if (ended) finish({ status, headers, body: rest });
    };
    const timer = setTimeout(() => {
      if (data.indexOf(HEAD_END) >= 0) tryComplete(true);
      finish({ status: 0, headers: {}, body: Buffer.alloc(0), dropped: 'timeout' });
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      tryComplete(false);
    });
    socket.on('end', () => tryComplete(true));
    socket.on('close', () => tryComplete(true));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (data.length > 0) tryComplete(true);
      finish({ status: 0, headers: {}, body: Buffer.alloc(0), dropped: error.code ?? 'error' });
    });
    socket.write(request, (error) => {
      if (error && data.length === 0) finish({ status: 0, headers: {}, body: Buffer.alloc(0), dropped: 'write-failed' });
    });
  });
}

/** Builds a request head (CRLF line ends) with `headers` in order, duplicates allowed, and a body; adds Host unless given. */
export function buildRequest(
  method: string,
  target: string,
  headers: [string, string][],
  body?: string | Buffer,
): Buffer {
  const bodyBytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const hasHost = headers.some(([name]) => /^host$/i.test(name));
  const all: [string, string][] = [...(hasHost ? [] : ([['Host', '127.0.0.1']] as [string, string][])), ...headers, ['Connection', 'close']];
  if (bodyBytes !== undefined && !headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name))) {
    all.push(['Content-Length', String(bodyBytes.length)]);
  }
  const head = `${method} ${target} HTTP/1.1\r\n${all.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
  return bodyBytes === undefined ? Buffer.from(head, 'latin1') : Buffer.concat([Buffer.from(head, 'latin1'), bodyBytes]);
}
