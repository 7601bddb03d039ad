/**
 * D-IDEMPOTENCY, "a replay never names work that is gone", over HTTP: a stored 201 is replayed only
 * while the payment it names is still this key's; after a rollback (simulated: the payment removed
 * from the store, then its id given to another key's payment) the same key gets 409
 * `idempotency-result-gone`, never a receipt for another key's payment, and the work is not redone.
 */
import { test, expect } from '@playwright/test';
import { PROBLEM_TYPE_BASE } from '../../spec/problem-types.ts';
import { CREATED_BY } from '../stores/types.ts';
import { ALICE, call, startTestServer } from './support/harness.ts';

test('a replay whose payment was rolled back, or whose id now holds another key\'s payment, is refused with 409 and redoes nothing', async () => {
  const server = await startTestServer();
  const base = server.url.replace(/\/+$/, '');
  const pay = (key: string) =>
    call(base, 'POST', '/payments', { token: ALICE, body: { amount: 1250, currency: 'eur' }, headers: { 'Idempotency-Key': key } });
  try {
    const first = await pay('rollback-1');
    expect(first.status).toBe(201);
    const id = Number(first.json.id);
    const replay = await pay('rollback-1');
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.id).toBe(id);

    // The rollback: the payment is gone, the idempotency record survived.
    const stored = await server.stores.resources.get('payments', id);
    await server.stores.resources.delete('payments', id);
    const gone = await pay('rollback-1');
    expect(gone.status).toBe(409);
    expect(gone.headers.get('content-type')).toContain('application/problem+json');
    expect(gone.json).toMatchObject({ type: `${PROBLEM_TYPE_BASE}idempotency-result-gone`, status: 409, instance: '/payments' });
    expect(gone.headers.get('idempotent-replayed')).toBeNull();

    // The id handed out again, to another key's payment: still refused, never that payment.
    await server.stores.resources.put('payments', { ...stored!, description: 'someone else', [CREATED_BY]: 'token:other:key fp' });
    const reused = await pay('rollback-1');
    expect(reused.status).toBe(409);
    expect(reused.text).not.toContain('someone else');
    // Nothing was redone: the store holds only the other key's payment under that id.
    const payments = await server.stores.resources.list('payments');
    expect(payments.map((p) => p.id)).toEqual([id]);
  } finally {
    await server.close();
  }
});
