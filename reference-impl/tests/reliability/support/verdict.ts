/**
 * The verdict on one answer to a hostile input: a 4xx problem document whose
 * `status` member equals the HTTP status, never a 5xx, never HTML, never a dropped connection.
 * A tally counts the inputs tried and the failures seen, for the report.
 */
import type { RawResponse } from './raw-http.ts';

/** What went wrong with one answer, or undefined when it is acceptable. */
export function problemViolation(response: RawResponse, options: { allowSuccess?: boolean; head?: boolean } = {}): string | undefined {
  if (response.status === 0) return `no response (${response.dropped ?? 'dropped'})`;
  if (response.status >= 500) return `status ${response.status}`;
  const type = response.headers['content-type'] ?? '';
  if (/html/i.test(type) || /^\s*</.test(response.body.toString('utf8'))) return `HTML answer (${type})`;
  if (response.status < 400) {
    return options.allowSuccess ? undefined : `unexpected success ${response.status}`;
  }
  if (!/^application\/problem\+json\b/i.test(type)) return `content type "${type}" on ${response.status}`;
  if (options.head) return response.body.length === 0 ? undefined : 'a HEAD answer carries a body';
  let document: unknown;
  try {
    document = JSON.parse(response.body.toString('utf8'));
  } catch {
    return `unparsable problem body on ${response.status}`;
  }
  if (typeof document !== 'object' || document === null) return 'problem body is not an object';
  const { status, type: problemType, title } = document as Record<string, unknown>;
  if (status !== response.status) return `status member ${String(status)} differs from HTTP ${response.status}`;
  if (typeof problemType !== 'string' || typeof title !== 'string') return 'problem lacks type or title';
  return undefined;
}

/** Counts of one hostile-input run. */
export class Tally {
  tried = 0;
  fiveHundreds = 0;
  dropped = 0;
  readonly failures: string[] = [];
  readonly statuses = new Map<number, number>();

  /** Records one answer to `label`; returns the violation, if any. */
  record(label: string, response: RawResponse, options: { allowSuccess?: boolean; head?: boolean } = {}): string | undefined {
    this.tried += 1;
    this.statuses.set(response.status, (this.statuses.get(response.status) ?? 0) + 1);
    if (response.status >= 500) this.fiveHundreds += 1;
    if (response.status === 0) this.dropped += 1;
    const violation = problemViolation(response, options);
    if (violation !== undefined && this.failures.length < 20) this.failures.push(`${label}: ${violation}`);
    return violation;
  }

  /** One line for the report. */
  summary(name: string): string {
    const statuses = [...this.statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ');
    return `[hostile:${name}] inputs=${this.tried} 5xx=${this.fiveHundreds} dropped=${this.dropped} violations=${this.failures.length} statuses: ${statuses}`;
  }
}
