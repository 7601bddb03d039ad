/**
 * The text as one flat string before a store keeps it. V8 builds a long JSON.stringify result or
 * template string as a tree of concatenated parts; kept as is, a stored payment's JSON took about
 * 400 bytes of heap in several objects instead of about 260 bytes in one, which the garbage collector
 * copies and marks for as long as the store keeps it: resources are never dropped (D-IDS) and
 * idempotent results are kept 24 hours (D-IDEMPOTENCY), so this was the largest share of a POST's
 * garbage-collection time on the memory store. Converting it to a number (the flatstr technique)
 * flattens it in place; the number is not used.
 */
export function flat(text: string): string {
  Number(text);
  return text;
}
