/**
 * One target seen through its profile: clients per caller, creating resources from the profile's
 * templates, reading ids and counting collections in the shapes the conventions allow.
 */
import { Client } from '../transport/client.ts';
import type { HttpResponse } from '../transport/message.ts';
import { fillTemplate, itemPathFor } from './template.ts';
import { required } from './required.ts';
import { sendingOf } from '../transport/sending.ts';
import { idOf, listedItems, representationOf, unknownIdFor } from './shape.ts';
import type { Shaped } from './shape.ts';
import { linkOf } from './links.ts';
import type { ProfileCollection, TargetProfile } from '../target/profile.ts';

export interface Created {
  response: HttpResponse;
  /** The item path of the created resource (from Location, else `_links.self`, else the id the collection's shape names). */
  path?: string;
  id?: number | string;
}

/** A request for an id no target has handed out, and how to send it. */
export interface UnknownItemRequest {
  method: string;
  path: string;
  send(): Promise<HttpResponse>;
}

export class Target {
  readonly baseUrl: string;
  /** The `valid` caller, waiting out ordinary 429s. */
  readonly client: Client;
  /** No Authorization header. */
  readonly anonymous: Client;

  constructor(
    readonly profile: TargetProfile,
    baseUrl: string = profile.baseUrls[0] ?? '',
  ) {
    this.baseUrl = baseUrl;
    this.client = new Client(baseUrl, { token: profile.tokens.valid, sending: sendingOf(profile) });
    this.anonymous = this.client.as(null);
  }

  /** The same profile at another of its base URLs. */
  at(baseUrl: string): Target {
    return new Target(this.profile, baseUrl);
  }

  /** A client for `token` (null: anonymous). */
  as(token: string | null): Client {
    return this.client.as(token);
  }

  /**
   * The caller whose collections the counting checks watch: `tokens.other`, else `tokens.valid`
   * (the `countingCaller` fixture holds it exclusively while a check counts).
   */
  countingCaller(): Client {
    return this.as(this.profile.tokens.other ?? this.profile.tokens.valid);
  }

  /** Collections that declare an item path. */
  collectionsWithItems(): (ProfileCollection & { itemPath: string; itemMethods: string[] })[] {
    return this.profile.collections.filter(
      (c): c is ProfileCollection & { itemPath: string; itemMethods: string[] } => c.itemPath !== undefined && c.itemMethods !== undefined,
    );
  }

  /** The first collection that allows POST and has a create body. */
  creatable(): (ProfileCollection & { create: Record<string, unknown> }) | undefined {
    return this.profile.collections.find(
      (c): c is ProfileCollection & { create: Record<string, unknown> } => c.create !== undefined && c.methods.includes('POST'),
    );
  }

  /** POSTs the collection's create body (templated) and returns the created item's path. */
  async create(collection: ProfileCollection, client: Client = this.client, body?: unknown): Promise<Created> {
    const response = await client.post(collection.path, body ?? fillTemplate(collection.create ?? {}));
    return { response, ...this.createdPath(response, collection) };
  }

  /**
   * The path and id of what a 201 answer created (D-SHAPES): its `Location`, else the representation's
   * `_links.self`, else the collection's item path with the id its shape points to.
   */
  createdPath(response: HttpResponse, collection: Shaped & { itemPath?: string } = {}): { path?: string; id?: number | string } {
    const location = response.headers.location;
    const id = idOf(response.json, collection);
    const withId = id !== undefined ? { id } : {};
    if (location) return { path: this.pathOf(location), ...withId };
    const self = linkOf(representationOf(response.json, collection), 'self');
    if (self) return { path: this.pathOf(self.href), ...withId };
    if (id !== undefined && collection.itemPath) return { path: itemPathFor(collection.itemPath, id), id };
    return {};
  }

  /**
   * The item path of what `created` created, or the check failed with the create's answer as its
   * finding (a consequence of STATUS-201-CREATED-LOCATION): never a request to the API root (D-FINDINGS).
   */
  itemOf(created: Created): string {
    const what = 'Location header, `_links.self` or an id (collections[].shape.id) naming the created item';
    return required(created.path, what, created.response, 'STATUS-201-CREATED-LOCATION');
  }

  /** A URL or reference from the target (Location, link href) as a path under this base URL. */
  pathOf(reference: string): string {
    const base = new URL(this.baseUrl);
    const url = new URL(reference, `${this.baseUrl}/`);
    const prefix = base.pathname.replace(/\/+$/, '');
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    return `${path || '/'}${url.search}`;
  }

  /**
   * A request for an unknown id of the collection, with a method its item path allows (D-SUITE-TRUST: a
   * check only probes a request the target says it serves): GET, else DELETE, else PUT with the replace
   * body; undefined when the item path allows none of them.
   */
  unknownItemRequest(
    collection: ProfileCollection & { itemPath: string; itemMethods: string[] },
    client: Client = this.client,
  ): UnknownItemRequest | undefined {
    const path = unknownItemPath(collection);
    const method = ['GET', 'DELETE', 'PUT'].find((m) => collection.itemMethods.includes(m) && (m !== 'PUT' || collection.replace !== undefined));
    if (method === undefined) return undefined;
    const options = method === 'PUT' ? { json: fillTemplate(collection.replace ?? {}) } : {};
    return { method, path, send: () => client.request(method, path, options) };
  }

  /** An existing item's path: a declared existing id, else a freshly created item. */
  async existingItem(collection: ProfileCollection & { itemPath: string }): Promise<string | undefined> {
    if (collection.create && collection.methods.includes('POST')) {
      const created = await this.create(collection);
      if (created.response.status < 300 && created.path) return created.path;
    }
    const id = collection.existingIds?.[0];
    return id === undefined ? undefined : itemPathFor(collection.itemPath, id);
  }
}

/**
 * The number of items of a collection response: `page.total`, `total`, else the length of its items
 * where the collection's shape puts them (D-SHAPES).
 */
export function collectionCount(body: unknown, collection: Shaped = {}): number | undefined {
  return announcedTotal(body) ?? listedItems(body, collection)?.length;
}

/** The total a collection response announces, `page.total` else `total`, when it announces one. */
export function announcedTotal(body: unknown): number | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const page = (body as { page?: { total?: unknown } }).page;
  if (typeof page?.total === 'number') return page.total;
  const total = (body as { total?: unknown }).total;
  return typeof total === 'number' ? total : undefined;
}

/** A path under which no resource exists: the item path with an id valid for the collection's id schema that nobody handed out (D-SHAPES). */
export function unknownItemPath(collection: Shaped & { itemPath: string }): string {
  return itemPathFor(collection.itemPath, unknownIdFor(collection));
}
