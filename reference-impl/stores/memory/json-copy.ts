/**
 * A deep copy through JSON, so the memory adapter hands out exactly what the Redis adapter would
 * (no shared references, no `undefined` members, no class instances): one contract, two adapters.
 */
export function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
