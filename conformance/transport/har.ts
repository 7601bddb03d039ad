/**
 * `run --har FILE` (D-HAR): every exchange of a run as HTTP Archive 1.2 (the format browsers'
 * developer tools and HAR viewers open). Each worker appends its entries as JSON lines to a part file
 * of the run's HAR directory when a test ends (conformance/transport/har-log.ts); the CLI joins the
 * parts into one file ordered by start time (`joinHarParts`). Every entry's comment names the
 * requirement IDs and the title of the test that sent it; the exchange a failure is about is marked
 * `FAILED`. Credentials are masked unless `--har-secrets`.
 */
import { STATUS_CODES } from 'node:http';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION } from '../../spec/results.ts';

export interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: [];
    headers: HarHeader[];
    queryString: HarHeader[];
    postData?: { mimeType: string; text: string };
    headersSize: -1;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: [];
    headers: HarHeader[];
    content: { size: number; mimeType: string; text?: string };
    redirectURL: string;
    headersSize: -1;
    bodySize: number;
    /** Why no response came (the HAR has no place for it otherwise): status 0. */
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment: string;
}

export interface Har {
  log: { version: '1.2'; creator: { name: string; version: string }; entries: HarEntry[]; comment?: string };
}

/** What the HTTP client knows about one exchange (transport/http.ts), enough for a HAR entry. */
export interface HarSource {
  request: { method: string; url: string; headers: Record<string, string>; body?: string | Buffer };
  startedAt: number;
  response?: { status: number; headers: Record<string, string>; text: string; sentAt: number; flushedAt: number; receivedAt: number; durationMs: number };
  error?: unknown;
}

/** Bodies kept in the HAR, per entry (the 413 check sends 2 MiB). */
export const HAR_BODY_CHARS = 64 * 1024;

/** Headers whose values are credentials. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);
export const MASK = '[masked: run --har-secrets to keep]';

/** The credentials an exchange carries: bearer tokens and other secret header values, to be masked wherever they appear. */
function secretsOf(headers: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!SECRET_HEADERS.has(name.toLowerCase())) continue;
    const token = /^\s*\S+\s+(\S.*)$/.exec(value)?.[1];
    found.push(...[value, token].filter((v): v is string => v !== undefined && v.trim().length >= 4));
  }
  return found;
}

function maskText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join(MASK);
  // A token sent in the query (the AUTH-TOKEN-NOT-IN-QUERY check) is masked by its parameter name too.
  return out.replace(/([?&](?:access_token|token)=)[^&#\s]+/gi, `$1${encodeURIComponent(MASK)}`);
}

function cut(text: string): string {
  return text.length > HAR_BODY_CHARS ? `${text.slice(0, HAR_BODY_CHARS)}…[cut at ${HAR_BODY_CHARS} characters]` : text;
}

function headerList(headers: Record<string, string>, mask: (name: string, value: string) => string): HarHeader[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value: mask(name, value) }));
}

const round = (ms: number): number => Math.max(0, Math.round(ms * 1000) / 1000);

/** One HAR entry for `source`, commented `comment`; credentials masked unless `secrets`. */
export function harEntryOf(source: HarSource, comment: string, secrets: boolean): HarEntry {
  const known = secrets ? [] : secretsOf(source.request.headers);
  const text = (value: string): string => (secrets ? value : maskText(value, known));
  const header = (name: string, value: string): string => (secrets || !SECRET_HEADERS.has(name.toLowerCase()) ? value : MASK);
  const url = text(source.request.url);
  const sent = source.request.body;
  const body = sent === undefined ? undefined : typeof sent === 'string' ? sent : sent.toString('utf8');
  const response = source.response;
  const total = response?.durationMs ?? 0;
  const entry: HarEntry = {
    startedDateTime: new Date(source.startedAt).toISOString(),
    time: round(total),
    request: {
      method: source.request.method,
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(source.request.headers, header),
      queryString: [...new URL(url).searchParams.entries()].map(([name, value]) => ({ name, value })),
      ...(body !== undefined ? { postData: { mimeType: source.request.headers['content-type'] ?? '', text: text(cut(body)) } } : {}),
      headersSize: -1,
      bodySize: body === undefined ? 0 : Buffer.byteLength(body),
    },
    response: {
      status: response?.status ?? 0,
      statusText: response ? (STATUS_CODES[response.status] ?? '') : '',
      httpVersion: response ? 'HTTP/1.1' : '',
      cookies: [],
      headers: response ? headerList(response.headers, header) : [],
      content: {
        size: response ? Buffer.byteLength(response.text) : 0,
        mimeType: response?.headers['content-type'] ?? '',
        ...(response && response.text !== '' ? { text: text(cut(response.text)) } : {}),
      },
      redirectURL: response?.headers.location ?? '',
      headersSize: -1,
      bodySize: response ? Buffer.byteLength(response.text) : 0,
      ...(response ? {} : { _error: source.error instanceof Error ? (source.error.message.split('\n')[0] ?? source.error.name) : String(source.error) }),
    },
    cache: {},
    timings: response
      ? {
          send: round(response.flushedAt - response.sentAt),
          wait: round(response.receivedAt - response.flushedAt),
          receive: round(response.sentAt + response.durationMs - response.receivedAt),
        }
      : { send: 0, wait: 0, receive: 0 },
    comment,
  };
  return entry;
}

/** The comment of an entry: the test's requirement IDs and title, `FAILED` first for the exchange its failure is about. */
export function harComment(ids: readonly string[], title: string, failed: boolean): string {
  return `${failed ? 'FAILED ' : ''}${ids.join(' ')} · ${title}`;
}

/**
 * Joins the part files of `dir` (JSON lines of HAR entries, one file per worker) into the HAR of the
 * run at `file`, ordered by start time; removes `dir`. Returns the number of entries.
 */
export function joinHarParts(dir: string, file: string, comment: string): number {
  const entries: HarEntry[] = [];
  if (existsSync(dir)) {
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.jsonl')).sort()) {
      for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
        if (line.trim() !== '') entries.push(JSON.parse(line) as HarEntry);
      }
    }
  }
  entries.sort((a, b) => a.startedDateTime.localeCompare(b.startedDateTime));
  const har: Har = { log: { version: '1.2', creator: { name: 'http-api-conformance', version: VERSION }, entries, comment } };
  writeFileSync(file, `${JSON.stringify(har, null, 1)}\n`);
  rmSync(dir, { recursive: true, force: true });
  return entries.length;
}
