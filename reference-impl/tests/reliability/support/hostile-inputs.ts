/**
 * fast-check arbitraries of hostile requests. Each yields a `HostileRequest`:
 * the raw bytes to send and whether a 2xx is an acceptable answer (a generated body may by chance
 * be a valid payment).
 */
import fc from 'fast-check';
import { buildRequest } from './raw-http.ts';

export interface HostileRequest {
  label: string;
  bytes: Buffer;
  allowSuccess: boolean;
}

export const ALICE_AUTH: [string, string] = ['Authorization', 'Bearer dev-token-alice'];
const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];

/** Write endpoints that read a JSON object body (D-BODY). */
export const BODY_TARGETS: readonly { method: string; path: string }[] = [
  { method: 'POST', path: '/payments' },
  { method: 'POST', path: '/users' },
  { method: 'PUT', path: '/users/1' },
  { method: 'POST', path: '/orders' },
  { method: 'POST', path: '/authors' },
  { method: 'POST', path: '/posts/1/comments' },
  { method: 'POST', path: '/orders/1/cancel' },
];

const target = fc.constantFrom(...BODY_TARGETS);

function bodyRequest(label: string, t: { method: string; path: string }, body: string | Buffer, headers: [string, string][] = [JSON_TYPE]): Buffer {
  return buildRequest(t.method, t.path, [ALICE_AUTH, ...headers], body);
}

/** A valid JSON document cut short at a random point: never a complete object. */
export const truncatedJson: fc.Arbitrary<HostileRequest> = fc
  .tuple(target, fc.json({ maxDepth: 4 }).filter((text) => text.length > 1 && text.trimStart().startsWith('{')), fc.double({ min: 0, max: 1, noNaN: true }))
  .map(([t, text, at]) => {
    const cut = text.slice(0, Math.min(text.length - 1, Math.floor(at * text.length)));
    return { label: `truncated JSON ${t.method} ${t.path}: ${JSON.stringify(cut).slice(0, 80)}`, bytes: bodyRequest('', t, cut), allowSuccess: false };
  });

/** Bytes that are not JSON: random text, JSON-like garbage, binary. */
export const malformedJson: fc.Arbitrary<HostileRequest> = fc
  .tuple(
    target,
    fc.oneof(
      fc.string({ maxLength: 200 }).filter((text) => !isJsonObjectText(text)),
      fc.constantFrom(
        '{',
        '}',
        '{"a":}',
        "{'a':1}",
        '{"a":1,}',
        '[1,2',
        'NaN',
        'undefined',
        '{"a":1}{"b":2}',
        '\u0000',
        '{"amount":01}',
        '{"a":"\\x"}',
        '\ufeff{}',
      ),
      fc.uint8Array({ minLength: 1, maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
    ),
  )
  .map(([t, text]) => ({
    label: `malformed JSON ${t.method} ${t.path}: ${JSON.stringify(text).slice(0, 80)}`,
    bytes: bodyRequest('', t, Buffer.from(text, 'latin1')),
    allowSuccess: isJsonObjectText(Buffer.from(text, 'latin1').toString('utf8')),
  }));

function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** A media type other than JSON, or none at all: always 415 (D-BODY). */
export const wrongContentType: fc.Arbitrary<HostileRequest> = fc
  .tuple(
    target.filter((t) => !t.path.endsWith('/cancel')),
    fc.oneof(
      fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'text/html',
        'application/jsonx',
        'json',
        'application/',
        '*/*',
        'application/json-patch',
        '',
      ),
      fc.stringMatching(/^[a-z]{1,10}\/[a-z0-9.-]{1,15}$/).filter((type) => !/json$/.test(type)),
    ),
  )
  .map(([t, type]) => ({
    label: `content type "${type}" ${t.method} ${t.path}`,
    bytes: bodyRequest('', t, '{"amount":100,"currency":"usd"}', type === '' ? [] : [['Content-Type', type]]),
    allowSuccess: false,
  }));

/** Bodies over the 64 KiB limit, declared honestly or sent chunked: 413. */
export const oversizedBody: fc.Arbitrary<HostileRequest> = fc
  .tuple(target, fc.integer({ min: 65_537, max: 300_000 }), fc.boolean())
  .map(([t, size, chunked]) => {
    const body = `{"description":"${'x'.repeat(size)}"}`;
    const bytes = chunked
      ? bodyRequest('', t, `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`, [JSON_TYPE, ['Transfer-Encoding', 'chunked']])
      : bodyRequest('', t, body);
    return { label: `body of ${body.length} bytes${chunked ? ' (chunked)' : ''} ${t.method} ${t.path}`, bytes, allowSuccess: false };
  });

/** Deeply nested arrays or objects (up to ~30 000 levels, under the size limit). */
export const deepJson: fc.Arbitrary<HostileRequest> = fc
  .tuple(target, fc.integer({ min: 1_000, max: 30_000 }), fc.constantFrom('array', 'object', 'member'))
  .map(([t, depth, kind]) => {
    const text =
      kind === 'array'
        ? `${'['.repeat(depth)}${']'.repeat(depth)}`
        : kind === 'object'
          ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
          : `{"amount":100,"currency":"usd","description":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    return { label: `${kind} nested ${depth} levels ${t.method} ${t.path}`, bytes: bodyRequest('', t, text), allowSuccess: false };
  });

/** Numbers JavaScript cannot hold exactly: 1e400, 2^64, thousands of digits, tiny exponents. */
export const hugeNumbers: fc.Arbitrary<HostileRequest> = fc
  .tuple(
    fc.constantFrom('amount', 'total', 'version', 'authorId'),
    fc.oneof(
      fc.constantFrom('1e400', '-1e400', '18446744073709551616', '9007199254740993', '1e-400', '-0', '1E+308', '0.1e999999999', '100.0000000000000000001'),
      fc.integer({ min: 20, max: 5_000 }).map((digits) => '9'.repeat(digits)),
      fc.integer({ min: 309, max: 100_000 }).map((exponent) => `1e${exponent}`),
    ),
  )
  .map(([field, number]) => ({
    label: `number ${number.slice(0, 40)} in ${field}`,
    bytes: bodyRequest('', { method: 'POST', path: field === 'total' ? '/orders' : '/payments' }, `{"${field}":${number},"currency":"usd"}`),
    // JSON.parse rounds 100.0000000000000000001 to 100 (RFC 8259 §6 lets a parser limit precision).
    allowSuccess: number === '100.0000000000000000001' && (field === 'total' || field === 'amount'),
  }));

const POLLUTING_KEYS = ['__proto__', 'constructor', 'prototype', '__defineGetter__', 'toString', 'hasOwnProperty', 'valueOf'] as const;

/** Objects whose members are `__proto__`, `constructor`, `prototype`, nested anywhere. */
export const pollutingJson: fc.Arbitrary<HostileRequest> = fc
  .tuple(
    target,
    fc.constantFrom(...POLLUTING_KEYS),
    fc.constantFrom(...POLLUTING_KEYS, 'amount', 'description'),
    fc.boolean(),
  )
  .map(([t, outer, inner, withValidMembers]) => {
    const payload = `{"${inner}":{"polluted":"yes","isAdmin":true},"prototype":{"polluted":"yes"}}`;
    const valid = withValidMembers ? '"amount":100,"currency":"usd",' : '';
    const text = `{${valid}"${outer}":${payload},"description":{"${outer}":{"polluted":"yes"}}}`;
    return { label: `polluting keys ${outer}/${inner} ${t.method} ${t.path}`, bytes: bodyRequest('', t, text), allowSuccess: false };
  });

/** JSON whose strings carry invalid UTF-8 bytes (lone continuation bytes, overlongs, surrogates). */
export const invalidUtf8Json: fc.Arbitrary<HostileRequest> = fc
  .tuple(target, fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0xe0, 0xa4], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xfe, 0xfe]))
  .map(([t, bad]) => {
    const body = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from(bad), Buffer.from('b","email":"x@example.com","amount":100,"currency":"usd"}')]);
    return { label: `invalid UTF-8 ${Buffer.from(bad).toString('hex')} ${t.method} ${t.path}`, bytes: bodyRequest('', t, body), allowSuccess: false };
  });
