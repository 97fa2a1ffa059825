/**
 * Store port: one table, single-table design. Core owns every key (see the
 * `keys.ts` of each noun) and says what it needs in this small vocabulary;
 * the adapter (packages/aws/src/dynamo-store.ts) turns it into DynamoDB
 * expressions and turns SDK exceptions into core errors. Core never sees a
 * DynamoDB type, and no request or send path scans.
 */
export interface Key {
  pk: string;
  sk: string;
}

export type Item = Key & Record<string, unknown>;

/** Global secondary indexes, named after the access patterns they serve (docs/data-model.md). */
export type IndexName = 'gsi1' | 'gsi2' | 'gsi3' | 'gsi4';

/** The table's own attributes (the key and the index keys, which each noun's keys.ts sets): never part of what core shows. */
export type StorageAttribute = 'pk' | 'sk' | `gsi${number}${'pk' | 'sk'}`;
export const isStorageAttribute = (name: string): boolean => name === 'pk' || name === 'sk' || /^gsi\d(pk|sk)$/.test(name);

export type Comparison = '=' | '<>' | '<' | '<=' | '>' | '>=';

/** A condition on the item as it is stored before the write. */
export type Condition =
  | { itemExists: boolean }
  | { attr: string; exists: boolean }
  | { attr: string; op: Comparison; value: unknown }
  | { and: Condition[] }
  | { or: Condition[] };

export interface Update {
  set?: Record<string, unknown>;
  /** Atomic counters: `ADD attr n`. Missing attributes start at 0. */
  add?: Record<string, number>;
  remove?: string[];
  if?: Condition;
}

export interface Query {
  index?: IndexName;
  /** The partition key value (of the table, or of `index`). */
  pk: string;
  skBeginsWith?: string;
  skBetween?: [string, string];
  limit?: number;
  /** Opaque, from a previous page's `cursor`. */
  cursor?: string;
  /** Newest first, when sort keys sort by time. */
  reverse?: boolean;
}

/**
 * Which index and partition an access pattern reads. The keys module of each
 * entity names its patterns (`allMailboxes()`, `dueJobs()`) and is the only
 * place that picks an index; callers add the range, limit and cursor.
 */
export type IndexQuery = Pick<Query, 'index' | 'pk'>;

export interface Page {
  items: Item[];
  cursor?: string;
}

export type TransactOp =
  { put: Item; if?: Condition } | { update: Key; change: Update } | { delete: Key; if?: Condition } | { check: Key; if: Condition };

export interface Store {
  get(key: Key, opts?: { consistent?: boolean }): Promise<Item | undefined>;
  /** Throws ConditionFailedError when `if` does not hold. */
  put(item: Item, opts?: { if?: Condition }): Promise<void>;
  /** Returns the item as it is after the update. Throws ConditionFailedError. */
  update(key: Key, change: Update): Promise<Item>;
  /** Returns the deleted item, if there was one. Throws ConditionFailedError. */
  delete(key: Key, opts?: { if?: Condition }): Promise<Item | undefined>;
  query(q: Query): Promise<Page>;
  /** How many items a query matches, without reading them out (DynamoDB Select COUNT). */
  count(q: Omit<Query, 'limit' | 'cursor'>): Promise<number>;
  /**
   * All or nothing. Throws TransactionFailedError naming which operations'
   * conditions failed, so callers can say which rule was broken.
   */
  transact(ops: TransactOp[]): Promise<void>;
  /** Many gets at once (any number; the adapter splits them). Missing items are absent from the answer. */
  batchGet(keys: Key[]): Promise<Item[]>;
  /** Unconditional puts in batches; for bulk ingest that checked its rules first. */
  batchPut(items: Item[]): Promise<void>;
}
