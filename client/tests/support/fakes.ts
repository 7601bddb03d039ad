/**
 * Test doubles for the client's unit tests: a fake clock whose sleep advances it, a scripted fetch
 * that records every call, and a queue of random values.
 */

export interface FakeTime {
  clock: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Every sleep asked for, in milliseconds. */
  sleeps: number[];
  advance: (ms: number) => void;
}

/** A clock starting at `start` (epoch ms) that moves only when the client sleeps. */
export function fakeTime(start = Date.UTC(2026, 0, 1, 12, 0, 0)): FakeTime {
  let now = start;
  const sleeps: number[] = [];
  return {
    clock: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    sleeps,
    advance: (ms) => {
      now += ms;
    },
  };
}

/** Returns the values in turn, then repeats the last one. */
export function randomSequence(...values: number[]): () => number {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)] ?? 0;
}

export interface RecordedCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** The fake clock's time when the call was made. */
  at: number;
}

type Step = Response | Error | ((call: RecordedCall) => Response | Error);

/** A problem+json response. */
export function problem(status: number, headers: Record<string, string> = {}, members: Record<string, unknown> = {}): Response {
  const body = { type: 'about:blank', title: `status ${status}`, status, ...members };
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/problem+json', ...headers } });
}

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** A fetch that plays `steps` in order (the last one repeats) and records every call. */
export function scriptedFetch(steps: Step[], clock: () => number = Date.now): { fetch: typeof globalThis.fetch; calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const call: RecordedCall = {
      method: init?.method ?? 'GET',
      url: input instanceof Request ? input.url : String(input),
      headers,
      body: typeof init?.body === 'string' ? init.body : undefined,
      at: clock(),
    };
    calls.push(call);
    const step = steps[Math.min(calls.length - 1, steps.length - 1)];
    if (step === undefined) throw new Error('scriptedFetch: no steps');
    const result = typeof step === 'function' ? step(call) : step;
    if (result instanceof Error) throw result;
    return result.clone();
  };
  return { fetch: fetchImpl as typeof globalThis.fetch, calls };
}
