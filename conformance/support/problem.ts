/** Checks of RFC 9457 problem documents (document section 7 "Error body", D-ERRORS). */
import { getValidator } from '../../spec/schemas.ts';
import { curlFor } from '../transport/curl.ts';
import type { HttpResponse } from '../transport/message.ts';
import { noteBreaks, noteDescribed } from '../transport/exchange-log.ts';

/** The media type of a response without parameters, lower-cased. */
export function mediaType(response: HttpResponse): string {
  return (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * The exchange of `response` as a failure message shows it: the request's method and URL, the status,
 * content type and the body's first 300 characters on one line, then a curl line reproducing the
 * request. A message naming it makes this exchange the failure's evidence (D-FINDINGS: it is noted
 * in transport/exchange-log.ts).
 */
export function exchangeText(response: HttpResponse): string {
  const body = response.text.length > 300 ? `${response.text.slice(0, 300)}…` : response.text;
  const contentType = response.headers['content-type'] ?? '(no content type)';
  const text = `${response.request.method} ${response.request.url} → ${response.status} ${contentType} ${body}\n  reproduce: ${curlFor(response.request)}`;
  // The failure that prints this text is about this exchange (D-FINDINGS).
  noteDescribed(response, text);
  return text;
}

/**
 * A response header and the message for its matcher, as `expect(...headerOf(response, name))` takes
 * them (D-FINDINGS: a failure says what was sent, never a matcher's type error): an absent header is ''
 * to the matcher, and the message says "absent" before the exchange.
 */
export function headerOf(response: HttpResponse, name: string): [value: string, says: string] {
  const value = response.headers[name.toLowerCase()];
  return [value ?? '', `${name}: ${value === undefined ? 'absent' : JSON.stringify(value)}; ${exchangeText(response)}`];
}

/** PROBLEM-CONTENT-TYPE: undefined when the response is served as application/problem+json. */
export function contentTypeIssue(response: HttpResponse): string | undefined {
  return mediaType(response) === 'application/problem+json' ? undefined : `not application/problem+json: ${exchangeText(response)}`;
}

/** PROBLEM-MEMBERS: undefined when the body is a problem document valid against problem.schema.json. */
export function membersIssue(response: HttpResponse): string | undefined {
  if (response.json === undefined || response.json === null || typeof response.json !== 'object' || Array.isArray(response.json)) {
    return `body is not a JSON object: ${exchangeText(response)}`;
  }
  const validate = getValidator('problem');
  if (validate(response.json)) return undefined;
  const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`).join('; ');
  return `not a valid problem document (${errors}): ${exchangeText(response)}`;
}

/** PROBLEM-STATUS-MATCHES: undefined when the body's `status` equals the HTTP status. */
export function statusIssue(response: HttpResponse): string | undefined {
  const status = (response.json as { status?: unknown } | undefined)?.status;
  return status === response.status ? undefined : `body status ${JSON.stringify(status)} differs from HTTP ${response.status}: ${exchangeText(response)}`;
}

/**
 * Every envelope issue of one error response (content type, members, status). An error answer that is
 * no problem document is one defect of the code that produced it (D-FINDINGS): the exchange is noted as
 * breaking the first envelope rule it breaks, so a check failing on it for that alone (an AUTH- check
 * reading a framework's text/plain 401) is a consequence of that rule's finding, not a finding of its own.
 * An exchange already noted as breaking another rule (a provocation answered with another status) keeps it.
 */
export function problemIssues(response: HttpResponse): string[] {
  const contentType = contentTypeIssue(response);
  const members = membersIssue(response);
  const status = statusIssue(response);
  const first = contentType ? 'PROBLEM-CONTENT-TYPE' : members ? 'PROBLEM-MEMBERS' : status ? 'PROBLEM-STATUS-MATCHES' : undefined;
  if (first !== undefined && response.status >= 400) noteBreaks(response, first, 'a problem document', { unlessNoted: true, ownRuleText: true });
  return [contentType, members, status].filter((i): i is string => i !== undefined);
}

/** The member names and JSON types of a problem document's standard members. */
export function envelopeShape(body: unknown): string {
  if (body === null || typeof body !== 'object') return typeof body;
  const record = body as Record<string, unknown>;
  return ['type', 'title', 'status', 'detail', 'instance'].map((m) => `${m}:${m in record ? typeof record[m] : 'absent'}`).join(',');
}

/** The field names of a 422 body's `errors` array. */
export function errorFields(body: unknown): string[] {
  const errors = (body as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.map((e) => (e as { field?: unknown }).field).filter((f): f is string => typeof f === 'string');
}
