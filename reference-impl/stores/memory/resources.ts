import { CREATED_BY } from '../types.ts';
import type { ResourceKind, ResourceStore, StoredResource } from '../types.ts';

/**
 * In-process resources: one Map per kind and one id counter per kind (D-IDS: ids are never reused).
 * Values are kept as their JSON text (as Redis would keep them) and parsed on every read, so
 * callers never share or mutate stored state, and a read costs one JSON.parse rather than a
 * stringify-and-parse copy.
 */
export function createMemoryResources(): ResourceStore {
  const tables = new Map<ResourceKind, Map<number, string>>();
  const sequences = new Map<ResourceKind, number>();
  const markers = new Map<string, number>();
  const markerKey = (kind: ResourceKind, marker: string): string => `${kind}\n${marker}`;
  const parse = (json: string): StoredResource => JSON.parse(json) as StoredResource;

  function table(kind: ResourceKind): Map<number, string> {
    let found = tables.get(kind);
    if (found === undefined) {
      found = new Map();
      tables.set(kind, found);
    }
    return found;
  }

  function put(kind: ResourceKind, resource: StoredResource): void {
    table(kind).set(resource.id, JSON.stringify(resource));
    const marker = resource[CREATED_BY];
    if (typeof marker === 'string') markers.set(markerKey(kind, marker), resource.id);
  }

  function get(kind: ResourceKind, id: number): StoredResource | undefined {
    const found = table(kind).get(id);
    return found === undefined ? undefined : parse(found);
  }

  return {
    async nextId(kind) {
      const id = (sequences.get(kind) ?? 0) + 1;
      sequences.set(kind, id);
      return id;
    },
    async reserveIds(kind, upTo) {
      sequences.set(kind, Math.max(sequences.get(kind) ?? 0, Math.floor(upTo)));
    },
    async get(kind, id) {
      return get(kind, id);
    },
    async list(kind) {
      return [...table(kind)].sort((a, b) => a[0] - b[0]).map(([, json]) => parse(json));
    },
    async put(kind, resource) {
      put(kind, resource);
    },
    async putAll(entries) {
      await Promise.all(entries.map(([kind, resource]) => this.put(kind, resource)));
    },
    async findCreatedBy(kind, marker) {
      const id = markers.get(markerKey(kind, marker));
      return id === undefined ? undefined : this.get(kind, id);
    },
    async delete(kind, id) {
      return table(kind).delete(id);
    },
    async update(kind, id, change) {
      const rows = table(kind);
      const current = rows.get(id);
      if (current === undefined) return undefined;
      const next = change(parse(current));
      if (next === undefined) return parse(current);
      const stored = JSON.stringify({ ...next, id });
      rows.set(id, stored);
      return parse(stored);
    },
  };
}
