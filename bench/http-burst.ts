/**
 * Concurrent and steady request helpers over node:http for the limiter phases (autocannon cannot
 * fire exactly N requests at once on N connections, nor time-stamp each admitted response).
 */
import { Agent, request } from 'node:http';

export interface Reply {
  status: number;
  /** performance.now() when the response head arrived. */
  at: number;
}

/** Sends one GET and resolves with the status (0 on a network error); the body is drained. */
export function get(url: string, headers: Record<string, string>, agent: Agent | false): Promise<Reply> {
  return new Promise<Reply>((resolve) => {
    const req = request(url, { method: 'GET', headers, agent }, (res) => {
      const at = performance.now();
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, at }));
      res.on('error', () => resolve({ status: 0, at }));
    });
    req.setTimeout(15_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, at: performance.now() }));
    req.end();
  });
}

/**
 * Fires `count` GETs at once, each on its own connection, spread round-robin over `urls`
 * (several instances sharing one store).
 */
export async function burst(urls: string[], path: string, headers: Record<string, string>, count: number): Promise<Reply[]> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  try {
    return await Promise.all(Array.from({ length: count }, (_, i) => get(`${urls[i % urls.length]}${path}`, headers, agent)));
  } finally {
    agent.destroy();
  }
}

/**
 * Keeps `concurrency` GETs in flight against `url` for `durationMs` (keep-alive connections) and
 * returns every reply with its arrival time.
 */
export async function steadyPressure(
  url: string,
  headers: Record<string, string>,
  concurrency: number,
  durationMs: number,
): Promise<{ replies: Reply[]; startedAt: number; endedAt: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const replies: Reply[] = [];
  const startedAt = performance.now();
  const deadline = startedAt + durationMs;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) replies.push(await get(url, headers, agent));
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
  } finally {
    agent.destroy();
  }
  return { replies, startedAt, endedAt: performance.now() };
}
