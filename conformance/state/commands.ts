/**
 * The commands of the state model (D-STATE-MODEL) as fast-check model-based commands: each sends its
 * request(s) to one of the profile's instances (or to every one), logs every exchange for the printed
 * sequence, asks the model (model.ts) whether the answer keeps it, and updates the model. One sequence
 * works on one collection (a `StatePlan`), so the few commands it draws meet on the same items.
 */
import fc from 'fast-check';
import type { HttpResponse } from '../transport/message.ts';
import { succeeded } from '../support/collection.ts';
import { freshKey, keyed } from '../support/idempotency.ts';
import { linkOf } from '../support/links.ts';
import { listedIdOf, listedItems, representationOf, unwrapped } from '../support/shape.ts';
import { announcedTotal } from '../support/target.ts';
import type { Target } from '../support/target.ts';
import { fillTemplate } from '../support/template.ts';
import type { ProfileCollection } from '../target/profile.ts';
import { itemAt, judgeItemWrite, judgeListing, judgeOtherRead, judgeRead, judgeReplay } from './model.ts';
import type { Broken, ModelItem, StateModel, StoredResult } from './model.ts';

/** A collection the model can work on: created in, items read. */
export type ModelCollection = ProfileCollection & { create: Record<string, unknown>; itemPath: string };

/** What one sequence may do on its collection, from the profile (D-STATE-MODEL). */
export interface StatePlan {
  collection: ModelCollection;
  /** Creates may carry Idempotency-Key (`idempotency.path` is this collection's, or `idempotency.everyPost`). */
  keyed: boolean;
  /** PUT on the item with the collection's `replace` body. */
  replace: boolean;
  /** DELETE on the item. */
  remove: boolean;
  /** GET on the collection. */
  list: boolean;
  /** `collections[].owned` and a second caller (`tokens.other`): its reads are refused. */
  owned: boolean;
  /** `collections[].listedWithinMs`. */
  lagMs: number;
  /** `collections[].newestFirst`: the query that lists the collection newest first. */
  newestFirst?: string;
}

/** One exchange of a sequence, as the failure prints it. */
export interface LoggedExchange {
  response: HttpResponse;
  instance: number;
  caller: 'valid' | 'other';
}

/** The system side of a sequence: the instances, the other caller and the log of what was sent. */
export interface StateWorld {
  targets: readonly Target[];
  /** `tokens.other`, for the other caller's reads. */
  otherToken?: string;
  log: LoggedExchange[];
}

/** An answer that broke the model: the rule, what it expected and the exchange. */
export class StateViolation extends Error {
  constructor(
    readonly broken: Broken,
    readonly response: HttpResponse,
  ) {
    super(`${broken.rule}: expected ${broken.expected}`);
  }
}

/** The most pages a listing command follows through `next`: a longer listing is not listed again (D-STATE-MODEL). */
export const LISTING_PAGES = 3;

/**
 * After a write, whether the written item is read back: not at all, on the instance written through, or on the
 * next instance (a failure shrinks toward `none`, so the printed sequence keeps only the reads it needs).
 */
type Then = 'none' | 'here' | 'other';

type Step =
  | { kind: 'create'; instance: number; keyed: boolean; then: Then }
  | { kind: 'replay'; instance: number; pick: number }
  | { kind: 'read'; on: number | 'every'; pick: number }
  | { kind: 'list'; on: number | 'every' }
  | { kind: 'replace'; instance: number; pick: number; then: Then }
  | { kind: 'delete'; instance: number; pick: number; then: Then }
  | { kind: 'other-read'; instance: number; pick: number };

const hasStored = (item: ModelItem): item is ModelItem & { stored: StoredResult } => item.stored !== undefined;

type Send = (instance: number, call: (target: Target) => Promise<HttpResponse>, caller?: 'valid' | 'other') => Promise<HttpResponse>;

/** Throws the violation when the model says `response` broke it. */
function judged(response: HttpResponse, broken: Broken | undefined): void {
  if (broken) throw new StateViolation(broken, response);
}

class StateCommand implements fc.AsyncCommand<StateModel, StateWorld> {
  constructor(
    readonly step: Step,
    readonly plan: StatePlan,
  ) {}

  check(model: Readonly<StateModel>): boolean {
    if (model.spent.requests >= model.spent.max) return false;
    if (this.step.kind === 'create') return true;
    if (this.step.kind === 'list') return !model.spent.longListings.has(this.plan.collection.name);
    if (this.step.kind === 'replay') return model.items.some(hasStored);
    return model.items.length > 0;
  }

  async run(model: StateModel, world: StateWorld): Promise<void> {
    const { step } = this;
    const count = world.targets.length;
    const send: Send = async (instance, call, caller = 'valid') => {
      const response = await call(world.targets[instance % count] as Target);
      model.spent.requests += 1;
      world.log.push({ response, instance: instance % count, caller });
      return response;
    };
    const everywhere = world.targets.map((_, i) => i);
    switch (step.kind) {
      case 'read':
        return this.read(itemAt(model, step.pick) as ModelItem, step.on === 'every' ? everywhere : [step.on], send);
      case 'list':
        for (const instance of step.on === 'every' ? everywhere : [step.on]) {
          await this.listOn(world.targets[instance % count] as Target, model, (call) => send(instance, call));
        }
        return;
      case 'replay': {
        const item = itemAt(model, step.pick, hasStored) as ModelItem & { stored: StoredResult };
        const response = await send(step.instance, (t) => t.client.post(this.plan.collection.path, item.stored.body, keyed(item.stored.key)));
        return judged(response, judgeReplay(item, response.status, response.json));
      }
      case 'other-read': {
        const item = itemAt(model, step.pick) as ModelItem;
        const response = await send(step.instance, (t) => t.as(world.otherToken ?? null).get(item.path), 'other');
        return judged(response, judgeOtherRead(response.status));
      }
      default: {
        const written = await this.write(step, model, world, send);
        const readOn = { none: [], here: [step.instance], other: [step.instance + 1] }[step.then];
        if (written) await this.read(written, readOn, send);
      }
    }
  }

  /** Reads `item` on each of `instances` and judges every answer. */
  private async read(item: ModelItem, instances: readonly number[], send: Send): Promise<void> {
    for (const instance of instances) {
      const response = await send(instance, (t) => t.client.get(item.path));
      judged(response, judgeRead(item, response.status, representationOf(response.json, this.plan.collection)));
    }
  }

  /** Sends a create, replace or delete, judges its answer and updates the model; the item written, when the write was answered 2xx. */
  private async write(step: Extract<Step, { then: Then }>, model: StateModel, world: StateWorld, send: Send): Promise<ModelItem | undefined> {
    const { collection } = this.plan;
    if (step.kind === 'create') {
      const body = fillTemplate(collection.create);
      const key = step.keyed ? freshKey() : undefined;
      const response = await send(step.instance, (t) => t.client.post(collection.path, body, key === undefined ? undefined : keyed(key)));
      if (!succeeded(response)) return undefined;
      const created = (world.targets[0] as Target).createdPath(response, collection);
      if (created.path === undefined) return undefined;
      const item: ModelItem = {
        path: created.path,
        ...(created.id !== undefined ? { id: created.id } : {}),
        sent: unwrapped(body, collection),
        answered: representationOf(response.json, collection),
        live: true,
        lastWrite: key === undefined ? 'POST' : 'keyed POST',
        createdAt: Date.now(),
        ...(key !== undefined ? { stored: { key, body, status: response.status, json: response.json } } : {}),
      };
      model.items.push(item);
      return item;
    }
    const item = itemAt(model, step.pick, undefined, step.kind === 'delete') as ModelItem;
    if (step.kind === 'replace') {
      const body = fillTemplate(collection.replace ?? {});
      const response = await send(step.instance, (t) => t.client.put(item.path, body));
      judged(response, judgeItemWrite(item, response.status));
      if (!succeeded(response)) return undefined;
      // A 2xx PUT to a deleted item created it again (D-STATE-MODEL: STATUS-PUT-NO-CREATE is judged by its own check).
      if (!item.live) {
        Object.assign(item, { live: true, createdAt: Date.now() });
        delete item.deletedAt;
      }
      item.lastWrite = 'PUT';
      item.sent = unwrapped(body, collection);
      item.answered = representationOf(response.json, collection);
      return item;
    }
    const response = await send(step.instance, (t) => t.client.delete(item.path));
    judged(response, judgeItemWrite(item, response.status));
    if (!succeeded(response)) return undefined;
    if (item.live) Object.assign(item, { live: false, lastWrite: 'DELETE', deletedAt: Date.now() });
    return item;
  }

  /** Reads the listing on one instance (`target`), following `next` for at most LISTING_PAGES pages, and judges it. */
  private async listOn(target: Target, model: StateModel, send: (call: (target: Target) => Promise<HttpResponse>) => Promise<HttpResponse>): Promise<void> {
    const { collection } = this.plan;
    const listed: string[] = [];
    const { newestFirst } = this.plan;
    let next: string | undefined = newestFirst ? `${collection.path}${collection.path.includes('?') ? '&' : '?'}${newestFirst}` : collection.path;
    let last: HttpResponse | undefined;
    let complete = false;
    for (let page = 0; next !== undefined && page < LISTING_PAGES; page += 1) {
      const path: string = next;
      const response = await send((t) => t.client.get(path));
      last = response;
      const items = response.status === 200 ? listedItems(response.json, collection) : undefined;
      // A listing that is no 200 page is the listing checks' to judge, not the model's.
      if (items === undefined) return;
      for (const item of items) {
        const id = listedIdOf(item, collection);
        if (id !== undefined) listed.push(String(id));
      }
      const link = linkOf(response.json, 'next');
      next = link ? target.pathOf(link.href) : undefined;
      // Newest first, the pages after the sequence's first item hold only older items: nothing left to judge.
      const first = model.items[0]?.id;
      if (newestFirst !== undefined && first !== undefined && listed.includes(String(first))) break;
      // The listing is whole when it says so: its last page announces a total no larger than what was read, or a
      // chain of `next` links ended. A single page without either (a bare array cut at its limit) may be a part.
      const total = announcedTotal(response.json);
      complete = next === undefined && ((total !== undefined && total <= listed.length) || page > 0);
    }
    // A listing longer than the pages followed is judged no more, unless it is asked newest first (a deleted item on the pages read still breaks it).
    if (next !== undefined && newestFirst === undefined) model.spent.longListings.add(collection.name);
    if (last) {
      const broken = judgeListing(model, { listed, complete, newestFirst: newestFirst !== undefined }, this.plan.lagMs, Date.now());
      if (broken) throw new StateViolation(broken, last);
    }
  }

  toString(): string {
    const { step } = this;
    const on = `@${'on' in step ? step.on : step.instance}`;
    const then = 'then' in step && step.then !== 'none' ? ` then read ${step.then}` : '';
    const what = step.kind === 'create' ? `create${step.keyed ? ' (keyed)' : ''}` : step.kind === 'list' ? 'list' : `${step.kind} #${step.pick}`;
    return `${what} ${on}${then}`;
  }
}

/**
 * How likely a sequence works on `plan`'s collection among the others: one, and one more for each kind of
 * change it can make besides creating (delete, keyed creates; two for replace, which changes an item that stays),
 * since changes are where state goes wrong.
 */
export function planWeight(plan: StatePlan): number {
  return 1 + 2 * Number(plan.replace) + Number(plan.remove) + Number(plan.keyed);
}

/**
 * The item every sequence starts from: created by the valid caller through the first instance, with a key
 * where the collection honours one, so the commands drawn after it always have an item to work on.
 */
export async function seedItem(plan: StatePlan, model: StateModel, world: StateWorld): Promise<void> {
  await new StateCommand({ kind: 'create', instance: 0, keyed: plan.keyed, then: 'none' }, plan).run(model, world);
}

/** The commands one sequence on `plan` draws from, over `instances` instances: replace twice as likely as each other command. */
export function stateCommands(plan: StatePlan, instances: number): fc.Arbitrary<fc.AsyncCommand<StateModel, StateWorld>>[] {
  const instance = fc.nat({ max: Math.max(0, instances - 1) });
  // A read or listing on one instance, or on every one: a failure shrinks toward the first instance.
  const indices = Array.from({ length: instances }, (_, i) => i);
  const on: fc.Arbitrary<number | 'every'> = fc.constantFrom<number | 'every'>(...indices, ...(instances > 1 ? (['every'] as const) : []));
  // One read after a write, here or on the next instance (a read on every instance is a command of its own).
  const then: fc.Arbitrary<Then> = fc.constantFrom<Then>('none', 'here', ...(instances > 1 ? (['other'] as const) : []));
  // Most commands work on the sequence's first item, so a few commands meet on one item; the others pick any.
  const pick = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.nat({ max: 7 }) });
  const steps: fc.Arbitrary<Step>[] = [
    fc.record({ kind: fc.constant('create' as const), instance, keyed: plan.keyed ? fc.boolean() : fc.constant(false), then }),
    fc.record({ kind: fc.constant('read' as const), on, pick }),
    ...(plan.list ? [fc.record({ kind: fc.constant('list' as const), on })] : []),
    ...(plan.keyed ? [fc.record({ kind: fc.constant('replay' as const), instance, pick })] : []),
    // Two replaces: a lost write shows between two of them.
    ...(plan.replace ? [fc.record({ kind: fc.constant('replace' as const), instance, pick, then })] : []),
    ...(plan.replace ? [fc.record({ kind: fc.constant('replace' as const), instance, pick, then })] : []),
    ...(plan.remove ? [fc.record({ kind: fc.constant('delete' as const), instance, pick, then })] : []),
    ...(plan.owned ? [fc.record({ kind: fc.constant('other-read' as const), instance, pick })] : []),
  ];
  return steps.map((arbitrary) => arbitrary.map((step) => new StateCommand(step, plan)));
}
