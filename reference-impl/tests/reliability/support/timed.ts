/**
 * One request with a hard client timeout (the document's 5-second reference timeout, section 7)
 * and its measured duration, so outage tests can tell a fast 503 from a hang.
 */
export interface Timed {
  /** 0 when the request timed out or the connection failed. */
  status: number;
  headers: Headers;
  json: Record<string, unknown> | undefined;
  ms: number;
  error?: string;
}

/** Sends one request; never rejects. */
export async function timedRequest(
  url: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Timed> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(init.timeoutMs ?? 5000),
    });
    const text = await response.text();
    let json: Record<string, unknown> | undefined;
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, json, ms: performance.now() - started };
  } catch (error) {
    return { status: 0, headers: new Headers(), json: undefined, ms: performance.now() - started, error: (error as Error).name };
  }
}

/** Repeats `attempt` every `everyMs` until `done` accepts its result or `limitMs` passes; resolves with the last result and the elapsed time. */
export async function pollUntil<T>(
  attempt: () => Promise<T>,
  done: (value: T) => boolean,
  { everyMs = 100, limitMs = 15_000 } = {},
): Promise<{ value: T; ms: number; ok: boolean }> {
  const started = performance.now();
  for (;;) {
    const value = await attempt();
    const ms = performance.now() - started;
    if (done(value)) return { value, ms, ok: true };
    if (ms > limitMs) return { value, ms, ok: false };
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
