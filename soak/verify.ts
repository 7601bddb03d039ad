/**
 * After the load: every idempotency key used is replayed; each must return its
 * original result (same body, `Idempotent-Replayed: true`), and the number of payments stored must
 * equal the number of distinct keys (no key ran its work twice, no result was lost).
 */
import { LOAD_TOKEN } from './cluster.ts';
import type { LoadResult } from './load.ts';
import { paymentBody } from './load.ts';

export interface ReplayFigures {
  keys: number;
  replayedIdentical: number;
  /** Keys whose only request was cut off at the end of the run: the replay ran them (once). */
  ranOnReplay: number;
  mismatched: number;
  failed: number;
  distinctPayments: number;
  storedPayments: number;
  examples: string[];
}

async function post(url: string, key: string, body: string): Promise<{ status: number; replayed: boolean; text: string }> {
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(`${url}/payments`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${LOAD_TOKEN}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (response.status !== 409 || attempt >= 40) return { status: response.status, replayed: response.headers.get('idempotent-replayed') === 'true', text };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Replays every key of `load` against both instances (alternating), `concurrency` at a time. */
export async function verifyReplays(urls: [string, string], load: LoadResult, concurrency = 16): Promise<ReplayFigures> {
  const figures: ReplayFigures = {
    keys: load.keysIssued,
    replayedIdentical: 0,
    ranOnReplay: 0,
    mismatched: 0,
    failed: 0,
    distinctPayments: 0,
    storedPayments: 0,
    examples: [],
  };
  const ids = new Set<number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < load.keysIssued) {
        const index = next;
        next += 1;
        const url = urls[index % 2] as string;
        const reply = await post(url, `${load.keyPrefix}-${index}`, paymentBody(index)).catch((error: unknown) => ({
          status: 0,
          replayed: false,
          text: String(error),
        }));
        if (reply.status !== 201) {
          figures.failed += 1;
          if (figures.examples.length < 5) figures.examples.push(`key ${index}: ${reply.status} ${reply.text.slice(0, 120)}`);
          continue;
        }
        const payment = JSON.parse(reply.text) as { id: number };
        ids.add(payment.id);
        const first = load.firstCreated.get(index);
        if (first === undefined) {
          if (reply.replayed) figures.replayedIdentical += 1;
          else figures.ranOnReplay += 1;
        } else if (reply.replayed && JSON.stringify(JSON.parse(first)) === JSON.stringify(payment)) {
          figures.replayedIdentical += 1;
        } else {
          figures.mismatched += 1;
          if (figures.examples.length < 5)
            figures.examples.push(`key ${index}: replayed=${reply.replayed} first=${first.slice(0, 80)} now=${reply.text.slice(0, 80)}`);
        }
      }
    }),
  );
  figures.distinctPayments = ids.size;
  const list = await fetch(`${urls[0]}/payments?limit=1`, { headers: { Authorization: `Bearer ${LOAD_TOKEN}` } });
  figures.storedPayments = ((await list.json()) as { page: { total: number } }).page.total;
  return figures;
}
