/**
 * D-SHAPES: the API's shapes declared in `collections[].shape`, read through conformance/support/shape.ts
 * by every check: pointers into item answers and listings, request envelopes, and unknown or malformed
 * ids drawn from the id schema.
 */
import { test, expect } from '@playwright/test';
import { idOf, invalidIdSegment, listedItems, pointerGet, representationOf, unknownIdFor, unwrapped, withMembers } from '../support/shape.ts';
import type { Shaped } from '../support/shape.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('JSON pointers follow RFC 6901: escapes, array indexes, and nothing for a missing member', () => {
  const doc = { 'a/b': { 'm~n': [10, 20] }, data: { id: 'x' } };
  expect(pointerGet(doc, '')).toBe(doc);
  expect(pointerGet(doc, '/a~1b/m~0n/1')).toBe(20);
  expect(pointerGet(doc, '/data/id')).toBe('x');
  expect(pointerGet(doc, '/data/missing')).toBeUndefined();
  expect(pointerGet(doc, '/a~1b/m~0n/01')).toBeUndefined();
  expect(pointerGet({ toString: 1 }, '/constructor')).toBeUndefined();
});

test('an item answer is read where the shape says, and the project\'s flat id is the default', () => {
  const enveloped: Shaped = { shape: { item: '/addon', id: '/code' } };
  const answer = { addon: { code: 'PKX7619', name: 'n' } };
  expect(representationOf(answer, enveloped)).toEqual({ code: 'PKX7619', name: 'n' });
  expect(idOf(answer, enveloped)).toBe('PKX7619');
  expect(idOf({ id: 7 })).toBe(7);
  expect(idOf({ id: '' })).toBeUndefined();
  expect(idOf(answer)).toBeUndefined();
});

test('a listing\'s items: a bare array, the page object\'s items, or where the shape points', () => {
  expect(listedItems([{ id: 1 }])).toEqual([{ id: 1 }]);
  expect(listedItems({ items: [{ id: 2 }] })).toEqual([{ id: 2 }]);
  expect(listedItems({ data: [{ id: 3 }], iterator: 'x' })).toBeUndefined();
  expect(listedItems({ data: [{ id: 3 }], iterator: 'x' }, { shape: { items: '/data' } })).toEqual([{ id: 3 }]);
  expect(listedItems({ items: [{ id: 2 }] }, { shape: { items: '' } })).toBeUndefined();
});

test('members are added and compared inside a request envelope', () => {
  const wrapped: Shaped = { shape: { envelope: 'payment_method' } };
  const body = { payment_method: { type: 'card' } };
  expect(unwrapped(body, wrapped)).toEqual({ type: 'card' });
  expect(withMembers(body, { extra: 1 }, wrapped)).toEqual({ payment_method: { type: 'card', extra: 1 } });
  expect(withMembers({ type: 'card' }, { extra: 1 })).toEqual({ type: 'card', extra: 1 });
  expect(unwrapped([1, 2])).toEqual({});
});

test('an unknown id is valid for the id schema: far integers, UUIDs, patterns, lengths', () => {
  for (let i = 0; i < 20; i += 1) {
    const integer = unknownIdFor();
    expect(Number.isSafeInteger(integer) && (integer as number) >= 1e12).toBe(true);
    expect(unknownIdFor({ shape: { idSchema: { type: 'string', format: 'uuid' } } })).toMatch(UUID);
    const twilio = unknownIdFor({ shape: { idSchema: { type: 'string', pattern: '^BN[0-9a-fA-F]{32}$', minLength: 34, maxLength: 34 } } });
    expect(twilio).toMatch(/^BN[0-9a-fA-F]{32}$/);
    const long = unknownIdFor({ shape: { idSchema: { type: 'string', minLength: 38 } } });
    expect(String(long).length).toBeGreaterThanOrEqual(38);
    expect(unknownIdFor({ shape: { idSchema: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } } })).toBeLessThanOrEqual(2_147_483_647);
  }
});

test('a malformed id segment breaks the id schema, and none is drawn where every segment is an id', () => {
  expect(invalidIdSegment()).toBe('filter');
  expect(invalidIdSegment({ shape: { idSchema: { type: 'string', format: 'uuid' } } })).toBe('filter');
  const segment = invalidIdSegment({ shape: { idSchema: { type: 'string', pattern: '^BN[0-9a-fA-F]{32}$' } } });
  expect(segment).toBeDefined();
  expect(segment).not.toMatch(/^BN[0-9a-fA-F]{32}$/);
  expect(invalidIdSegment({ shape: { idSchema: { type: 'string', minLength: 38 } } })).toBeDefined();
  expect(invalidIdSegment({ shape: { idSchema: { type: 'string' } } })).toBeUndefined();
});
