import { CREATED_BY } from '../types.ts';
import type { ResourceKind, ResourceStore, StoredResource } from '../types.ts';
import { jsonCopy } from './json-copy.ts';

/**
 * In-process resources: one Map per kind and one id counter per kind (D-IDS: ids are never reused).
 * Values are deep-copied (through JSON, as Redis would) in and out, so callers never share or mutate stored state.
 */
export function createMemoryResources(): ResourceStore {
  const tables = new Map<ResourceKind, Map<number, StoredResource>>();
  const sequences = new Map<ResourceKind, number>();
  const markers = new Map<string, number>();
  const markerKey = (kind: ResourceKind, marker: string): string => `${kind}\n${marker}`;

  function table(kind: ResourceKind): Map<number, StoredResource> {
    let found = tables.get(kind);
    if (found === undefined) {
      found = new Map();
      tables.set(kind, found);
    }
    return found;
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
      const found = table(kind).get(id);
      return found === undefined ? undefined : jsonCopy(found);
    },
    async list(kind) {
      return [...table(kind).values()].sort((a, b) => a.id - b.id).map((r) => jsonCopy(r));
    },
    async put(kind, resource) {
      table(kind).set(resource.id, jsonCopy(resource));
      const marker = resource[CREATED_BY];
      if (typeof marker === 'string') markers.set(markerKey(kind, marker), resource.id);
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
      const next = change(jsonCopy(current));
      if (next === undefined) return jsonCopy(current);
      const stored = jsonCopy({ ...next, id });
      rows.set(id, stored);
      return jsonCopy(stored);
    },
  };
}
