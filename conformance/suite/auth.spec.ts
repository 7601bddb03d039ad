/**
 * Authentication and authorisation (document section 5, D-AUTH, RFC 6750 §3, RFC 9110 §15.5.2):
 * 401 for missing, malformed and unknown tokens with a Bearer challenge, 403 for a token lacking a
 * permission, identity carried by each request alone.
 */
import { test, expect } from '../fixtures.ts';
import type { LimitedCaller } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import { exchangeText, headerOf, problemIssues } from '../support/problem.ts';
import { keepAliveAgent, send } from '../transport/http.ts';
import { fillTemplate, uniqueValue } from '../support/template.ts';
import type { HttpResponse } from '../transport/message.ts';
import type { Target } from '../support/target.ts';
import { skipCheck } from '../support/skip.ts';
import { INVALID_TOKEN_ERROR } from '../support/challenge.ts';
import { noteBreaks } from '../transport/exchange-log.ts';
import { credentialsText, prepared, sendingOf } from '../transport/sending.ts';

/**
 * Skips a check of the Bearer form itself when the API takes its tokens another way (profile
 * `credentials`): AUTH-BEARER-HEADER reports that once (D-FINDINGS, D-SHAPES).
 */
function onlyForBearer(target: Target): void {
  const credentials = target.profile.credentials ?? { scheme: 'bearer' };
  if (credentials.scheme !== 'bearer') {
    const what = `the API takes ${credentialsText(credentials)}, not a bearer token`;
    skipCheck(`${what}: AUTH-BEARER-HEADER reports that once, and this check is about the Bearer form`);
  }
}

type CallOptions = { token?: string | null; authorization?: string; headers?: Record<string, string> };

/** The profile's protected request with `options`' credentials; one sent without any notes AUTH-401-MISSING when it is not refused with 401. */
async function protectedCall(target: Target, options: CallOptions): Promise<HttpResponse> {
  const prot = target.profile.protected;
  const response = await target.client.request(prot.method, prot.path, { ...options, ...(prot.body === undefined ? {} : { json: fillTemplate(prot.body) }) });
  if (options.token === null && options.authorization === undefined) noteRefusal(response, 'AUTH-401-MISSING', options.headers?.cookie !== undefined);
  return response;
}

/**
 * D-FINDINGS: a request without credentials (AUTH-401-MISSING) or with an unknown token
 * (AUTH-401-INVALID) that is not answered 401 is that rule's defect. The checks of other rules that
 * send one (statelessness, the challenge) fail on it as its consequence: FastAPI's HTTPBearer answers
 * 403 to a request without a token, one line of code and one finding. A cookie that is let in (2xx)
 * is STATELESS-NO-SESSION's own defect, so only an error other than 401 is noted for it.
 */
function noteRefusal(response: HttpResponse, requirement: 'AUTH-401-MISSING' | 'AUTH-401-INVALID', cookieOnly = false): void {
  if (response.status === 401 || (cookieOnly && response.status < 400)) return;
  const what = requirement === 'AUTH-401-MISSING' ? 'a request without credentials' : 'an unknown token';
  noteBreaks(response, requirement, `a 401 for ${what}`, { unlessNoted: true });
}

/** The profile's `tokens.limited.request`, sent by the caller it is forbidden to. */
function forbiddenCall({ client, request }: LimitedCaller): Promise<HttpResponse> {
  return client.request(request.method, request.path, request.body === undefined ? {} : { json: fillTemplate(request.body) });
}

const malformedHeaders = ['Basic dXNlcjpwYXNzd29yZA==', 'Bearer', 'Bearer ', 'Bearer a b', 'Token abc', 'dev-token', 'Bearer\tabc'];

test('a request without Authorization to a protected endpoint is a 401 problem', req('AUTH-401-MISSING', '@generic', '@smoke'), async ({ target }) => {
  const response = await protectedCall(target, { token: null });
  expect(response.status, exchangeText(response)).toBe(401);
  expect(problemIssues(response)).toEqual([]);
  for (const collection of target.profile.collections.filter((c) => c.auth?.write && c.create && c.methods.includes('POST'))) {
    const write = await target.anonymous.post(collection.path, fillTemplate(collection.create));
    expect(write.status, exchangeText(write)).toBe(401);
  }
});

test('an unknown bearer token is a 401 problem', req('AUTH-401-INVALID', '@generic', '@smoke'), async ({ target }) => {
  for (const token of [`hac-unknown-${uniqueValue()}`, `${target.profile.tokens.valid}x`, target.profile.tokens.valid.slice(0, -1)]) {
    const response = await protectedCall(target, { token });
    expect(response.status, exchangeText(response)).toBe(401);
    expect(problemIssues(response)).toEqual([]);
  }
});

/** The Authorization headers that carry the valid token yet are not `Bearer <token>`, and the malformed ones. */
function notBearerHeaders(target: Target): string[] {
  // The scheme is the whole first word and the credentials are one b64token (RFC 6750 §2.1), so neither a
  // longer scheme nor trailing words make it valid.
  const token = target.profile.tokens.valid;
  return [...malformedHeaders, `XBearer ${token}`, `Bearer ${token} extra`, `Bearer ${token}, Bearer ${token}`];
}

test(
  'a malformed Authorization header or another scheme is refused with a 401 or 400 problem',
  req('AUTH-401-MALFORMED', '@generic'),
  async ({ target }) => {
    onlyForBearer(target);
    // RFC 6750 §3.1 lets a malformed request be a 400 (invalid_request), the document's 401 covers invalid
    // credentials: both are allowed, never an admission (D-SUITE-TRUST); AUTH-MALFORMED-401 asks for 401.
    for (const authorization of notBearerHeaders(target)) {
      const response = await protectedCall(target, { authorization });
      expect([400, 401], `${JSON.stringify(authorization)}: ${exchangeText(response)}`).toContain(response.status);
      expect(problemIssues(response)).toEqual([]);
    }
  },
);

test('a malformed Authorization header or another scheme is a 401, not a 400', req('AUTH-MALFORMED-401', '@generic'), async ({ target }) => {
  onlyForBearer(target);
  for (const authorization of notBearerHeaders(target)) {
    const response = await protectedCall(target, { authorization });
    expect(response.status, `${JSON.stringify(authorization)}: ${exchangeText(response)}`).toBe(401);
  }
});

test('every 401 carries a Bearer challenge, with invalid_token when a token was sent', req('AUTH-WWW-AUTHENTICATE', '@generic'), async ({ target }) => {
  onlyForBearer(target);
  const missing = await protectedCall(target, { token: null });
  expect(missing.status).toBe(401);
  expect(...headerOf(missing, 'WWW-Authenticate')).toMatch(/^Bearer(\s|$)/i);
  // realm is optional (RFC 6750 §3: "MAY be included", D-SUITE-TRUST); when present it is a quoted string.
  const realm = /realm=("?)([^",]*)\1/i.exec(missing.headers['www-authenticate'] ?? '');
  if (realm) expect(realm[1], `realm is a quoted string: ${exchangeText(missing)}`).toBe('"');
  const unknown = await protectedCall(target, { token: `hac-unknown-${uniqueValue()}` });
  noteRefusal(unknown, 'AUTH-401-INVALID');
  expect(unknown.status).toBe(401);
  expect(...headerOf(unknown, 'WWW-Authenticate')).toMatch(/^Bearer\s/i);
  // error=invalid_token as a token or a quoted string (RFC 9110 §11.2, D-AUTH).
  expect(...headerOf(unknown, 'WWW-Authenticate')).toMatch(INVALID_TOKEN_ERROR);
  // The challenge belongs to a 401 (RFC 9110 §15.5.2); a 400 for a malformed header is allowed (AUTH-401-MALFORMED).
  for (const authorization of malformedHeaders) {
    const response = await protectedCall(target, { authorization });
    if (response.status === 401) expect(...headerOf(response, 'WWW-Authenticate')).toMatch(/^Bearer(\s|$)/i);
  }
});

test(
  'a valid token lacking the permission is a 403 problem and changes nothing',
  req('AUTH-403-PERMISSION', '@generic', '@smoke'),
  async ({ limitedCaller }) => {
    const { client, request } = limitedCaller;
    const before = await client.get(request.path);
    const response = await forbiddenCall(limitedCaller);
    expect(response.status, exchangeText(response)).toBe(403);
    expect(problemIssues(response)).toEqual([]);
    if (before.status === 200) {
      const after = await client.get(request.path);
      expect(after.json, 'what the limited caller sees is unchanged').toEqual(before.json);
    }
  },
);

test('a 403 for a missing permission carries insufficient_scope', req('AUTH-403-INSUFFICIENT-SCOPE', '@generic'), async ({ target, limitedCaller }) => {
  onlyForBearer(target);
  const response = await forbiddenCall(limitedCaller);
  expect(response.status).toBe(403);
  expect(...headerOf(response, 'WWW-Authenticate')).toMatch(/^Bearer\s/i);
  expect(...headerOf(response, 'WWW-Authenticate')).toMatch(/error="insufficient_scope"/);
  expect(...headerOf(response, 'WWW-Authenticate')).toMatch(/scope="[^"]+"/);
});

test(
  'the valid token is accepted in Authorization: Bearer, with any case of the scheme, and not from a cookie',
  req('AUTH-BEARER-HEADER', '@generic', '@smoke'),
  async ({ target }) => {
    const token = target.profile.tokens.valid;
    const credentials = target.profile.credentials ?? { scheme: 'bearer' };
    if (credentials.scheme !== 'bearer') {
      // One finding for the scheme (D-FINDINGS): unless the API takes the document's Bearer form as well.
      const asBearer = await protectedCall(target, { authorization: `Bearer ${token}` });
      const says = `the document's scheme is Bearer ("Authorization: Bearer <ACCESS_TOKEN>"); this API takes ${credentialsText(credentials)}`;
      expect(asBearer.status, `${says}, and refuses the token as a bearer token: ${exchangeText(asBearer)}`).toBeLessThan(300);
    }
    // RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token; the scheme is case-insensitive (RFC 9110 §11.1).
    for (const authorization of [`Bearer ${token}`, `bearer ${token}`, `BEARER ${token}`, `Bearer  ${token}`]) {
      const response = await protectedCall(target, { authorization });
      expect(response.status, `${JSON.stringify(authorization.replace(token, '<valid token>'))}: ${exchangeText(response)}`).toBeLessThan(300);
    }
    // A token also taken from the query is RFC 6750 §2.3's to allow: the SHOULD AUTH-TOKEN-NOT-IN-QUERY asks against it (D-AUTH).
    const inCookie = await protectedCall(target, { token: null, headers: { cookie: `access_token=${token}; token=${token}` } });
    expect(inCookie.status, `a token in a cookie is not identity: ${exchangeText(inCookie)}`).toBe(401);
  },
);

test('a token in the query string is not identity', req('AUTH-TOKEN-NOT-IN-QUERY', '@generic'), async ({ target }) => {
  onlyForBearer(target);
  const prot = target.profile.protected;
  const token = encodeURIComponent(target.profile.tokens.valid);
  const inQuery = await target.anonymous.request(prot.method, `${prot.path}${prot.path.includes('?') ? '&' : '?'}access_token=${token}`);
  expect([400, 401], `a token in the access_token query parameter is taken as identity (RFC 6750 §2.3, §5.3): ${exchangeText(inQuery)}`).toContain(
    inQuery.status,
  );
});

test('a request without the token after one with it is anonymous', req('AUTH-STATELESS', '@generic'), async ({ target }) => {
  const authenticated = await protectedCall(target, {});
  expect(authenticated.status, exchangeText(authenticated)).toBeLessThan(300);
  const anonymous = await protectedCall(target, { token: null });
  expect(anonymous.status, exchangeText(anonymous)).toBe(401);
});

test('requests on one connection are each judged on their own content', req('STATELESS-SELF-CONTAINED', '@generic'), async ({ target }) => {
  const agent = keepAliveAgent(target.baseUrl);
  try {
    const prot = target.profile.protected;
    const body = prot.body === undefined ? {} : { json: fillTemplate(prot.body) };
    // Each token sent the API's way, with its required parameters (D-SHAPES).
    const sending = sendingOf(target.profile);
    const valid = target.profile.tokens.valid;
    const unknown = `hac-unknown-${uniqueValue()}`;
    const sequence: [string | null, (s: number) => boolean, string][] = [
      [valid, (s) => s < 300, 'the valid token'],
      [null, (s) => s === 401, 'no token after a valid one'],
      [unknown, (s) => s === 401, 'an unknown token'],
      [valid, (s) => s < 300, 'the valid token again'],
      [null, (s) => s === 401, 'no token again'],
    ];
    for (const [token, ok, what] of sequence) {
      const sent = prepared(sending, prot.path, {}, token);
      const response = await send(target.baseUrl, prot.method, sent.path, { ...body, headers: sent.headers, agent });
      if (token === null) noteRefusal(response, 'AUTH-401-MISSING');
      if (token === unknown) noteRefusal(response, 'AUTH-401-INVALID');
      expect(ok(response.status), `${what}: ${exchangeText(response)}`).toBe(true);
    }
  } finally {
    agent.destroy();
  }
});

test('no response sets a session cookie and a cookie never stands in for the token', req('STATELESS-NO-SESSION', '@generic'), async ({ target }) => {
  const responses = [await protectedCall(target, {}), await protectedCall(target, { token: null })];
  for (const collection of target.profile.collections.filter((c) => c.methods.includes('GET'))) responses.push(await target.client.get(collection.path));
  const creatable = target.creatable();
  if (creatable) responses.push((await target.create(creatable)).response);
  for (const response of responses) expect(response.headers['set-cookie'], exchangeText(response)).toBeUndefined();
  const withCookie = await protectedCall(target, { token: null, headers: { cookie: 'session=hac-session; sid=1' } });
  expect(withCookie.status, exchangeText(withCookie)).toBe(401);
});

test('an unknown token on a public read is a 401 too', req('AUTH-TOKEN-ALWAYS-CHECKED', '@generic'), async ({ target }) => {
  const publicCollection = target.profile.collections.find((c) => c.auth?.read === false && c.methods.includes('GET'));
  if (publicCollection === undefined) skipCheck('the profile declares no public collection (collections[].auth.read false)');
  const response = await target.client.get(publicCollection.path, { token: `hac-unknown-${uniqueValue()}` });
  expect(response.status, exchangeText(response)).toBe(401);
  if ((target.profile.credentials?.scheme ?? 'bearer') !== 'bearer') return;
  const malformed = await target.client.get(publicCollection.path, { authorization: 'Basic dXNlcjpwYXNz' });
  expect(malformed.status, exchangeText(malformed)).toBe(401);
});

test('public collections are readable without a token, the others are not', req('AUTH-PUBLIC-READS', '@generic'), async ({ target }) => {
  const readable = target.profile.collections.filter((c) => c.auth?.read !== undefined && c.methods.includes('GET'));
  if (readable.length === 0) skipCheck('the profile does not say which reads are public (collections[].auth.read)');
  for (const collection of readable) {
    const response = await target.anonymous.get(collection.path);
    if (collection.auth?.read) expect(response.status, exchangeText(response)).toBe(401);
    else expect(response.status, exchangeText(response)).toBe(200);
  }
});
