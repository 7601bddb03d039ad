/**
 * What `init` can tell from the error answers a document declares, before any run (D-PROBLEM-DETAILS,
 * D-RATE-LIMIT): error responses declared as plain JSON rather than `application/problem+json`, with
 * the framework default the schema is (FastAPI's `HTTPValidationError`, `{"detail": [{loc, msg, type}]}`)
 * and where its docs show the switch; and no 429 anywhere, with how the common limiters are declared.
 * Each is one note; nothing here changes the profile.
 */
import { HTTP_METHODS } from '../../conformance/openapi/document.ts';
import type { MediaType, PathItem } from '../../conformance/openapi/document.ts';

const PROBLEM_JSON = /^application\/problem\+json$/i;
const PLAIN_JSON = /^application\/json$/i;

type Schema = { properties?: Record<string, Schema>; items?: Schema; type?: unknown; title?: unknown };

/** FastAPI's validation answer: `{detail: [{loc, msg, type}]}` (fastapi/openapi/utils.py, validation_error_response_definition). */
function isFastApiValidationError(media: MediaType | undefined): boolean {
  const schema = media?.schema as Schema | undefined;
  const item = schema?.properties?.detail?.items;
  return schema?.title === 'HTTPValidationError' || (item?.properties?.loc !== undefined && item.properties.msg !== undefined);
}

/** The error statuses of an operation's responses (`4XX`, `default` and the like included) with their declared media types. */
function errorResponses(paths: Record<string, PathItem>): { status: string; content: Record<string, MediaType> }[] {
  return Object.values(paths).flatMap((item) =>
    HTTP_METHODS.flatMap((m) =>
      Object.entries(item[m]?.responses ?? {})
        .filter(([status]) => /^[45]/.test(status) || status === 'default')
        .map(([status, response]) => ({ status, content: response.content ?? {} })),
    ),
  );
}

export function errorShapeNotes(paths: Record<string, PathItem>): string[] {
  const notes: string[] = [];
  const errors = errorResponses(paths);
  const plain = errors.filter(({ content }) => {
    const types = Object.keys(content).map((t) => t.split(';')[0]?.trim() ?? '');
    return types.some((t) => PLAIN_JSON.test(t)) && !types.some((t) => PROBLEM_JSON.test(t));
  });
  if (plain.length > 0) {
    const statuses = [...new Set(plain.map((e) => e.status))].sort();
    const fastApi = plain.some((e) => e.status === '422' && isFastApiValidationError(e.content['application/json']));
    notes.push(
      `errors ${statuses.join(', ')} are declared as application/json, not application/problem+json: the problem-document checks ` +
        '(PROBLEM-*, the 422 errors array) will fail on them' +
        (fastApi
          ? '; the 422 is FastAPI\'s default validation answer {"detail": [{"loc", "msg", "type"}]}, which FastAPI\'s docs ("Handling Errors") ' +
            'replace with an @app.exception_handler(RequestValidationError) answering a problem document with errors[]'
          : ''),
    );
  }
  if (!errors.some((e) => e.status === '429'))
    notes.push(
      'no operation declares a 429: without rateLimit the plan is read from the first 429\'s headers; a window limiter is declared ' +
        'with rateLimit.algorithm "fixed-window" or "sliding-window" and windowSeconds (express-rate-limit, @fastify/rate-limit, ' +
        'Flask-Limiter and the limits library count a fixed window by default; their moving window is "sliding-window")',
    );
  return notes;
}
