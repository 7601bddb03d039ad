/**
 * One exchange of the suite with the target, as the transport (http.ts) records it: the request as
 * sent and the response as received, with the times of both. Every layer above the transport (the
 * exchange log, the reports, the rules) reads these shapes from here.
 */
export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface HttpResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
  /** The parsed body, or undefined when the body is empty or not JSON. */
  json: unknown;
  request: SentRequest;
  /** performance.now() just before the request was sent. */
  sentAt: number;
  /** performance.now() when the whole body was written (an early answer: when it arrived). */
  flushedAt: number;
  /** performance.now() when the response headers arrived. */
  receivedAt: number;
  durationMs: number;
}
