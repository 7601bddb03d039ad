/**
 * Targets that are not usable HTTP servers, for the CLI's exit-2 tests: a closed port, a server that
 * accepts connections and never answers, and one that answers with bytes that are not HTTP.
 */
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

export interface BadTarget {
  url: string;
  close(): Promise<void>;
}

function listen(server: Server, sockets: Set<Socket>): Promise<BadTarget> {
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/** A URL on 127.0.0.1 where nothing listens (a port just released). */
export async function closedPortUrl(): Promise<string> {
  const target = await listen(createServer(), new Set());
  await target.close();
  return target.url;
}

/** Accepts connections, reads the request, never answers. */
export function silentServer(): Promise<BadTarget> {
  return listen(createServer((socket) => socket.resume()), new Set());
}

/** Answers every connection with text that is not an HTTP response, then keeps the socket open. */
export function garbageServer(): Promise<BadTarget> {
  return listen(
    createServer((socket) => {
      socket.once('data', () => socket.write('SSH-2.0-OpenSSH_9.6 not http at all\r\n\r\n'));
    }),
    new Set(),
  );
}
