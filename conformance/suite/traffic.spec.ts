/**
 * Provoke where defects hide (D-TRAFFIC): the requests no other check sends, on every route the
 * profile declares, so that the response rules (conformance/traffic/rules.ts), which judge every
 * exchange of the run, see the answers a defect one route, method or status away from a check's own
 * script would give: writes with unknown and altered tokens, the declared invalid bodies on every write
 * that takes one (PUT as well as POST), keys replayed on every POST and reused on another path and
 * another method. Each check also asserts the MUST its requests provoke.
 */
import { test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import { exchangeText } from '../support/problem.ts';
import { fillTemplate, uniqueValue } from '../support/template.ts';
import { freshKey, isStoredResult, keyed, NO_IDEMPOTENT_ENDPOINT } from '../support/idempotency.ts';
import type { HttpResponse } from '../transport/message.ts';
import type { Client } from '../transport/client.ts';
import type { Target } from '../support/target.ts';
import type { ProfileCollection } from '../target/profile.ts';
import { skipCheck } from '../support/skip.ts';

/** A request of the profile's routes that needs identity, as the valid caller may send it. */
interface GuardedRequest {
  method: string;
  path: string;
  body?: unknown;
}

/** Every request of the profile that needs identity: writes of collections with `auth.write`, reads of those with `auth.read`. */
async function guardedRequests(target: Target): Promise<GuardedRequest[]> {
  const list: GuardedRequest[] = [];
  for (const c of target.profile.collections) {
    const write = c.auth?.write !== false;
    const read = c.auth?.read !== false;
    if (read && c.methods.includes('GET')) list.push({ method: 'GET', path: c.path });
    if (write && c.methods.includes('POST') && c.create) list.push({ method: 'POST', path: c.path, body: c.create });
    if (c.itemPath === undefined || c.itemMethods === undefined) continue;
    const item = await target.existingItem({ ...c, itemPath: c.itemPath });
    if (item === undefined) continue;
    if (read && c.itemMethods.includes('GET')) list.push({ method: 'GET', path: item });
    if (write && c.itemMethods.includes('PUT') && c.replace) list.push({ method: 'PUT', path: item, body: c.replace });
    if (write && c.itemMethods.includes('DELETE')) list.push({ method: 'DELETE', path: item });
  }
  return list;
}

/** Tokens the target never issued: made up, and the valid one with a character added or removed (D-AUTH). */
function unknownTokens(valid: string): string[] {
  return [`hac-unknown-${uniqueValue()}`, `${valid}x`, valid.slice(0, -1)];
}

test(
  'every request that needs identity, writes included, refuses unknown and altered tokens with 401',
  req('AUTH-401-INVALID', '@generic', '@traffic'),
  async ({ target }) => {
    const requests = await guardedRequests(target);
    if (requests.length === 0) skipCheck('the profile declares no route that needs identity (collections[].auth)');
    const tokens = unknownTokens(target.profile.tokens.valid);
    const answers = await Promise.all(
      requests.flatMap((r) =>
        tokens.map((token) => target.client.request(r.method, r.path, { token, ...(r.body === undefined ? {} : { json: fillTemplate(r.body) }) })),
      ),
    );
    const wrong = answers.filter((a) => a.status !== 401).map(exchangeText);
    expect(wrong, 'requests with a token the target never issued, not answered 401').toEqual([]);
  },
);

/** Collections whose item path takes a PUT and that declare an invalid body (collections[].invalid). */
function invalidWrites(target: Target): (ProfileCollection & { invalid: { body: unknown; fields: string[] } })[] {
  return target.profile.collections.filter((c): c is ProfileCollection & { invalid: { body: unknown; fields: string[] } } => c.invalid !== undefined);
}

test(
  'the declared invalid body is refused with 422 by every write that takes a body, PUT as well as POST',
  req('STATUS-422-INVALID-VALUES', '@generic', '@traffic'),
  async ({ target }) => {
    const collections = invalidWrites(target);
    if (collections.length === 0) skipCheck('the profile declares no invalid body (collections[].invalid)');
    const sent: Promise<HttpResponse>[] = [];
    for (const c of collections) {
      if (c.methods.includes('POST')) sent.push(target.client.post(c.path, c.invalid.body));
      if (c.itemPath === undefined || !c.itemMethods?.includes('PUT') || c.replace === undefined) continue;
      const item = await target.existingItem({ ...c, itemPath: c.itemPath });
      if (item !== undefined) sent.push(target.client.put(item, c.invalid.body));
    }
    if (sent.length === 0) skipCheck('no collection with an invalid body takes a POST or a PUT');
    const answers = await Promise.all(sent);
    // VALIDATION-ALL-FIELDS judges what each 422 names, on every exchange (D-TRAFFIC).
    expect(answers.filter((a) => a.status !== 422).map(exchangeText), 'invalid bodies not answered 422').toEqual([]);
  },
);

/** The collections the caller can create in, with their create bodies. */
function creatables(target: Target): (ProfileCollection & { create: Record<string, unknown> })[] {
  return target.profile.collections.filter(
    (c): c is ProfileCollection & { create: Record<string, unknown> } => c.create !== undefined && c.methods.includes('POST'),
  );
}

/** What a keyed POST created: its Location, else the body's id (undefined for an answer that created nothing). */
function createdOf(target: Target, response: HttpResponse, collection: ProfileCollection): string | undefined {
  if (response.status >= 300) return undefined;
  return target.createdPath(response, collection).path;
}

/**
 * The collections whose POSTs these checks key: every one that creates, since a key honoured one route
 * away is judged too; none when the profile declares no endpoint accepting Idempotency-Key, as `init`
 * notes: an API that does not offer keys is not judged on them (a static mock that answers every
 * POST alike looks like a replay to the checks below).
 */
function keyedCreatables(target: Target): (ProfileCollection & { create: Record<string, unknown> })[] {
  if (target.profile.idempotency === undefined) skipCheck(NO_IDEMPOTENT_ENDPOINT);
  return creatables(target);
}

/** A keyed POST of `collection` and its repeat: the repeat replays when it names what the first created. */
async function keyedTwice(target: Target, caller: Client, collection: ProfileCollection & { create: Record<string, unknown> }) {
  const key = freshKey();
  const body = fillTemplate(collection.create);
  const first = await caller.post(collection.path, body, keyed(key));
  const repeat = await caller.post(collection.path, body, keyed(key));
  const created = createdOf(target, first, collection);
  return { key, first, repeat, created, replays: created !== undefined && createdOf(target, repeat, collection) === created };
}

test(
  'every POST that honours Idempotency-Key replays its stored status, body and Location',
  req('IDEMPOTENCY-REPLAY', '@idempotency', '@traffic'),
  async ({ target, countingCaller }) => {
    const collections = keyedCreatables(target);
    if (collections.length === 0) skipCheck('no collection of the profile has a create body (collections[].create)');
    const pairs = await Promise.all(collections.map((c) => keyedTwice(target, countingCaller, c)));
    const honoured = pairs.filter((p) => p.replays);
    if (honoured.length === 0) skipCheck('no POST of the profile replays a keyed request (IDEMPOTENCY-KEY-ALL-POSTS reports it)');
    for (const { first, repeat } of honoured) {
      expect(repeat.status, `the replay of ${exchangeText(first)}\nis ${exchangeText(repeat)}`).toBe(first.status);
      expect(repeat.json, exchangeText(repeat)).toEqual(first.json);
    }
  },
);

test(
  'a key reused on another path is refused or answered with its stored result, and on another method never with the stored result',
  req('IDEMPOTENCY-KEY-REUSE-MISMATCH', '@idempotency', '@traffic'),
  async ({ target, countingCaller }) => {
    const collections = keyedCreatables(target);
    const pairs = await Promise.all(collections.map(async (c) => ({ collection: c, ...(await keyedTwice(target, countingCaller, c)) })));
    const honoured = pairs.filter((p) => p.replays);
    const [from, to] = honoured;
    if (from === undefined) skipCheck('no POST of the profile replays a keyed request (IDEMPOTENCY-KEY-ALL-POSTS reports it)');
    if (to !== undefined) {
      // Both POSTs honour keys: the key of one, sent to the other, is a key reused with another payload:
      // refused with a 4xx, or answered with the stored result (D-IDEMPOTENCY), never run.
      const reused = await countingCaller.post(to.collection.path, fillTemplate(to.collection.create), keyed(from.key));
      const stored = isStoredResult(reused, from.first);
      const refused = reused.status >= 400 && reused.status < 500;
      expect(stored || refused, `the key of ${exchangeText(from.first)}\nreused on ${to.collection.path}: ${exchangeText(reused)}`).toBe(true);
    }
    const item = from.created;
    const replace = from.collection.replace;
    if (item !== undefined && replace !== undefined && from.collection.itemMethods?.includes('PUT')) {
      const put = await countingCaller.put(item, fillTemplate(replace), keyed(from.key));
      const stored = isStoredResult(put, from.first);
      expect(stored, `the key of ${exchangeText(from.first)}\nsent with a PUT got the POST's stored result: ${exchangeText(put)}`).toBe(false);
    }
    if (to === undefined && (item === undefined || replace === undefined)) {
      skipCheck('one POST honours keys and its items take no PUT: no other path or method to reuse a key on');
    }
  },
);
