/** Builds a `curl` command line that reproduces a request the suite sent. */
import type { SentRequest } from './http.ts';

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
    parts.push('--data-binary', quote(body));
  }
  return parts.join(' ');
}
