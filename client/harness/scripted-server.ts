/**
 * The scripted server of the client harness: a node:http server on 127.0.0.1 (port 0) that answers
 * each attempt as the scenario's script says and records every attempt with monotonic times.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunQueueStamp } from './run-queue.ts';

/** One request received by the scripted server. */
export interface AttemptRecord {
  /** 0 for the first request of the run. */
  index: number;
  method: string;
  /** Path and query of the request target. */
  path: string;
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** performance.now() when the request head had arrived. */
  arrivedAt: number;
  /** Date.now() at arrival (for HTTP-date computations). */
  wallClockAt: number;
  /** performance.now() when the response was sent, the connection reset, or the client gave up. */
  endedAt: number | undefined;
  /** The client's run-queue wait when the head arrived and when the attempt ended (run-queue.ts; absent: not measured). */
  clientAtArrival?: RunQueueStamp;
  clientAtEnd?: RunQueueStamp;
  /** `responded`: a full response was sent; `reset`: the server destroyed the connection; `abandoned`: the client closed first. */
  outcome: 'pending' | 'responded' | 'reset' | 'abandoned';
  status: number | undefined;
  /** Values the script chose for this attempt (e.g. the Retry-After it sent, in seconds). */
  notes: Record<string, unknown>;
}

/** What the server does with one attempt. */
export type Action =
  | { kind: 'respond'; status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number }
  | { kind: 'reset' };

/** Chooses the action for an attempt; may write into `attempt.notes`. */
export type Script = (attempt: AttemptRecord, previous: readonly AttemptRecord[]) => Action;

export interface ScriptedServer {
  url: string;
  attempts: AttemptRecord[];
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Reads the client's run-queue wait now (run-queue.ts); undefined while the client is unknown or where it cannot be read. */
export type ClientClock = () => RunQueueStamp | undefined;

/** Ends `attempt`: its outcome, and the moment, on the harness's clock and the client's. */
function end(attempt: AttemptRecord, outcome: AttemptRecord['outcome'], clientClock: ClientClock | undefined): void {
  attempt.outcome = outcome;
  attempt.endedAt = performance.now();
  const stamp = clientClock?.();
  if (stamp !== undefined) attempt.clientAtEnd = stamp;
}

function send(res: ServerResponse, attempt: AttemptRecord, action: Extract<Action, { kind: 'respond' }>, clientClock: ClientClock | undefined): void {
  if (res.destroyed || res.writableEnded) return;
  const headers: Record<string, string> = { ...action.headers };
  let payload = '';
  if (action.body !== undefined) {
    payload = JSON.stringify(action.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = action.status >= 400 ? 'application/problem+json' : 'application/json';
    }
  }
  res.on('finish', () => end(attempt, 'responded', clientClock));
  res.writeHead(action.status, headers);
  res.end(payload);
}

/**
 * Starts a scripted server (127.0.0.1, free port) that plays `script` and records every attempt;
 * `onRequest` hears of each arrival; `clientClock`, when given, stamps each arrival and end with the
 * client's run-queue wait (D-CLIENT-TIMING).
 */
export async function startScriptedServer(
  script: Script,
  onRequest?: (attempt: AttemptRecord) => void,
  clientClock?: ClientClock,
): Promise<ScriptedServer> {
  const attempts: AttemptRecord[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const attempt = arrival(req, attempts.length);
    const stamp = clientClock?.();
    if (stamp !== undefined) attempt.clientAtArrival = stamp;
    attempts.push(attempt);
    onRequest?.(attempt);
    res.on('close', () => {
      if (attempt.outcome === 'pending') end(attempt, 'abandoned', clientClock);
    });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      attempt.body = Buffer.concat(chunks).toString('utf8');
      perform(actionFor(script, attempt, attempts.slice(0, attempt.index)), req, res, attempt, timers, clientClock);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    attempts,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The record of attempt number `index`, whose head has just arrived (pending, its body still to come). */
function arrival(req: IncomingMessage, index: number): AttemptRecord {
  return {
    index,
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    headers: headersOf(req),
    body: '',
    arrivedAt: performance.now(),
    wallClockAt: Date.now(),
    endedAt: undefined,
    outcome: 'pending',
    status: undefined,
    notes: {},
  };
}

/** The script's action for `attempt`; a script that throws answers 500 with a problem document. */
function actionFor(script: Script, attempt: AttemptRecord, previous: readonly AttemptRecord[]): Action {
  try {
    return script(attempt, previous);
  } catch {
    return { kind: 'respond', status: 500, body: { type: 'about:blank', title: 'Internal Server Error', status: 500 } };
  }
}

/** Carries out `action` for `attempt`: resets the connection, or responds, after `delayMs` on a timer kept in `timers` for close. */
function perform(
  action: Action,
  req: IncomingMessage,
  res: ServerResponse,
  attempt: AttemptRecord,
  timers: Set<NodeJS.Timeout>,
  clientClock: ClientClock | undefined,
): void {
  if (action.kind === 'reset') {
    end(attempt, 'reset', clientClock);
    req.socket.destroy();
    return;
  }
  attempt.status = action.status;
  if (action.delayMs && action.delayMs > 0) {
    const timer = setTimeout(() => {
      timers.delete(timer);
      send(res, attempt, action, clientClock);
    }, action.delayMs);
    timers.add(timer);
  } else {
    send(res, attempt, action, clientClock);
  }
}
