/**
 * The Store port in memory, for the fast unit tier: the same observable
 * semantics as the DynamoDB adapter (conditions read the item as it was
 * before the write, ADD starts a missing number at 0, updates create the
 * item, transactions are all or nothing and name the operations whose
 * condition failed, sparse indexes, sort keys compared as UTF-8 bytes,
 * opaque cursors), checked by running the store's contract tests against
 * both (test/integration/store.test.ts). It also counts its requests.
 */
import { ConditionFailedError, TransactionFailedError, ValidationError } from '../errors.ts';
import type { Condition, Item, Key, Page, Query, Store, TransactOp, Update } from './store.ts';

const id = (k: Key) => `${k.pk}\u0000${k.sk}`;
const copy = <T>(v: T): T => structuredClone(v);

/** DynamoDB compares strings by their UTF-8 bytes, numbers by value; other pairs do not compare. */
function compare(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  return undefined;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A condition on the item as stored (undefined when absent), as the adapter's expressions read it. */
export function holds(c: Condition, item: Item | undefined): boolean {
  if ('itemExists' in c) return c.itemExists === (item !== undefined);
  if ('and' in c) return c.and.every((x) => holds(x, item));
  if ('or' in c) return c.or.some((x) => holds(x, item));
  const value = item?.[c.attr];
  if ('exists' in c) return c.exists === (value !== undefined);
  // A missing attribute equals nothing and orders against nothing, so only `<>` holds (DynamoDB's rule).
  if (value === undefined) return c.op === '<>';
  if (c.op === '=') return equal(value, c.value);
  if (c.op === '<>') return !equal(value, c.value);
  const order = compare(value, c.value);
  if (order === undefined) return false;
  return c.op === '<' ? order < 0 : c.op === '<=' ? order <= 0 : c.op === '>' ? order > 0 : order >= 0;
}

/** `removeUndefinedValues`: an undefined attribute is not stored. */
function clean(item: Record<string, unknown>): Item {
  return Object.fromEntries(Object.entries(copy(item)).filter(([, v]) => v !== undefined)) as Item;
}

function applyUpdate(key: Key, before: Item | undefined, u: Update): Item {
  const after: Item = before ? copy(before) : { pk: key.pk, sk: key.sk };
  for (const [k, v] of Object.entries(u.set ?? {})) if (v !== undefined) after[k] = copy(v);
  for (const [k, n] of Object.entries(u.add ?? {})) {
    const current = after[k] ?? 0;
    if (typeof current !== 'number') throw new ValidationError(`ADD on ${k}, which is not a number.`);
    after[k] = current + n;
  }
  for (const k of u.remove ?? []) delete after[k];
  return after;
}

const encodeCursor = (key: Record<string, unknown>) => Buffer.from(JSON.stringify(key)).toString('base64url');
function decodeCursor(cursor: string): Record<string, unknown> {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (key && typeof key === 'object' && !Array.isArray(key)) return key;
  } catch {
    /* fall through */
  }
  throw new ValidationError('cursor is not one this service gave out: start again without it.');
}

export class MemoryStore implements Store {
  private readonly items = new Map<string, Item>();
  /** Requests made, by method (a transaction or a batch counts once). */
  readonly requests: Record<string, number> = {};

  private count_(method: string): void {
    this.requests[method] = (this.requests[method] ?? 0) + 1;
  }

  /** Forgets the request counts (not the items). */
  resetCounts(): void {
    for (const k of Object.keys(this.requests)) delete this.requests[k];
  }

  async get(key: Key): Promise<Item | undefined> {
    this.count_('get');
    const item = this.items.get(id(key));
    return item && copy(item);
  }

  async put(item: Item, opts: { if?: Condition } = {}): Promise<void> {
    this.count_('put');
    if (opts.if && !holds(opts.if, this.items.get(id(item)))) throw new ConditionFailedError();
    this.items.set(id(item), clean(item));
  }

  async update(key: Key, change: Update): Promise<Item> {
    this.count_('update');
    const before = this.items.get(id(key));
    if (change.if && !holds(change.if, before)) throw new ConditionFailedError();
    const after = applyUpdate(key, before, change);
    this.items.set(id(key), after);
    return copy(after);
  }

  async delete(key: Key, opts: { if?: Condition } = {}): Promise<Item | undefined> {
    this.count_('delete');
    const before = this.items.get(id(key));
    if (opts.if && !holds(opts.if, before)) throw new ConditionFailedError();
    this.items.delete(id(key));
    return before && copy(before);
  }

  /** The items a query's key condition selects, in sort-key order (ties by table key, as a stable stand-in for DynamoDB's). */
  private select(q: Omit<Query, 'limit' | 'cursor'>): Item[] {
    const pkAttr = q.index ? `${q.index}pk` : 'pk';
    const skAttr = q.index ? `${q.index}sk` : 'sk';
    const out = [...this.items.values()].filter((item) => {
      const sk = item[skAttr];
      // A sparse index holds only items that carry both of its key attributes, as strings.
      if (item[pkAttr] !== q.pk || typeof sk !== 'string') return false;
      if (q.skBeginsWith !== undefined && !sk.startsWith(q.skBeginsWith)) return false;
      if (q.skBetween && (compare(sk, q.skBetween[0])! < 0 || compare(sk, q.skBetween[1])! > 0)) return false;
      return true;
    });
    out.sort((a, b) => compare(a[skAttr], b[skAttr]) || compare(id(a), id(b))!);
    return q.reverse ? out.reverse() : out;
  }

  async query(q: Query): Promise<Page> {
    this.count_('query');
    const skAttr = q.index ? `${q.index}sk` : 'sk';
    const position = (i: Item) => [i[skAttr] as string, id(i)] as const;
    let items = this.select(q);
    if (q.cursor) {
      // Like ExclusiveStartKey: the page goes on after the cursor's place in the order, even if that item is gone.
      const after = decodeCursor(q.cursor);
      const at = [String(after.s), id({ pk: String(after.pk), sk: String(after.sk) })] as const;
      const beyond = (i: Item) => {
        const [s, k] = position(i);
        const order = compare(s, at[0]) || compare(k, at[1])!;
        return q.reverse ? order < 0 : order > 0;
      };
      items = items.filter(beyond);
    }
    if (q.limit !== undefined && items.length > q.limit) {
      const page = items.slice(0, q.limit);
      const last = page[page.length - 1]!;
      return { items: copy(page), cursor: encodeCursor({ pk: last.pk, sk: last.sk, s: last[skAttr] }) };
    }
    return { items: copy(items) };
  }

  async count(q: Omit<Query, 'limit' | 'cursor'>): Promise<number> {
    this.count_('count');
    return this.select(q).length;
  }

  async transact(ops: TransactOp[]): Promise<void> {
    this.count_('transact');
    const keyOf = (op: TransactOp): Key => ('put' in op ? op.put : 'update' in op ? op.update : 'delete' in op ? op.delete : op.check);
    const seen = new Set<string>();
    for (const op of ops) {
      const k = id(keyOf(op));
      // DynamoDB refuses a transaction that touches one item twice (a ValidationException, not a condition).
      if (seen.has(k)) throw new Error('Transaction request cannot include multiple operations on one item.');
      seen.add(k);
    }
    const conditionOf = (op: TransactOp) => ('update' in op ? op.change.if : op.if);
    const failed = ops.flatMap((op, i) => {
      const c = conditionOf(op);
      return c && !holds(c, this.items.get(id(keyOf(op)))) ? [i] : [];
    });
    if (failed.length) throw new TransactionFailedError(failed);
    for (const op of ops) {
      if ('put' in op) this.items.set(id(op.put), clean(op.put));
      else if ('update' in op) this.items.set(id(op.update), applyUpdate(op.update, this.items.get(id(op.update)), op.change));
      else if ('delete' in op) this.items.delete(id(op.delete));
    }
  }

  async batchGet(keys: Key[]): Promise<Item[]> {
    this.count_('batchGet');
    const unique = new Map(keys.map((k) => [id(k), k]));
    return [...unique.keys()].flatMap((k) => {
      const item = this.items.get(k);
      return item ? [copy(item)] : [];
    });
  }

  async batchPut(items: Item[]): Promise<void> {
    this.count_('batchPut');
    for (const item of items) this.items.set(id(item), clean(item));
  }
}
