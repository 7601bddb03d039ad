/**
 * A client bound to one base URL and one caller. Tests that are not about rate limits use it with
 * `waitOut429` (the default): a 429 is waited out using its `Retry-After` (bounded) and retried, so a
 * target with a modest ordinary limit does not fail them (D-PROFILE).
 */
import { retryAfterSeconds, send } from './http.ts';
import { waitFor } from './waits.ts';
import { BEARER_ONLY, prepared } from './sending.ts';
import type { Sending } from './sending.ts';
import type { RequestOptions } from './http.ts';
import type { HttpResponse } from './message.ts';

export interface ClientOptions {
  /** The caller's token, sent with every request the API's way (`sending`); null sends none. */
  token: string | null;
  /** How the API takes tokens and which parameters it requires (D-SHAPES; default: Bearer, none). */
  sending?: Sending;
  /** Wait out 429 answers using Retry-After (default true). */
  waitOut429?: boolean;
  /** Longest total wait for 429s of one request, in seconds (default 20). */
  maxWaitSeconds?: number;
}

export interface CallOptions extends RequestOptions {
  /** Overrides the client's token for this request; null sends none. */
  token?: string | null;
  /** A raw Authorization header value, sent as it is whatever the API's scheme (wins over `token`). */
  authorization?: string;
}

export class Client {
  constructor(
    readonly baseUrl: string,
    readonly options: ClientOptions,
  ) {}

  /** The same target with another caller (or none). */
  as(token: string | null): Client {
    return new Client(this.baseUrl, { ...this.options, token });
  }

  /** The same caller without waiting out 429s (for the rate-limit checks). */
  raw(): Client {
    return new Client(this.baseUrl, { ...this.options, waitOut429: false });
  }

  /** Sends a request; a 429 is waited out per Retry-After unless the client is raw. */
  async request(method: string, path: string, options: CallOptions = {}): Promise<HttpResponse> {
    const own = { ...(options.headers ?? {}) };
    const token = options.token === undefined ? this.options.token : options.token;
    if (options.authorization !== undefined) own.authorization = options.authorization;
    const sent = prepared(this.options.sending ?? BEARER_ONLY, path, own, token);
    const call = { ...options, headers: sent.headers };
    let waited = 0;
    const maxWait = this.options.maxWaitSeconds ?? 20;
    for (;;) {
      const response = await send(this.baseUrl, method, sent.path, call);
      if (response.status !== 429 || this.options.waitOut429 === false) return response;
      const seconds = retryAfterSeconds(response) ?? 1;
      if (waited + seconds > maxWait) return response;
      waited += seconds;
      await waitFor(seconds * 1000 + 50, `Retry-After ${seconds} s of a 429`);
    }
  }

  get(path: string, options?: CallOptions): Promise<HttpResponse> {
    return this.request('GET', path, options);
  }

  post(path: string, json: unknown, options?: CallOptions): Promise<HttpResponse> {
    return this.request('POST', path, { ...options, json });
  }

  put(path: string, json: unknown, options?: CallOptions): Promise<HttpResponse> {
    return this.request('PUT', path, { ...options, json });
  }

  delete(path: string, options?: CallOptions): Promise<HttpResponse> {
    return this.request('DELETE', path, options);
  }
}
