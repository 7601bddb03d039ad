/** `{{unique}}` templating of profile bodies: each call yields fresh values. */
import { randomBytes } from 'node:crypto';

let counter = 0;

/** A short value unique within this process and, with high probability, across runs. */
export function uniqueValue(): string {
  counter += 1;
  return `${Date.now().toString(36)}${counter.toString(36)}${randomBytes(3).toString('hex')}`;
}

/** A deep copy of `value` with every "{{unique}}" in a string replaced by one fresh value. */
export function fillTemplate<T>(value: T, unique: string = uniqueValue()): T {
  if (typeof value === 'string') return value.split('{{unique}}').join(unique) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => fillTemplate(v, unique)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillTemplate(v, unique)])) as T;
  }
  return value;
}

/** The item path of a collection with `{id}` replaced. */
export function itemPathFor(itemPath: string, id: number | string): string {
  return itemPath.replace('{id}', encodeURIComponent(String(id)));
}
