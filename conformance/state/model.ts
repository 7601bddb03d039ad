/**
 * The state model of D-STATE-MODEL: what a sequence of requests on one collection has left behind,
 * the smallest the document supports, and what each next answer must then be. Pure: the commands
 * (commands.ts) send the requests and ask these functions whether an answer keeps the model.
 */
import { isDeepStrictEqual } from 'node:util';
import type { RequirementId } from '../../spec/requirement-ids.ts';

/** The rules of the model, each a requirement of the catalogue (D-STATE-MODEL). */
export type StateRule = Extract<RequirementId, 'STATE-CHANGES-SEEN' | 'COLLECTION-LISTS-LIVE-ITEMS' | 'IDEMPOTENCY-REPLAY' | 'AUTH-OWNER-ONLY'>;

/** A keyed create's stored result, as the first answer gave it. */
export interface StoredResult {
  key: string;
  /** The body sent: a replay sends it again, byte for byte the same JSON. */
  body: unknown;
  status: number;
  json: unknown;
}

/** One item a sequence created. */
export interface ModelItem {
  /** Its path under the base URL (from Location, `_links.self` or the id). */
  path: string;
  id?: number | string;
  /** The members of the last write (create or replace), outside any envelope. */
  sent: Record<string, unknown>;
  /** The representation the server answered for the last write (undefined when it answered none). */
  answered: unknown;
  live: boolean;
  /** The last write answered 2xx, for messages: `POST`, `keyed POST`, `PUT` or `DELETE`. */
  lastWrite: string;
  /** Date.now() when its create (or a PUT that created it again) was answered. */
  createdAt: number;
  /** Date.now() when its DELETE was answered, while it stays deleted. */
  deletedAt?: number;
  stored?: StoredResult;
}

/** What the whole check has spent, across its sequences. */
export interface Spent {
  requests: number;
  /** The most requests of the check: past it, no command runs (D-STATE-MODEL). */
  max: number;
  /** Collections whose listing ran past the pages a listing command follows: not listed again. */
  longListings: Set<string>;
}

/** The model of one sequence, and what the whole check has spent. */
export interface StateModel {
  items: ModelItem[];
  spent: Spent;
}

/** What an answer broke: the rule and what the model expected instead. */
export interface Broken {
  rule: StateRule;
  expected: string;
}

/**
 * The item at `pick` among those `which` keeps (undefined when none does), counted from the oldest, or from the
 * newest with `fromNewest` (deletes: the sequence's first item then lives through most of its changes).
 */
export function itemAt(model: StateModel, pick: number, which: (item: ModelItem) => boolean = () => true, fromNewest = false): ModelItem | undefined {
  const items = model.items.filter(which);
  if (items.length === 0) return undefined;
  const at = pick % items.length;
  return items[fromNewest ? items.length - 1 - at : at];
}

/** The members a read must show for `item`: what the server answered for its last write, else what was sent. */
function expectedMembers(item: ModelItem): Record<string, unknown> {
  const answered = typeof item.answered === 'object' && item.answered !== null ? (item.answered as Record<string, unknown>) : {};
  return Object.fromEntries(Object.keys(item.sent).map((name) => [name, Object.hasOwn(answered, name) ? answered[name] : item.sent[name]]));
}

/**
 * A read of `item` answered `status` with `representation`: a live item is 200 with the members its last
 * write was answered with (a member the read leaves out is not judged: an API may not return what it was
 * sent, a password say); a deleted item is 404.
 */
export function judgeRead(item: ModelItem, status: number, representation: unknown): Broken | undefined {
  if (!item.live) {
    return status === 404 ? undefined : { rule: 'STATE-CHANGES-SEEN', expected: `404: the item was deleted (${describeWrite(item)})` };
  }
  if (status !== 200) return { rule: 'STATE-CHANGES-SEEN', expected: `200 with the item: ${describeWrite(item)} and it was not deleted` };
  const read = typeof representation === 'object' && representation !== null ? (representation as Record<string, unknown>) : {};
  const differ = Object.entries(expectedMembers(item)).filter(([name, value]) => Object.hasOwn(read, name) && !isDeepStrictEqual(read[name], value));
  if (differ.length === 0) return undefined;
  const wanted = differ.map(([name, value]) => `${name}: ${JSON.stringify(value)}`).join(', ');
  return { rule: 'STATE-CHANGES-SEEN', expected: `200 with ${wanted}: ${describeWrite(item)} with them` };
}

function describeWrite(item: ModelItem): string {
  return `its ${item.lastWrite} was answered 2xx`;
}

/** What a listing command read: the ids in the listing's order, and what the model may conclude from a part of it. */
export interface ListingView {
  /** The ids of the pages read, in their order. */
  listed: readonly string[];
  /** The listing said it was whole (a total no larger than what was read, or a `next` chain that ended). */
  complete: boolean;
  /** The listing was asked newest first (`collections[].newestFirst`). */
  newestFirst: boolean;
}

/**
 * A listing holds no item deleted at least `lagMs` ago, and every live item created at least `lagMs` ago:
 * judged on a whole listing, or on a part of one asked newest first, where an item newer than one the part
 * shows sorts before it and so must be shown too (when the model's items it shows are in that order at all).
 */
export function judgeListing(model: StateModel, view: ListingView, lagMs: number, at: number): Broken | undefined {
  const settled = (since: number | undefined): boolean => since !== undefined && at - since >= lagMs;
  const seen = new Set(view.listed);
  const withId = model.items.filter((item) => item.id !== undefined);
  const stale = withId.find((item) => !item.live && settled(item.deletedAt) && seen.has(String(item.id)));
  if (stale) return { rule: 'COLLECTION-LISTS-LIVE-ITEMS', expected: `no deleted item: ${stale.path} was deleted` };
  const oldestShown = view.complete ? -1 : newestFirstOldestShown(withId, view);
  if (oldestShown === undefined) return undefined;
  const missing = withId.filter((item, index) => index > oldestShown && item.live && settled(item.createdAt) && !seen.has(String(item.id)));
  if (missing.length === 0) return undefined;
  return { rule: 'COLLECTION-LISTS-LIVE-ITEMS', expected: `every live item, ${missing.map((item) => item.path).join(', ')} included` };
}

/** The index (in creation order) of the oldest model item a newest-first part of a listing shows; undefined when nothing can be concluded. */
function newestFirstOldestShown(items: readonly ModelItem[], view: ListingView): number | undefined {
  if (!view.newestFirst) return undefined;
  const shown = items.map((item, index) => ({ index, at: view.listed.indexOf(String(item.id)) })).filter((p) => p.at >= 0);
  // The declared order must hold among the model's own items, or the part proves nothing.
  const newestFirst = shown.every((p, k) => k === 0 || p.at < (shown[k - 1]?.at ?? Infinity));
  return shown.length > 0 && newestFirst ? shown[0]?.index : undefined;
}

/**
 * A replay of `item`'s key answered `status` and `json`: while the item lives, the stored result; once it
 * is deleted, the stored result or any 4xx (the project's 409 idempotency-result-gone), never new work.
 */
export function judgeReplay(item: ModelItem & { stored: StoredResult }, status: number, json: unknown): Broken | undefined {
  const stored = item.stored;
  if (status === stored.status && isDeepStrictEqual(json, stored.json)) return undefined;
  if (!item.live && status >= 400 && status < 500) return undefined;
  const first = `the stored result (${stored.status} with the first answer's body)`;
  return { rule: 'IDEMPOTENCY-REPLAY', expected: item.live ? first : `${first} or a 4xx: the item was deleted` };
}

/** Another caller's read of an owned item: refused, 403 or 404 (AUTH-OWNER-ONLY). */
export function judgeOtherRead(status: number): Broken | undefined {
  return status === 403 || status === 404 ? undefined : { rule: 'AUTH-OWNER-ONLY', expected: '403 or 404: the item is another caller\'s' };
}

/** A PUT or DELETE of `item` answered `status`: a live item the server created is found (404 breaks the model). */
export function judgeItemWrite(item: ModelItem, status: number): Broken | undefined {
  if (item.live && status === 404) return { rule: 'STATE-CHANGES-SEEN', expected: `2xx: ${describeWrite(item)} and the item was not deleted` };
  return undefined;
}
