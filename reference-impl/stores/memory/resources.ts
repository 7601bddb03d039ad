import { CREATED_BY } from '../types.ts';
import { flat } from './flat.ts';
import { Table } from './table.ts';
import type { ResourceKind, ResourceStore, StoredResource } from '../types.ts';

/**
 * In-process resources: one Table per kind (table.ts: texts by id) and one id counter per kind (D-IDS:
 * ids are never reused). Values are kept as their JSON text (as Redis would keep them) and parsed on every read, so
 * callers never share or mutate stored state, and a read costs one JSON.parse rather than a
 * stringify-and-parse copy. The `CREATED_BY` index is one Map per kind keyed by the marker itself
 * (no `<kind>\n<marker>` copy of a long key built and hashed on every write and lookup).
 */
export function createMemoryResources(): ResourceStore {
  const tables = new Map<ResourceKind, Table>();
  const sequences = new Map<ResourceKind, number>();
  const markerIndexes = new Map<ResourceKind, Map<string, number>>();
  const parse = (json: string): StoredResource => JSON.parse(json) as StoredResource;

  /** The value of `kind` in `outer`, made by `make` on first use. */
  function innerOf<V>(outer: Map<ResourceKind, V>, kind: ResourceKind, make: () => V): V {
    let found = outer.get(kind);
    if (found === undefined) {
      found = make();
      outer.set(kind, found);
    }
    return found;
  }
  const newTable = (): Table => new Table();
  const newIndex = (): Map<string, number> => new Map();
  const table = (kind: ResourceKind): Table => innerOf(tables, kind, newTable);

  function nextIdNow(kind: ResourceKind): number {
    const id = (sequences.get(kind) ?? 0) + 1;
    sequences.set(kind, id);
    return id;
  }

  function putNow(kind: ResourceKind, resource: StoredResource): void {
    table(kind).set(resource.id, flat(JSON.stringify(resource)));
    const marker = resource[CREATED_BY];
    if (typeof marker === 'string') innerOf(markerIndexes, kind, newIndex).set(marker, resource.id);
  }

  function getNow(kind: ResourceKind, id: number): StoredResource | undefined {
    const found = table(kind).get(id);
    return found === undefined ? undefined : parse(found);
  }

  return {
    async nextId(kind) {
      return nextIdNow(kind);
    },
    async reserveIds(kind, upTo) {
      sequences.set(kind, Math.max(sequences.get(kind) ?? 0, Math.floor(upTo)));
    },
    async get(kind, id) {
      return getNow(kind, id);
    },
    async list(kind) {
      return table(kind).texts().map(parse);
    },
    async put(kind, resource) {
      putNow(kind, resource);
    },
    async putAll(entries) {
      await Promise.all(entries.map(([kind, resource]) => this.put(kind, resource)));
    },
    async findCreatedBy(kind, marker) {
      const id = markerIndexes.get(kind)?.get(marker);
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
      const stored = flat(JSON.stringify({ ...next, id }));
      rows.set(id, stored);
      return parse(stored);
    },
  };
}
