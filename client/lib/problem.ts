/**
 * Problem documents (RFC 9457, conventions document section 7) parsed into a typed error.
 */

/** One entry of the `errors` list of a 422 validation problem. */
export interface FieldError {
  field: string;
  message: string;
}

/** What a response looked like, kept on the error so the caller sees the last response. */
export interface ResponseSnapshot {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * A problem document as a throwable error. `errors` is present for validation problems (422);
 * other members of the document are kept in `extensions`.
 */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string | undefined;
  readonly instance: string | undefined;
  readonly errors: FieldError[] | undefined;
  readonly extensions: Record<string, unknown>;
  /** The response the problem came from (status, headers, raw body). */
  readonly response: ResponseSnapshot;

  constructor(fields: {
    type: string;
    title: string;
    status: number;
    detail?: string;
    instance?: string;
    errors?: FieldError[];
    extensions?: Record<string, unknown>;
    response: ResponseSnapshot;
  }) {
    super(fields.detail ? `${fields.status} ${fields.title}: ${fields.detail}` : `${fields.status} ${fields.title}`);
    this.type = fields.type;
    this.title = fields.title;
    this.status = fields.status;
    this.detail = fields.detail;
    this.instance = fields.instance;
    this.errors = fields.errors;
    this.extensions = fields.extensions ?? {};
    this.response = fields.response;
  }

  /** The problem as a plain JSON object (the members of RFC 9457 plus the extensions). */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { ...this.extensions, type: this.type, title: this.title, status: this.status };
    if (this.detail !== undefined) out.detail = this.detail;
    if (this.instance !== undefined) out.instance = this.instance;
    if (this.errors !== undefined) out.errors = this.errors;
    return out;
  }
}

const KNOWN = new Set(['type', 'title', 'status', 'detail', 'instance', 'errors']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseFieldErrors(value: unknown): FieldError[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(isRecord).map((e) => ({
    field: typeof e.field === 'string' ? e.field : String(e.field ?? ''),
    message: typeof e.message === 'string' ? e.message : String(e.message ?? ''),
  }));
}

/** True when a Content-Type names a problem document (`application/problem+json`). */
export function isProblemMediaType(contentType: string | undefined): boolean {
  return /^application\/problem\+json\s*(;|$)/i.test(contentType ?? '');
}

/**
 * Parses an error response (status ≥ 400) into a ProblemError (RFC 9457 §3). A body that is not a
 * problem document still yields a problem: `about:blank` with the status as its title, so callers
 * handle one error shape. Returns null for statuses below 400.
 */
export function parseProblem(response: ResponseSnapshot, statusText = ''): ProblemError | null {
  if (response.status < 400) return null;
  const body = isRecord(response.body) ? response.body : {};
  const extensions: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (!KNOWN.has(key)) extensions[key] = value;
  return new ProblemError({
    type: typeof body.type === 'string' ? body.type : 'about:blank',
    title: typeof body.title === 'string' ? body.title : statusText || `HTTP ${response.status}`,
    status: typeof body.status === 'number' ? body.status : response.status,
    detail: typeof body.detail === 'string' ? body.detail : undefined,
    instance: typeof body.instance === 'string' ? body.instance : undefined,
    errors: parseFieldErrors(body.errors),
    extensions,
    response,
  });
}
