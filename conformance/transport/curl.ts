/** Builds a `curl` command line that reproduces a request the suite sent. */
import type { SentRequest } from './message.ts';

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A copy-pasteable curl command for `request` (method, URL, headers, body). */
export function curlFor(request: SentRequest): string {
  const parts = request.method === 'HEAD'
    ? ['curl', '-i', '--head', quote(request.url)]
    : ['curl', '-i', '-X', quote(request.method), quote(request.url)];
  for (const [name, value] of Object.entries(request.headers)) {
    if (name === 'content-length') continue;
    parts.push('-H', quote(`${name}: ${value}`));
  }
  if (request.body !== undefined) {
    const body = typeof request.body === 'string' ? request.body : request.body.toString('utf8');
    parts.push('--data-binary', bodyArgument(body));
  }
  return parts.join(' ');
}

/**
 * The body as a shell argument. A large body made mostly of one repeated character (the 2 MiB probe of
 * STATUS-413-BODY-TOO-LARGE) is rebuilt by the shell instead of being printed in full: the line stays
 * short and still sends the same bytes.
 */
function bodyArgument(body: string): string {
  if (body.length <= 4096) return quote(body);
  const run = firstLongRun(body, 1024);
  const char = run && body[run.start];
  if (!run || !char || run.length < body.length / 2 || !/^[\w.-]$/.test(char)) return quote(body);
  const before = body.slice(0, run.start);
  const after = body.slice(run.start + run.length);
  return `"$(printf %s ${quote(before)}; head -c ${run.length} /dev/zero | tr '\\0' '${char}'; printf %s ${quote(after)})"`;
}

/**
 * The first run of at least `min` equal UTF-16 code units in `text`, found in one pass. The regular
 * expression it replaces, /(.)\1{1023,}/s, took about 0.45 s of a worker's CPU on each 2 MiB body.
 */
function firstLongRun(text: string, min: number): { start: number; length: number } | undefined {
  let start = 0;
  for (let i = 1; i <= text.length; i++) {
    if (i < text.length && text.charCodeAt(i) === text.charCodeAt(start)) continue;
    if (i - start >= min) return { start, length: i - start };
    start = i;
  }
  return undefined;
}
