/**
 * The stored texts of one resource kind, by id. Ids come from `nextId` (1, 2, 3, …; D-IDS), so they
 * are kept in an array indexed by the id: writing a new payment's text is a store into an array slot,
 * not an insertion into a hash table of every payment ever created, whose lookups miss the cache and
 * which is rehashed each time it doubles (CPU per POST /payments on the memory store). Any other id
 * (not an integer, negative, or far past the ids in the array) is kept in a Map, so every number
 * still works as an id.
 */

/** How far past the end of the array an id may lie and still be stored in it (the array grows with holes). */
const MAX_GAP = 1024;

export class Table {
  /** Texts of ids 0 … length - 1, at the index of their id; undefined where there is none. */
  private readonly dense: (string | undefined)[] = [];
  /** Texts of the ids the array does not hold. */
  private readonly sparse = new Map<number, string>();

  /** True when `id` belongs in the array: a non-negative integer at most MAX_GAP past its end. */
  private inDense(id: number): boolean {
    return Number.isInteger(id) && id >= 0 && id <= this.dense.length + MAX_GAP;
  }

  get(id: number): string | undefined {
    const found = this.inDense(id) ? this.dense[id] : undefined;
    if (found !== undefined || this.sparse.size === 0) return found;
    return this.sparse.get(id);
  }

  set(id: number, text: string): void {
    if (!this.inDense(id)) {
      this.sparse.set(id, text);
      return;
    }
    // An id the array has grown to reach may have been kept in the Map before: one place per id.
    if (this.sparse.size > 0) this.sparse.delete(id);
    this.dense[id] = text;
  }

  /** Removes the text of `id`; true when there was one. */
  delete(id: number): boolean {
    const inSparse = this.sparse.size > 0 && this.sparse.delete(id);
    if (!this.inDense(id) || this.dense[id] === undefined) return inSparse;
    this.dense[id] = undefined;
    return true;
  }

  /** Every stored text, in ascending id order. */
  texts(): string[] {
    const out: string[] = [];
    if (this.sparse.size === 0) {
      for (const text of this.dense) if (text !== undefined) out.push(text);
      return out;
    }
    const all: [number, string][] = [...this.sparse];
    this.dense.forEach((text, id) => {
      if (text !== undefined) all.push([id, text]);
    });
    return all.sort((a, b) => a[0] - b[0]).map(([, text]) => text);
  }
}
